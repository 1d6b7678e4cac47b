"""A number a reader takes is ASCII digits: each real sample a reader reads, with one of its
numbers at a time written `²` (a digit to `str.isdigit`, no number to `int`), is read or refused
in one line, never a traceback (`readers/_whole.py`)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.test_fuzz_inputs import NVME_SYSFS_LINES, _read_or_refused
from tests.test_mpio_import import SETTINGS

import pathlab
from conftest import ROOT
from pathlab.readers import (
    diskstats,
    esxcli_advanced,
    esxcli_iscsi_params,
    esxcli_satp_rules,
    iscsi_sessions,
    mpio_settings,
    nvme_sysfs,
    powermt,
    scsi_timeout,
    sg_rtpg,
)

#: The readers that make numbers of what they read (`int`): a `²` there is a traceback unless checked.
READERS = {"esxcli_advanced": esxcli_advanced.read, "esxcli_iscsi_params": esxcli_iscsi_params.read,
           "esxcli_satp_rules": esxcli_satp_rules.read, "iscsi_sessions": iscsi_sessions.read,
           "powermt": powermt.read, "sg_rtpg": sg_rtpg.read, "scsi_timeout": scsi_timeout.read,
           "diskstats": diskstats.lines}


def _mpio_values(settings: mpio_settings.Settings) -> list[tuple[str, int]]:
    default = [settings.default_policy] if settings.default_policy is not None else []
    return sorted([(f"{key} : {value}", line) for key, (value, line) in settings.values.items()] + default)


def _sysfs_values(table) -> list[tuple[str, int]]:
    return sorted((f"{r.name} {r.attribute}: {r.value}", r.line) for r in table.itertuples())


def _a_number(reader: str, value: str) -> bool:
    """Whether `value` (as `_sysfs_values` gives it) is of an attribute nvme_sysfs reads as a
    number (its counters and timers, checked `is_whole`); mpio_settings keeps every value as text."""
    attribute = value.split(" ")[1].rstrip(":")
    return reader == "nvme_sysfs" and (attribute.startswith("diag/") or attribute in (
        "queue_depth", "ana_grpid", *nvme_sysfs.TIMERS, *nvme_sysfs.MODULE_PARAMETERS))


#: The readers that keep what they read as text (numbers made later, `Settings.integer`) or check
#: it as text (`is_whole`): no `int` of theirs can raise, so "never a traceback" would pass
#: whatever they did; each gives what it read as (text, line) pairs, for the test below.
AS_TEXT = {"mpio_settings": (mpio_settings.read, _mpio_values), "nvme_sysfs": (nvme_sysfs.read, _sysfs_values)}
#: Numbers written `²` in each sample, at most (the first ones: a table's rows repeat their shape).
PER_SAMPLE = 60
#: Every sample text the tests hold, and those written in test files (NVMe's sysfs lines, `Get-MPIOSetting`).
SAMPLES = [(f.name, f.read_text(errors="replace")) for f in sorted((ROOT / "tests" / "data").rglob("*"))
           if f.is_file() and f.suffix not in (".md", ".toml", ".json", ".pkl", ".gz", ".tgz") and f.stat().st_size < 1_000_000] \
    + [("sysfs.txt", "\n".join(NVME_SYSFS_LINES) + "\n"), ("mpio.txt", SETTINGS)]


def samples_read(read, tmp_path: Path) -> Iterator[tuple[str, str, Path]]:
    """Each sample `read` reads (its name, its text, and the file in `tmp_path` that holds it), PathlabWarnings
    ignored: the file for the caller to rewrite."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        for name, text in SAMPLES:
            path = tmp_path / name
            path.write_text(text)
            if _reads(read, path):
                yield name, text, path


def _reads(read, path: Path) -> bool:
    try:
        result = read(path)
        read_ = list(result) if hasattr(result, "__next__") else result
        return read_ is not None and (not hasattr(read_, "__len__") or len(read_) > 0)
    except pathlab.ScenarioError:
        return False


@pytest.mark.parametrize("reader", sorted(READERS))
def test_each_number_of_a_sample_written_in_other_digits_is_read_or_refused(reader: str, tmp_path: Path) -> None:
    read = READERS[reader]
    tried = 0
    for _, text, path in samples_read(read, tmp_path):
        for number in list(re.finditer(r"\b[0-9]+\b", text))[:PER_SAMPLE]:
            path.write_text(text[:number.start()] + "²" + text[number.end():])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", pathlab.PathlabWarning)
                _read_or_refused(read, path)
            tried += 1
    assert tried > 0, f"no sample {reader} reads"


@pytest.mark.parametrize("reader", sorted(AS_TEXT))
def test_a_number_written_in_other_digits_is_refused_at_its_line_or_read_as_that_text(reader: str,
                                                                                      tmp_path: Path) -> None:
    """Each number a reader that keeps text meets, written `²`: refused at its own line (nvme_sysfs:
    a counter or timer is checked `is_whole`), or read as the text `²` at its line and nothing
    else read changed (mpio_settings keeps `Get-MPIOSetting`'s values as printed; `integer`, which
    the importer asks, then refuses it at that line), or on a line the reader passes over, all it
    read unchanged (the other files of a folder's dump). A value lost, moved or read as another
    number fails."""
    read, values = AS_TEXT[reader]
    seen: dict[str, int] = {"refused": 0, "read as text": 0, "passed over": 0}
    for name, text, path in samples_read(read, tmp_path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pathlab.PathlabWarning)
            path.write_text(text)
            before = values(read(path))
            for number in list(re.finditer(r"\b[0-9]+\b", text))[:PER_SAMPLE]:
                line = text.count("\n", 0, number.start()) + 1
                path.write_text(text[:number.start()] + "²" + text[number.end():])
                try:
                    after = values(read(path))
                except pathlab.ScenarioError as e:
                    assert e.args[:2] == (str(path), f"line {line}"), (name, line, e.args)
                    seen["refused"] += 1
                    continue
                if after == before:
                    seen["passed over"] += 1
                    continue
                changed = [(value, at) for value, at in after if (value, at) not in before]
                assert len(after) == len(before) and len(changed) == 1, (name, line, changed)
                (value, at), = changed
                assert at == line and value.endswith("²"), (name, line, value, at)
                assert not _a_number(reader, value), f"{name}, line {line}: {value} read as text, where a number is read"
                seen["read as text"] += 1
                if reader == "mpio_settings":  # the number the importer asks for: refused at that line
                    key = value.split(" : ")[0]
                    with pytest.raises(pathlab.ScenarioError) as refused:
                        read(path).integer(str(path), key)
                    assert refused.value.args == (str(path), f"line {line}", f"{key} : ²: expected a whole number")
    # What each reader does with a `²` among its own numbers (not only on lines it passes over).
    assert seen["read as text" if reader == "mpio_settings" else "refused"] > 0, seen
