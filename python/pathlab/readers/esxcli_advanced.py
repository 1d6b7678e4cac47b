"""`esxcli system settings advanced list -o /Misc/APDTimeout` (or `--option=/Disk/PathEvalTime`,
or the whole `advanced list`): one block of `Key: value` lines per option, `Path`, `Type`, `Int
Value`, `Default Int Value`, `Min Value`, `Max Value`, `String Value`, `Default String Value`,
`Valid Characters`, `Description` (the grammar of elatov's ESXi 6.0 listing of
`/Net/TcpipDefLROEnabled`, `tests/data/esxcli/README.md`; no real listing of the options read
here was found). `Misc.APDHandlingEnable` (`-o /Misc/APDHandlingEnable`) is a switch, 0 or 1.

Only the failure timers pathlab simulates are taken (`OPTIONS`); the blocks of other options are
counted and said on stderr. A timer must be a whole number within the block's own Min and Max
Value. Every error is one line naming the file and line."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pathlab.api import ScenarioError, warn
from pathlab.readers import pasted
from pathlab.readers._esxcli_text import KEY
from pathlab.readers._whole import is_whole

COMMAND = "esxcli system settings advanced list"
#: The options read, by their path: the name VMware's pages give them and the `[host.stack]` key.
OPTIONS = {"/Misc/APDTimeout": ("Misc.APDTimeout", "apd_timeout"),
           "/Misc/APDHandlingEnable": ("Misc.APDHandlingEnable", "apd_handling"),
           "/Disk/PathEvalTime": ("Disk.PathEvalTime", "path_eval_time")}
#: The options that are a switch (0 or 1), not a number of seconds.
SWITCHES = ("Misc.APDHandlingEnable",)

#: The keys of an option's block: a remark around the listing (`Here is the output:`, `Note: …`)
#: has a colon too, and is said, not read.
FIELDS = frozenset({"Path", "Type", "Int Value", "Default Int Value", "Min Value", "Max Value", "String Value",
                    "Default String Value", "Valid Characters", "Description"})


def _is_path(text: str) -> bool:
    key = KEY.match(text)
    return key is not None and key.group(1).strip() == "Path"


def _is_field(text: str) -> bool:
    key = KEY.match(text)
    return key is not None and key.group(1).strip() in FIELDS


@dataclass(frozen=True)
class Setting:
    """One option read: its name (`Misc.APDTimeout`), the `[host.stack]` key, its Int Value, the
    block's default, and the lines of its `Path` and `Int Value`."""

    name: str
    key: str
    value: int
    default: int | None
    low: int | None
    high: int | None
    path_line: int
    line: int


def read(path: str | Path) -> list[Setting]:
    name = str(path)
    blocks: list[dict[str, tuple[str, int]]] = []
    current: dict[str, tuple[str, int]] | None = None
    every = pasted.unwrapped(name, pasted.file_lines(path))

    def blanked() -> Iterator[pasted.Line]:
        """A prompt or command line ends a block as a blank line does (the remarks around the
        blocks, which `between_lines` says, are no lines of them)."""
        return (pasted.Line(line.number, "") if pasted.command_of(line.text) is not None else line for line in every())

    for line in pasted.between_lines(name, blanked, _is_path, _is_field, COMMAND)():
        key = KEY.match(line.text)
        if key is None:
            current = None  # a blank line (or a prompt, blanked) ends a block
            continue
        field, value = key.group(1).strip(), (key.group(2) or "").strip()
        if field == "Path" or current is None:
            current = {}
            blocks.append(current)
        if field in current:
            raise ScenarioError(name, f"line {line.number}", f"`{field}` a second time in one option's block (first at "
                                                             f"line {current[field][1]}): expected a `Path:` line first")
        current[field] = (value, line.number)
    if not blocks:
        raise ScenarioError(name, "line 1", f"no `Path: /Misc/APDTimeout` block: expected `{COMMAND} -o OPTION` output")
    out: list[Setting] = []
    others = 0
    for block in blocks:
        if "Path" not in block:
            first = min(n for _, n in block.values())
            raise ScenarioError(name, f"line {first}", f"`Key: value` lines without a `Path:` line above them: expected "
                                                       f"`{COMMAND}` blocks")
        option, path_line = block["Path"]
        if option not in OPTIONS:
            others += 1
            continue
        out.append(_setting(name, option, path_line, block))
    if others:
        warn(name, "Path", f"{others} option(s) other than {', '.join(OPTIONS)} skipped (not failure timers pathlab "
                           "simulates)")
    if not out:
        raise ScenarioError(name, "Path", f"none of {', '.join(OPTIONS)} in the listing")
    seen: dict[str, int] = {}
    for s in out:
        if s.name in seen:
            raise ScenarioError(name, f"line {s.path_line}", f"{s.name} a second time (first at line {seen[s.name]})")
        seen[s.name] = s.path_line
    return out


def _setting(name: str, option: str, path_line: int, block: dict[str, tuple[str, int]]) -> Setting:
    setting, key = OPTIONS[option]

    def number(field: str, required: bool = False) -> int | None:
        if field not in block:
            if required:
                raise ScenarioError(name, f"line {path_line}", f"{setting} has no `{field}:` line (is the file cut short?)")
            return None
        value, line = block[field]
        if not is_whole(value):
            what = "0 or 1" if setting in SWITCHES else "a whole number of seconds"
            raise ScenarioError(name, f"line {line}", f"{setting} `{field}`: expected {what}, found {value[:20]!r}")
        return int(value)

    value = number("Int Value", required=True)
    assert value is not None
    low, high = number("Min Value"), number("Max Value")
    line = block["Int Value"][1]
    if low is not None and high is not None and not low <= value <= high:
        raise ScenarioError(name, f"line {line}", f"{setting} Int Value {value} is outside the listing's own range "
                                                  f"{low} to {high}")
    return Setting(setting, key, value, number("Default Int Value"), low, high, path_line, line)
