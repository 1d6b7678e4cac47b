"""`show` of an imported host prints what its listing printed where the scenario still holds it,
and the scenario's value, marked `?` after it, where a fault or `--set` changed it since the
import: `multipath -ll`'s features, hwhandler, group priorities and statuses, `nvme list-subsys`'
iopolicy and ANA states (NOTES, session 13's review). A hand-edited `listed` place that is no
number is one line naming it."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, pathlab

CORPUS = ROOT / "tests" / "data" / "corpus"
#: NetApp AFF on Rocky 10: one map, an optimized group (prio 50) and a non-optimized one (prio 10).
TWO_GROUPS = CORPUS / "multipath-ll" / "002-netapp-aff-rocky10-alua-two-groups" / "bare.txt"
#: NetApp on OL10 over FC: four controllers, two optimized and two not, iopolicy round-robin.
NVME = CORPUS / "nvme-list-subsys" / "001-netapp-ol10-fc-hostnqn-iopolicy-continued" / "bare.txt"
#: Its second controller (nvme115, read non-optimized).
NVME115 = "fc0,host_traddr=nn-0x20000090fae0ec88+pn-0x10000090fae0ec88:C0:T1:L1"


def _imported(tmp_path: Path, listing: Path) -> str:
    out = tmp_path / "host.toml"
    done = pathlab("import", str(listing), "-o", str(out))
    assert done.returncode == 0, done.stderr
    return str(out)


def _show(*args: str) -> list[str]:
    done = pathlab("show", "paths", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_features_and_handler_a_set_changed_print_as_the_scenario_holds_them_marked(tmp_path: Path) -> None:
    host = _imported(tmp_path, TWO_GROUPS)
    assert _show(host, "--style", "linux")[1] == \
        "size=150G features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 alua' wp=rw"
    changed = _show(host, "--style", "linux", "--set", "devices.0.policy.no_path_retry=fail",
                    "--set", 'devices.0.policy.hardware_handler="0"')
    assert changed[1] == "size=150G features='2 pg_init_retries 50'? hwhandler='0'? wp=rw"
    assert changed[2:] == _show(host, "--style", "linux")[2:]


def test_a_group_an_alua_fault_changed_prints_its_simulated_priority_and_status_marked(tmp_path: Path) -> None:
    host = _imported(tmp_path, TWO_GROUPS)
    standby = 'faults=[{kind="alua_state", at="5s", path="host10:C0:T0:L0", state="standby"}]'
    assert _show(host, "--style", "linux", "--at", "10s", "--set", standby)[2:] == [
        "|-+- policy='service-time 0' prio=50 status=active",
        "| `- 16:0:3:0 sdcg 69:64 active ready running",
        "|-+- policy='service-time 0' prio=10 status=enabled",
        "| |- 10:0:1:0 sdc  8:32  active ready running",
        "| `- 16:0:2:0 sdcf 69:48 active ready running",
        "`-+- policy='service-time 0' prio=1? status=enabled?",
        "  `- 10:0:0:0 sdb  8:16  active ready running",
    ]


def test_nvme_iopolicy_and_ana_state_changed_print_as_the_scenario_holds_them_marked(tmp_path: Path) -> None:
    host = _imported(tmp_path, NVME)
    as_read = _show(host, "--style", "nvme")
    assert as_read[2] == "               iopolicy=round-robin" and as_read[5].endswith(" live non-optimized")
    optimized = f'faults=[{{kind="alua_state", at="5s", path="{NVME115}", state="active_optimized"}}]'
    changed = _show(host, "--style", "nvme", "--at", "10s", "--set", 'devices.*.policy.iopolicy="numa"',
                    "--set", optimized)
    assert changed[2] == "               iopolicy=numa?"
    assert changed[5].endswith(" live optimized?") and changed[4].endswith(" live optimized")
    assert changed[7].endswith(" live non-optimized")


def test_a_listed_order_that_is_no_number_is_one_line(tmp_path: Path) -> None:
    host = Path(_imported(tmp_path, TWO_GROUPS))
    host.write_text(host.read_text().replace('order = "1"', 'order = "x1"'))
    done = pathlab("show", "paths", str(host), "--style", "linux")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f'pathlab: error: {host}: devices.3600a0980383149764b5d567257516273.listed.paths."host10:C0:T0:L0".order: '
        "'x1': allowed a whole number from 0 (the place in the listing)"]
