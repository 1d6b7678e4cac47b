"""Today's readers on the corpus: the topology each reads from a sample's bare.txt against the
topology written by hand in its expected.toml.

Issue 22 asks for readers that get every real sample right; they are not built yet, so each case
is an expected failure. A case that passes (XPASS) is a sample today's readers already read
right: `pytest tests/test_corpus_readers.py -rxX` lists both.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

from pathlab.readers import diskstats, esxcli_devices, esxcli_hpp, esxcli_paths, iostat, multipath_ll, nvme_subsys
from test_corpus_layout import expected, sample_id, samples

Groups = dict[str, list[tuple[Any, list[str]]]]


def multipath_groups(bare: Path) -> Groups:
    """Map name -> its groups in order, each as (priority or None, path devices in order)."""
    paths = multipath_ll.read(bare)["paths"]
    return {str(name): [(None if rows["group_prio"].isna().all() else int(rows["group_prio"].iloc[0]),
                         [str(d) for d in rows["device"]])
                        for _, rows in map_rows.groupby("group", sort=True)]
            for name, map_rows in paths.groupby("map", sort=False)}


def expected_multipath_groups(spec: dict[str, Any]) -> Groups:
    return {m["name"]: [(g.get("prio"), [p.split()[1] for p in g.get("paths", [])]) for g in m.get("groups", [])]
            for m in spec["maps"]}


def nvme_controllers(bare: Path) -> dict[str, Counter[str]]:
    """Subsystem -> how many of its controllers are in each state (`live optimized`, `live`…),
    one count per controller whatever the number of namespaces."""
    table = nvme_subsys.read(bare).drop_duplicates(["subsystem", "controller"])
    result: dict[str, Counter[str]] = {}
    for row in table.itertuples():
        state = " ".join(str(s) for s in (row.state, row.ana_state) if isinstance(s, str))
        result.setdefault(str(row.subsystem), Counter())[state] += 1
    return result


def expected_nvme_controllers(spec: dict[str, Any]) -> dict[str, Counter[str]]:
    result: dict[str, Counter[str]] = {}
    for subsystem in spec["subsystems"]:
        counts: Counter[str] = Counter()
        for path in subsystem["paths"]:
            counts[" ".join(path.get("state", "").replace("*", "").split())] += 1
        result[subsystem["name"]] = counts
    return result


def nvme_controller_names(bare: Path) -> dict[str, set[str]]:
    """Subsystem -> its controllers (show-topology repeats them under every namespace)."""
    table = nvme_subsys.read(bare)
    return {str(name): {str(c) for c in rows["controller"]} for name, rows in table.groupby("subsystem")}


def expected_nvme_controller_names(spec: dict[str, Any]) -> dict[str, set[str]]:
    return {s["name"]: {p["name"] for p in s["paths"]} for s in spec["subsystems"]}


def esxi_devices(bare: Path) -> dict[str, tuple[str, list[str]]]:
    table = esxcli_devices.read(bare)
    return {str(r.device): (str(r.psp), list(r.working_paths)) for r in table.itertuples()}


def expected_esxi_devices(spec: dict[str, Any]) -> dict[str, tuple[str, list[str]]]:
    return {d["name"]: (d["psp"], d["working_paths"]) for d in spec["devices"]}


def runtime_names(reader: Callable[[Path], Any]) -> Callable[[Path], list[str]]:
    return lambda bare: [str(n) for n in reader(bare)["runtime_name"]]


def expected_runtime_names(spec: dict[str, Any]) -> list[str]:
    return [p["name"] for p in spec["paths"]]


def device_names(reader: Callable[[Path], Any]) -> Callable[[Path], set[str]]:
    return lambda bare: {str(n) for n in reader(bare)["device"]}


def expected_device_names(spec: dict[str, Any]) -> set[str]:
    return {d["name"] for d in spec["devices"]}


#: kind -> (what today's reader finds in bare.txt, the same read from expected.toml).
READERS: dict[str, tuple[Callable[[Path], Any], Callable[[dict[str, Any]], Any]]] = {
    "multipath-ll": (multipath_groups, expected_multipath_groups),
    "multipath-l": (multipath_groups, expected_multipath_groups),
    "nvme-list-subsys": (nvme_controllers, expected_nvme_controllers),
    "nvme-show-topology": (nvme_controller_names, expected_nvme_controller_names),
    "esxcli-nmp-device-list": (esxi_devices, expected_esxi_devices),
    "esxcli-nmp-path-list": (runtime_names(esxcli_paths.read_nmp), expected_runtime_names),
    "esxcli-hpp-path-list": (runtime_names(esxcli_hpp.read_paths), expected_runtime_names),
    "proc-diskstats": (device_names(diskstats.read), expected_device_names),
    "iostat-x": (device_names(iostat.read), expected_device_names),
}


def comparable(sample: Path) -> bool:
    spec = expected(sample)
    if sample.parent.name == "multipath-ll":
        return "maps" in spec
    if sample.parent.name == "esxcli-nmp-device-list":
        return all("name" in d for d in spec["devices"])
    return sample.parent.name in READERS


@pytest.mark.xfail(reason="issue 22: the readers that read what people paste are not built yet", strict=False)
@pytest.mark.parametrize("sample", [s for s in samples() if comparable(s)], ids=sample_id)
def test_todays_reader_finds_the_expected_topology(sample: Path) -> None:
    found, wanted = READERS[sample.parent.name]
    read = found(sample / "bare.txt")
    want = wanted(expected(sample))
    if sample.parent.name in ("proc-diskstats", "iostat-x"):
        assert want <= read
    else:
        assert read == want
