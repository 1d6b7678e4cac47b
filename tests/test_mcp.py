"""`pathlab mcp` (issue 35 item 3): the tools through the MCP SDK's own client, in process: their
JSON schemas, advise on the shipped capture, a short run, and a path outside the allowed folders
refused in one line. Without the SDK, the verb says how to install it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK: pip install 'pathlab[mcp]'")

import anyio  # noqa: E402 - the SDK's own dependency, there when it is
from mcp import Client  # noqa: E402

from conftest import ROOT  # noqa: E402
from conftest import pathlab as command  # noqa: E402
from pathlab.agent.mcp_server import server  # noqa: E402


def _with_client(allow: list[Path], session: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(server(allow)) as client:
            return await session(client)

    return anyio.run(main)


def _call(allow: list[Path], tool: str, arguments: dict[str, Any]) -> Any:
    return _with_client(allow, lambda client: client.call_tool(tool, arguments))


def test_the_five_tools_are_listed_with_their_json_schemas() -> None:
    listed = _with_client([], lambda client: client.list_tools())
    tools = {t.name: t.input_schema for t in listed.tools}
    assert set(tools) == {"import_host", "advise", "run", "compare", "show"}
    advise = tools["advise"]
    assert advise["required"] == ["files"] and advise["properties"]["files"]["type"] == "array"
    assert advise["properties"]["objective"]["enum"] == ["balanced", "throughput", "latency"]
    assert advise["properties"]["seeds"] == {"default": 3, "title": "Seeds", "type": "integer"}
    assert tools["show"]["properties"]["what"]["enum"] == ["devices", "paths"]
    assert set(tools["run"]["required"]) == {"scenario"}
    assert all(t.description for t in listed.tools)


def test_advise_on_the_shipped_capture_recommends_iops_1() -> None:
    done = _call([], "advise", {"files": ["vmax-iops1000"], "seeds": 2, "duration": "1s", "warmup": "0.25s"})
    assert not done.is_error, done.content
    answer = done.structured_content
    assert answer["recommendation"]["to"] == "round robin, iops=1" and answer["recommendation"]["change"]
    chosen = next(c for c in answer["candidates"] if c["label"] == "round robin, iops=1")
    assert chosen["gain_range"][0] > 3 and chosen["commands"][0].startswith("esxcli storage nmp psp roundrobin")
    assert answer["recommendation_text"].startswith("Recommendation: round robin, iops=1")
    assert any("fabric.latency" in w for w in answer["warnings"])  # the assumed values, said to the agent
    json.dumps(answer)  # JSON-able as it stands


def test_run_on_a_shipped_scenario_gives_its_figures_without_the_interval_tables() -> None:
    done = _call([], "run", {"scenario": "c1-vmax-1lun", "variant": "iops1", "duration": "0.3s", "warmup": "0.1s"})
    assert not done.is_error, done.content
    answer = done.structured_content
    assert answer["variant"] == "iops1" and answer["duration_s"] == 0.3 and answer["summary"]["iops"] > 100_000
    assert len(answer["paths"]) == 8 and "path_intervals" not in answer and answer["warnings"] == []


def test_show_prints_the_paths_as_multipath_does() -> None:
    done = _call([], "show", {"what": "paths", "scenario": "c1-vmax-1lun", "style": "linux"})
    assert not done.is_error, done.content
    assert done.content[0].text.startswith("mpatha (360000970000197900123533030303031) dm-0 EMC,SYMMETRIX")


def test_a_path_outside_the_allowed_folders_is_refused_in_one_line(tmp_path: Path) -> None:
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    secret = outside / "host.toml"
    secret.write_text((ROOT / "scenarios" / "c1-vmax-1lun.toml").read_text())
    (allowed / "link.toml").symlink_to(secret)  # a link out of the folder is outside it
    for tool, arguments in (("run", {"scenario": str(allowed / "link.toml")}),
                            ("advise", {"files": [str(secret)]}), ("import_host", {"files": [str(outside)]})):
        done = _call([allowed], tool, arguments)
        assert done.is_error, (tool, done.content)
        (said,) = done.content
        assert said.text.endswith(f"outside the folders this server may read ({allowed}); the server's --allow names "
                                  "them (shipped scenarios and captures are allowed by name)") and "\n" not in said.text
    # A folder under the allowed one whose file links out, and names that climb out of the shipped
    # captures' folder: each file the import would read is checked, not only the names given.
    linked = allowed / "captures"
    linked.mkdir()
    (linked / "multipath.txt").symlink_to(secret)
    for files in ([str(linked)], [".."], ["."]):
        done = _call([allowed], "import_host", {"files": files})
        assert done.is_error, (files, done.content)
        assert "outside the folders this server may read" in done.content[0].text, (files, done.content)
    inside = allowed / "c1.toml"
    inside.write_text(secret.read_text())
    done = _call([allowed], "show", {"what": "devices", "scenario": str(inside)})
    assert not done.is_error and "naa.60000970000197900123533030303031" in done.content[0].text


def test_bad_input_is_the_one_line_the_command_line_gives() -> None:
    done = _call([], "run", {"scenario": "c1-vmax-1lun", "set": ["policy.iops=0"]})
    line = command("run", "c1-vmax-1lun", "--set", "policy.iops=0").stderr.strip().removeprefix("pathlab: error: ")
    assert done.is_error and done.content[0].text == f"Error executing tool run: {line}"
    assert line.endswith("c1-vmax-1lun.toml: policy.iops: 0 is out of range: allowed 1 to 2147483647")


def test_without_the_sdk_the_verb_says_how_to_install_it() -> None:
    probe = "import sys; sys.modules['mcp'] = None; from pathlab.cli import main; main(['mcp'])"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr == "pathlab: error: mcp: the MCP SDK is not installed: " \
                                                   "pip install 'pathlab[mcp]'\n"


def test_run_and_show_answer_with_the_warnings_the_command_line_prints() -> None:
    # congested-path's congestion starts at 20 s: a 0.3 s run never reaches it, and the CLI says so.
    done = _call([], "run", {"scenario": "congested-path", "duration": "0.3s", "warmup": "0.1s"})
    assert not done.is_error, done.content
    assert any("it never happens" in w for w in done.structured_content["warnings"]), done.structured_content["warnings"]
    shown = _call([], "show", {"what": "devices", "scenario": "c1-vmax-1lun", "style": "nvme"})
    assert not shown.is_error and shown.content[0].text == (
        "pathlab: warning: no device is a native NVMe multipath head (policy nvme or nvme-latency): nvme list-subsys "
        "lists nothing\n")
