"""The policy reference (`reference/policies.md`), generated from the policy registry's catalogue
(`pathlab.policies()`, the same data `pathlab policies` prints) when the site builds."""

from __future__ import annotations

from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

import pathlab

PAGE = "reference/policies.md"


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ") or " "


def render(catalog: list[dict[str, Any]]) -> str:
    out = [
        "# Policies",
        "",
        "Every path selection policy pathlab implements, as its registry lists it (`pathlab policies`",
        "prints the same). A scenario's `[policy]` table, or a device's `policy`, names one with",
        '`name` and gives any of its parameters: `policy = { name = "VMW_PSP_RR", type = "iops", iops = 1 }`.',
        "A parameter left out takes the default below, or on a Linux host the value of its claim",
        "tables ([Linux claim tables](../linux-claim-tables.md)).",
        "",
        "| policy | stack |",
        "|---|---|",
    ]
    out += [f"| [`{p['name']}`](#{p['name'].lower()}) | {_cell(p['stack'])} |" for p in catalog]
    out.append("")
    for policy in catalog:
        out += [f"## {policy['name']}", "", f"*{policy['stack']}*. {policy['summary']}", ""]
        if not policy["params"]:
            out += ["No parameters.", ""]
            continue
        out += ["| parameter | default | allowed | meaning |", "|---|---|---|---|"]
        for param in policy["params"]:
            allowed = [*param["choices"], *([param["range"]] if param["range"] else [])]
            out.append(
                f"| `{param['name']}` | {_cell(param['default'])} | {_cell(', '.join(allowed) or 'text')} | {_cell(param['help'])} |"
            )
        out.append("")
    return "\n".join(out)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """The mkdocs hook: the page joins the site's files before pages are read."""
    files.append(File.generated(config, PAGE, content=render(pathlab.policies())))
    return files
