"""A number longer than Python turns into an `int` (4,300 digits: `sys.get_int_max_str_digits`)
is refused in one line naming its file and line, by every reader, before any reader's `int`
raises its own error with a traceback (`readers/_file.py`): each real sample a reader reads, with
its first and its last number at a time written 4,301 digits long."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest
from tests.test_fuzz_inputs import _readers
from tests.test_readers_unicode_digits import samples_read

import pathlab
from pathlab.readers._file import checked_text

#: Every reader of a file (`test_fuzz_inputs._readers`), as `module.function`, but folders' and
#: esxtop's: its capture's figures are decimals read as floats (of any length, refused beyond
#: `esxtop.LARGEST` by its own rule), its header's digits parts of names.
READERS = sorted(set(_readers()) - {"bundle.files_in", "nvme_sysfs.attribute_files", "esxtop.read", "esxtop.summary"})


def _function(reader: str):
    module, name = reader.split(".")
    read = getattr(importlib.import_module(f"pathlab.readers.{module}"), name)
    return (lambda path: read(path)()) if reader == "pasted.file_lines" else read


def _line_of(text: str, at: int) -> int:
    """The line of character `at`, numbered from 1 (the samples' texts end their lines with LF)."""
    return text.count("\n", 0, at) + 1


@pytest.mark.parametrize("reader", READERS)
def test_a_number_longer_than_python_reads_is_refused_at_its_line(reader: str, tmp_path: Path) -> None:
    read = _function(reader)
    longest = sys.get_int_max_str_digits()
    tried = 0
    for name, text, path in samples_read(read, tmp_path):
        numbers = list(re.finditer(r"[0-9]+", text))
        for number in {n.start(): n for n in numbers[:1] + numbers[-1:]}.values():
            path.write_text(text[:number.start()] + "7" * (longest + 1) + text[number.end():])
            with pytest.raises(pathlab.ScenarioError) as refused:
                result = read(path)
                if hasattr(result, "__next__"):
                    list(result)
            file, where, said = refused.value.args
            assert (file, where) == (str(path), f"line {_line_of(text, number.start())}"), (name, said)
            assert said.startswith(f"a number of more than {longest:,} digits at character ") and "\n" not in said
            tried += 1
    assert tried > 0, f"no sample {reader} reads"


def test_a_long_number_is_looked_for_in_long_lines_only_and_found_in_any() -> None:
    """The whole text's check (`pasted.read_text`'s) looks at a line's digits only where the line
    is longer than the longest number read, and finds the run wherever it starts on its line,
    also after a shorter run and in another script's digits, which `int` takes as well."""
    longest = sys.get_int_max_str_digits()
    shorter = "1" * longest
    assert checked_text("f", f"{shorter} {shorter}\nprio={shorter}\n") is not None
    for line in (f"x {shorter}1", f"{shorter} 12 {'٨' * (longest + 1)}", f"{'9' * (longest + 5)}"):
        with pytest.raises(pathlab.ScenarioError) as refused:
            checked_text("f", f"first line\n{line}\nlast\n")
        assert refused.value.args[:2] == ("f", "line 2")
