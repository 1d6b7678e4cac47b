"""`pathlab show devices|paths FILE --style linux`: `multipath -ll` as a Linux host on the same SAN
prints it. Shipped scenarios, shown and read back with the `multipath -ll` reader, give the maps,
paths, group priorities and statuses and path states the model has; names and numbers are the
kernel's."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from conftest import pathlab
from pathlab import Scenario
from pathlab.output import multipath
from pathlab.readers import esxtop, multipath_ll

CX4 = "cx4-alua-path-failure.toml"
ALUA_PRIO = {"AO": 50, "ANO": 10, "STBY": 1, "UNAV": 0}


def show(scenario: Path, *options: str, what: str = "devices") -> str:
    done = pathlab("show", what, str(scenario), "--style", "linux", *options)
    assert done.returncode == 0, done.stderr
    return done.stdout


def read_back(tmp_path: Path, text: str) -> dict[str, pd.DataFrame]:
    path = tmp_path / "multipath-ll.txt"
    path.write_text(text)
    return multipath_ll.read(path)


def hctl(path: dict, hosts: list[str]) -> str:
    """The model's runtime name `vmhba2:C0:T1:L3` as Linux numbers it: `1:0:1:3`."""
    _, c, t, lun = path["name"].split(":")
    return f"{hosts.index(path['adapter'])}:{c[1:]}:{t[1:]}:{lun[1:]}"


def check_against_model(tables: dict[str, pd.DataFrame], desc: dict) -> None:
    """Every figure read back is the model's: one map per device, its paths, each path's state,
    and groups as the array's hwtable entry or multipath-tools' defaults make them (dm-multipath
    devices: the policy's own groups)."""
    maps, paths = tables["maps"], tables["paths"]
    hosts = desc["linux"]["hosts"]
    assert len(maps) == len(desc["devices"])
    assert maps["name"].is_unique and maps["dm"].is_unique
    assert paths["device"].is_unique and paths["dev_t"].is_unique and paths["hctl"].is_unique
    model_paths = {hctl(p, hosts): p for p in desc["paths"]}
    for device, facts in zip(desc["devices"], desc["linux"]["devices"]):
        (m,) = [m for _, m in maps.iterrows() if m["wwid"] == "3" + device["name"].removeprefix("naa.")]
        assert (m["vendor"], m["product"]) == (device["vendor"], device["model"])
        dgc = device["vendor"] == "DGC"  # scsi_dh_emc attaches to a CLARiiON without ALUA
        assert m["hwhandler"] == facts["hwhandler"] == ("1 alua" if facts["tpgs"] else "1 emc" if dgc else "0")
        rows = paths[paths["map"] == m["name"]]
        assert m["paths"] == len(rows) == sum(p["device"] == device["name"] for p in desc["paths"])
        for _, row in rows.iterrows():
            p = model_paths[row["hctl"]]
            assert p["device"] == device["name"]
            states = (row["dm_state"], row["checker_state"], row["online_state"])
            assert states == (("active", "ready", "running") if p["up"] else ("failed", "faulty", "running"))
        groups = [g for _, g in rows.groupby("group", sort=True)]
        statuses = [g["group_status"].iloc[0] for g in groups]
        prios = [int(g["group_prio"].iloc[0]) for g in groups]
        up = [[model_paths[h]["up"] for h in g["hctl"]] for g in groups]
        if device["psp"] == "dm-multipath":
            assert prios == [g["priority"] for g in device["groups"]]
            assert [[hctl(model_paths[h], hosts) for h in g["hctl"]] for g in groups] == [
                [hctl(next(p for p in desc["paths"] if p["name"] == n), hosts) for n in g["paths"]]
                for g in device["groups"]]
        else:
            assert set(rows["selector"]) == {"service-time 0"}
            path_prio = [{ALUA_PRIO[model_paths[h]["alua"]] if facts["tpgs"] else 1 for h in g["hctl"]} for g in groups]
            grouping = next(x["value"] for x in facts["settings"] if x["name"] == "path_grouping_policy")
            assert len(groups) == {"failover": len(rows), "multibus": 1}.get(grouping, len(groups)), grouping
            assert all(len(s) == 1 for s in path_prio), "a group holds paths of one priority"
            own = [s.pop() for s in path_prio]
            now = [prio if any(u) else 0 for prio, u in zip(own, up)]
            # failback immediate: multipathd reloads the map in the order the paths stand now.
            immediate = next(x["value"] for x in facts["settings"] if x["name"] == "failback") == "immediate"
            order = now if immediate else own
            assert order == sorted(order, reverse=True), "groups in priority order"
            assert prios == now
        first_up = next((i for i, u in enumerate(up) if any(u)), None)
        assert statuses == ["active" if i == first_up else "enabled" for i in range(len(groups))]


@pytest.mark.parametrize(("file", "options"), [
    ("c1-vmax-1lun.toml", ()),
    ("c2-activecluster-distance.toml", ()),
    ("c2-activecluster-distance.toml", ("--variant", "preferred_array")),
    ("four-paths-one-slow.toml", ()),
    ("congested-path.toml", ("--variant", "dm_service_time", "--set", "policy.no_path_retry=queue")),
    ("flaky-path.toml", ("--variant", "dm_service_time")),
    ("srdf-metro-50km.toml", ()),
    (CX4, ()),
    (CX4, ("--variant", "powerpath_adaptive")),
])  # fmt: skip
def test_shipped_scenarios_read_back_as_the_model_has_them(tmp_path: Path, scenarios: Path, file: str,
                                                           options: tuple[str, ...]) -> None:
    text = show(scenarios / file, *options)
    assert text == show(scenarios / file, *options, what="paths")
    sets = [options[i + 1] for i in range(len(options)) if options[i] == "--set"]
    variant = options[1] if options[:1] == ("--variant",) else None
    desc = Scenario.load(scenarios / file, variant=variant, set=sets).describe()
    tables = read_back(tmp_path, text)
    check_against_model(tables, desc)
    # hwtable.c queues on Symmetrix (no_path_retry 6) and CLARiiON (300 / 5 = 60 checks), not on
    # FlashArray or an array without an entry (defaults.h: no queueing).
    queueing = {d["vendor"] in ("EMC", "DGC") or "policy.no_path_retry=queue" in sets for d in desc["devices"]}
    assert set(tables["maps"]["features"]) == {"1 queue_if_no_path" if q else "0" for q in queueing}
    assert set(tables["maps"]["size"]) == {"100G"} and set(tables["maps"]["wp"]) == {"rw"}


def test_a_failed_path_after_the_cx4_fault_reads_back_failed(tmp_path: Path, scenarios: Path) -> None:
    """One optimized path of the SPA LUNs fails at 120 s (vmhba1 to SPA-0: `0:0:0:L`)."""
    text = show(scenarios / CX4, "--at", "121s")
    tables = read_back(tmp_path, text)
    paths = tables["paths"]
    failed = paths[paths["dm_state"] == "failed"]
    assert list(failed["hctl"]) == [f"0:0:0:{lun}" for lun in range(1, 9)]
    assert set(failed["checker_state"]) == {"faulty"}
    assert list(tables["maps"]["paths"]) == [4] * 8
    # The LUNs SPA owns lose an optimized path: their first group keeps prio 50 (the path left)
    # and stays active; the SPB LUNs lose a non-optimized one.
    groups = paths.groupby(["map", "group"]).agg(prio=("group_prio", "first"), status=("group_status", "first"),
                                                 failed=("dm_state", lambda s: int((s == "failed").sum())))
    assert groups.loc["mpatha"].to_dict("list") == {"prio": [50, 10], "status": ["active", "enabled"], "failed": [1, 0]}
    assert groups.loc["mpathb"].to_dict("list") == {"prio": [50, 10], "status": ["active", "enabled"], "failed": [0, 1]}
    assert text.splitlines()[:8] == [
        "mpatha (36006016000000000000000000000a001) dm-0 DGC,VRAID",
        # The CLARiiON's hwtable entry queues for 60 checks (no_path_retry 300 / 5).
        "size=100G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw",
        "|-+- policy='service-time 0' prio=50 status=active",
        "| |- 0:0:0:1 sda 8:0    failed faulty running",
        "| `- 1:0:0:1 sdq 65:0   active ready  running",
        "`-+- policy='service-time 0' prio=10 status=enabled",
        "  |- 0:0:1:1 sdi 8:128  active ready  running",
        "  `- 1:0:1:1 sdy 65:128 active ready  running",
    ]


def cx4_both_spa0_paths_down(scenarios: Path) -> str:
    """The CX4 with the fault at 2 s, and the second adapter's SPA path lost too: the LUNs SPA
    owns have no optimized path left."""
    text = (scenarios / CX4).read_text().replace('at = "120s"', 'at = "2s"')
    return text + '\n[[faults]]\nkind = "path_down"\nat = "2s"\npath = "vmhba2:C0:T0"\n'


def test_a_group_without_a_path_up_shows_prio_0_and_the_next_group_is_active(tmp_path: Path, scenarios: Path) -> None:
    desc = Scenario.from_text(cx4_both_spa0_paths_down(scenarios), "cx4.toml").describe("3s")
    tables = read_back(tmp_path, multipath.multipath_ll(desc))
    check_against_model(tables, desc)
    groups = tables["paths"].groupby(["map", "group"]).agg(prio=("group_prio", "first"),
                                                           status=("group_status", "first"))
    # The CLARiiON's hwtable entry fails back immediately: the map is reloaded with the group
    # left without a path last (manual failback would keep it first, at prio 0).
    assert groups.loc["mpatha"].to_dict("list") == {"prio": [10, 0], "status": ["active", "enabled"]}
    assert groups.loc["mpathb"].to_dict("list") == {"prio": [50, 0], "status": ["active", "enabled"]}


@pytest.mark.parametrize("both", [False, True])
def test_an_esxi_device_shows_the_map_of_the_dm_multipath_defaults(scenarios: Path, both: bool) -> None:
    """What a Linux host would make of an ESXi-configured device is what pathlab's own
    dm-multipath policy, at its defaults, holds at the same moment."""
    text = cx4_both_spa0_paths_down(scenarios) if both else (scenarios / CX4).read_text().replace('"120s"', '"2s"')
    # 8 s: after dm-multipath's FC fast_io_fail_tmo (5 s) has failed the lost paths, as ESXi
    # does at once.
    esxi = Scenario.from_text(text, "cx4.toml").describe("8s")
    dm = Scenario.from_text(text, "cx4.toml", set={"policy.name": "dm-multipath"}).describe("8s")
    assert esxi["devices"][0]["psp"] == "VMW_PSP_RR" and dm["devices"][0]["psp"] == "dm-multipath"
    assert multipath.multipath_ll(esxi) == multipath.multipath_ll(dm)


def many_luns(luns: int, adapters: int = 2, ports: int = 4) -> str:
    """A symmetric ALUA array with `luns` LUNs, every adapter zoned to every port."""
    names = [f"naa.60000000000000000000000000{i:06x}" for i in range(1, luns + 1)]
    quoted = lambda items: ", ".join(f'"{item}"' for item in items)  # noqa: E731
    hbas = [f"vmhba{i}" for i in range(1, adapters + 1)]
    port_names = [f"P{i}" for i in range(ports)]
    lines = [
        'name = "many"', "[run]", 'duration = "1s"',
        "[host]", 'name = "h"', "adapters = [" + ", ".join(f'{{ name = "{h}" }}' for h in hbas) + "]",
        "[[arrays]]", 'name = "a"', 'vendor = "PURE"', 'model = "FlashArray"', "tpgs = true", "symmetric = true",
        'service = { fixed = "20us" }',
        "ports = [" + ", ".join(f'{{ name = "{p}" }}' for p in port_names) + "]",
        "[[fabric]]", f"adapters = [{quoted(hbas)}]", f"ports = [{quoted('a/' + p for p in port_names)}]",
        'latency = "2us"',
    ]
    for lun, name in enumerate(names, start=1):
        lines += ["[[devices]]", f'name = "{name}"', 'array = "a"', f"lun = {lun}"]
    lines += ["[[workloads]]", 'name = "w"', f'devices = ["{names[0]}"]', "outstanding = 1"]
    return "\n".join(lines) + "\n"


def test_a_large_host_names_disks_and_maps_as_the_kernel_does(tmp_path: Path) -> None:
    """40 LUNs on 8 paths: 320 SCSI disks, past `sdz` and past the sixteen block majors."""
    desc = Scenario.from_text(many_luns(40), "many.toml").describe()
    text = multipath.multipath_ll(desc)
    tables = read_back(tmp_path, text)
    check_against_model(tables, desc)
    maps, paths = tables["maps"], tables["paths"]
    # Listed by name (strcmp), numbered in the order the maps were made (first path discovered).
    assert list(maps["name"][:4]) == ["mpatha", "mpathaa", "mpathab", "mpathac"]
    assert list(maps["dm"][:4]) == ["dm-0", "dm-26", "dm-27", "dm-28"]
    assert maps.set_index("name").loc["mpathan", "dm"] == "dm-39"
    # Disks in H:C:T:L order: host 0's four targets, each with its 40 LUNs, then host 1.
    by_hctl = paths.set_index("hctl")
    assert by_hctl.loc["0:0:0:1", "device"] == "sda" and by_hctl.loc["0:0:0:1", "dev_t"] == "8:0"
    assert by_hctl.loc["0:0:0:40", "device"] == "sdan" and by_hctl.loc["0:0:0:40", "dev_t"] == "66:112"
    assert by_hctl.loc["1:0:0:1", "device"] == "sdfe" and by_hctl.loc["1:0:0:1", "dev_t"] == "130:0"
    assert by_hctl.loc["1:0:2:17", "device"] == "sdiw" and by_hctl.loc["1:0:2:17", "dev_t"] == "8:256"
    assert by_hctl.loc["1:0:3:40", "device"] == "sdlh" and by_hctl.loc["1:0:3:40", "dev_t"] == "67:496"
    # Path fields padded to the widest of their map (print.c snprint_path__).
    mpatha = text[: text.index("mpathaa")].splitlines()
    assert mpatha[3] == "  |- 0:0:0:1 sda  8:0     active ready running"
    assert mpatha[4] == "  |- 0:0:1:1 sdao 66:128  active ready running"
    assert mpatha[-1] == "  `- 1:0:3:1 sdju 65:384  active ready running"


@pytest.mark.parametrize(("index", "name", "dev_t"), [
    (0, "sda", "8:0"), (15, "sdp", "8:240"), (16, "sdq", "65:0"), (25, "sdz", "65:144"), (26, "sdaa", "65:160"),
    (127, "sddx", "71:240"), (128, "sddy", "128:0"), (255, "sdiv", "135:240"), (256, "sdiw", "8:256"),
    (701, "sdzz", "131:720"), (702, "sdaaa", "131:736"), (4095, "sdfan", "135:4080"),
])  # fmt: skip
def test_sd_names_and_numbers_follow_the_kernel(index: int, name: str, dev_t: str) -> None:
    assert multipath.sd_name(index) == name
    assert multipath.sd_dev_t(index) == dev_t


def test_sizes_print_as_snprint_size() -> None:
    assert multipath.size_text(100 << 21) == "100G"
    assert multipath.size_text(2 << 21) == "2.0G"
    assert multipath.size_text(1 << 31) == "1.0T"
    assert multipath.size_text(54 << 31) == "54T"
    assert multipath.size_text(3 << 11) == "3.0M"


def test_a_scenario_naming_only_the_array_shows_what_the_hwtable_gives_a_default_host(scenarios: Path) -> None:
    """C1 names only EMC SYMMETRIX (its policy is ESXi's): a Linux host's multipath-tools 0.14.3
    would make one multibus group (hwtable.c `.pgpolicy = MULTIBUS`) of const-priority paths
    (no ALUA), service-time 0, queueing (`.no_path_retry = 6`) and no hardware handler."""
    text = show(scenarios / "c1-vmax-1lun.toml")
    assert text.splitlines()[:4] == [
        "mpatha (360000970000197900123533030303031) dm-0 EMC,SYMMETRIX",
        "size=100G features='1 queue_if_no_path' hwhandler='0' wp=rw",
        "`-+- policy='service-time 0' prio=1 status=active",
        "  |- 0:0:0:1 sda 8:0   active ready running",
    ]
    assert len(text.splitlines()) == 3 + 8
    # The CX4 in PNR mode (no ALUA): scsi_dh_emc, the emc prioritizer (4 on the owning SP's
    # paths, 1 on the other's), grouped by priority, queueing for 300 s / 5 s = 60 checks.
    assert show(scenarios / CX4, "--set", "arrays.0.tpgs=false").splitlines()[:6] == [
        "mpatha (36006016000000000000000000000a001) dm-0 DGC,VRAID",
        "size=100G features='1 queue_if_no_path' hwhandler='1 emc' wp=rw",
        "|-+- policy='service-time 0' prio=4 status=active",
        "| |- 0:0:0:1 sda 8:0    active ready running",
        "| `- 1:0:0:1 sdq 65:0   active ready running",
        "`-+- policy='service-time 0' prio=1 status=enabled",
    ]
    # An array with no entry and no ALUA: defaults.h's failover grouping, one path per group.
    four = show(scenarios / "four-paths-one-slow.toml").splitlines()
    assert four[1] == "size=100G features='0' hwhandler='0' wp=rw"
    assert four[2:5] == ["|-+- policy='service-time 0' prio=1 status=active", "| `- 0:0:0:1 sda 8:0   active ready running",
                         "|-+- policy='service-time 0' prio=1 status=enabled"]


def test_describe_names_each_setting_and_where_it_came_from(scenarios: Path) -> None:
    """`describe`: the CX4 under `policy = { name = "dm-multipath" }` with failback given."""
    pol = '{ name = "dm-multipath", failback = "manual" }'
    desc = Scenario.load(scenarios / CX4, set=[f"policy={pol}", f"devices.*.policy={pol}"]).describe()
    facts = desc["linux"]["devices"][0]
    assert facts["hwtable"] == ["DGC CLARiiON CX/AX / VNX and Unity"]
    settings = {s["name"]: (s["value"], s["origin"]) for s in facts["settings"]}
    assert settings["failback"] == ("manual", "scenario")
    assert settings["no_path_retry"] == ("60", "storage device configuration")
    assert settings["path_grouping_policy"] == ("group_by_prio", "storage device autodetected")
    assert settings["path_selector"] == ("service-time 0", "multipath internal")
    assert settings["hardware_handler"] == ("1 alua", "retained by kernel driver")
    assert settings["path_checker"] == ("emc_clariion", "storage device configuration")


def test_an_nvme_head_shows_its_controllers_connect_options(scenarios: Path) -> None:
    """NVMe heads list `nvme connect`'s queue size and I/O queues (the block layer's tag maps);
    SCSI devices under dm-multipath do not."""
    removal = scenarios / "reactions" / "nvme-delayed-removal.toml"
    default = Scenario.load(removal).describe()["linux"]["devices"][0]
    assert {(s["name"], s["value"], s["origin"]) for s in default["settings"]} >= {
        ("queue_size", "128", "nvme connect"), ("nr_io_queues", "8", "nvme connect")}
    given = Scenario.load(removal, set=["host.stack.nvme_queue_size=32", "host.stack.nvme_io_queues=2"])
    facts = given.describe()["linux"]["devices"][0]
    assert {(s["name"], s["value"]) for s in facts["settings"]} >= {("queue_size", "32"), ("nr_io_queues", "2")}
    cx4 = Scenario.load(scenarios / CX4).describe()["linux"]["devices"][0]
    assert not {"queue_size", "nr_io_queues"} & {s["name"] for s in cx4["settings"]}


def test_nvme_heads_print_as_nvme_list_subsys_and_read_back(scenarios: Path, tmp_path: Path) -> None:
    """`show --style nvme`: one subsystem per array, a controller per (adapter, port), read back by
    pathlab's own `nvme list-subsys` reader."""
    from pathlab.output.nvme import list_subsys
    from pathlab.readers import nvme_subsys

    shared = Scenario.load(scenarios / "reactions" / "nvme-shared-controllers.toml", variant="queue_depth")
    out = tmp_path / "list-subsys.txt"
    out.write_text(list_subsys(shared.describe()))
    table = nvme_subsys.read(out)
    assert list(table["controller"]) == ["nvme0", "nvme1"]
    assert set(table["nqn"]) == {"nqn.2014-08.org.nvmexpress:uuid:bulk"}
    assert set(table["iopolicy"]) == {"queue-depth"} and set(table["transport"]) == {"tcp"}
    assert list(table["address"]) == ["traddr=subsys/P0,trsvcid=4420", "traddr=subsys/P1,trsvcid=4420"]
    assert set(table["state"]) == {"live"} and set(table["ana_state"]) == {"optimized"}
    # multipath -ll leaves native NVMe heads alone: dm-multipath does not claim them.
    assert show(scenarios / "reactions" / "nvme-shared-controllers.toml") == ""
    # Every path down from 5 s (nvme-delayed-removal): the controllers reconnect.
    removal = Scenario.load(scenarios / "reactions" / "nvme-delayed-removal.toml")
    out.write_text(list_subsys(removal.describe("7s")))
    assert set(nvme_subsys.read(out)["state"]) == {"connecting"}
    # The CX4 under NVMe: each SP owns half the namespaces, so a controller is optimized for some
    # and non-optimized for others: no one ANA state to show.
    cx4_nvme = ['policy={ name = "nvme" }', 'devices.*.policy={ name = "nvme" }']
    out.write_text(list_subsys(Scenario.load(scenarios / CX4, set=cx4_nvme).describe()))
    assert nvme_subsys.read(out)["ana_state"].isna().all()


def test_esxtop_views_of_an_nvme_head_show_no_device_queue(tmp_path, scenarios) -> None:
    # A Linux NVMe head has no device queue: DQLEN, %USD and LOAD have nothing to divide by.
    # The esxtop panel prints "-", the CSV leaves the cells empty (as esxtop leaves a counter it
    # does not have), the JSON says null; a SCSI device beside it keeps its figures.
    file = scenarios / "reactions" / "nvme-shared-controllers.toml"
    csv_out = tmp_path / "run.csv"
    done = pathlab("run", str(file), "--variant", "round_robin", "--set", "run.duration=1s", "--set", "run.warmup=0s",
                   "--esxtop-csv", str(csv_out))
    assert done.returncode == 0, done.stderr
    bulk = next(line for line in done.stdout.splitlines() if line.startswith("nqn.2014-08.org.nvmexpress:uuid:bulk/ns1"))
    assert bulk.split()[1:3] == ["2", "-"] and bulk.split()[5:7] == ["-", "-"]
    frame = esxtop.read(csv_out)["devices"]
    assert frame["Device Q Depth"].isna().all() and frame["% Used"].isna().all()
    data = Scenario.load(file, variant="round_robin", set={"run.duration": "2s", "run.warmup": "1s"}).run().data
    assert {d["dqlen"] for d in data["devices"]} == {None}
    # ACTV counts the started requests, each holding a tag: the bulk namespace's worker submits
    # on one CPU, so one map of 126 tags (queue_size 128 - 2) per controller, two controllers.
    # QUED is the rest of its 1,024, waiting for a tag, and by Little's law QUED / rate = KAVG.
    bulk = data["devices"][0]
    assert bulk["actv"] == pytest.approx(2 * 126, abs=0.5)
    assert bulk["actv"] + bulk["qued"] == pytest.approx(1024, abs=0.5)
    assert bulk["qued"] / bulk["cmds_s"] * 1e3 == pytest.approx(bulk["kavg_ms"], rel=0.01)
    scsi = Scenario.load(file, variant="round_robin", set=['policy={ name = "dm-multipath" }',
                                                           "run.duration=1s", "run.warmup=0s"]).run().data
    assert {d["dqlen"] for d in scsi["devices"]} == {32}
