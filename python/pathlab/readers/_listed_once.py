"""A listing pasted twice (issue 33's rule: two captures of one host, or a host whose files
disagree, are refused naming both). A device or path is listed once by the host; listed again
with every value the same (the command's output pasted twice), it is read once and that is said;
listed again with a setting that differs (the command run before and after a change, or two
hosts' listings in one file), which is the host now is not in the file: refused naming both
lines. What a listing prints of its moment rather than of the host's settings (round robin's
`lastPathIndex` and pending I/Os, the current path: `moment`) moves between two runs with no
change made: where only that differs, the later listing is taken, as the host stood last, and
that is said."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pathlab.api import ScenarioError, warn

#: Per field whose value holds the moment's state, what is left of it that is a setting.
Moment = Mapping[str, Callable[[Any], Any]]


def _values(row: dict[str, Any], moment: Moment | None = None) -> dict[str, Any]:
    """What a row says of the host: its values, not where in the file they are (nor where its
    rows', as a PowerPath device's paths); with `moment`, its settings alone."""
    held = {k: [_values(v) if isinstance(v, dict) else v for v in value] if isinstance(value, list) else value
            for k, value in row.items() if k != "line" and not k.endswith("_line")}
    for k, setting in (moment or {}).items():
        if k in held:
            held[k] = setting(held[k])
    return held


def listed_once(rows: list[dict[str, Any]], key: str, name: str, what: str,
                moment: Moment | None = None) -> list[dict[str, Any]]:
    """`rows` (each with its `line`) with one row per `key` value: a repeat with the same values
    left out, one whose `moment` alone differs taken for the first, both said; one with another
    setting refused. `name`: the file; `what`: the listing's command, for the message."""
    first: dict[Any, dict[str, Any]] = {}
    kept: dict[Any, dict[str, Any]] = {}
    for row in rows:
        seen = first.setdefault(row[key], row)
        if seen is row:
            kept[row[key]] = row
        elif (was := _values(seen)) == (now := _values(row)):
            warn(name, f"line {row['line']}", f"{row[key]} is listed again, the same as at line {seen['line']}: read "
                                              f"once (the `{what}` output pasted twice?)")
        elif _values(seen, moment) == _values(row, moment):
            moved = sorted(k for k in was.keys() | now.keys() if was.get(k) != now.get(k))
            kept[row[key]] = row
            warn(name, f"line {row['line']}", f"{row[key]} is listed again, with the settings of line {seen['line']} "
                                              f"and another moment's {', '.join(moved)}: the later listing is taken "
                                              f"(two runs of `{what}`?)")
        else:
            was, now = _values(seen, moment), _values(row, moment)
            differ = sorted(k for k in was.keys() | now.keys() if was.get(k) != now.get(k))
            raise ScenarioError(name, f"line {row['line']}", f"{row[key]} is listed a second time, differently from "
                                f"line {seen['line']} ({', '.join(differ)}): a host lists each once (two runs of `{what}`, "
                                "or two hosts' listings, in one file?); give one")
    return list(kept.values())
