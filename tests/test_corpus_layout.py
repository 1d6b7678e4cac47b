"""The corpus of real host outputs (tests/data/corpus) is well-formed.

Each sample is a folder `tests/data/corpus/<kind>/<NNN-name>/` with `as-collected.txt` (the text as
its public source shows it), `bare.txt` (the command's output alone, cut from it) and
`expected.toml` (topology and verdict written by hand). The schema is described in
`tests/data/corpus/README.md`; this test holds the files to it, so that the readers and the advisor
can be tested against the corpus without checking its shape again.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"

KINDS = {
    "multipath-ll",
    "multipath-l",
    "multipath-conf",
    "nvme-list-subsys",
    "nvme-show-topology",
    "esxcli-nmp-device-list",
    "esxcli-nmp-path-list",
    "esxcli-core-path-list",
    "esxcfg-mpath",
    "esxcli-satp-rule-list",
    "esxcli-hpp-device-list",
    "esxcli-hpp-path-list",
    "esxtop-batch",
    "proc-diskstats",
    "iostat-x",
    "iscsiadm-session",
}
STACKS = {"dm-multipath", "nvme-native", "esxi-nmp", "esxi-hpp", "esxi", "linux-block"}
VERDICTS = {"healthy", "degraded", "down", "misconfigured", "not-judgeable", "informational"}
FORMATS = {"text", "json", "csv"}
METADATA_KEYS = {"command", "stack", "source", "verdict", "findings", "format", "host", "array", "note"}
TOPOLOGY_KEYS = {"maps", "subsystems", "devices", "paths", "rules", "sections", "samples", "sessions"}
# Values an expert infers from the lines rather than reads on them: exempt from the
# "every string is on a line of bare.txt" rule.
INFERRED_KEYS = {"grouping", "transport", "note", "role"}
MIN_SAMPLES = 100


def squeeze(line: str) -> str:
    """A line with CR dropped and every run of whitespace made one blank."""
    return " ".join(line.replace("\r", "").split())


def samples() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*/*") if p.is_dir())


def sample_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def bare_lines(sample: Path) -> list[str]:
    return [squeeze(line) for line in (sample / "bare.txt").read_text(encoding="utf-8").splitlines()]


def expected(sample: Path) -> dict[str, Any]:
    return tomllib.loads((sample / "expected.toml").read_text(encoding="utf-8"))


def topology_strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Every (key, string) in a topology value, except the inferred keys."""
    if key in INFERRED_KEYS:
        return
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, list):
        for item in value:
            yield from topology_strings(item, key)
    elif isinstance(value, dict):
        for sub_key, item in value.items():
            yield from topology_strings(item, sub_key)


def line_tables(value: Any) -> Iterator[dict[str, Any]]:
    """Every table in a topology value that names the bare.txt line it was read from."""
    if isinstance(value, list):
        for item in value:
            yield from line_tables(item)
    elif isinstance(value, dict):
        if "line" in value:
            yield value
        for item in value.values():
            yield from line_tables(item)


def test_the_corpus_holds_at_least_100_samples_across_the_kinds() -> None:
    found = samples()
    assert len(found) >= MIN_SAMPLES, f"{len(found)} samples"
    assert {p.parent.name for p in found} <= KINDS


@pytest.mark.parametrize("sample", samples(), ids=sample_id)
def test_sample_has_its_three_files_and_a_valid_expected_toml(sample: Path) -> None:
    assert re.fullmatch(r"\d{3}-[a-z0-9.-]+", sample.name), sample.name
    for name in ("as-collected.txt", "bare.txt", "expected.toml"):
        assert (sample / name).is_file(), name
    spec = expected(sample)
    assert set(spec) <= METADATA_KEYS | TOPOLOGY_KEYS, set(spec) - METADATA_KEYS - TOPOLOGY_KEYS
    assert isinstance(spec["command"], str) and spec["command"]
    assert isinstance(spec["source"], str) and spec["source"]
    assert spec["stack"] in STACKS
    assert spec["verdict"] in VERDICTS
    assert spec.get("format", "text") in FORMATS
    assert set(spec) & TOPOLOGY_KEYS, "no topology"
    if spec["verdict"] not in {"healthy", "informational"}:
        assert spec["findings"], "a verdict other than healthy needs its findings"


@pytest.mark.parametrize("sample", samples(), ids=sample_id)
def test_findings_name_a_line_of_bare_txt_that_shows_them(sample: Path) -> None:
    lines = bare_lines(sample)
    for finding in expected(sample)["findings"]:
        assert set(finding) == {"text", "line", "shows"}, finding
        assert 1 <= finding["line"] <= len(lines), finding
        assert squeeze(finding["shows"]) in lines[finding["line"] - 1], finding


@pytest.mark.parametrize("sample", samples(), ids=sample_id)
def test_topology_is_read_from_the_lines_of_bare_txt(sample: Path) -> None:
    """Every value written down is on a line of bare.txt, and every `line` names a line that
    carries the entry's name: the expectations cannot drift from the file."""
    lines = bare_lines(sample)
    spec = expected(sample)
    topology = {key: spec[key] for key in TOPOLOGY_KEYS & set(spec)}
    for key, text in topology_strings(topology):
        assert any(squeeze(text) in line for line in lines), f"{key} = {text!r} is on no line"
    for table in line_tables(topology):
        number = table["line"]
        assert 1 <= number <= len(lines), table
        if "name" in table:
            assert squeeze(table["name"]) in lines[number - 1], table


@pytest.mark.parametrize("sample", samples(), ids=sample_id)
def test_bare_txt_is_cut_from_as_collected_txt(sample: Path) -> None:
    """Each line of bare.txt is (part of) a line of as-collected.txt, in the same order: it was
    cut, not re-typed. Whitespace and CRLF may differ, and a prefix (prompt, log stamp) may be gone."""
    collected = [squeeze(line) for line in (sample / "as-collected.txt").read_text(encoding="utf-8").splitlines()]
    position = 0
    for line in bare_lines(sample):
        if not line:
            continue
        while position < len(collected) and line not in collected[position]:
            position += 1
        assert position < len(collected), f"bare line {line!r} is not in as-collected.txt (in order)"
        position += 1


@pytest.mark.parametrize("kind", sorted({p.parent.name for p in samples()}))
def test_every_sample_and_its_source_is_listed_in_its_kinds_readme(kind: str) -> None:
    readme = (CORPUS / kind / "README.md").read_text(encoding="utf-8")
    for sample in samples():
        if sample.parent.name == kind:
            assert f"`{sample.name}`" in readme, sample.name
            assert expected(sample)["source"] in readme, sample.name
