"""A table under a header line as esxcli (and nvme-cli) print it: a line of dashes under the
header's columns, dropped when the output went through grep, then one row per line, with no line
of dashes among the rows. The readers of such tables (`esxcli_satp_rules`, `esxcli_iscsi_params`)
find their header and read their cells each its own way; the rows under the header are taken
here, by one rule."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pathlab.api import ScenarioError

#: A line of dashes under a table's header: one run of dashes per column.
DASHES = re.compile(r"^\s*-+(?:\s+-+)*\s*$")


def rows_under(name: str, header: int, after: Sequence[tuple[int, str]], what: str) -> list[tuple[int, str]]:
    """The table's rows (line number, text) from `after`, the lines that follow its header on
    line `header`: the line of dashes dropped; refused in one line where no row follows (`what`
    names a row: "rule") or a line of dashes stands among the rows."""
    body = list(after[1:] if after and DASHES.match(after[0][1]) else after)
    if not body:
        raise ScenarioError(name, f"line {header}", f"a table header but no {what} under it")
    for number, text in body:
        if DASHES.match(text):
            raise ScenarioError(name, f"line {number}", "a line of dashes inside the table")
    return body
