"""What a `multipath -ll` listing shows without counters, against the verdicts written by hand in
the corpus: a map with no usable path is found (and whether its I/O waits), `multipath -l` is
said to show no state, a failover grouping over equal paths is found, and a healthy listing gets
no finding of trouble. (A healthy verdict may still get "every path through one HBA": sample
multipath-ll/026 shows four paths all through SCSI host 11, which the hand verdict let pass.)"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from pathlab.api import PathlabWarning, ScenarioError
from pathlab.importer.capture_findings import multipath_findings
from pathlab.importer.listing_findings import listing_findings
from pathlab.readers import multipath_ll
from test_corpus_layout import expected, sample_id, samples

LINUX = Path(__file__).parent / "data" / "linux"
TROUBLE = ("no usable path", "runs on one path", "failover grouping")


def _titles(listing: Path) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PathlabWarning)
        tables = multipath_ll.read(listing)
    return [f.title for f in listing_findings(tables["maps"], tables["paths"], str(listing))
            + multipath_findings(tables["paths"], str(listing))]


def _readable() -> list[Path]:
    out = []
    for s in samples():
        if s.parent.name not in ("multipath-ll", "multipath-l"):
            continue
        try:
            _titles(s / "bare.txt")
        except ScenarioError:  # refused with one line: test_corpus_readers pins which and why
            continue
        out.append(s)
    return out


@pytest.mark.parametrize("sample", _readable(), ids=sample_id)
def test_listing_findings_agree_with_the_hand_verdict(sample: Path) -> None:
    spec = expected(sample)
    titles = _titles(sample / "bare.txt")
    if spec["verdict"] == "down":
        assert any("no usable path" in t for t in titles), titles
    if sample.parent.name == "multipath-l":
        assert any("`multipath -l` runs no path checker" in t for t in titles), titles
    if any("failover grouping" in f["text"] for f in spec["findings"]):
        assert any("failover grouping" in t for t in titles), titles
    if spec["verdict"] == "healthy":
        assert not [t for t in titles if any(word in t for word in TROUBLE)], titles


def test_a_map_whose_only_path_is_gone_waits_under_queue_if_no_path() -> None:
    titles = _titles(LINUX / "multipath_check-multipath-21_netapp-unknown-path.txt")
    assert any("has no usable path: its I/O waits until a path returns (queue_if_no_path)" in t for t in titles), titles


def test_readable_samples_are_most_of_the_multipath_corpus() -> None:
    assert len(_readable()) >= 25
