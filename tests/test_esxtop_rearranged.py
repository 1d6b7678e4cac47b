"""An esxtop batch capture rearranged after esxtop wrote it (issue 32 item 5): transposed by a
spreadsheet (the form admins post when 10,000 columns will not fit: counters down the first
column, one sample per column) or its header split over lines by a paste. Neither is read: a
spreadsheet rewrites esxtop's times and figures (locale dates, rounded numbers), and a split
header cannot be told from the samples; each is refused in one line naming the file as
esxtop -b writes it."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from pathlab.api import ScenarioError
from pathlab.readers import esxtop

SAMPLE = Path(__file__).parent / "data/esxtop/esxtop-batch_rach-sharp-esxtopd_small-esxtop-data.csv"
ALLOWED = "give the file `esxtop -b` wrote as it wrote it (the counters across its first line, one sample per line)"


def _rows() -> list[list[str]]:
    return list(csv.reader(io.StringIO(SAMPLE.read_text(encoding="utf-8-sig"))))


def _written(tmp_path: Path, rows: list[list[str]]) -> Path:
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    path = tmp_path / "esxtop.csv"
    path.write_text(out.getvalue())
    return path


def test_a_transposed_capture_is_refused_at_its_first_counter_line(tmp_path: Path) -> None:
    rows = _rows()
    transposed = [list(column) for column in zip(*rows, strict=True)]
    assert transposed[0][0] == "(PDH-CSV 4.0) (UTC)(0)" and transposed[0][1] == "04/26/2018 14:06:27"
    with pytest.raises(ScenarioError) as refused:
        esxtop.read(_written(tmp_path, transposed))
    assert refused.value.args == (str(tmp_path / "esxtop.csv"), "line 2", "the esxtop capture is transposed (the "
                                  "counters down the first column, one sample per column, as a spreadsheet's transpose "
                                  f"writes it: its times and figures are the spreadsheet's, not esxtop's): {ALLOWED}")


@pytest.mark.parametrize("cut", [5, 7000], ids=["before-the-disk-counters", "among-the-disk-counters"])
def test_a_header_split_over_two_lines_is_refused_where_it_continues(tmp_path: Path, cut: int) -> None:
    header, *samples = _rows()
    with pytest.raises(ScenarioError) as refused:
        esxtop.read(_written(tmp_path, [header[:cut], header[cut:], *samples]))
    assert refused.value.args == (str(tmp_path / "esxtop.csv"), "line 2", "the esxtop capture is split: its header "
                                  f"continues on this line (wrapped or cut when pasted): {ALLOWED}")
