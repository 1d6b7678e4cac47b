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

READERS = {"esxcli_advanced": esxcli_advanced.read, "esxcli_iscsi_params": esxcli_iscsi_params.read,
           "esxcli_satp_rules": esxcli_satp_rules.read, "iscsi_sessions": iscsi_sessions.read,
           "mpio_settings": mpio_settings.read, "powermt": powermt.read, "sg_rtpg": sg_rtpg.read,
           "scsi_timeout": scsi_timeout.read, "diskstats": diskstats.lines, "nvme_sysfs": nvme_sysfs.read}
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
