"""Round trip of the corpus (issue 22): every real sample of a listing kind is imported (bare and
as collected), shown in the sample's own style (`pathlab show … --style …`), and what `show`
printed is read back by the same reader and compared with the topology written by hand in the
sample's expected.toml: maps or subsystems or devices, their groups (selector, priority, status),
each path's states and the number of paths; NVMe controllers' addresses and ANA states; ESXi
devices' SATP, PSP settings, TPG states and working paths.

What `show` printed is also kept beside expected.toml as `shown.txt` and compared byte for byte,
so that a change of the importer, the model or the view shows in a diff. After a deliberate
change, regenerate them with `PATHLAB_UPDATE_GOLDEN=1 pytest tests/test_corpus_round_trip.py`
and read the diff before committing it.

Samples that cannot make the trip are pinned below by name with the reason: those the readers
refuse (`test_corpus_readers.REFUSED`), those the importer refuses, and the kinds `show` cannot
print from a scenario; for each the test checks that it is refused with one line, never imported
wrong."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import pathlab, quiet
from pathlab.readers import esxcli_devices, multipath_ll, nvme_subsys
from test_corpus_layout import expected, sample_id, samples
from test_corpus_readers import REFUSED

UPDATE = os.environ.get("PATHLAB_UPDATE_GOLDEN") == "1"
GOLDEN = "shown.txt"
FORMS = ("bare.txt", "as-collected.txt")

#: kind -> (what `show` prints, in which style): the sample's own command.
STYLE = {
    "multipath-ll": ("paths", "linux"),
    "multipath-l": ("paths", "linux-l"),
    "nvme-list-subsys": ("paths", "nvme"),
    "nvme-show-topology": ("paths", "nvme-topology"),
    "esxcli-nmp-device-list": ("devices", "esxi"),
}

#: Listing kinds whose samples cannot be imported alone, and why (checked: the import refuses them
#: with one line saying so).
_NEEDS_DEVICES = "a path list names no policy and no SATP: `import` needs the device list beside it"
NOT_IMPORTED_KINDS = {
    "esxcli-nmp-path-list": (_NEEDS_DEVICES, "device list` (or `hpp device list`) is needed"),
    "esxcli-hpp-path-list": ("an HPP path list alone names no scheme: `import` needs `esxcli storage hpp device list`",
                             "device list` (or `hpp device list`) is needed"),
    "esxcfg-mpath": ("`esxcfg-mpath -b` is not an input kind of `import` (ESX 4/5's brief form: no policy, no SATP, "
                     "no ALUA state); `esxcli storage nmp path list` and `device list` carry them",
                     "it looks like `esxcfg-mpath -b`"),
}

#: Samples of the kinds above that the importer refuses, and why (beyond the readers' REFUSED).
_PATH_LIST = "a device list whose Working Paths name no path of a known kind: the path list is needed"
NOT_IMPORTED = {
    "esxcli-nmp-device-list/001-esx41-equallogic-psp-eql-routed":
        ("Dell's DELL_PSP_EQL_ROUTED is a third-party PSP pathlab does not model", "is not a policy pathlab imports"),
    "esxcli-nmp-device-list/006-esx41-vnx5300-iscsi-fixed-ap":
        ("VMW_PSP_FIXED_AP (ESX 4.1's Fixed for ALUA arrays, merged into Fixed in 5.0) is not modelled",
         "VMW_PSP_FIXED_AP is not a policy pathlab imports"),
    "esxcli-nmp-device-list/004-esx41-infortrend-alua-mru-one-path": (_PATH_LIST, "is needed"),
    "esxcli-nmp-device-list/005-esx41-infortrend-default-aa-fixed": (_PATH_LIST, "is needed"),
    "esxcli-nmp-device-list/016-esx41-infortrend-grep-satp-only":
        ("grep kept only the SATP lines: no device block to import", "not one of the inputs pathlab reads"),
    "multipath-ll/010-dell-csm-grep-fault-paths-only":
        ("grep kept only the faulty path lines: no map header to import", "not one of the inputs pathlab reads"),
}


#: Samples that import and show, but whose topology does not come back: each a real limit of the
#: model, pinned with what differs and why (a strict xfail: the day it comes back, this fails).
NOT_ROUND_TRIPPED = {
    "multipath-ll/005-netapp-citrix-mpathutil-two-prio50-groups":
        "an edited listing no host prints (imported as four optimized paths, shown as one group of 4 at prio 50): two "
        "groups `status=active`, but the kernel marks only its current group `A` (dm-mpath.c multipath_status: "
        "`pg == m->current_pg`), and a `create:` listing prints `undef` (multipath-tools print.c snprint_pg_state of a "
        "map not yet read back, dmparser.c); and no grouping splits one LUN's paths of one priority in two: "
        "group_by_prio merges them (pgpolicies.c), multibus makes one group, failover one path per group, and "
        "group_by_serial/group_by_node_name one group for an ONTAP SVM's LIFs (one serial, one WWNN)",
}


def _refusal(sample: Path) -> tuple[str, str] | None:
    """Why a sample cannot be imported and a piece of the line that says so, or None."""
    kind = sample.parent.name
    if kind in NOT_IMPORTED_KINDS:
        return NOT_IMPORTED_KINDS[kind]
    return NOT_IMPORTED.get(sample_id(sample))


CASES = [pytest.param(s, f, marks=pytest.mark.xfail(strict=True, reason=NOT_ROUND_TRIPPED[sample_id(s)]))
         if sample_id(s) in NOT_ROUND_TRIPPED and (sample_id(s), f) not in REFUSED else (s, f)
         for s in samples() if s.parent.name in STYLE or s.parent.name in NOT_IMPORTED_KINDS for f in FORMS]


# --- what a listing says, as comparable values -------------------------------------------------

def _words(text: str) -> str:
    return " ".join(str(text).split())


def _status(text: str) -> str | None:
    """A group's status, from `status=active` or the bracket layout's `[active][first]`."""
    return next((w for w in re.findall(r"\w+", text) if w in ("active", "enabled", "disabled")), None)


def _path_states(path: str) -> tuple[str, ...]:
    """`H:C:T:L dev maj:min dm checker online`, or the bracket layout's `[active][ready]`."""
    words = path.split()[3:]
    return tuple(re.findall(r"\[(\w+)\]", " ".join(words))) if words and words[0].startswith("[") else tuple(words)


def expected_maps(spec: dict[str, Any]) -> dict[str, Any]:
    maps = {}
    for m in spec["maps"]:
        groups = [(g["policy"], g.get("prio"), _status(g["status"]), Counter(_path_states(p) for p in g.get("paths", [])))
                  for g in m.get("groups", [])]
        maps[m.get("wwid", m["name"])] = (_words(m.get("features", "")), _words(m.get("hwhandler", "")), groups)
    return maps


def shown_maps(shown: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """The maps `show` printed, read back, compared on what the sample prints (its priorities,
    features and hardware handler when it shows them; each path's states as far as it shows them)."""
    read = multipath_ll.read(shown)
    wanted = expected_maps(spec)
    maps = {}
    for m in read["maps"].itertuples():
        want = wanted.get(str(m.wwid))
        rows = read["paths"][read["paths"]["map"] == m.name]
        groups = []
        for gi, (_, g) in enumerate(rows.groupby("group", sort=True)):
            want_group = want[2][gi] if want and gi < len(want[2]) else None
            width = len(next(iter(want_group[3]))) if want_group and want_group[3] else 3
            states = Counter(tuple(str(s) for s in (r.dm_state, r.checker_state, r.online_state)[:width])
                             for r in g.itertuples())
            prio = None if want_group and want_group[1] is None else int(g["group_prio"].iloc[0])
            groups.append((str(g["selector"].iloc[0]), prio, str(g["group_status"].iloc[0]), states))
        features = _words(m.features) if want and want[0] else ""
        hwhandler = _words(m.hwhandler) if want and want[1] else ""
        maps[str(m.wwid)] = (features, hwhandler, groups)
    return maps


def _port(address: str) -> str | None:
    """A controller's target port: an FC port name, or an IP target's address and service."""
    fc = re.search(r"pn-0x[0-9a-fA-F]+", address)
    if fc:
        return fc.group(0).lower()
    traddr = re.search(r"(?:^|[,\s])traddr=([^,\s]+)", address)
    service = re.search(r"trsvcid=(\d+)", address)
    return f"{traddr.group(1)}:{service.group(1) if service else ''}" if traddr else None


def _nvme_state(text: str) -> str:
    """`live optimized` without the markup a page put around it (`*…*`, `**_…_**`)."""
    return _words(re.sub(r"[*_]", " ", text))


def expected_subsystems(spec: dict[str, Any]) -> dict[str, Any]:
    """Each subsystem's iopolicy, its controllers (transport, port, state), and where its
    namespaces differ (show-topology), the port each namespace is optimized through."""
    result = {}
    for s in spec["subsystems"]:
        ports = [_port(p.get("port", "")) for p in s["paths"]]
        controllers = Counter((p["transport"], port if None not in ports else None, _nvme_state(p.get("state", "")))
                              for p, port in zip(s["paths"], ports))
        port_of = {p["name"]: port for p, port in zip(s["paths"], ports)}
        optimized = sorted((int(n["name"].split()[-1]), port_of[n["optimized"]]) for n in s.get("namespaces", []))
        result[s["nqn"].strip()] = (s.get("iopolicy"), controllers, optimized)
    return result


def shown_subsystems(shown: Path, spec: dict[str, Any]) -> dict[str, Any]:
    namespaces = nvme_subsys.read(shown)
    table = namespaces.drop_duplicates(["subsystem", "controller"])
    wanted = expected_subsystems(spec)
    result = {}
    for nqn, rows in table.groupby("nqn", sort=False):
        want = wanted.get(str(nqn))
        with_ports = not want or all(port is not None for _, port, _ in want[1])
        # A sample whose states differ by namespace prints none per controller: compared by namespace.
        with_states = not want or any(state for _, _, state in want[1])
        controllers = Counter((str(r.transport), _port(str(r.address)) if with_ports else None,
                               _words(" ".join(str(s) for s in (r.state, r.ana_state) if isinstance(s, str)))
                               if with_states else "")
                              for r in rows.itertuples())
        iopolicy = str(rows["iopolicy"].iloc[0]) if want and want[0] else None
        every = namespaces[namespaces["nqn"] == nqn]
        optimized = sorted((int(r.nsid), _port(str(r.address))) for r in every.itertuples()
                           if r.ana_state == "optimized") if want and want[2] else []
        result[str(nqn)] = (iopolicy, controllers, optimized)
    return result


def _tpg_states(config: str) -> list[str]:
    return sorted(re.findall(r"TPG_state=(\w+)", str(config)))


def _settings(config: str) -> str:
    """A PSP's settings, without its run-time counters (`; lastPathIndex=…`, `current=…`)."""
    return _words(str(config).split(";")[0].strip("{} "))


def expected_devices(spec: dict[str, Any]) -> dict[str, Any]:
    return {d["name"]: (d["satp"], _tpg_states(d.get("satp_config", "")), d["psp"], _settings(d.get("psp_config", "")),
                        sorted(d["working_paths"]))
            for d in spec["devices"]}


def shown_devices(shown: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """The devices `show` printed, read back. A device list names only the working paths: a target
    port group none of them is in (the non-optimized one, under round robin) has no path in the
    scenario, so `show` cannot print it; its TPG states are compared as those it does print, each
    one the sample shows."""
    wanted = expected_devices(spec)
    result = {}
    for d in esxcli_devices.read(shown).itertuples():
        tpgs = _tpg_states(d.satp_config)
        want = wanted.get(str(d.device))
        if want and set(tpgs) <= set(want[1]) and tpgs:
            tpgs = want[1]
        result[str(d.device)] = (str(d.satp), tpgs, str(d.psp), _settings(d.psp_config), sorted(d.working_paths))
    return result


COMPARE = {
    "multipath-ll": (shown_maps, expected_maps),
    "multipath-l": (shown_maps, expected_maps),
    "nvme-list-subsys": (shown_subsystems, expected_subsystems),
    "nvme-show-topology": (shown_subsystems, expected_subsystems),
    "esxcli-nmp-device-list": (shown_devices, expected_devices),
}


# --- the round trip ----------------------------------------------------------------------------

def _refused(sample: Path, form: str, tmp_path: Path) -> str | None:
    """The reason a sample is pinned as not imported, after checking the import says so."""
    reason = REFUSED.get((sample_id(sample), form))
    said = None
    if reason is None:
        pinned = _refusal(sample)
        if pinned is None:
            return None
        reason, said = pinned
    done = pathlab("import", str(sample / form), "-o", str(tmp_path / "host.toml"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("pathlab: error:")]
    assert len(errors) == 1, done.stderr
    line = errors[0]
    assert str(sample / form) in line, line
    assert said is None or said in line, line
    return reason


@pytest.mark.parametrize(("sample", "form"), CASES, ids=lambda v: sample_id(v) if isinstance(v, Path) else v)
def test_import_then_show_gives_the_samples_topology_back(sample: Path, form: str, tmp_path: Path) -> None:
    if _refused(sample, form, tmp_path):
        return
    what, style = STYLE[sample.parent.name]
    scenario = tmp_path / "host.toml"
    done = pathlab("import", str(sample / form), "-o", str(scenario))
    assert done.returncode == 0, done.stderr
    done = pathlab("show", what, str(scenario), "--style", style)
    assert done.returncode == 0, done.stderr
    golden = sample / GOLDEN
    if UPDATE and form == "bare.txt":
        golden.write_text(done.stdout, encoding="utf-8")
    assert done.stdout == golden.read_text(encoding="utf-8"), f"{golden} differs: PATHLAB_UPDATE_GOLDEN=1 regenerates it"
    shown = tmp_path / "shown.txt"
    shown.write_text(done.stdout, encoding="utf-8")
    found, wanted = COMPARE[sample.parent.name]
    spec = expected(sample)
    with quiet():
        assert found(shown, spec) == wanted(spec)


def test_every_pinned_sample_is_in_the_corpus() -> None:
    ids = {sample_id(s) for s in samples()}
    assert set(NOT_IMPORTED) | set(NOT_ROUND_TRIPPED) <= ids
    assert set(NOT_IMPORTED_KINDS) <= {s.parent.name for s in samples()}
