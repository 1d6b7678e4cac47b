"""`nvme list-subsys` listings made up at random, printed by nvme-cli's own rules, for the property
test of `show` (`test_show_lossless.py`).

The text layouts, from linux-nvme/nvme-cli (`nvme-print.c`, then `nvme-print-stdout.c`):
* 1.x (`show_nvme_subsystem`): `nvme-subsysN - NQN=%s`, a line `\\`, then per controller
  ` +- nvmeN TRANSPORT ADDRESS STATE` (the address as sysfs `address` holds it, its fields
  separated by blanks in the oldest), no host NQN, no iopolicy, no ANA state.
* 2.x JSON (`json_print_nvme_subsystem_list`): `[{"HostNQN", "Subsystems": [{"Name", "NQN",
  "IOPolicy", "Paths": [{"Name", "Transport", "Address", "State", "ANAState"}]}]}]`.
* 2.x and 3.x (`stdout_subsys_config`, `stdout_subsystem_ctrls`): the NQN line, then
  `%*s   hostnqn=%s` and `%*s   iopolicy=%s` under it (indented to the NQN's `-`: 15 columns for
  `nvme-subsysN`, as pathlab prints), the `\\`, then ` +- nvmeN TRANSPORT ADDRESS STATE ANA`
  (the ANA state of the subsystem's namespace through that controller), the address
  `traddr=…,trsvcid=…` and the host's side where the connection named one (`host_traddr=`,
  `host_iface=`, NVMe/TCP's `src_addr=`).

Narrowed to what pathlab's model holds: one namespace per subsystem (list-subsys names none), a
subsystem's controllers each on their own (host port, target port) pair, an array per NQN domain."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

DOMAINS = ["nqn.1992-08.com.netapp", "nqn.2010-06.com.purestorage", "nqn.1988-11.com.dell", "nqn.2014-08.org.nvmexpress"]
STATES = ["live", "connecting", "resetting"]
ANA = ["optimized", "non-optimized", "inaccessible"]


def _hex(draw: st.DrawFn, n: int) -> str:
    return "".join(draw(st.lists(st.sampled_from("0123456789abcdef"), min_size=n, max_size=n)))


@st.composite
def subsystems(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]]]:
    """The release (1.x or 2.x) and the subsystems: name, NQN, host NQN and iopolicy (2.x), and
    each controller's name, transport, address (the host's side after the target's) and states."""
    release = draw(st.sampled_from(["1.x", "2.x"]))
    transport = draw(st.sampled_from(["tcp", "fc", "rdma"]))
    hostnqn = f"nqn.2014-08.org.nvmexpress:uuid:{_hex(draw, 8)}-{_hex(draw, 4)}-{_hex(draw, 4)}-{_hex(draw, 4)}-{_hex(draw, 12)}"
    count = draw(st.integers(1, 3))
    numbers = iter(draw(st.lists(st.integers(0, 199), min_size=count * 5, max_size=count * 5, unique=True)))  # ≤ 4 controllers each
    host_ports = draw(st.lists(st.integers(10, 250), min_size=1, max_size=2, unique=True))
    subsystems = []
    targets_of: dict[str, list[int]] = {}
    # Subsystems of one array (one NQN domain) share its ports: one controller per subsystem on each.
    for domain in draw(st.lists(st.sampled_from(DOMAINS), min_size=count, max_size=count)):
        s = DOMAINS.index(domain)
        nqn = f"{domain}:sn.{_hex(draw, 30)}{len(subsystems):02x}:subsystem.{draw(st.sampled_from(['nvme', 'vol1', 'ora_db']))}"
        subsystem: dict[str, Any] = {"name": f"nvme-subsys{next(numbers)}", "nqn": nqn, "paths": []}
        if release == "2.x":
            subsystem |= {"hostnqn": hostnqn, "iopolicy": draw(st.sampled_from(["numa", "round-robin", "queue-depth"]))}
        # Every subsystem of an array on each of its (host port, target port) pairs: pathlab zones
        # every host port to every port of the array (a subsystem on fewer shows `?` controllers).
        targets = targets_of.setdefault(domain, draw(st.lists(st.integers(1, 99), min_size=1, max_size=2, unique=True)))
        pairs = draw(st.permutations([(h, t) for h in host_ports for t in targets]))
        for h, t in pairs:
            if transport == "fc":
                address = [f"traddr=nn-0x20{s}0d039ea{t:06x}:pn-0x20{s}1d039ea{t:06x}",
                           f"host_traddr=nn-0x2000f4c7aa{h:06x}:pn-0x2100f4c7aa{h:06x}"]
            else:
                address = [f"traddr=192.168.{s}.{t}", "trsvcid=4420", f"host_traddr=192.168.{s}.{h}"]
            subsystem["paths"].append({"name": f"nvme{next(numbers)}", "transport": transport,
                                       "address": ("," if release == "2.x" else " ").join(address),
                                       "state": draw(st.sampled_from(STATES)),
                                       "ana": draw(st.sampled_from(ANA)) if release == "2.x" else None})
        subsystems.append(subsystem)
    return release, subsystems


def text(subsystems: list[dict[str, Any]]) -> str:
    """`nvme list-subsys` as nvme-cli prints it."""
    lines = []
    for s in subsystems:
        lines.append(f"{s['name']} - NQN={s['nqn']}")
        lines += [f"{'':15}{key}={s[key]}" for key in ("hostnqn", "iopolicy") if key in s]
        lines.append("\\")
        lines += [f" +- {p['name']} {p['transport']} {p['address']} {p['state']}" + (f" {p['ana']}" if p["ana"] else "")
                  for p in s["paths"]]
    return "\n".join(lines) + "\n"


def json_text(subsystems: list[dict[str, Any]]) -> str:
    """`nvme list-subsys -o json` as nvme-cli 2.x prints it: the host, its subsystems, their paths."""
    host = {"HostNQN": subsystems[0]["hostnqn"], "Subsystems": [
        {"Name": s["name"], "NQN": s["nqn"], "IOPolicy": s["iopolicy"],
         "Paths": [{"Name": p["name"], "Transport": p["transport"], "Address": p["address"], "State": p["state"],
                    "ANAState": p["ana"]} for p in s["paths"]]} for s in subsystems]}
    return json.dumps([host], indent=2) + "\n"


@st.composite
def listings(draw: st.DrawFn) -> str:
    """A text listing."""
    return text(draw(subsystems())[1])
