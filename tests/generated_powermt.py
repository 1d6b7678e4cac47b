"""`powermt display dev=all` listings made up at random, printed as PowerPath prints them, for the
property test of `show` (`test_show_lossless.py`).

PowerPath's source is not public: the layouts are those of the published samples in
`tests/data/powerpath/` (README there names each source), measured column by column:
* `linux`: Linux and Solaris (001, 002, 004, 007): the rows `%4d %-25s %-9s %-9s %-7s %-6s %5d %6d`
  under `###  HW Path                I/O Paths    Interf.   Mode    State  Q-IOs Errors`;
* `aix`: AIX (006): `%4d %-24s %-9s %-9s %-7s %-6s %6d %6d` under `###  HW Path               I/O
  Paths    Interf.   Mode    State   Q-IOs Errors`, the banner's dashes one fewer each side, the
  state line ending in `;`;
* `older`: 003 and 005: `%4d %-22s %-11s %-8s %-8s %-6s %5d %6d` under `###  HW Path
  I/O Paths    Interf.  Mode     State   Q-IOs Errors`;
* `ve`: PowerPath/VE (`rpowermt`, the reader's test sample): `Standard UID=naa.…` after the array
  line, `type=Conventional; state=…; policy=…; queued-IOs=…` (no priority), paths `vmhbaN`,
  `C0:Tt:Ll`, in the `linux` columns.
PowerPath 6 adds `Device WWN=` under the logical device. Each device: the array line
(`CLARiiON`/`VNX`/`Unity` with SP ports `SP A0` and an `Owner:` line with or without the failover
mode, `Symmetrix` with FA ports `FA  9dB`), the logical device with or without its `[LUN n]`
label, a policy pathlab simulates, its paths each on its own (HBA, port) with modes, states,
queued I/Os and errors. Narrowed to what pathlab's model holds: one array per listing, at least
one path alive per device, a LUN number once per array."""

from __future__ import annotations

from hypothesis import strategies as st

LAYOUTS = {
    "linux": ("---------------- Host ---------------   - Stor -   -- I/O Path -  -- Stats ---",
              "###  HW Path                I/O Paths    Interf.   Mode    State  Q-IOs Errors",
              "{:>4} {:<25} {:<9} {:<9} {:<7} {:<6} {:>5} {:>6}"),
    "aix": ("--------------- Host ---------------   - Stor -   -- I/O Path --  -- Stats ---",
            "###  HW Path               I/O Paths    Interf.   Mode    State   Q-IOs Errors",
            "{:>4} {:<24} {:<9} {:<9} {:<7} {:<6} {:>6} {:>6}"),
    "older": ("---------------- Host ---------------   - Stor -   -- I/O Path -  -- Stats ---",
              "###  HW Path               I/O Paths    Interf.  Mode     State   Q-IOs Errors",
              "{:>4} {:<22} {:<11} {:<8} {:<8} {:<6} {:>5} {:>6}"),
}
LAYOUTS["ve"] = LAYOUTS["linux"]
CLASSES = ("CLARiiON", "VNX", "Unity", "Symmetrix")
POLICIES = ("ADaptive", "RoundRobin", "LeastIos", "LeastBlocks", "BasicFailover")
MODES = ("active", "active", "active", "standby", "unlic", "asb:prox")


def _hex(draw: st.DrawFn, n: int, digits: str = "0123456789ABCDEF") -> str:
    return "".join(draw(st.lists(st.sampled_from(digits), min_size=n, max_size=n)))


@st.composite
def listings(draw: st.DrawFn) -> tuple[str, str]:
    """The layout and a listing in it."""
    layout = draw(st.sampled_from(list(LAYOUTS)))
    banner, header, columns = LAYOUTS[layout]
    array_class = draw(st.sampled_from(CLASSES))
    owned = array_class != "Symmetrix"
    array_id = _hex(draw, 12, "0123456789") if not owned else f"{draw(st.sampled_from(['APM', 'CKM', 'HK']))}{_hex(draw, 11, '0123456789')}"
    label = draw(st.sampled_from(["", " [HACMP]", " [Zeus]", " [PLADWS002SM]"]))
    hbas = draw(st.lists(st.integers(0, 3999), min_size=1, max_size=3, unique=True))
    if layout == "ve":
        hw = {h: f"vmhba{i + 1}" for i, h in enumerate(hbas)}
    else:
        kind = draw(st.sampled_from(["linux", "solaris", "aix"]))
        hw = {h: {"linux": draw(st.sampled_from(["qla2xxx", "lpfc"])),
                  "solaris": f"ssm@0,0/pci@{19 + i},700000/QLGC,qlc@1/fp@0,0",
                  "aix": f"fscsi{2 * i}"}[kind] for i, h in enumerate(hbas)}
    if owned:
        ports = draw(st.lists(st.sampled_from([f"SP {sp}{n}" for sp in "AB" for n in range(4)]), min_size=1, max_size=4,
                              unique=True))
    else:
        ports = draw(st.lists(st.builds(lambda d, c, s: f"FA {d:>2}{c}{s}", st.integers(1, 16), st.sampled_from("abcdefgh"),
                                        st.sampled_from("AB")), min_size=1, max_size=4, unique=True))
    failover = draw(st.sampled_from(["       Array failover mode: 4", "       Array failover mode: 1", ""]))
    luns = draw(st.lists(st.integers(0, 255), min_size=1, max_size=3, unique=True))
    blocks = []
    for number, lun in enumerate(luns):
        name = f"hdiskpower{number}" if layout == "aix" else f"emcpower{draw(st.sampled_from(['', 'a', 'b', 'h']))}{number}"
        lines = [f"Pseudo name={name}", f"{array_class} ID={array_id}{label}"]
        if layout == "ve":
            lines.append(f"Standard UID=naa.{_hex(draw, 32, '0123456789abcdef')}")
        else:
            logical = _hex(draw, 32) if owned else _hex(draw, 4)
            lines.append(f"Logical device ID={logical}" + draw(st.sampled_from(["", f" [LUN {lun}]", f" [LUN {lun} - Swap]"])))
            if draw(st.booleans()):
                lines.append(f"Device WWN={logical if owned else _hex(draw, 32)}")
        pairs = draw(st.lists(st.sampled_from([(h, p) for h in hbas for p in ports]), min_size=1, max_size=6,
                              unique=True))
        states = draw(st.lists(st.sampled_from(["alive", "alive", "dead"]), min_size=len(pairs), max_size=len(pairs)))
        states[draw(st.integers(0, len(pairs) - 1))] = "alive"
        queued = [draw(st.integers(0, 40)) for _ in pairs]
        policy = draw(st.sampled_from(POLICIES + (("CLAROpt",) if owned else ("SymmOpt",))))
        if layout == "ve":
            lines.append(f"type=Conventional; state=alive; policy={policy}; queued-IOs={sum(queued)}")
        else:
            tail = ";" if layout == "aix" else ""
            lines.append(f"state=alive; policy={policy}; priority=0; queued-IOs={sum(queued)}{tail}")
        if owned:
            default, current = draw(st.sampled_from(["SP A", "SP B"])), draw(st.sampled_from(["SP A", "SP B"]))
            lines.append(f"Owner: default={default}, current={current}{failover}")
        lines += ["=" * 78, banner, header, "=" * 78]
        modes = draw(st.lists(st.sampled_from(MODES), min_size=len(pairs), max_size=len(pairs)))
        for place, ((h, port), state, mode, q) in enumerate(zip(pairs, states, modes, queued, strict=True)):
            t = ports.index(port)
            io = f"C0:T{t}:L{lun}" if layout == "ve" else (f"hdisk{10 * number + place}" if layout == "aix" else
                                                             f"c{hbas.index(h) + 2}t{t}d{lun}s0")
            errors = draw(st.integers(0, 12))
            lines.append(columns.format(h, hw[h], io, port, mode, state, q, errors).rstrip())
        blocks.append("\n".join(lines) + "\n")
    return layout, "\n".join(blocks)
