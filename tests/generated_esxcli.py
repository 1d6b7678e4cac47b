"""`esxcli storage nmp device list` and `esxcli storage nmp path list` made up at random, as ESXi
5 to 8 print them (and ESX 4.x's `esxcli nmp device list` and `nmp path list`), for the property test of `show` (`test_show_lossless.py`).

Field sets (VMware's esxcli reference, ESXi 5.0 to 8.0; the corpus' samples): a device block is
the device name, then `Device Display Name`, `Storage Array Type`, `Storage Array Type Device
Config`, `Path Selection Policy`, `Path Selection Policy Device Config`, from 5.5 on `Path
Selection Policy Device Custom Config`, `Working Paths`, from 5.5 on `Is USB`, and on 7.0 and 8.0
`Is Local SAS Device`, `Is Boot USB Device`... not printed by `nmp device list` (left out). A path
block is its UID (`fc.WWNN:WWPN-fc.WWNN:WWPN-DEVICE`, `iqn…`), `Runtime Name`, `Device`, `Device
Display Name`, `Group State`, `Array Priority`, `Storage Array Type Path Config`, `Path
Selection Policy Path Config`, each indented three blanks, blocks a blank line apart.

The configs by the plugins' own words: VMW_SATP_ALUA's `{implicit_support=on;
explicit_support=off; explicit_allow=on; alua_followover=on; action_OnRetryErrors=off;
{TPG_id=N,TPG_state=AO}…}` and path config `{TPG_id=N,TPG_state=AO,RTP_id=M,RTP_health=UP}`;
VMW_SATP_DEFAULT_AA's `{action_OnRetryErrors=off}` and "SATP VMW_SATP_DEFAULT_AA does not
support path configuration."; round robin's `{policy=rr,iops=1000,bytes=10485760,useANO=0;
lastPathIndex=0: NumIOsPending=0,numBytesPending=0}` and "PSP VMW_PSP_RR does not support path
configuration."; Fixed's `{preferred=P;current=P}` and `{current: yes; preferred: yes}`; MRU's
`Current Path=P` and `{current: yes}`. Narrowed to what pathlab's model holds: every path up,
one target port group per array controller (two), a device's paths on the same LUN number."""

from __future__ import annotations

from hypothesis import strategies as st

ALUA_DEVICE = ("{implicit_support=on; explicit_support=off; explicit_allow=on; alua_followover=on; "
               "action_OnRetryErrors=off; {TPG_id=%d,TPG_state=AO}{TPG_id=%d,TPG_state=ANO}}")
VENDORS = ["NETAPP", "DGC", "3PARdata", "PURE", "EQLOGIC", "B*BRIDGE"]


def _hex(draw: st.DrawFn, n: int) -> str:
    return "".join(draw(st.lists(st.sampled_from("0123456789abcdef"), min_size=n, max_size=n)))


@st.composite
def listings(draw: st.DrawFn, releases: tuple[str, ...] = ("5.0", "6.x")) -> tuple[str, str]:
    """A device list and its path list. ESX 4.0 and 4.1 (`esxcli nmp device list`, `nmp path
    list`) print 5.0's device fields; 4.0's path blocks have no `Array Priority` (4.1 added it)."""
    release = draw(st.sampled_from(releases))
    # Adapters in order: MRU's and Fixed's current path is the first optimized one (pathlab claims a
    # device as ESXi does at boot; a current path moved since, by a failover or `esxcli`, is not drawn).
    adapters = sorted(draw(st.lists(st.integers(1, 64), min_size=1, max_size=2, unique=True)))
    devices, paths = [], []
    satp_of: dict[str, bool] = {}
    tpgs_of: dict[str, list[int]] = {}  # an array's two target port groups, the same for all its devices
    for i in range(draw(st.integers(1, 3))):
        name = f"naa.6{_hex(draw, 29)}{i:02x}"
        vendor = draw(st.sampled_from(VENDORS))
        display = f"{vendor} {draw(st.sampled_from(['Fibre Channel Disk', 'iSCSI Disk']))} ({name})"
        alua = satp_of.setdefault(vendor, draw(st.booleans()))  # one SATP claims an array's devices
        tpgs = tpgs_of.setdefault(vendor, draw(st.lists(st.integers(0, 1100), min_size=2, max_size=2, unique=True)))
        lun = 10 * i + draw(st.integers(0, 9))  # unique on an array
        # Two target ports per adapter: with ALUA the first on the owning controller (AO), the other not.
        # An adapter numbers every target it sees: an array's two ports are T2k and T2k+1.
        base = 2 * VENDORS.index(vendor)
        runtime = [(f"vmhba{a}:C0:T{base + t}:L{lun}", a, t) for a in adapters for t in (0, 1)]
        psp = draw(st.sampled_from(["VMW_PSP_RR", "VMW_PSP_FIXED", "VMW_PSP_MRU"]))
        optimized = [r for r, _, t in runtime if not alua or t == 0]
        current = optimized[0]
        if psp == "VMW_PSP_RR":
            iops = draw(st.sampled_from([1, 8, 1000]))
            config = f"{{policy=rr,iops={iops},bytes=10485760,useANO=0; lastPathIndex=0: NumIOsPending=0,numBytesPending=0}}"
            working = optimized
        elif psp == "VMW_PSP_FIXED":
            config, working = f"{{preferred={current};current={current}}}", [current]
        else:
            config, working = f"Current Path={current}", [current]
        block = [name, f"   Device Display Name: {display}",
                 f"   Storage Array Type: {'VMW_SATP_ALUA' if alua else 'VMW_SATP_DEFAULT_AA'}",
                 "   Storage Array Type Device Config: " + (ALUA_DEVICE % tuple(tpgs) if alua else "{action_OnRetryErrors=off}"),
                 f"   Path Selection Policy: {psp}", f"   Path Selection Policy Device Config: {config}"]
        if release == "6.x":
            block.append("   Path Selection Policy Device Custom Config: ")
        block.append(f"   Working Paths: {', '.join(working)}")
        if release == "6.x":
            block.append("   Is USB: false")
        devices.append("\n".join(block))
        for r, a, t in runtime:
            array = VENDORS.index(vendor)  # an array's target ports, the same WWNs for all its devices
            tpg = tpgs[0] if t == 0 else tpgs[1]
            state = "active" if r in optimized else "active unoptimized"
            satp = (f"{{TPG_id={tpg},TPG_state={'AO' if t == 0 else 'ANO'},RTP_id={t + 1},RTP_health=UP}}" if alua
                    else "SATP VMW_SATP_DEFAULT_AA does not support path configuration.")
            mine = "yes" if r == current else "no"
            path_config = ("PSP VMW_PSP_RR does not support path configuration." if psp == "VMW_PSP_RR"
                           else f"{{current: {mine}; preferred: {mine}}}" if psp == "VMW_PSP_FIXED" else f"{{current: {mine}}}")
            paths.append("\n".join([
                f"fc.20000024ff{a:06x}:21000024ff{a:06x}-fc.500a0980{array:02x}000000:500a0981{array:02x}0000{t:02x}-{name}",
                f"   Runtime Name: {r}", f"   Device: {name}", f"   Device Display Name: {display}",
                f"   Group State: {state}",
                *([] if release == "4.0" else [f"   Array Priority: {draw(st.integers(0, 3))}"]),
                f"   Storage Array Type Path Config: {satp}", f"   Path Selection Policy Path Config: {path_config}"]))
    return "\n\n".join(devices) + "\n", "\n\n".join(paths) + "\n"


#: `esxcli storage hpp device list`'s schemes and their configs as `esxcli storage hpp device set`
#: sets them (VMware's esxcli reference, ESXi 7.0 and 8.0).
HPP_SCHEMES = ("FIXED", "LB-RR", "LB-IOPS", "LB-BYTES")


@st.composite
def hpp_device_lists(draw: st.DrawFn) -> str:
    """An `esxcli storage hpp device list` (ESXi 7 and 8): each device's display name, scheme and
    its config, current path, working path set (the current path under FIXED, every path under a
    load-balancing scheme), flags and paths, each key indented three blanks, blocks a blank line
    apart. Narrowed to SAN devices (`Is Local: false`) of one array on one or two adapters, every path up."""
    adapters = sorted(draw(st.lists(st.integers(1, 64), min_size=1, max_size=2, unique=True)))
    # One array: its display names' vendor (a target is one array's port).
    kind = draw(st.sampled_from(["NVMe Fibre Channel Disk", "NVMe TCP Disk", "NETAPP Fibre Channel Disk"]))
    blocks = []
    for i in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(["naa.6", "eui.", "uuid."])) + f"{_hex(draw, 29)}{i:02x}"
        lun = 10 * i + draw(st.integers(0, 9))
        paths = [f"vmhba{a}:C0:T{t}:L{lun}" for a in adapters for t in range(draw(st.integers(1, 2)))]
        paths = list(dict.fromkeys(paths))
        scheme = draw(st.sampled_from(HPP_SCHEMES))
        current = paths[0]
        if scheme == "FIXED":
            preferred = draw(st.sampled_from(["none", current]))
            config, working = f"{{preferred={preferred};}}", [current]
        else:
            iops, size = draw(st.integers(1, 1000)), draw(st.sampled_from([1024, 65536, 10485760]))
            config = {"LB-RR": f"{{iops={iops},bytes={size};}}", "LB-IOPS": f"{{iops={iops};}}",
                      "LB-BYTES": f"{{bytes={size};}}"}[scheme]
            working = paths
        blocks.append("\n".join([
            name, f"   Device Display Name: {kind} ({name})", f"   Path Selection Scheme: {scheme}",
            f"   Path Selection Scheme Config: {config}", f"   Current Path: {current}",
            f"   Working Path Set: {', '.join(working)}", f"   Is SSD: {draw(st.sampled_from(['true', 'false']))}",
            "   Is Local: false", f"   Paths: {', '.join(paths)}", f"   Use ANO: {draw(st.sampled_from(['true', 'false']))}"]))
    return "\n\n".join(blocks) + "\n"


@st.composite
def hpp_lists(draw: st.DrawFn) -> tuple[str, str]:
    """An `esxcli storage hpp device list` and the `esxcli storage hpp path list` beside it (ESXi
    7 and 8; NetApp's ONTAP SAN host guides, `tests/data/corpus/esxcli-hpp-path-list`): a path
    block is its name (`fc.<host WWNN>:<WWPN>-fc.<target WWNN>:<WWPN>-<device>`, or
    `tcp.<vmnic>:<MAC>-tcp.<address>:4420-<device>`), `Runtime Name`, `Device`, `Device Display
    Name`, `Path State` (`active`, `active unoptimized`) and `Path Config` (ESXi 7's
    `{TPG_id=0,TPG_state=AO,RTP_id=0,health=UP}`, or ESXi 8's `{ANA_GRP_id=N,ANA_GRP_state=AO,
    health=UP}`). Narrowed to what pathlab's model holds: one array, every path up, each target
    port in one state on every device (its controller's), one group id on the array, at least one
    port optimized, the devices' first path among those, and each device's working path set the
    paths its scheme uses (the current path under FIXED; under a load-balancing one the optimized
    paths, every path with `Use ANO: true`)."""
    adapters = sorted(draw(st.lists(st.integers(1, 64), min_size=1, max_size=2, unique=True)))
    fc = draw(st.booleans())
    kind = draw(st.sampled_from(["NVMe Fibre Channel Disk", "NETAPP Fibre Channel Disk"])) if fc else "NVMe TCP Disk"
    targets = [(a, t) for a in adapters for t in range(draw(st.integers(1, 2)))]
    optimized = {port: draw(st.booleans()) for port in targets}
    optimized[targets[0]] = True
    esxi8, group = draw(st.booleans()), draw(st.integers(0, 9))

    def path_name(a: int, t: int, device: str) -> str:
        if fc:
            return f"fc.20000024ff{a:06x}:21000024ff{a:06x}-fc.2004d039ea{a:04x}{t:02x}:2005d039ea{a:04x}{t:02x}-{device}"
        return f"tcp.vmnic{a}:34:80:0d:30:ca:{a:02x}-tcp.192.168.{a}.{10 + t}:4420-{device}"

    def config(state: str) -> str:
        return f"{{ANA_GRP_id={group},ANA_GRP_state={state},health=UP}}" if esxi8 else \
            f"{{TPG_id={group},TPG_state={state},RTP_id=0,health=UP}}"

    devices, paths = [], []
    for i in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(["naa.6", "eui.", "uuid."])) + f"{_hex(draw, 29)}{i:02x}"
        display = f"{kind} ({name})"
        lun = 10 * i + draw(st.integers(0, 9))
        runtime = {port: f"vmhba{port[0]}:C0:T{port[1]}:L{lun}" for port in targets}
        scheme = draw(st.sampled_from(HPP_SCHEMES))
        use_ano = draw(st.sampled_from(["true", "false"]))
        current = runtime[targets[0]]
        if scheme == "FIXED":
            config_of_scheme, working = f"{{preferred={draw(st.sampled_from(['none', current]))};}}", [current]
        else:
            iops, size = draw(st.integers(1, 1000)), draw(st.sampled_from([1024, 65536, 10485760]))
            config_of_scheme = {"LB-RR": f"{{iops={iops},bytes={size};}}", "LB-IOPS": f"{{iops={iops};}}",
                                "LB-BYTES": f"{{bytes={size};}}"}[scheme]
            working = [runtime[p] for p in targets if optimized[p] or use_ano == "true"]
        devices.append("\n".join([
            name, f"   Device Display Name: {display}", f"   Path Selection Scheme: {scheme}",
            f"   Path Selection Scheme Config: {config_of_scheme}", f"   Current Path: {current}",
            f"   Working Path Set: {', '.join(working)}", f"   Is SSD: {draw(st.sampled_from(['true', 'false']))}",
            "   Is Local: false", f"   Paths: {', '.join(runtime.values())}", f"   Use ANO: {use_ano}"]))
        for port in targets:
            state = "AO" if optimized[port] else "ANO"
            paths.append("\n".join([
                path_name(*port, name), f"   Runtime Name: {runtime[port]}", f"   Device: {name}",
                f"   Device Display Name: {display}", f"   Path State: {'active' if optimized[port] else 'active unoptimized'}",
                f"   Path Config: {config(state)}"]))
    return "\n\n".join(devices) + "\n", "\n\n".join(paths) + "\n"
