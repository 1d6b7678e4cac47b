"""The one helper that prints times in seconds for the output's tables (`output/seconds.py`): each
table's precision and suffix, as they printed before the helper replaced their own formatters."""

from __future__ import annotations

from pathlab.output.application import duration, fault_name
from pathlab.output.seconds import FIGURES, seconds, window


def test_each_tables_precision_and_suffix() -> None:
    assert seconds(1.23456, suffix="") == "1.235"  # the failover study's cells: the unit is in the heading
    assert seconds(None, "not by the end", suffix="") == "not by the end"
    assert seconds(0.5) == "0.500 s"  # what the application saw
    assert seconds(None) == "—"
    assert [seconds(v, precision=FIGURES) for v in (0.01234, 9.994, 9.9996, 12.34)] == [
        "0.0123 s", "9.99 s", "10 s", "12.3 s"]  # the cluster's failure table: 3 figures under 10 s
    assert (duration(2.5), duration(0.0125)) == ("2.500 s", "12.500 ms")


def test_a_faults_window() -> None:
    assert (window(5, None), window(5, 10.5)) == ("at 5 s", "5-10.5 s")
    assert fault_name({"kind": "path_down", "target": "vmhba1:C0:T0:L1", "start_s": 2.0, "end_s": 4.0}) == (
        "path down vmhba1:C0:T0:L1 2-4 s")
