"""`nvme list -v` listings made up at random, printed by nvme-cli's own rules, for the property
test of `show` (`test_show_lossless.py`).

From linux-nvme/nvme-cli's `nvme-print.c` (2.0 to 2.4) and `nvme-print-stdout.c` (2.5 on):
`stdout_detailed_list` prints the subsystems `%-16s %-96s ` and their controllers `, `-separated;
the controllers `%-8s %-20s %-40s %-8s %-6s %-14s %-12s ` (name, SN, MN, FR, transport, address,
subsystem), 2.5 adding `%-6s` for the slot before the subsystem, 2.9 `%-6s` for the Cntlid after
the name (its header `%-16s %-5s`), then the namespaces; the namespaces (`stdout_ns_details`)
`%-12s %-12s %-8x` (2.0 to 2.4; `%#-10x` from 2.5), the usage `%6.2f %2sB / %6.2f %2sB` in
`%-26s`, the format `%3.0f %2sB + %2d B` in `%-16s`, then the controllers; every header's last
column `%-16s`, the dashes of each column cut to its width. The namespace's device and generic
device are named without `/dev/` before 2.9 and with it since.

nvme-cli 3.0 (`src/nvme-print-stdout.c` at v3.0-rc1): the controllers `%-16s %-12s %-6s %-20s
%-40s %-8s %-6s %-14s %-6s %-12s ` (name, Orchestrator: `kernel` for PCIe, a fabric controller's
registered owner or `-`; Cntlid, …), header and dashes alike; the namespaces `%-17s %-20s %#-10x
%-21s %-25s %-16s ` (the usage `%6.2f %1sB / %6.2f %1sB`, then `(%7.2f %2sB / %7.2f %2sB)` in
binary units), under a header whose Usage is `%-49s`.

Narrowed to what pathlab's model holds and the readers keep: every namespace of a subsystem on
every one of its controllers, each controller on its own (host port, target port) pair, NSIDs
below 10 under 2.0 to 2.4 (whose `%x` without `0x` the reader takes as decimal: found here, see
the report)."""

from __future__ import annotations

# ruff: noqa: UP031  (nvme-cli's printf formats, written as its C source writes them)
from typing import Any

from hypothesis import strategies as st

DOMAINS = ["nqn.1992-08.com.netapp", "nqn.1988-11.com.dell", "nqn.2010-06.com.purestorage"]
CONTROLLER = {"2.0": (("Device", 8, 8), ("SN", 20, 20), ("MN", 40, 40), ("FR", 8, 8), ("TxPort", 6, 6),
                      ("Address", 14, 14), ("Subsystem", 12, 12)),
              "2.5": (("Device", 8, 8), ("SN", 20, 20), ("MN", 40, 40), ("FR", 8, 8), ("TxPort", 6, 6),
                      ("Address", 14, 14), ("Slot", 6, 6), ("Subsystem", 12, 12)),
              "2.9": (("Device", 16, 8), ("Cntlid", 5, 6), ("SN", 20, 20), ("MN", 40, 40), ("FR", 8, 8),
                      ("TxPort", 6, 6), ("Address", 14, 14), ("Slot", 6, 6), ("Subsystem", 12, 12)),
              "3.0": (("Device", 16, 16), ("Orchestrator", 12, 12), ("Cntlid", 6, 6), ("SN", 20, 20), ("MN", 40, 40),
                      ("FR", 8, 8), ("TxPort", 6, 6), ("Address", 14, 14), ("Slot", 6, 6), ("Subsystem", 12, 12))}
NAMESPACE = {"2.0": ((12, 12), (12, 12), (8, 8)), "2.5": ((12, 12), (12, 12), (10, 10)),
             "2.9": ((17, 12), (17, 12), (10, 10)), "3.0": ((17, 17), (20, 20), (10, 10))}
#: 3.0's Usage: the header's width, the usage's and the binary usage's.
USAGE = {"3.0": (49, 21, 25)}
DASH = "-" * 100


def _word(draw: st.DrawFn, alphabet: str, low: int, high: int) -> str:
    return "".join(draw(st.lists(st.sampled_from(alphabet), min_size=low, max_size=high)))


def _header(columns: list[tuple[str, int]], last: str) -> list[str]:
    return [" ".join(f"%-{w}s" % n for n, w in columns) + " %-16s" % last,
            " ".join(DASH[:max(w, len(n))] for n, w in columns) + " " + DASH[:16]]


@st.composite
def drawn(draw: st.DrawFn) -> tuple[str, str, list[dict[str, Any]]]:
    """The release, the transport and the subsystems (their controllers and namespaces)."""
    release = draw(st.sampled_from(["2.0", "2.5", "2.9", "3.0"]))
    kind = draw(st.sampled_from(["tcp", "fc", "rdma"]))
    upper = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
    subsystems = []
    ctrl_number = iter(range(0, 64))
    for s in range(draw(st.integers(1, 3))):
        domain = draw(st.sampled_from(DOMAINS))
        nqn = f"{domain}:sn.{_word(draw, '0123456789abcdef', 20, 32)}{s:02x}:subsystem.{draw(st.sampled_from(['vol1', 'ora']))}"
        serial = _word(draw, upper, 6, 12) + draw(st.sampled_from(["", " " + _word(draw, upper, 2, 6)]))
        model = draw(st.sampled_from(["NetApp ONTAP Controller", "dellemc-powerstore", "Pure Storage FlashArray",
                                      "Linux"]))
        firmware = draw(st.sampled_from(["9.14.1", "2.1.0.0", "6.8.0", "FA1.0"]))
        ctrls = []
        count = draw(st.integers(1, 3))
        for target in draw(st.lists(st.integers(1, 250), min_size=count, max_size=count, unique=True)):
            host = draw(st.integers(10, 250))
            if kind == "fc":
                address = f"traddr=nn-0x20{s}0d039ea{target:06x}:pn-0x20{s}1d039ea{target:06x}," \
                          f"host_traddr=nn-0x2000f4c7aa{host:06x}:pn-0x2100f4c7aa{host:06x}"
            else:
                address = f"traddr=192.168.{s}.{target},trsvcid=4420" + draw(st.sampled_from(["", f",src_addr=192.168.{s}.{host}"]))
            ctrls.append({"name": f"nvme{next(ctrl_number)}", "cntlid": str(draw(st.integers(0, 2000))),
                          "orchestrator": draw(st.sampled_from(["-", "-", _word(draw, "abcdefghijklmnopqrstuvwxyz-", 3, 12)])),
                          "serial": serial, "model": model, "firmware": firmware, "address": address})
        namespaces = []
        count = draw(st.integers(1, 3))
        nsids = draw(st.lists(st.integers(1, 9 if release == "2.0" else 4096), min_size=count, max_size=count, unique=True))
        for n, nsid in enumerate(nsids, start=1):
            size = draw(st.floats(1, 999, allow_nan=False))
            used = draw(st.floats(0, 1)) * size
            unit = draw(st.sampled_from(["k", "M", "G", "T"]))
            used_unit = draw(st.sampled_from(["", "k", "M", "G"]))
            if release == "3.0":
                binary = "(%7.2f %2sB / %7.2f %2sB)" % (used / 1.024, draw(st.sampled_from(["", "Ki", "Mi", "Gi"])),
                                                        size / 1.024, {"k": "Ki", "M": "Mi", "G": "Gi", "T": "Ti"}[unit])
                usage = "%6.2f %1sB / %6.2f %1sB" % (used, used_unit, size, unit) + " " + binary
            else:
                usage = "%6.2f %2sB / %6.2f %2sB" % (used, used_unit, size, unit)
            block = draw(st.sampled_from([(512, ""), (4, "Ki")]))
            fmt = "%3.0f %2sB + %2d B" % (block[0], block[1], draw(st.sampled_from([0, 8, 64])))
            namespaces.append({"head": f"nvme{s}n{n}", "generic": f"ng{s}n{n}", "nsid": nsid, "usage": usage,
                               "format": fmt})
        subsystems.append({"name": f"nvme-subsys{s}", "nqn": nqn, "ctrls": ctrls, "namespaces": namespaces})
    return release, kind, subsystems


@st.composite
def listings(draw: st.DrawFn) -> str:
    """A text listing."""
    return text(*draw(drawn()))


def text(release: str, kind: str, subsystems: list[dict[str, Any]]) -> str:
    """`nvme list -v` as the release prints it."""
    lines = ["%-16s %-96s %-.16s" % ("Subsystem", "Subsystem-NQN", "Controllers"), "%-.16s %-.96s %-.16s" % (DASH, DASH, DASH)]
    lines += ["%-16s %-96s " % (s["name"], s["nqn"]) + ", ".join(c["name"] for c in s["ctrls"]) for s in subsystems]
    columns = CONTROLLER[release]
    lines += ["", *_header([(n, h) for n, h, _ in columns], "Namespaces")]
    for s in subsystems:
        for c in s["ctrls"]:
            values = {"Device": c["name"], "Orchestrator": c["orchestrator"],
                      "Cntlid": c["cntlid"], "SN": c["serial"], "MN": c["model"], "FR": c["firmware"],
                      "TxPort": kind, "Address": c["address"], "Slot": "", "Subsystem": s["name"]}
            lines.append(" ".join(f"%-{w}s" % values[n] for n, _, w in columns) + " "
                         + ", ".join(n["head"] for n in s["namespaces"]))
    widths = NAMESPACE[release]
    usage = USAGE.get(release)
    lines += ["", *_header([("Device", widths[0][0]), ("Generic", widths[1][0]), ("NSID", widths[2][0]),
                            ("Usage", usage[0] if usage else 26), ("Format", 16)], "Controllers")]
    dev = "/dev/" if release in ("2.9", "3.0") else ""
    for s in subsystems:
        for n in s["namespaces"]:
            nsid = "%x" % n["nsid"] if release == "2.0" else "%#x" % n["nsid"]
            used = "%-26s" % n["usage"] if usage is None else "%-21s %-25s" % tuple(n["usage"].split(" (", 1)[0:1] + [
                "(" + n["usage"].split(" (", 1)[1]])
            lines.append(f"%-{widths[0][1]}s %-{widths[1][1]}s %-{widths[2][1]}s %s %-16s " % (
                dev + n["head"], dev + n["generic"], nsid, used, n["format"])
                + ", ".join(c["name"] for c in s["ctrls"]))
    return "\n".join(lines) + "\n"


def json_text(kind: str, subsystems: list[dict[str, Any]], hostnqn: str, v3: bool = False) -> str:
    """`nvme list -v -o json` as nvme-cli 2.9 and later print it (`json_detail_list`: json-c's
    pretty printing, one key a line): every namespace of a subsystem on each of its controllers,
    the path `nvme<S>c<C>n<N>` with an ANA state. With `v3`, as nvme-cli 3.0 prints it
    (`src/nvme-print-json.c` at v3.0-rc1): `AddressDetails` after `Address` (traddr,
    host_traddr, host_iface, trsvcid: those the address sets) and a fabrics controller's `Slot`
    null."""
    import json

    def details(address: str) -> dict[str, str]:
        pairs = dict(part.split("=", 1) for part in address.split(",") if "=" in part)
        return {key: pairs[key] for key in ("traddr", "host_traddr", "host_iface", "trsvcid") if key in pairs}

    def controller(c: dict[str, Any]) -> dict[str, Any]:
        head = {"Controller": c["name"], "Cntlid": c["cntlid"], "SerialNumber": c["serial"], "ModelNumber": c["model"],
                "Firmware": c["firmware"], "Transport": kind, "Address": c["address"]}
        if v3:
            head["AddressDetails"] = details(c["address"])
        return {**head, "Slot": None if v3 and kind != "pcie" else ""}

    def instance(name: str) -> str:
        return name.removeprefix("nvme-subsys").removeprefix("nvme")

    hosts = [{"HostNQN": hostnqn, "HostID": "4c4c4544-0035-3810-8033-b4c04f4e4e32", "Subsystems": [
        {"Subsystem": s["name"], "SubsystemNQN": s["nqn"], "Controllers": [
            {**controller(c), "Namespaces": [],
             "Paths": [{"Path": f"nvme{instance(s['name'])}c{instance(c['name'])}n{n['head'].rsplit('n', 1)[1]}",
                        "ANAState": c.get("ana", "optimized")} for n in s["namespaces"]]}
            for c in s["ctrls"]],
         "Namespaces": [{"NameSpace": n["head"], "Generic": n["generic"], "NSID": n["nsid"], "UsedBytes": 0,
                         "MaximumLBA": 2097152, "PhysicalSize": 1073741824, "SectorSize": 512}
                        for n in s["namespaces"]]} for s in subsystems]}]
    return json.dumps({"Devices": hosts}, indent=2) + "\n"
