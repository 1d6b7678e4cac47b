"""Linux host readers (`multipath -ll`, `nvme list-subsys`/`show-topology`, `/proc/diskstats`,
`iostat -x`): the real samples of tests/data/linux (sources in its README) read as the files say;
broken files are refused with the file, the line and what was expected; random text never raises
anything but ScenarioError."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pathlab
from pathlab.readers import diskstats, iostat, multipath_ll, nvme_subsys

DATA = Path(__file__).parent / "data" / "linux"


def refused(reader, path: Path) -> pathlab.ScenarioError:
    with pytest.raises(pathlab.ScenarioError) as e:
        reader(path)
    assert e.value.args[0] == str(path), e.value.args
    return e.value


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def cut(path: Path, lines: int, chars: int = 0) -> str:
    """The first `lines` lines of a sample, and `chars` characters of the next (a truncated copy)."""
    all_lines = path.read_text().split("\n")
    return "\n".join(all_lines[:lines]) + ("\n" + all_lines[lines][:chars] if chars else "\n")


# ---------------------------------------------------------------------------------------------
# multipath -ll / -l


def path_row(table: pd.DataFrame, device: str) -> pd.Series:
    (row,) = [r for _, r in table.iterrows() if r["device"] == device]
    return row


def test_multipath_l_of_a_jbod_host_reads_every_map_and_path_unchecked() -> None:
    t = multipath_ll.read(DATA / "multipath-l_fusioninventory-multipath1.txt")
    maps, paths = t["maps"], t["paths"]
    assert (len(maps), len(paths)) == (24, 48)
    assert set(paths["checker_state"]) == {"undef"} and set(paths["dm_state"]) == {"active"}
    d11 = maps.set_index("name").loc["d11"]
    assert (d11.wwid, d11.dm, d11.vendor, d11["product"], d11["size"], d11.features, d11.hwhandler, d11.wp,
            d11.paths) == ("35000c500ad9ae4b3", "dm-15", "SEAGATE", "DL1800MM0159", "1.6T", "0", "0", "rw", 2)
    sdai = path_row(paths, "sdai")
    assert (sdai["map"], sdai.group, sdai.selector, sdai.group_prio, sdai.group_status, sdai.hctl, sdai.dev_t,
            sdai.online_state) == ("d11", 1, "service-time 0", 0, "active", "14:0:20:0", "66:32", "running")
    assert maps["size_bytes"].dtype == "float64" and paths["group_prio"].dtype == "Int64"


@pytest.mark.parametrize(("sample", "n_maps", "n_paths"), [
    ("multipath_check-multipath-01_falcon-ipstor.txt", 2, 8),
    ("multipath_check-multipath-03_maps-without-paths.txt", 2, 0),
    ("multipath_check-multipath-14_old-brackets-falcon.txt", 2, 8),
    ("multipath_check-multipath-16_dgc-lsi-l.txt", 3, 9),
    ("multipath_check-multipath-18_rhel4.txt", 1, 8),
    ("multipath_check-multipath-20_netapp-debian-squeeze.txt", 2, 8),
    ("multipath_check-multipath-21_netapp-unknown-path.txt", 1, 1),
    ("multipath_check-multipath-22_old-brackets-fujitsu.txt", 2, 4),
    ("multipath_check-multipath-24_iscsi-failed-path.txt", 1, 2),
    ("multipath_check-multipath-26_dell-md32xx-rdac.txt", 1, 2),
    ("multipath_check-multipath-28_proware-one-group-per-path.txt", 1, 4),
    ("multipath_check-multipath-30_old-brackets-checker-msg.txt", 1, 4),
    ("multipathd-topology_etva-0.4.8-brackets.txt", 1, 4),
    ("multipathd-topology_etva-rdac-ghost.txt", 2, 8),
    ("multipath-ll_opensvc-issue6_ibm-one-group-per-path.txt", 1, 4),
    ("multipath-ll_opensvc-issue12_sles-log-lines.txt", 2, 4),
    ("multipath-ll_nvme-foreign_manpage.txt", 1, 2),
    ("multipath-ll_handbuilt-from-print-c_states.txt", 2, 8),
])  # fmt: skip
def test_every_multipath_sample_gives_its_maps_and_paths(sample: str, n_maps: int, n_paths: int) -> None:
    t = multipath_ll.read(DATA / sample)
    assert (len(t["maps"]), len(t["paths"])) == (n_maps, n_paths)
    assert list(t["maps"]["paths"]) == [int((t["paths"]["map"] == m).sum()) for m in t["maps"]["name"]]


def test_vendor_and_product_keep_their_spaces_and_lose_the_padding() -> None:
    falcon = multipath_ll.read(DATA / "multipath_check-multipath-01_falcon-ipstor.txt")["maps"].iloc[0]
    assert (falcon["name"], falcon.wwid, falcon.vendor, falcon["product"]) == \
        ("mpathb", "36000d774000045f655ea91cb4ea41d6f", "FALCON", "IPSTOR DISK")
    lsi = multipath_ll.read(DATA / "multipath_check-multipath-16_dgc-lsi-l.txt")["maps"].iloc[2]
    assert (lsi["name"], lsi.wwid, lsi.vendor, lsi["product"], lsi.hwhandler) == \
        ("36003005700f0eb70160c9b590a77c13e", "36003005700f0eb70160c9b590a77c13e", "LSI", "RAID 5/6 SAS 6G", "0")
    ibm = multipath_ll.read(DATA / "multipath-ll_opensvc-issue6_ibm-one-group-per-path.txt")["maps"].iloc[0]
    assert (ibm["name"], ibm.vendor, ibm["product"], ibm["size"], ibm.features) == \
        ("DATA01", "IBM", "2145", "500G", "1 queue_if_no_path")
    fastt = multipath_ll.read(DATA / "multipathd-topology_etva-rdac-ghost.txt")["maps"].iloc[0]
    assert (fastt.vendor, fastt["product"], fastt.hwhandler) == ("IBM", "1814      FAStT", "1 rdac")


def test_one_group_per_path_numbers_the_groups_in_order() -> None:
    paths = multipath_ll.read(DATA / "multipath-ll_opensvc-issue6_ibm-one-group-per-path.txt")["paths"]
    assert list(paths["group"]) == [1, 2, 3, 4]
    assert list(paths["group_status"]) == ["enabled", "active", "enabled", "enabled"]
    assert list(paths["group_prio"]) == [50, 50, 10, 10]
    assert list(paths["device"]) == ["sdj", "sdn", "sdc", "sdb"]


def test_failed_faulty_ghost_and_unknown_paths_read_as_printed() -> None:
    iscsi = multipath_ll.read(DATA / "multipath_check-multipath-24_iscsi-failed-path.txt")
    sdd = path_row(iscsi["paths"], "sdd")
    assert (sdd.hctl, sdd.dm_state, sdd.checker_state, sdd.online_state) == ("10:0:0:1", "failed", "faulty", "running")
    assert iscsi["maps"].iloc[0]["name"] == iscsi["maps"].iloc[0].wwid == "1STORAGE_server_target2"
    rdac = multipath_ll.read(DATA / "multipathd-topology_etva-rdac-ghost.txt")["paths"]
    ghosts = rdac[rdac.checker_state == "ghost"]
    assert list(ghosts["device"]) == ["sdi", "sdh", "sdg", "sdd"] and set(ghosts["group_prio"]) == {1}
    unknown = multipath_ll.read(DATA / "multipath_check-multipath-21_netapp-unknown-path.txt")["paths"].iloc[0]
    assert (unknown.hctl, unknown.device, unknown.dev_t, unknown.dm_state, unknown.checker_state) == \
        ("#:#:#:#", "-", "#:#", "active", "faulty")


def test_every_checker_state_print_c_knows_reads_whole() -> None:
    t = multipath_ll.read(DATA / "multipath-ll_handbuilt-from-print-c_states.txt")
    assert list(t["paths"]["checker_state"]) == ["ready", "shaky", "ghost", "i/o pending", "ready", "i/o timeout",
                                                 "delayed", "faulty"]
    assert list(t["paths"]["online_state"])[-1] == "offline"
    creating = t["maps"].iloc[0]
    assert (creating["name"], creating.action, creating.dm, creating.wp) == ("mpathx", "create", "undef", "undef")


def test_old_bracket_layouts_of_rhel4_and_rhel5() -> None:
    rhel4 = multipath_ll.read(DATA / "multipath_check-multipath-18_rhel4.txt")
    m = rhel4["maps"].iloc[0]
    assert (m["name"], m.wwid, pd.isna(m.dm), m["size"], m.size_bytes, m.features, m.hwhandler) == \
        ("MYVOLUME", "36005076801810523100000000000006f", True, "576 GB", 576 * 2**30, "1 queue_if_no_path", "0")
    p = rhel4["paths"].iloc[0]
    assert (p.selector, pd.isna(p.group_prio), p.group_status, p.hctl, p.dm_state, pd.isna(p.checker_state)) == \
        ("round-robin 0", True, "active", "13:0:1:0", "active", True)
    falcon = multipath_ll.read(DATA / "multipath_check-multipath-14_old-brackets-falcon.txt")
    m, p = falcon["maps"].iloc[0], falcon["paths"].iloc[0]
    assert (m["size"], m.features, m.hwhandler, m.wp) == ("1.9T", "1 queue_if_no_path", "0", "rw")
    assert (p.group_prio, p.group_status, p.device, p.dm_state, p.checker_state) == (-4, "active", "sde", "active", "undef")
    etva = multipath_ll.read(DATA / "multipathd-topology_etva-0.4.8-brackets.txt")
    m = etva["maps"].iloc[0]
    assert (m.features, m.hwhandler, m.wp, m.vendor, m["product"]) == ("0", "1 rdac", "rw", "IBM", "1814      FAStT")
    assert list(etva["paths"]["checker_state"]) == ["ready", "faulty", "ghost", "ghost"]
    fujitsu = multipath_ll.read(DATA / "multipath_check-multipath-22_old-brackets-fujitsu.txt")["maps"]
    assert list(fujitsu["vendor"]) == ["FUJITSU", "FUJITSU"] and fujitsu["wp"].isna().all()


def test_log_lines_and_checker_messages_are_skipped() -> None:
    sles = multipath_ll.read(DATA / "multipath-ll_opensvc-issue12_sles-log-lines.txt")
    assert list(sles["maps"]["dm"]) == ["dm-6", "dm-12"] and list(sles["maps"]["line"]) == [13, 21]
    blank = sles["maps"].iloc[1]
    assert (blank.vendor, blank["product"], blank.paths) == ("##", "##", 0)
    msg = multipath_ll.read(DATA / "multipath_check-multipath-30_old-brackets-checker-msg.txt")["paths"]
    assert list(msg["group_prio"]) == [100, 100, 10, 0]
    assert path_row(msg, "sddv").checker_state == "faulty"


def test_native_nvme_maps_of_the_foreign_library() -> None:
    t = multipath_ll.read(DATA / "multipath-ll_nvme-foreign_manpage.txt")
    m = t["maps"].iloc[0]
    assert (m["name"], m.dm, m.vendor, m["product"], m.revision, m.hwhandler, m.size_bytes) == \
        ("uuid.fedcba98-3579-4567-8765-123456789abc", "[nvme]:nvme4n9", "NVME", "Some NVMe controller", "FFFFFFFF",
         "ANA", 167772160 * 512)
    p = t["paths"].iloc[1]
    assert (p.group, p.group_status, p.hctl, p.device, p.dm_state, p.checker_state, p.online_state) == \
        (2, "optimized", "4:39:1", "nvme4c39n1", "n/a", "optimized", "live")


@pytest.mark.parametrize(("text", "where", "message"), [
    ("", "line 1", "empty file"),
    ("mpatha (3600a) dm-0 NETAPP,LUN\n", "line 1", "the file ends after this map header"),
    ("mpatha (3600a) dm-0 NETAPP,LUN\n|-+- policy='service-time 0' prio=50 status=active\n", "line 2",
     "expected the map's `size=… features='…' hwhandler='…'` line"),
    ("mpatha (3600a) dm-0 NETAPP,LUN\nsize=1G features='0' hwhandler='0' wp=rw\n| `- 3:0:0:1 sdb 8:16 active ready running\n",
     "line 3", "a path line before any path group"),
    ("|-+- policy='service-time 0' prio=50 status=active\n", "line 1", "a path group before any map header"),
    ("mpatha (3600a) dm-0 NETAPP,LUN\nsize=1G features='0' hwhandler='0' wp=rw\n"
     "`-+- policy='service-time 0' prio=fifty status=active\n", "line 3", "prio='fifty': expected a whole number"),
    # the first path cut inside its states: nothing whole to read, said as the cut it is
    ("mpatha (3600a) dm-0 NETAPP,LUN\nsize=1G features='0' hwhandler='0' wp=rw\n"
     "`-+- policy='service-time 0' prio=50 status=active\n  `- 3:0:0:1 sdb 8:16 active\n", "line 4",
     "the listing ends inside map mpatha (line 4) before any whole path"),
    ("mpatha (3600a) dm-0 NETAPP,LUN\nsize=1G features='0' hwhandler='0' wp=rw\n"
     "|-+- policy='service-time 0' prio=50 status=active\n| |- 3:0:0:1 sdb 8:16 act\n", "line 4",
     "the listing ends inside map mpatha (line 4) before any whole path"),
])  # fmt: skip
def test_what_is_not_multipath_output_is_refused_with_its_line(tmp_path: Path, text: str, where: str,
                                                                 message: str) -> None:
    e = refused(multipath_ll.read, write(tmp_path, "mp.txt", text))
    assert e.args[1] == where and message in e.args[2], e.args


def test_a_truncated_listing_or_another_format_is_refused(tmp_path: Path) -> None:
    sample = DATA / "multipath_check-multipath-20_netapp-debian-squeeze.txt"
    e = refused(multipath_ll.read, write(tmp_path, "cut.txt", cut(sample, 3, 20)))  # `| |- 0:0:0:0 sda 8:0 `
    assert e.args[1] == "line 4" and "the listing ends inside map " in e.args[2] and "(line 4) before any whole path" in e.args[2]
    # Ends on a map header after whole maps: those are read, and the last one is said to be cut (issue 32).
    maps = multipath_ll.read(write(tmp_path, "cut2.txt", cut(sample, 9)))["maps"]
    assert [(m.name, None if pd.isna(m.cut) else m.cut) for m in maps.itertuples()][-2:] == \
        [(maps["name"].iloc[-2], None), (maps["name"].iloc[-1], 9)]
    e = refused(multipath_ll.read, DATA / "iostat-x_sysstat12_expected.txt")
    assert e.args[1] == "line 1" and "expected a map header" in e.args[2]
    e = refused(multipath_ll.read, DATA / "diskstats_pt-diskstats-diskstats-004.txt")
    assert e.args[1] == "line 1"
    e = refused(multipath_ll.read, tmp_path / "missing.txt")
    assert e.args[1] == ""


# ---------------------------------------------------------------------------------------------
# nvme list-subsys / show-topology


def test_list_subsys_with_ana_states_of_nvme_cli_2() -> None:
    t = nvme_subsys.read(DATA / "nvme-list-subsys_v2_nvme-cli-pr1540_powerstore.txt")
    assert list(t["controller"]) == ["nvme1", "nvme2"] and set(t["subsystem"]) == {"nvme-subsys1"}
    assert set(t["nqn"]) == {"nqn.1988-11.com.dell:powerstore:00:f03028e73ef7D032D81E"}
    assert list(t["ana_state"]) == ["non-optimized", "optimized"] and set(t["state"]) == {"live"}
    assert list(t["address"]) == ["traddr=10.162.198.42,trsvcid=4420", "traddr=10.162.198.45,trsvcid=4420"]
    loop = nvme_subsys.read(DATA / "nvme-list-subsys_v2_nvme-cli-issue1458_loopback.txt").set_index("controller")
    assert pd.isna(loop.loc["nvme4", "ana_state"]) and loop.loc["nvme4", "state"] == "live"
    assert loop.loc["nvme1", "ana_state"] == "optimized" and loop.loc["nvme1", "subsystem"] == "nvme-subsys1"


def test_list_subsys_with_host_nqn_and_io_policy() -> None:
    t = nvme_subsys.read(DATA / "nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt")
    assert len(t) == 4 and set(t["iopolicy"]) == {"round-robin"}
    assert set(t["hostnqn"]) == {"nqn.2014-08.org.nvmexpress:uuid:4c4cxxxx-0050-xxxx-8035-c3cxxxxa5933"}
    assert list(t["ana_state"]) == ["optimized", "optimized", "non-optimized", "non-optimized"]
    assert t.iloc[2]["address"] == "traddr=192.168.166.156,trsvcid=4420,host_traddr=192.168.166.150," \
                                   "src_addr=192.168.166.150"


def test_list_subsys_of_nvme_cli_1_with_spaces_in_the_address() -> None:
    tcp = nvme_subsys.read(DATA / "nvme-list-subsys_v1_netapp-rhel8-tcp.txt")
    assert tcp.iloc[0]["address"] == "traddr=192.168.2.26 trsvcid=4420 host_traddr=192.168.2.31"
    assert list(tcp["ana_state"]) == ["non-optimized", "optimized", "non-optimized", "optimized"]
    fc = nvme_subsys.read(DATA / "nvme-list-subsys_v1_nvme-cli-issue1542_netapp-fc.txt")
    assert list(fc["controller"]) == ["nvme0", "nvme1"] and list(fc["state"]) == ["live", "live"]
    assert fc["ana_state"].isna().all() and fc.iloc[0]["transport"] == "fc"
    assert fc.iloc[0]["address"] == ("traddr=nn-0x202400a098fd4ca6:pn-0x202500a098fd4ca6 "
                                     "host_traddr=nn-0x200000109b579d5e:pn-0x100000109b579d5e")


def test_the_json_layouts_read_as_their_text() -> None:
    keys = ["subsystem", "nqn", "controller", "transport", "address", "state", "ana_state"]
    text = nvme_subsys.read(DATA / "nvme-list-subsys_v1_manpage.txt")
    v1 = nvme_subsys.read(DATA / "nvme-list-subsys_v1_manpage.json")
    assert v1[keys].equals(text[keys]) and list(v1["subsystem"]) == ["nvme-subsys0"] * 2 + ["nvme-subsys1"] * 2
    assert text["state"].isna().all() and text.iloc[3]["address"] == "traddr=1.1.1.3,trsvcid=4420,host_traddr=1.1.1.1"
    text = nvme_subsys.read(DATA / "nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt")
    v2 = nvme_subsys.read(DATA / "nvme-list-subsys_v2-json_handbuilt-from-netapp-ubuntu2404.json")
    assert v2[keys + ["hostnqn", "iopolicy"]].equals(text[keys + ["hostnqn", "iopolicy"]])


def test_show_topology_gives_each_namespace_its_optimized_path() -> None:
    t = nvme_subsys.read(DATA / "nvme-show-topology_nvme-cli-pr1693.txt")
    assert len(t) == 17
    optimized = t[t.ana_state == "optimized"].set_index("nsid")["controller"].to_dict()
    assert optimized == {4: "nvme2", 3: "nvme3", 2: "nvme5", 1: "nvme4"}
    toshiba = t[t.subsystem == "nvme-subsys0"].iloc[0]
    assert (toshiba.nqn, toshiba.transport, toshiba.address, toshiba.state, pd.isna(toshiba.ana_state)) == \
        ("nqn.2017-03.jp.co.toshiba:KXG60ZNV512G NVMe TOSHIBA 512GB:49MA23BZK03N", "pcie", "0000:3d:00.0", "live", True)
    json_rows = nvme_subsys.read(DATA / "nvme-show-topology_v2.2-json_handbuilt-from-pr1693.json")
    keys = ["subsystem", "nsid", "controller", "transport", "address", "state", "ana_state"]
    assert json_rows[keys].equals(t[t.subsystem == "nvme-subsys2"][keys].reset_index(drop=True))


def test_show_topology_ranked_by_multipath_and_by_controller(tmp_path: Path) -> None:
    # The row layouts of nvme-cli's `stdout_subsystem_topology_multipath` (src/nvme-print-stdout.c),
    # ranking by multipath (iopolicy numa: path, ANA state, NUMA nodes, controller, transport,
    # address, state) and by controller (controller line, then `+- ns N state ana` under it).
    ranked = write(tmp_path, "topo.txt", "nvme-subsys1 - NQN=nqn.x\n               hostnqn=nqn.h\n"
                   "               iopolicy=numa\n\\\n +- nvme1n1 (ns 1)\n \\\n"
                   "  +- nvme1c1n1 optimized 0-1 nvme1 tcp traddr=10.0.0.1,trsvcid=4420 live\n"
                   "  +- nvme1c2n1 inaccessible 0-1 nvme2 tcp traddr=10.0.0.2,trsvcid=4420 connecting\n")
    t = nvme_subsys.read(ranked)
    assert list(t["path"]) == ["nvme1c1n1", "nvme1c2n1"] and list(t["controller"]) == ["nvme1", "nvme2"]
    assert list(t["ana_state"]) == ["optimized", "inaccessible"] and list(t["state"]) == ["live", "connecting"]
    assert list(t["nsid"]) == [1, 1] and set(t["iopolicy"]) == {"numa"}
    by_ctrl = write(tmp_path, "ctrl.txt", "nvme-subsys1 - NQN=nqn.x\n\\\n +- nvme1 tcp traddr=10.0.0.1,trsvcid=4420\n"
                    " \\\n  +- ns 1 live optimized\n  +- ns 2 live non-optimized\n")
    t = nvme_subsys.read(by_ctrl)
    assert list(t["nsid"]) == [1, 2] and list(t["ana_state"]) == ["optimized", "non-optimized"]
    assert set(t["address"]) == {"traddr=10.0.0.1,trsvcid=4420"}


def test_a_namespace_id_beyond_32_bits_is_refused_with_its_line(tmp_path: Path) -> None:
    """NSID is a 32-bit field; a larger one stopped in a traceback (pandas' Int64 overflow)."""
    for text, line in (("nvme-subsys1 - NQN=nqn.x\n\\\n +- ns 4294967296\n", "line 3"),
                       ("nvme-subsys1 - NQN=nqn.x\n\\\n +- nvme1 tcp traddr=10.0.0.1,trsvcid=4420\n"
                        " \\\n  +- ns 1180591620717411303424 live optimized\n", "line 5")):
        with pytest.raises(pathlab.ScenarioError, match=r"namespace ID \d+: allowed 0 to 0xffffffff") as refused:
            nvme_subsys.read(write(tmp_path, "big.txt", text))
        assert refused.value.args[1] == line


def test_the_newest_json_nests_the_controller_in_the_path(tmp_path: Path) -> None:
    # The layout of nvme-cli's `json_subsystem_topology_multipath` (src/nvme-print-json.c).
    doc = ('[{"HostNQN": "nqn.h", "Subsystems": [{"Name": "nvme-subsys1", "NQN": "nqn.x", "IOPolicy": "queue-depth",'
           ' "Namespaces": [{"NSID": 1, "Name": "nvme1n1", "Paths": [{"Path": "nvme1c1n1", "ANAState": "optimized",'
           ' "Qdepth": 0, "Controller": [{"Name": "nvme1", "Transport": "tcp", "Address": "traddr=10.0.0.1",'
           ' "State": "live"}]}]}]}]}]')
    t = nvme_subsys.read(write(tmp_path, "t.json", doc))
    row = t.iloc[0]
    assert (row.path, row.controller, row.transport, row.address, row.state, row.ana_state, row.nsid, row.iopolicy) == \
        ("nvme1c1n1", "nvme1", "tcp", "traddr=10.0.0.1", "live", "optimized", 1, "queue-depth")


@pytest.mark.parametrize(("text", "where", "message"), [
    ("", "line 1", "empty file"),
    ("nvme-subsys0 - NQN=nqn.x\n\\\n", "line 1", "lists no controller"),
    ("nvme-subsys0 - NQN=\n", "line 1", "the NQN is empty"),
    (" +- nvme0 tcp traddr=1.1.1.1 live\n", "line 1", "expected a subsystem line"),
    ("nvme-subsys0 - NQN=nqn.x\n\\\n +- nvme0 tcp\n", "line 3", "expected the address and state of nvme0"),
    ("nvme-subsys0 - NQN=nqn.x\n\\\n +- disk0 tcp traddr=1 live\n", "line 3", "expected ` +- nvme0 <transport>"),
    ("nvme-subsys0 - NQN=nqn.x\n\\\n foo\n", "line 3", "expected a controller line"),
    ('{"Subsystems": [\n{"Name": "nvme-subsys0",\n "NQN": }]}', "line 3", "not JSON"),
    ('[{"Subsystems": [{"Name": "nvme-subsys0", "NQN": "x", "Paths": [{"Name": [1]}]}]}]',
     "[0].Subsystems[0].Paths[0].Name", "expected a string"),
    ('[{"Subsystems": {"Name": "x"}}]', "[0].Subsystems", "expected a list"),
    ("[]", "line 1", "no subsystem"),
])  # fmt: skip
def test_what_is_not_nvme_output_is_refused_with_its_line(tmp_path: Path, text: str, where: str, message: str) -> None:
    e = refused(nvme_subsys.read, write(tmp_path, "n.txt", text))
    assert e.args[1] == where and message in e.args[2], e.args


def test_a_truncated_nvme_listing_or_another_format_is_refused(tmp_path: Path) -> None:
    sample = DATA / "nvme-list-subsys_v2_nvme-cli-issue1458_loopback.txt"
    e = refused(nvme_subsys.read, write(tmp_path, "cut.txt", cut(sample, 6)))  # ends after `nvme-subsys1 …` and `\`
    assert e.args[1] == "line 5" and "truncated" in e.args[2]
    e = refused(nvme_subsys.read, DATA / "multipath_check-multipath-01_falcon-ipstor.txt")
    assert e.args[1] == "line 1" and "expected a subsystem line" in e.args[2]


# ---------------------------------------------------------------------------------------------
# /proc/diskstats


def test_pt_stalk_diskstats_samples_with_their_timestamps() -> None:
    t = diskstats.read(DATA / "diskstats_pt-diskstats-diskstats-004.txt")
    assert len(t) == 180 and t["sample"].nunique() == 6 and (t.groupby("sample").size() == 30).all()
    assert str(t["time"].iloc[0]) == "2011-02-19 15:40:03.073935"  # TS 1298130003.073935000 (UTC)
    sda3 = t[t.device == "sda3"].iloc[0]
    assert (sda3["major"], sda3["minor"], sda3.reads, sda3.sectors_read, sda3.weighted_io_ms) == \
        (8, 3, 4257315954, 136169413346, 2169768832)
    assert pd.isna(sda3.discards) and t["reads"].dtype == "UInt64"
    small = diskstats.read(DATA / "diskstats_pt-diskstats-small.txt")
    assert small["sample"].nunique() == 11 and str(small["time"].iloc[0]) == "2012-01-25 16:49:37.628000"


def test_read_latency_between_two_samples_is_the_hand_calculation() -> None:
    r = diskstats.rates(DATA / "diskstats_pt-diskstats-diskstats-004.txt")
    first = r[(r.device == "sda3") & (r["sample"] == 1)].iloc[0]
    # sda3 in the first two samples (TS 1298130003.073935000 and TS 1298130004.088149000):
    # reads 4257315954 -> 4257317380, read ticks 1922644483 -> 1922645044 ms,
    # writes 492348396 -> 492348443, write ticks 248191881 -> 248191896 ms,
    # sectors read 136169413346 -> 136169458914, io_ticks 1348454960 -> 1348455373 ms.
    interval = 1298130004.088149 - 1298130003.073935
    assert first.interval_s == pytest.approx(interval)
    assert first.read_latency_ms == pytest.approx((1922645044 - 1922644483) / (4257317380 - 4257315954))
    assert first.write_latency_ms == pytest.approx((248191896 - 248191881) / (492348443 - 492348396))
    assert first.reads_per_s == pytest.approx((4257317380 - 4257315954) / interval)
    assert first.read_kib_per_s == pytest.approx((136169458914 - 136169413346) / 2 / interval)
    assert first.utilisation == pytest.approx((1348455373 - 1348454960) / (interval * 1000))
    assert first.in_flight == 0 and not first.reset
    assert len(r) == 5 * 30


def test_18_and_20_field_lines_and_the_interval_parameter(tmp_path: Path) -> None:
    root1 = diskstats.read(DATA / "diskstats_sysstat-root1.txt")
    sdq = root1[root1.device == "sdq"].iloc[0]
    assert (sdq.discards, sdq.discards_merged, sdq.sectors_discarded, sdq.discard_ms) == (8638, 547, 362610, 123000)
    assert pd.isna(sdq.flushes)
    root3 = diskstats.read(DATA / "diskstats_sysstat-root3.txt")
    sdc = root3[root3.device == "sdc"].iloc[0]
    assert (sdc.flushes, sdc.flush_ms) == (32, 2145)
    # The two snapshots one after the other, a blank line between, no timestamps: the interval is given.
    both = write(tmp_path, "two.txt", (DATA / "diskstats_sysstat-root1.txt").read_text() + "\n"
                 + (DATA / "diskstats_sysstat-root3.txt").read_text())
    r = diskstats.rates(both, interval=2.0)
    sda = r[r.device == "sda"].iloc[0]
    # sda: reads 49601 -> 49701, read ticks 623970 -> 624070 ms, io_ticks 32862 -> 32962 ms.
    assert (sda.interval_s, sda.reads_per_s, sda.read_latency_ms, sda.utilisation) == (2.0, 50.0, 1.0, 0.05)
    assert diskstats.rates(both)["interval_s"].eq(1.0).all()


def test_device_means_are_the_means_of_the_rates_per_interval() -> None:
    path = DATA / "diskstats_pt-diskstats-diskstats-004.txt"
    means = diskstats.device_means(path).set_index("device")
    by_device = diskstats.rates(path).groupby("device")
    assert list(means.index) == sorted(by_device.groups) and (means["intervals"] == 5).all()
    for column in diskstats.MEAN_COLUMNS:
        pd.testing.assert_series_equal(means[column], by_device[column].mean(), check_names=False, rtol=1e-12)


def test_samples_without_separators_split_where_a_device_comes_round_again(tmp_path: Path) -> None:
    lines = (DATA / "diskstats_pt-diskstats-diskstats-004.txt").read_text().split("\n")
    bare = write(tmp_path, "bare.txt", "\n".join(line for line in lines if not line.startswith("TS")))
    t = diskstats.read(bare)
    assert t["sample"].nunique() == 6 and t["time"].isna().all()


def test_a_counter_that_goes_down_is_a_reset_not_a_rate(tmp_path: Path) -> None:
    path = write(tmp_path, "reset.txt", "8 0 sda 10 0 80 20 0 0 0 0 0 30 40\n\n8 0 sda 2 0 16 4 0 0 0 0 0 5 6\n")
    row = diskstats.rates(path).iloc[0]
    assert bool(row.reset) and pd.isna(row.reads_per_s) and pd.isna(row.read_latency_ms)


def test_the_means_say_a_counter_that_went_down(tmp_path: Path) -> None:
    """Two captures joined (or a reboot between samples): the interval across the join is left
    out of the means, and the reader says so rather than average the two silently."""
    path = write(tmp_path, "joined.txt", "8 0 sda 1000 0 80 20 0 0 0 0 0 30 40\n\n8 0 sda 2000 0 80 20 0 0 0 0 0 30 40\n\n"
                                         "8 0 sda 5 0 16 4 0 0 0 0 0 5 6\n\n8 0 sda 105 0 16 4 0 0 0 0 0 5 6\n")
    with pytest.warns(pathlab.PathlabWarning, match="went down in 1 interval.s. of sda: a reboot, a 32-bit wrap or two "
                                                    "captures joined"):
        means = diskstats.device_means(path)
    assert means.iloc[0].reads_per_s == (1000 + 100) / 2


@pytest.mark.parametrize(("text", "where", "message"), [
    ("", "line 1", "empty file"),
    ("8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 0 sdb 1 2 3\n", "line 2", "found 3 (truncated?)"),
    ("8 0 sda 1 2 x 4 5 6 7 8 9 10 11\n", "line 1", "field 6 (sectors_read) 'x' is not a counter"),
    ("8 0 sda 1 2 3 4 5 6 7 8 9 10 -11\n", "line 1", "field 14 (weighted_io_ms) '-11' is not a counter"),
    ("TS 1298130003\nhello world\n", "line 2", "expected a /proc/diskstats line"),
])  # fmt: skip
def test_what_is_not_diskstats_is_refused_with_its_line(tmp_path: Path, text: str, where: str, message: str) -> None:
    e = refused(diskstats.read, write(tmp_path, "d.txt", text))
    assert e.args[1] == where and message in e.args[2], e.args


def test_a_truncated_capture_another_format_or_time_going_back_is_refused(tmp_path: Path) -> None:
    sample = DATA / "diskstats_pt-diskstats-diskstats-004.txt"
    e = refused(diskstats.read, write(tmp_path, "cut.txt", cut(sample, 40, 30)))  # `   8   16 sdb 4271380 …` cut
    assert e.args[1] == "line 41" and "truncated" in e.args[2]
    e = refused(diskstats.read, DATA / "iostat-xt_sysstat10_mickaelbaron.txt")
    assert e.args[1] == "line 1" and "expected a /proc/diskstats line" in e.args[2]
    back = write(tmp_path, "back.txt", "TS 1298130004\n8 0 sda 1 0 0 0 0 0 0 0 0 0 0\nTS 1298130003\n"
                 "8 0 sda 2 0 0 0 0 0 0 0 0 0 0\n")
    with pytest.raises(pathlab.ScenarioError) as info:
        diskstats.rates(back)
    assert info.value.args[:2] == (str(back), "sample 1") and "not after" in info.value.args[2]
    with pytest.raises(pathlab.ScenarioError) as info:
        diskstats.rates(back, interval=0)
    assert info.value.args[1] == "interval"


# ---------------------------------------------------------------------------------------------
# iostat -x


def test_iostat_x_of_sysstat_12_reports_and_columns() -> None:
    t = iostat.read(DATA / "iostat-x_sysstat12_expected.txt")
    assert len(t) == 10 and list(t["report"].unique()) == [0, 1] and t["time"].isna().all()
    assert {"r_await", "w_await", "rareq-sz", "aqu-sz", "d/s", "f_await", "%util"} <= set(t.columns)
    sda = t[(t.device == "sda") & (t.report == 0)].iloc[0]
    assert (sda["r/s"], sda["rkB/s"], sda["r_await"], sda["w_await"], sda["aqu-sz"], sda["%util"]) == \
        (6.90, 222.14, 12.58, 9.61, 0.10, 0.46)
    sdr = t[(t.device == "sdr") & (t.report == 1)].iloc[0]
    assert (sdr["w_await"], sdr["%util"]) == (40.00, 6.42)


def test_iostat_xt_of_sysstat_10_dates_each_report() -> None:
    t = iostat.read(DATA / "iostat-xt_sysstat10_mickaelbaron.txt")
    assert list(t["time"].astype(str)) == ["2014-11-10 17:44:13", "2014-11-10 17:44:15"]
    first = t.iloc[0]
    assert (first.device, first["await"], first["r_await"], first["w_await"], first["avgqu-sz"], first["svctm"]) == \
        ("xvda", 16.22, 8.55, 18.06, 0.12, 0.55)


def test_iostat_xm_and_the_normalised_names() -> None:
    t = iostat.read(DATA / "iostat-xm_portworx.txt")
    assert list(t["device"]) == ["xvdj", "xvdl", "xvdn"] and t.iloc[0]["rMB/s"] == 10.61
    n = iostat.normalise(t).iloc[0]
    assert (n["rkB/s"], n["wkB/s"], n["aqu-sz"], n["areq-sz"]) == (10.61 * 1024, 43.66 * 1024, 48.63, 106.87 / 2)
    assert "avgqu-sz" not in iostat.normalise(t).columns


def test_iostat_device_means_leave_out_the_report_since_boot(tmp_path: Path) -> None:
    # Three reports of sda in MB/s, the first since boot: the means are of the second and third.
    header = "Device: rrqm/s wrqm/s r/s w/s rMB/s wMB/s avgrq-sz avgqu-sz await svctm %util\n"
    reports = [(500, 1.0, 9.0), (100, 2.0, 3.0), (300, 4.0, 5.0)]
    path = write(tmp_path, "i.txt", "".join(f"{header}sda 0 0 {r} 10 {mb} 1 8 {q} 1 1 50\n\n" for r, mb, q in reports))
    (sda,) = iostat.device_means(path).itertuples()
    assert (sda.device, sda.reads_per_s, sda.writes_per_s) == ("sda", 200.0, 10.0)
    assert (sda.read_kib_per_s, sda.write_kib_per_s, sda.queue_length) == (3.0 * 1024, 1024.0, 4.0)
    # One report: it is all there is.
    one = write(tmp_path, "one.txt", f"{header}sda 0 0 500 10 1 1 8 9 1 1 50\n")
    assert iostat.device_means(one)["reads_per_s"].tolist() == [500.0]


def test_iostat_z_reports_leave_an_idle_device_out_and_it_counts_as_idle_there(tmp_path: Path) -> None:
    # `iostat -xz`: sdb did nothing in the second and the last report, so iostat left it out; its
    # means are over the three reports after the one since boot (they were over its one line).
    header = "Device: r/s w/s rkB/s wkB/s aqu-sz\n"
    path = write(tmp_path, "z.txt", f"{header}sda 9 9 9 9 9\nsdb 9 9 9 9 9\n\n{header}sda 2 4 8 16 1\n\n"
                                   f"{header}sda 4 4 8 16 1\nsdb 6 3 48 12 2\n\n{header}\n")
    with pytest.warns(pathlab.PathlabWarning, match="sdb missing from some of the 3 reports after the first: taken as "
                                                    "idle there"):
        means = iostat.device_means(path).set_index("device")
    # The reports print no r_await or w_await: the latencies are missing.
    assert means[["read_latency_ms", "write_latency_ms"]].isna().all().all()
    means = means[["reads_per_s", "writes_per_s", "read_kib_per_s", "write_kib_per_s", "queue_length"]]
    assert means.loc["sdb"].tolist() == [2.0, 1.0, 16.0, 4.0, 2 / 3]
    assert means.loc["sda"].tolist() == [2.0, 8 / 3, 16 / 3, 32 / 3, 2 / 3]


def test_iostat_device_means_say_whether_the_capture_leaves_idle_devices_out(tmp_path: Path) -> None:
    header = "Device: r/s w/s rkB/s wkB/s aqu-sz\n"
    z = write(tmp_path, "z.txt", f"{header}sda 9 9 9 9 9\nsdb 9 9 9 9 9\n\n{header}sda 2 4 8 16 1\n\n"
                                f"{header}sda 4 4 8 16 1\nsdb 6 3 48 12 2\n")
    every = write(tmp_path, "all.txt", f"{header}sda 9 9 9 9 9\n\n{header}sda 2 4 8 16 1\n")
    # -z --pretty: sdb only wrote, so its line in the read table is zeros, but its report is not.
    pretty = write(tmp_path, "pretty.txt", "".join(
        f"     r/s rkB/s Device\n{reads}\n     w/s wkB/s aqu-sz Device\n{writes}\n\n" for reads, writes in [
            ("1 8 sda\n1 8 sdb", "1 8 1 sda\n1 8 1 sdb"), ("1 8 sda\n0 0 sdb", "1 8 1 sda\n2 16 1 sdb"),
            ("1 8 sda", "1 8 1 sda")]))
    # sysstat's `iostat -x ALL`: dm-2 in one report only, and idle devices printed as zeros: not -z.
    printed = DATA.parent / "corpus/iostat-x/002-sysstat-x-all-dm-and-idle-devices/bare.txt"
    with pytest.warns(pathlab.PathlabWarning, match="missing from some"):
        assert iostat.device_means(z).attrs[iostat.LEAVES_IDLE_OUT] is True
        assert iostat.device_means(pretty).attrs[iostat.LEAVES_IDLE_OUT] is True
        assert iostat.device_means(printed).attrs[iostat.LEAVES_IDLE_OUT] is False
    assert iostat.device_means(every).attrs[iostat.LEAVES_IDLE_OUT] is False


def test_iostat_pretty_tables_are_one_report() -> None:
    # --pretty prints a report as four tables (read, write, discard, flush): one report, whose
    # means have every column (each table counted as a report, the reads were NaN: the first
    # table's report is the one since boot, left out).
    sample = DATA.parent / "corpus/iostat-x/004-sysstat-x-pretty-device-last/bare.txt"
    assert list(iostat.read(sample)["report"].unique()) == [0]
    sda = iostat.device_means(sample).set_index("device").loc["sda"]
    assert (sda.reads_per_s, sda.read_kib_per_s, sda.writes_per_s, sda.write_kib_per_s, sda.queue_length) == \
        (6.90, 222.14, 1.69, 57.08, 0.10)


def test_decimal_commas_pretty_and_empty_z_reports(tmp_path: Path) -> None:
    # Layouts of sysstat's iostat.c: a locale with a decimal comma, --pretty (device last) and -z
    # reports where no device was active.
    path = write(tmp_path, "i.txt", "Device:   r/s   w/s %util\nsda      0,39  1,25 2,97\n\n"
                 "Device:   r/s   w/s %util\n\n     r/s   w/s %util Device\n  1.00  2.00  3.00 sdb\n")
    t = iostat.read(path)
    assert list(t["report"]) == [0, 2] and list(t["device"]) == ["sda", "sdb"]
    assert (t.iloc[0]["r/s"], t.iloc[0]["%util"], t.iloc[1]["w/s"]) == (0.39, 2.97, 2.0)


@pytest.mark.parametrize(("text", "where", "message"), [
    ("", "line 1", "empty file"),
    ("sda 1 2 3\n", "line 1", "a `Device` header line before the device lines"),
    ("Device: r/s w/s\nsda 1.00 x\n", "line 2", "'x' in column w/s of sda is not a number"),
    ("Device: r/s w/s\nsda 1.00 2.0k\n", "line 2", "human-readable values"),
    ("Device: r/s w/s\nsda 1.00\n", "line 2", "expected a device name and 2 values"),
    ("Device: r/s w/s\nsda\nsdb 1.00 2.00\n", "line 2", "a device name alone on its line"),
    ("Device: r/s w/s\nsda 1.00 2.00\nsdb\n", "line 3", "without its values (truncated?)"),
    ("Device: r/s r/s\n", "line 1", "a column twice"),
    ("13/45/2020 12:00:00\n", "line 1", "is not a date"),
    # Headers alone (every report empty, as -z prints an idle host's): nothing measured.
    ("Linux 5.4.0 (h) 06/01/20 _x86_64_ (8 CPU)\n\nDevice: r/s w/s\n\nDevice: r/s w/s\n", "line 3",
     "2 `Device` header(s) and no device line: the capture holds no report of a device"),
    # An `iostat -xm` run and an `iostat -xk` run joined: MB/s and kB/s are not one column.
    ("Device: r/s rMB/s\nsda 1.00 2.00\n\nDevice: r/s rkB/s\nsda 1.00 2048.00\n", "line 4",
     "columns rkB/s that the first report (line 1) has not: a second iostat run joined in one file"),
    # A later report with fewer columns (another run, or an edited file): its missing columns
    # would have been averaged as zero.
    ("Device: r/s w/s aqu-sz\nsda 1.00 2.00 3.00\n\nDevice: r/s w/s aqu-sz\nsda 1.00 2.00 3.00\n\n"
     "Device: r/s w/s\nsda 5.00 5.00\n", "line 7", "a report without the columns aqu-sz that the first report"),
])  # fmt: skip
def test_what_is_not_iostat_output_is_refused_with_its_line(tmp_path: Path, text: str, where: str, message: str) -> None:
    e = refused(iostat.read, write(tmp_path, "i.txt", text))
    assert e.args[1] == where and message in e.args[2], e.args


def test_a_truncated_report_or_another_format_is_refused(tmp_path: Path) -> None:
    sample = DATA / "iostat-x_sysstat12_expected.txt"
    e = refused(iostat.read, write(tmp_path, "cut.txt", cut(sample, 7, 60)))  # the sdb line cut in its values
    assert e.args[1] == "line 8" and "truncated" in e.args[2]
    e = refused(iostat.read, DATA / "diskstats_sysstat-root1.txt")
    assert e.args[1] == "line 1" and "a `Device` header" in e.args[2]
    e = refused(iostat.read, DATA / "multipath_check-multipath-01_falcon-ipstor.txt")
    assert e.args[1] == "line 1"


# ---------------------------------------------------------------------------------------------
# Random text: a table or a ScenarioError, nothing else.

READERS = {"multipath": multipath_ll.read, "nvme": nvme_subsys.read, "diskstats": diskstats.read, "iostat": iostat.read}
SAMPLE_LINES = sorted({line for f in sorted(DATA.glob("*")) if f.name != "README.md"
                       for line in f.read_text().split("\n")})
LINES = st.one_of(st.sampled_from(SAMPLE_LINES), st.text(max_size=80),
                  st.sampled_from(SAMPLE_LINES).flatmap(lambda s: st.integers(0, len(s)).map(lambda n: s[:n])))


def read_or_refuse(kind: str, text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f.txt"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            result = READERS[kind](path)
            if kind == "diskstats":
                diskstats.device_means(path)
        except pathlab.ScenarioError as e:
            assert e.args[0] == str(path) and e.args[2]
            return
    # Read: something was found, and every row names a line of the text it came from.
    tables = result if isinstance(result, dict) else {kind: result}
    assert any(len(t) for t in tables.values())
    last = len(path_lines(text))
    for table in tables.values():
        assert table["line"].between(1, last).all(), kind


def path_lines(text: str) -> list[str]:
    """The lines a reader numbers: split at line ends, as a file is read."""
    return text.splitlines() or [""]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(READERS)), text=st.text(max_size=400))
def test_random_text_is_read_or_refused_with_a_scenario_error(kind: str, text: str) -> None:
    read_or_refuse(kind, text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(READERS)), lines=st.lists(LINES, max_size=25))
def test_shuffled_and_cut_sample_lines_are_read_or_refused(kind: str, lines: list[str]) -> None:
    read_or_refuse(kind, "\n".join(lines))


def test_iostat_as_pasted_reads_as_the_clean_capture(tmp_path: Path) -> None:
    # The prompt and command pasted above the output, a bare prompt after it, CRLF line ends and
    # the indentation a quote adds: the same means as the clean capture.
    header = "Device: r/s w/s rkB/s wkB/s aqu-sz\n"
    clean = (f"Linux 5.14.0 (host) \t11/26/2026 \t_x86_64_\t(2 CPU)\n\n{header}sda 9 9 9 9 9\n\n"
             f"{header}sda 2 4 8 16 1\n\n{header}sda 4 4 8 16 1\n")
    pasted = "".join(f"  {line}\r\n" for line in f"[root@host ~]# iostat -x 5 3\n{clean}[root@host ~]#".splitlines())
    expected = iostat.device_means(write(tmp_path, "clean.txt", clean))
    got = iostat.device_means(write(tmp_path, "pasted.txt", pasted))
    assert got.equals(expected)  # NaN where both lack a column, as to_dict could not compare
    other = write(tmp_path, "other.txt", f"$ multipath -ll\n{clean}")
    with pytest.warns(pathlab.PathlabWarning, match="line 1: a pasted command line skipped: '\\$ multipath -ll'"):
        iostat.device_means(other)


def test_a_captured_means_spread_is_students_t_for_its_count_of_intervals() -> None:
    """Three intervals of 1, 2 and 3: mean 2, standard error 1/√3; t(2 degrees of freedom,
    0.975) is 4.3027 (scipy.stats.t.ppf), not 1.96; thirty intervals come near 1.96 (2.045)."""
    from pathlab.readers._spread import spread

    assert spread(3, 6, 14) == pytest.approx(4.302652729749462 / 3 ** 0.5 / 2, rel=1e-9)
    values = [float(v % 5 + 1) for v in range(30)]
    mean, sd = sum(values) / 30, pd.Series(values).std()
    assert spread(30, sum(values), sum(v * v for v in values)) == \
        pytest.approx(2.045229642132703 * sd / 30 ** 0.5 / mean, rel=1e-9)
    assert spread(1, 2, 4) != spread(1, 2, 4)  # NaN: one value gives no spread


_CONNECTING = """nvme-subsys0 - NQN=nqn.1992-08.com.example:sn.1234:subsystem.host01
\\
 +- nvme0 tcp traddr=192.168.10.11,trsvcid=4420,src_addr=192.168.10.1 live optimized
 +- (null) tcp {address} {state}
"""


@pytest.mark.parametrize(("address", "state", "read_address", "read_state", "said"), [
    ("traddr=192.168.20.11,trsvcid=4420,src_addr=192.168.20.1", "connecting",
     "traddr=192.168.20.11,trsvcid=4420,src_addr=192.168.20.1", "connecting", "read as a path that is not live$"),
    ("(null)", "(null)", None, "(null)", "not live; its state printed \\(null\\) too"),
])
def test_an_nvme_controller_printed_without_a_name_is_a_path_not_live(tmp_path: Path, address: str, state: str,
                                                                      read_address: str | None, read_state: str,
                                                                      said: str) -> None:
    # nvme-cli 2 prints `(null)` (printf of a null name) for a controller the kernel has not made yet.
    path = write(tmp_path, "subsys.txt", _CONNECTING.format(address=address, state=state))
    with pytest.warns(pathlab.PathlabWarning, match=r"line 4: a controller without a name \(\(null\)\): one the "
                                                    r"kernel is still connecting, .*" + said):
        table = nvme_subsys.read(path)
    row = table.iloc[1]
    assert (row["controller"], row["transport"], row["state"]) == ("(null)", "tcp", read_state)
    assert (row["address"] if isinstance(row["address"], str) else None) == read_address
    assert pd.isna(row["ana_state"])


def test_an_nvme_controller_printed_without_a_name_but_live_is_read_live(tmp_path: Path) -> None:
    # The name came late, the state did not: the warning must not say what the row does not hold.
    text = _CONNECTING.format(address="traddr=192.168.20.11,trsvcid=4420,src_addr=192.168.20.1", state="live")
    with pytest.warns(pathlab.PathlabWarning, match=r"line 4: a controller without a name \(\(null\)\), printed "
                                                    r"live: read as a live path$"):
        table = nvme_subsys.read(write(tmp_path, "subsys.txt", text))
    assert table.iloc[1]["state"] == "live"


def test_two_nvme_controllers_without_a_name_are_refused_by_line(tmp_path: Path) -> None:
    text = _CONNECTING.format(address="(null)", state="connecting") + " +- (null) tcp (null) connecting\n"
    path = write(tmp_path, "subsys.txt", text)
    with pytest.warns(pathlab.PathlabWarning):
        e = refused(nvme_subsys.read, path)
    assert e.args[1:] == ("line 5", "a second controller without a name ((null); the first at line 4): paths are "
                                    "told apart by name; give the listing once they are connected")
