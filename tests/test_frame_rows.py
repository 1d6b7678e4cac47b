"""`importer/frame_rows.rows_of`: a listing's rows as `itertuples` gives them, value for value and
type for type, missing texts included (pandas' NA in a reader's `string` columns, NaN in the
columns pandas made text itself)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pathlab.importer.esxi import hpp_devices
from pathlab.importer.frame_rows import rows_of
from pathlab.readers import esxcli_devices, esxcli_paths

ESXCLI = Path(__file__).parent / "data" / "esxcli"


def _same(frame: pd.DataFrame) -> None:
    expected, got = list(frame.itertuples()), list(rows_of(frame))
    assert len(got) == len(expected)
    for one, other in zip(got, expected):
        assert type(one).__name__ == type(other).__name__ and one._fields == other._fields
        for value, before in zip(one, other):
            assert type(value) is type(before), (value, before)
            assert value is before or value == before or (value != value and before != before), (value, before)


@pytest.mark.parametrize("name", ["nmp-path-list-esx4-svc-fixed.txt", "nmp-path-list-svc-iscsi-rr.txt",
                                  "hpp-path-list-handmade.txt", "esxcfg-mpath-l-esxi5-iscsi.txt"])
def test_a_path_list_s_rows_are_itertuples_rows(name: str) -> None:
    frame = esxcli_paths.read(ESXCLI / name)
    if name == "nmp-path-list-esx4-svc-fixed.txt":
        assert frame["tpg_state"].isna().any() and frame["tpg_id"].isna().any()  # missing texts and numbers
    _same(frame)


def test_a_device_list_s_rows_are_itertuples_rows() -> None:
    frame = esxcli_devices.read(ESXCLI / "nmp-device-list-alua.txt")
    frame.loc[0, "rr_type"] = None  # a missing text in a column pandas made text (NaN, not NA)
    assert any(isinstance(t, pd.StringDtype) for t in frame.dtypes)
    _same(frame)
    _same(frame.iloc[0:0])


def test_a_table_with_another_in_its_attrs_gives_its_rows() -> None:
    """`hpp device list` keeps its paths' table in the devices' `attrs`."""
    frame = hpp_devices(str(ESXCLI / "hpp-device-list-esxi7-dell-local.txt"))
    assert isinstance(frame.attrs.get("paths"), pd.DataFrame)
    _same(frame)
    assert isinstance(frame.attrs.get("paths"), pd.DataFrame)  # the caller's table as it was


def test_a_table_of_every_kind_of_column_gives_itertuples_rows() -> None:
    """Each kind of column a reader may give, with and without missing values: the nullable
    numbers and flags (NumPy's scalars, pandas' NA), NumPy's own (Python's scalars), texts of
    both missing kinds, objects (lists, dicts, None), times and categories (iterated as pandas
    does)."""
    frame = pd.DataFrame({
        "whole": pd.array([1, None, 3], dtype="Int64"), "whole_full": pd.array([1, 2, 3], dtype="Int64"),
        "flag": pd.array([True, None, False], dtype="boolean"), "share": pd.array([0.5, None, 2.0], dtype="Float64"),
        "count": [1, 2, 3], "figure": [0.1, float("nan"), 3.0], "yes": [True, False, True],
        "text": pd.array(["a", None, "c"], dtype="string"), "word": pd.Series(["a", None, "c"], dtype="str"),
        "text_python": pd.array(["a", None, "c"], dtype=pd.StringDtype("python")),
        "word_python": pd.array(["a", None, "c"], dtype=pd.StringDtype("python", na_value=float("nan"))),
        "thing": [["x"], None, {"k": 1}], "when": pd.to_datetime(["2026-01-01", None, "2026-01-03"]),
        "kind": pd.Categorical(["p", "q", None]),
    })
    _same(frame)
    _same(frame.iloc[1:2])
    _same(frame.iloc[0:0])
