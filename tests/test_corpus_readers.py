"""The readers on the corpus: every real sample, bare and as collected, is either read to the
topology written by hand in its expected.toml, or refused with one line; never read wrong. The
samples that are refused are listed below with the reason, so a reader that starts to read one,
or stops reading another, shows here."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import quiet
from pathlab.api import ScenarioError
from pathlab.readers import diskstats, esxcli_devices, esxcli_hpp, esxcli_paths, iostat, iscsi_sessions, multipath_ll, nvme_subsys
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


#: A word a page set in italics (`_optimized_`): the state is the word.
_EMPHASIS = re.compile(r"(?<!\S)_(\w[\w-]*\w)_(?!\S)")


def expected_nvme_controllers(spec: dict[str, Any]) -> dict[str, Counter[str]]:
    result: dict[str, Counter[str]] = {}
    for subsystem in spec["subsystems"]:
        counts: Counter[str] = Counter()
        for path in subsystem["paths"]:
            counts[" ".join(_EMPHASIS.sub(r"\1", path.get("state", "").replace("*", "")).split())] += 1
        result[subsystem["name"]] = counts
    return result


def nvme_controller_names(bare: Path) -> dict[str, set[str]]:
    """Subsystem -> its controllers (show-topology repeats them under every namespace)."""
    table = nvme_subsys.read(bare)
    return {str(name): {str(c) for c in rows["controller"]} for name, rows in table.groupby("subsystem")}


def expected_nvme_controller_names(spec: dict[str, Any]) -> dict[str, set[str]]:
    return {s["name"]: {p["name"] for p in s["paths"]} for s in spec["subsystems"]}


def iscsi_sessions_read(bare: Path) -> list[tuple[str, str, int, int | None, list[str]]]:
    """Per session: target, current portal `address:port,tag`, SID, SCSI host, its disks."""
    tables = iscsi_sessions.read(bare)
    disks = tables["devices"]
    return [(str(s.target), f"{s.portal},{s.tpgt}", int(s.sid), None if s.host is None else int(s.host),
             [str(d) for d in disks.loc[disks["sid"] == s.sid, "disk"]]) for s in tables["sessions"].itertuples()]


def expected_iscsi_sessions(spec: dict[str, Any]) -> list[tuple[str, str, int, int | None, list[str]]]:
    return [(s["name"], s["portal"].removeprefix("Current Portal: "), s["sid"], s.get("host_number"),
             [d.split()[3] for d in s.get("disks", [])]) for s in spec["sessions"]]


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
    "iscsiadm-session": (iscsi_sessions_read, expected_iscsi_sessions),
}


def comparable(sample: Path) -> bool:
    spec = expected(sample)
    if sample.parent.name == "multipath-ll":
        return "maps" in spec
    if sample.parent.name == "esxcli-nmp-device-list":
        return all("name" in d for d in spec["devices"])
    return sample.parent.name in READERS


#: (sample, form) the readers refuse, and why: each is a text a page or a tool mangled past what a
#: reader can take back without guessing.
_FLAT = "the whole listing flattened into one line"
_GREP = "grep kept a few keys of each block"
_JSON = "sysstat's JSON form (`iostat -o JSON`) is not read"
_JOINED = "the page joined the size= line onto the header"
_OLD_HEADER = "multipath-tools 0.4.5's header (a WWID alone) is not read"
_WRAPPED = "every bracket wrapped onto a line of its own"
_DASH = "typography: `Nvme-subsysf0 – NQN=`"
_BOTH = ("bare.txt", "as-collected.txt")
REFUSED = {
    **{("esxcli-nmp-path-list/005-esxi6-omnios-iscsi-grep-wrapped-command", f): _GREP for f in _BOTH},
    **{("iostat-x/003-sysstat-x-p-all-json", f): _JSON for f in _BOTH},
    **{("multipath-ll/003-netapp-asa-hpe-vme-joined-size-line", f): _JOINED for f in _BOTH},
    **{("multipath-ll/009-pure-flasharray-flattened-in-one-log-line", f): _FLAT for f in _BOTH},
    **{("multipath-ll/014-rhel10-guide-flattened-one-line", f): _FLAT for f in _BOTH},
    ("multipath-ll/015-ddn-s2a-guide-brackets-lost-indent", "as-collected.txt"): "the guide's `Path Group 2` note inside it",
    **{("multipath-ll/017-sles10-guide-clariion-emc-brackets", f): _OLD_HEADER for f in _BOTH},
    **{("multipath-ll/020-sles10sp1-dry-run-brackets-wrapped", f): _WRAPPED for f in _BOTH},
    **{("nvme-list-subsys/002-netapp-ol7-fc-two-inaccessible", f): _DASH for f in _BOTH},
}
CASES = [(sample, form) for sample in samples() if comparable(sample) for form in ("bare.txt", "as-collected.txt")]


@pytest.mark.parametrize(("sample", "form"), CASES, ids=lambda v: sample_id(v) if isinstance(v, Path) else v)
def test_each_sample_is_read_right_or_refused(sample: Path, form: str) -> None:
    found, wanted = READERS[sample.parent.name]
    with quiet():  # what was skipped: tests/test_pasted_output.py
        if (sample_id(sample), form) in REFUSED:
            with pytest.raises(ScenarioError) as refused:
                found(sample / form)
            assert refused.value.args[0] == str(sample / form)
            return
        read = found(sample / form)
    want = wanted(expected(sample))
    if sample.parent.name in ("proc-diskstats", "iostat-x"):
        assert want <= read
    else:
        assert read == want


def test_the_refused_list_names_only_corpus_samples() -> None:
    assert set(REFUSED) <= {(sample_id(s), f) for s, f in CASES}
