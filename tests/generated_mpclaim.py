"""Windows MPIO listings made up at random, printed as mpclaim and the MPIO PowerShell module print
them, for the property test of `show` (`test_show_lossless.py`).

mpclaim's source is not public: the layouts are those of the published samples in
`tests/data/mpio/` (README there names each source) and Microsoft's mpclaim reference, measured
column by column: `MPIO Disk%d: %02d Paths, POLICY, ALUA`, the disk's `Controlling DSM:`, `SN:` and
`Supported Load Balance Policies:` lines indented four blanks, the path table `%s %-18s %-17s %s`
(ID, state, port|bus|target|LUN three digits each, weight) under its header and 75 dashes, an
ALUA disk's `TPG_State : %-18s, TPG_Id: %d, : %d` under each path; `mpclaim -s -d`'s list
`%-12s %-12s %-12s %s`; `Get-MPIOSetting` as `Format-List` (names padded to the longest); and
`Get-MSDSMGlobalDefaultLoadBalancePolicy`'s one word. Each output after its PowerShell prompt.

Narrowed to what pathlab's model holds: the Microsoft DSM's six policies, one array per listing
(its disks on common SCSI targets), each target in one target port group of one state per disk,
a LUN number once per disk."""

from __future__ import annotations

from hypothesis import strategies as st

POLICIES = {"FOO": "Fail Over Only", "RR": "Round Robin", "RRWS": "Round Robin with Subset",
            "LQD": "Least Queue Depth", "WP": "Weighted Paths", "LB": "Least Blocks"}
SETTINGS = ("PathVerificationState", "PathVerificationPeriod", "PDORemovePeriod", "RetryCount", "RetryInterval",
            "UseCustomPathRecoveryTime", "CustomPathRecoveryTime", "DiskTimeoutValue")


def _hex(draw: st.DrawFn, n: int, digits: str = "0123456789ABCDEF") -> str:
    return "".join(draw(st.lists(st.sampled_from(digits), min_size=n, max_size=n)))


def _setting(draw: st.DrawFn, key: str) -> str:
    if key in ("PathVerificationState", "UseCustomPathRecoveryTime"):
        return draw(st.sampled_from(["Disabled", "Enabled"]))
    return str(draw(st.integers(1, 120)))


@st.composite
def listings(draw: st.DrawFn) -> str:
    """A file of `mpclaim -s -d` (sometimes), `mpclaim -s -d N` for each disk, and sometimes the settings."""
    alua = draw(st.booleans())
    ports = draw(st.lists(st.integers(1, 9), min_size=1, max_size=2, unique=True))
    targets = draw(st.lists(st.integers(0, 15), min_size=1, max_size=4, unique=True))
    pairs = [(p, t) for p in ports for t in targets]
    groups = {pair: draw(st.sampled_from([1, 2])) for pair in pairs} if alua else {}
    relative = {pair: i + 1 for i, pair in enumerate(pairs)}
    serial_head = draw(st.sampled_from(["6000144", "6002AE0", "600A098", "6006016"]))
    luns = draw(st.lists(st.integers(0, 40), min_size=1, max_size=3, unique=True))
    numbers = draw(st.lists(st.integers(0, 30), min_size=len(luns), max_size=len(luns), unique=True))
    out = []
    if draw(st.booleans()):
        out += ["PS C:\\> mpclaim -s -d", "", "MPIO Disk    System Disk  LB Policy    DSM Name", "-" * 53]
        for n in numbers:
            policy = draw(st.sampled_from(list(POLICIES)))
            out.append(f"{'MPIO Disk' + str(n):<12} {'Disk ' + str(n + 1):<12} {policy:<12} Microsoft DSM")
        out.append("")
    for number, lun in zip(numbers, luns, strict=True):
        policy = draw(st.sampled_from(list(POLICIES)))
        on = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=len(pairs), unique=True))
        if alua:
            states = {1: draw(st.sampled_from(["Active/Optimized", "Active/Unoptimized", "Standby"])),
                      2: draw(st.sampled_from(["Active/Optimized", "Active/Unoptimized", "Standby", "Unavailable"]))}
            support = draw(st.sampled_from(["Implicit Only", "Implicit and Explicit", "Explicit Only"]))
        else:
            support = draw(st.sampled_from(["ALUA Not Supported", "Symmetric Access"]))
        out += [f"PS C:\\> mpclaim -s -d {number}", "",
                f"MPIO Disk{number}: {len(on):02d} Paths, {POLICIES[policy]}, {support}",
                "    Controlling DSM: Microsoft DSM", f"    SN: {serial_head}{_hex(draw, 25)}",
                "    Supported Load Balance Policies: FOO RR RRWS LQD WP LB", "",
                "    Path ID          State              SCSI Address      Weight", "    " + "-" * 75]
        for port, target in on:
            if alua:
                state = states[groups[port, target]]
            else:
                state = draw(st.sampled_from(["Active/Optimized", "Active/Optimized", "Standby", "Failed"]))
            weight = draw(st.integers(0, 9)) if policy == "WP" else 0
            address = f"{port:03d}|000|{target:03d}|{lun:03d}"
            out.append(f"    0000000077{port:02x}{target:04x} {state:<18} {address:<17} {weight}")
            if alua:
                out.append(f"        TPG_State : {state:<18}, TPG_Id: {groups[port, target]}, : {relative[port, target]}")
        out.append("")
    if draw(st.booleans()):
        out += ["PS C:\\> Get-MPIOSetting", ""]
        out += [f"{key:<25} : {_setting(draw, key)}" for key in SETTINGS]
        out.append("")
    if draw(st.booleans()):
        out += ["PS C:\\> Get-MSDSMGlobalDefaultLoadBalancePolicy", draw(st.sampled_from(["None", "FOO", "RR", "LQD", "LB"])), ""]
    return "\n".join(out)
