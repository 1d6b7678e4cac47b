"""The prioritizer multipath.conf sets, where multipath-tools uses it (`propsel.c` `select_prio`:
`detect_prio`, on by default, picks sysfs or alua for an array answering for TPGS first):
`sysfs` is simulated as `alua` by its named rule (sysfs.c gives alua.c's priorities from the
kernel's access_state), `weightedpath` is refused in one line naming the file and line, and a
`prio` that detect_prio overrides is not taken. The listing and the file are written here from
print.c's layout and multipath.conf(5)'s grammar."""

from __future__ import annotations

import warnings
from pathlib import Path

from conftest import one_error_line, pathlab
from pathlab.api import PathlabWarning
from pathlab.importer import import_files
from pathlab.importer.map_policy import SYSFS_RULE
from pathlab.importer.provenance import Derived, Read

#: An ALUA map of two one-path groups (optimized, non-optimized), as `multipath -ll` prints it.
LISTING = """\
mpathc (3600140500000000000000000000000c1) dm-4 LIO-ORG,disk1
size=20G features='0' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=50 status=active
| `- 7:0:0:3 sdh 8:112 active ready running
`-+- policy='service-time 0' prio=10 status=enabled
  `- 8:0:0:3 sdi 8:128 active ready running
"""


def _files(tmp_path: Path, *settings: str) -> tuple[Path, Path]:
    listing, conf = tmp_path / "multipath-ll.txt", tmp_path / "multipath.conf"
    listing.write_text(LISTING)
    conf.write_text('devices {\n    device {\n        vendor "LIO-ORG"\n        product ".*"\n'
                    + "".join(f"        {s}\n" for s in settings) + "    }\n}\n")
    return listing, conf


def _prio(listing: Path, conf: Path) -> tuple[str | None, object]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PathlabWarning)
        done = import_files([str(listing), str(conf)])
    device = done.tables.of("devices")[0]
    return device.get("policy").get("prio"), device.source("policy.prio")


def test_prio_sysfs_is_simulated_as_alua_by_its_rule(tmp_path: Path) -> None:
    listing, conf = _files(tmp_path, "detect_prio no", "prio sysfs")
    assert _prio(listing, conf) == ("alua", Derived(f"{conf}, line 6: {SYSFS_RULE}", (str(conf),)))


def test_a_simulated_prio_in_force_is_read_with_its_line(tmp_path: Path) -> None:
    listing, conf = _files(tmp_path, "detect_prio no", "prio const")
    assert _prio(listing, conf) == ("const", Read(str(conf), 6, "prio const (devices entry LIO-ORG/.*)"))


def test_prio_weightedpath_in_force_is_refused_in_one_line(tmp_path: Path) -> None:
    listing, conf = _files(tmp_path, "detect_prio no", "prio weightedpath", 'prio_args "hbtl 7:0:0:3 20"')
    assert one_error_line(pathlab("import", str(listing), str(conf))) == (
        f"pathlab: error: {conf}: line 6: prio weightedpath (devices entry LIO-ORG/.*) is in force for map mpathc: "
        "not simulated; simulated: const, alua, emc, ontap, rdac, hp_sw, sysfs (as alua)")


def test_detect_prio_overrides_prio_on_an_alua_array(tmp_path: Path) -> None:
    # detect_prio left at its default (yes): the TPGS array's paths get sysfs or alua, whatever `prio` says.
    listing, conf = _files(tmp_path, "prio weightedpath", 'prio_args "hbtl 7:0:0:3 20"')
    assert _prio(listing, conf) == (None, None)
