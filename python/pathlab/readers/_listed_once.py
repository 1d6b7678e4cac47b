"""A listing pasted twice (issue 33's rule: two captures of one host, or a host whose files
disagree, are refused naming both). A device or path is listed once by the host; listed again,
what the two listings say of the host's settings and topology (what an admin sets, and what names
the object: each reader's `SETTINGS`, with its source) is compared:
- every value the same (the command's output pasted twice): read once, and that is said;
- the settings and topology the same, something else moved (states, current paths, counters,
  pending I/Os: what a busy host prints of its moment, two runs a moment apart): the later
  listing is taken, as the host stood last, naming what moved, and that is said;
- a setting or the topology differs (the command run before and after a change, or two hosts'
  listings in one file): which is the host now is not in the file: refused naming both lines and
  the fields.
A third run is compared with the listing kept (the second), not the first: the last taken is the
last printed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pathlab.api import ScenarioError, warn

#: A listing's settings and topology: each field's name, with what of its value is a setting
#: (None: all of it; `NOT_PRINTED` where the listing printed a placeholder), as each reader names
#: them next to its columns.
Settings = Mapping[str, Callable[[Any], Any] | None]


class _NotPrinted:
    """A setting or name the listing did not print this time (a dead path's target, printed
    `unknown`): it agrees with whatever the other run printed."""

    def __repr__(self) -> str:
        return "not printed"


NOT_PRINTED = _NotPrinted()


def _values(row: dict[str, Any]) -> dict[str, Any]:
    """What a row says of the host: its values, not where in the file they are (nor where its
    rows', as a PowerPath device's paths)."""
    return {k: [_values(v) if isinstance(v, dict) else v for v in value] if isinstance(value, list) else value
            for k, value in row.items() if k != "line" and not k.endswith("_line")}


def _settings(row: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """What a row says of the host's settings and topology alone."""
    return {k: row.get(k) if part is None or row.get(k) is None else part(row[k]) for k, part in settings.items()}


def _differing(was: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The fields whose values differ, where neither run left the value unprinted."""
    return sorted(k for k in was.keys() | now.keys()
                  if was.get(k) != now.get(k) and NOT_PRINTED not in (was.get(k), now.get(k)))


def _differ(was: dict[str, Any], now: dict[str, Any]) -> str:
    return ", ".join(_differing(was, now))


def listed_once(rows: list[dict[str, Any]], key: str, name: str, what: str,
                settings: Settings) -> list[dict[str, Any]]:
    """`rows` (each with its `line`) with one row per `key` value, each repeat compared with the
    row kept: the same, left out; the same `settings` and other values moved, taken for it; both
    said; another setting, refused. `name`: the file; `what`: the listing's command."""
    kept: dict[Any, dict[str, Any]] = {}
    for row in rows:
        seen = kept.setdefault(row[key], row)
        if seen is row:
            continue
        if (was := _values(seen)) == (now := _values(row)):
            warn(name, f"line {row['line']}", f"{row[key]} is listed again, the same as at line {seen['line']}: read "
                                              f"once (the `{what}` output pasted twice?)")
        elif not _differing(set_was := _settings(seen, settings), set_now := _settings(row, settings)):
            kept[row[key]] = row
            warn(name, f"line {row['line']}", f"{row[key]} is listed again, with the settings and topology of line "
                                              f"{seen['line']} and another moment's {_differ(was, now)}: the later "
                                              f"listing is taken (`{what}` run again a moment later?)")
        else:
            raise ScenarioError(name, f"line {row['line']}", f"{row[key]} is listed a second time, differently from "
                                f"line {seen['line']} ({_differ(set_was, set_now)}): a host lists each once (two runs "
                                f"of `{what}` with a change between them, or two hosts' listings, in one file?); give one")
    return list(kept.values())
