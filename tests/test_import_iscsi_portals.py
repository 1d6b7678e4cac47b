"""iSCSI portals in the ESXi import (issue 22): each session logs in to one portal of a target
portal group (`<target IQN>,t,<tag>`), so each session is an array port of its own, never merged
with the others of its group; sessions an adapter runs on channels of their own (iSCSI port
binding, `vmhba37:C0` and `C1`) stay two paths; and what the listings cannot say (the portals'
addresses, the portal group) is said on stderr. The names are the corpus' and the test data's."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

from conftest import quiet
from pathlab.api import Scenario
from pathlab.importer.esxi import _target_of, iscsi_session
from pathlab.readers import esxcli_paths

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "corpus"
ESXCLI = DATA / "esxcli"


def _named(path: str) -> SimpleNamespace:
    return SimpleNamespace(path=path, adapter="vmhba37", target=0, channel=0)


def test_two_sessions_to_one_portal_group_are_two_ports() -> None:
    # esxcli-nmp-path-list/005: OmniOS (napp-it), two sessions of vmhba37 to portal group 1.
    bare = (CORPUS / "esxcli-nmp-path-list/005-esxi6-omnios-iscsi-grep-wrapped-command/bare.txt").read_text()
    names = [line for line in bare.splitlines() if line.startswith("iqn.")]
    sessions = [iscsi_session(_named(n)) for n in names]
    assert sessions == [("00023d000003", "iqn.2010-09.org.napp-it:zfs,t,1"),
                        ("00023d000001", "iqn.2010-09.org.napp-it:zfs,t,1")]
    assert len({_target_of(_named(n)) for n in names}) == 2


def test_esx4_names_no_session_each_portal_group_is_one_port() -> None:
    # VNX iSCSI on ESX 4.1: SP A port 5 (tag 1) and SP B port 5 (tag 2), no ISID in the names.
    table = esxcli_paths.read(ESXCLI / "nmp-path-list-esx41-vnx-iscsi.txt")
    assert sorted(_target_of(p) for p in table.itertuples()) == [
        "iqn.1992-04.com.emc:cx.xxx3301534.a5,t,1", "iqn.1992-04.com.emc:cx.xxx3301534.b5,t,2"]


def test_core_path_lists_target_identifier_gives_the_same_session_and_group() -> None:
    table = esxcli_paths.read(ESXCLI / "esxcfg-mpath-l-esxi5-iscsi.txt")
    by_name = [_target_of(SimpleNamespace(path=p.uid, adapter=p.adapter, target=p.target, channel=p.channel))
               for p in table.itertuples()]
    by_identifier = [_target_of(SimpleNamespace(path=None, target_identifier=p.target_identifier, adapter=p.adapter,
                                                target=p.target, channel=p.channel)) for p in table.itertuples()]
    assert by_name == by_identifier == ["00023d000002,iqn.1992-04.com.emc:storage.Storage.tiny,t,1",
                                        "00023d000001,iqn.1992-04.com.emc:storage.Storage.tiny,t,1"]


def test_port_binding_sessions_import_as_two_paths_on_their_channels(tmp_path: Path) -> None:
    """`esxcfg-mpath -l` of ESXi 5 (two sessions of vmhba37, C0 and C1, to one portal group) with
    the device's block of an `nmp device list`: two ports, two paths named as the host names them,
    and the portal group said on stderr."""
    from pathlab.importer import import_files

    paths = tmp_path / "paths.txt"
    shutil.copy(ESXCLI / "esxcfg-mpath-l-esxi5-iscsi.txt", paths)
    # The device list the paths belong to: its one block, with the policy the paths' listing shows
    # (`Path Selection Policy Path Config` is round robin's; the SATP is the default active/active).
    devices = tmp_path / "devices.txt"
    devices.write_text("naa.5000144f79272808\n"
                       "   Device Display Name: EMC iSCSI Disk (naa.5000144f79272808)\n"
                       "   Storage Array Type: VMW_SATP_DEFAULT_AA\n"
                       "   Storage Array Type Device Config: SATP VMW_SATP_DEFAULT_AA does not support device "
                       "configuration.\n"
                       "   Path Selection Policy: VMW_PSP_RR\n"
                       "   Path Selection Policy Device Config: {policy=rr,iops=1000,bytes=10485760,useANO=0; "
                       "lastPathIndex=0: NumIOsPending=0,numBytesPending=0}\n"
                       "   Working Paths: vmhba37:C1:T0:L0, vmhba37:C0:T0:L0\n")
    with quiet():
        done = import_files([str(devices), str(paths)])
    said = [message for field, message in done.warnings if field.startswith("arrays.ports.")]
    assert len(said) == 1 and "iSCSI target portal group iqn.1992-04.com.emc:storage.Storage.tiny,t,1: 2 session(s)" \
        in said[0], said
    host = Scenario.from_text(done.text, "imported").describe()
    assert sorted(p["name"] for p in host["paths"]) == ["vmhba37:C0:T0:L0", "vmhba37:C1:T0:L0"]
    assert len({p["target"] for p in host["paths"]}) == 2
