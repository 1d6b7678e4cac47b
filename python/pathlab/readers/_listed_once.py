"""A listing pasted twice (issue 33's rule: two captures of one host, or a host whose files
disagree, are refused naming both). A device or path is listed once by the host; listed again
with every value the same (the command's output pasted twice), it is read once and that is said;
listed again with a value that differs (the command run before and after a change, or two hosts'
listings in one file), which is the host now is not in the file: refused naming both lines."""

from __future__ import annotations

from typing import Any

from pathlab.api import ScenarioError, warn


def _values(row: dict[str, Any]) -> dict[str, Any]:
    """What a row says of the host: its values, not where in the file they are (nor where its
    rows', as a PowerPath device's paths)."""
    return {k: [_values(v) if isinstance(v, dict) else v for v in value] if isinstance(value, list) else value
            for k, value in row.items() if k != "line" and not k.endswith("_line")}


def listed_once(rows: list[dict[str, Any]], key: str, name: str, what: str) -> list[dict[str, Any]]:
    """`rows` (each with its `line`) with one row per `key` value: a repeat with the same values
    left out (said); one with other values refused. `name`: the file; `what`: the listing's
    command, for the message."""
    first: dict[Any, dict[str, Any]] = {}
    once = []
    for row in rows:
        seen = first.setdefault(row[key], row)
        if seen is row:
            once.append(row)
        elif (was := _values(seen)) == (now := _values(row)):
            warn(name, f"line {row['line']}", f"{row[key]} is listed again, the same as at line {seen['line']}: read "
                                              f"once (the `{what}` output pasted twice?)")
        else:
            differ = sorted(k for k in was.keys() | now.keys() if was.get(k) != now.get(k))
            raise ScenarioError(name, f"line {row['line']}", f"{row[key]} is listed a second time, differently from "
                                f"line {seen['line']} ({', '.join(differ)}): a host lists each once (two runs of `{what}`, "
                                "or two hosts' listings, in one file?); give one")
    return once
