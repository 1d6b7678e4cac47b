"""`multipath -ll` listings made up at random, printed by multipath-tools' own rules, for the
property test of `show` (`test_show_lossless.py`): what is drawn is kept beside the text, so
that what `show` prints back can be compared field by field.

The layouts, from opensvc/multipath-tools `libmultipath/print.h` and `print.c`:
* 0.4.9 to 0.15 (`tree`): the header `%n (%w) %d %s` (`%w %d %s` when the map's alias is its
  WWID: no alias), `PRINT_MAP_PROPS` "size=%S features='%f' hwhandler='%h' wp=%r",
  `PRINT_PG_INDENT` "policy='%s' prio=%p status=%t" behind `|-+- ` (`` `-+- `` for the last
  group), `PRINT_PATH_INDENT` "%i %d %D %t %T %o" behind `| |- ` (`` `- `` for the last path,
  a blank for the bar under the last group), each path field padded to the widest in the map
  (`snprint_path__`); the size by `snprint_size` (kilobytes divided by 1024, one decimal under 10).
* 0.4.8 (`brackets`): the header, then `[size=%S][features=%f][hwhandler=%h][rw]`,
  `PRINT_PG_INDENT` "\\_ %s [prio=%p]%t" with the status in brackets, and `PRINT_PATH_INDENT`
  " \\_ %i %d %D %t%T" with both states in brackets.

What is drawn stays within what a host prints and pathlab's model holds (said where narrowed):
a map's paths share its LUN number and channel 0 (the model names a path by adapter, target and
the device's LUN: two paths differing only in channel or LUN would be one); a SCSI host reaches
a target of one array; groups of a map are in descending priority (multipath-tools sorts them
so when it loads the map: `sort_pathgroups`), all of one priority only as one path per group
(`failover`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

from pathlab.linux_names import letters, sd_dev_t, sd_name

#: Arrays as their maps name them (vendor, product), with the hardware handlers hosts show for
#: them (multipath-tools' hardware table, `hwtable.c`, or the kernel's ALUA detection).
ARRAYS = {("NETAPP", "LUN C-Mode"): ["1 alua", "0"], ("3PARdata", "VV"): ["1 alua", "0"], ("DGC", "RAID 5"): ["1 emc", "1 alua"],
          ("HP", "HSV210"): ["1 alua", "0"], ("IBM", "2145"): ["1 alua", "0"], ("PURE", "FlashArray"): ["1 alua", "0"],
          ("EMC", "SYMMETRIX"): ["0"], ("DELL", "MD36xxi"): ["1 rdac"], ("LIO-ORG", "disk01"): ["1 alua", "0", "1 emc"],
          ("HP", "MSA1000"): ["1 hp_sw"], ("ACME", "Box 9"): ["0"]}
FEATURES = ["0", "1 queue_if_no_path", "3 queue_if_no_path pg_init_retries 50", "1 retain_attached_hw_handler",
            "4 queue_if_no_path pg_init_retries 50 retain_attached_hw_handle"]
SELECTORS = ["round-robin 0", "service-time 0", "queue-length 0", "historical-service-time 0"]
#: (dm state, checker state, online state) as hosts print them; a path `failed`/`faulty` is down.
STATES = [("active", "ready", "running"), ("failed", "faulty", "running"), ("failed", "faulty", "offline"),
          ("active", "ghost", "running"), ("active", "i/o pending", "running"), ("failed", "faulty", "transport-offline"),
          ("active", "ready", "blocked")]
ALIASES = ["mpath", "oradata", "site_A_", "vg_db-"]
#: A path multipathd knows no device of (print.c: `snprint_hcil` `#:#:#:#` with no SCSI host,
#: `snprint_dev` `-` and `snprint_dev_t` `#:#` with no device name): its states as the kernel's
#: table and the checker left them.
GONE = [("active", "faulty", "running"), ("failed", "faulty", "running")]


@dataclass
class Path:
    hctl: str
    dev: str
    dev_t: str
    states: tuple[str, str, str]


@dataclass
class Group:
    selector: str
    prio: int
    status: str
    paths: list[Path] = field(default_factory=list)


@dataclass
class Map:
    name: str
    wwid: str
    dm: str
    vendor: str
    product: str
    size: str
    features: str
    hwhandler: str
    wp: str
    groups: list[Group] = field(default_factory=list)


def size_text(kib: int) -> str:
    """multipath-tools `snprint_size`."""
    s, u = float(kib), 0
    while s >= 1024 and u < 4:
        s, u = s / 1024, u + 1
    return f"{s:.{1 if s < 10 else 0}f}{'KMGTP'[u]}"


@st.composite
def listings(draw: st.DrawFn, shapes: tuple[str, ...] = ("prio", "failover", "one"),
             checked: bool = True, gone: bool = False) -> tuple[str, list[Map]]:
    """A listing's text and its maps, each grouped by one of `shapes`: by priority (the owner's
    ports first), one path per group at one priority, or one group. Not `checked`: `multipath -l`
    of 0.5.0 on (no checker, no prioritizer: every checker state `undef`, every group `prio=0`).
    `gone`: one more map, somewhere among them, whose paths multipathd knows no device of
    (`GONE`)."""
    layout = draw(st.sampled_from(["tree", "brackets"])) if checked else "tree"
    count = draw(st.integers(1, 4))
    arrays = draw(st.lists(st.sampled_from(list(ARRAYS)), min_size=count, max_size=count))
    hosts = draw(st.lists(st.integers(0, 99), min_size=1, max_size=4, unique=True))
    disks = iter(draw(st.lists(st.integers(0, 700), min_size=16, max_size=16, unique=True)))
    minors = draw(st.lists(st.integers(0, 60), min_size=count, max_size=count, unique=True))
    used_names: set[str] = set()
    zoned: dict[tuple[str, str], list[tuple[int, int]]] = {}
    handlers = {a: draw(st.sampled_from(ARRAYS[a])) for a in dict.fromkeys(arrays)}
    maps = []
    for i, (vendor, product) in enumerate(arrays):
        wwid = "36" + draw(st.text("0123456789abcdef", min_size=30, max_size=30)) + f"{i:02x}"
        kind = draw(st.sampled_from(["none", *ALIASES]))
        name = wwid if kind == "none" else kind + (letters(i) if kind == "mpath" else f"{i:02d}")
        if name in used_names:
            name = wwid
        used_names.add(name)
        kib = draw(st.one_of(st.integers(1024, 1 << 34), st.sampled_from([1 << 20, 150 << 20, 512 << 10])))
        # An array's maps share its hardware handler (one hardware table entry, or multipath.conf
        # device), an ownership handler on an array whose table entry has none too (LIO-ORG's emc).
        handler = handlers[(vendor, product)]
        m = Map(name, wwid, f"dm-{minors[i]}", vendor, product, size_text(kib), draw(st.sampled_from(FEATURES)),
                handler, draw(st.sampled_from(["rw", "ro"])) if layout == "tree" else "rw")
        # Ports of this array: targets of its own (an array's targets are its own on every host),
        # every map of it on all of them (pathlab zones each adapter to every port it saw).
        if (vendor, product) not in zoned:
            targets = [(h, 16 * list(ARRAYS).index((vendor, product)) + t) for h in hosts for t in range(draw(st.integers(1, 2)))]
            zoned[(vendor, product)] = draw(st.lists(st.sampled_from(targets), min_size=1, max_size=min(4, len(targets)),
                                                     unique=True))
        ports = draw(st.permutations(zoned[(vendor, product)]))
        # A port belongs to one of the array's two controllers (the first half of its ports to A):
        # a map grouped by priority has its owner's ports in the first group, the others' in the second.
        controller_a = set(zoned[(vendor, product)][:(len(zoned[(vendor, product)]) + 1) // 2])
        shape = draw(st.sampled_from(shapes))
        if shape == "one" or len(ports) == 1:
            sizes = [len(ports)]
        elif shape == "failover":
            sizes = [1] * len(ports)
        else:
            owner_a = draw(st.booleans())
            ports = sorted(ports, key=lambda port: (port in controller_a) != owner_a)
            sizes = [sum(1 for port in ports if (port in controller_a) == owner_a)]
            sizes.append(len(ports) - sizes[0])
        # A prioritizer gives a path up 1 or more (alua 50/10/1, emc and ontap 4/1, const 1, the
        # old emc 1/0 aside); 0 is a group whose paths are all down.
        prios = (sorted(draw(st.lists(st.integers(1, 130), min_size=len(sizes), max_size=len(sizes), unique=True)),
                        reverse=True) if shape == "prio" else [draw(st.integers(1, 50))] * len(sizes))
        selector = draw(st.sampled_from(SELECTORS))
        at = 0
        for gi, (n, prio) in enumerate(zip(sizes, prios)):
            status = draw(st.sampled_from(["active", "enabled"])) if gi else "active"
            group = Group(selector, prio, status)
            for h, t in ports[at:at + n]:
                k = next(disks)
                # Beside other groups, a group keeps a path up (`ready` or `ghost`) as its first: one whose
                # every path is down (priority 0) was merged into the others by the import in some
                # generated listings (`test_show_lossless.FAILED_GROUP` is one that comes back): not drawn.
                states = STATES[:1] + STATES[3:4] if len(sizes) > 1 and not group.paths else STATES
                if gi == 0:  # a passive (`ghost`) path is the other controller's: never in the owner's group
                    states = [s for s in states if s[1] != "ghost"] or STATES[:1]
                elif handler.split()[-1] in ("emc", "rdac", "hp_sw"):  # LUN ownership: the others' paths are passive
                    states = [s for s in states if s[1] != "ready"]
                group.paths.append(Path(f"{h}:0:{t}:{i}", sd_name(k), sd_dev_t(k), draw(st.sampled_from(states))))
            at += n
            if not any(p.states[1] in ("ready", "ghost") for p in group.paths):
                group.prio = 0  # the priority of paths up or ghost only (print.c snprint_pg_pri, 25251f26)
            if not checked:
                group.prio = 0
                for p in group.paths:
                    p.states = (p.states[0], "undef", p.states[2])
            m.groups.append(group)
        maps.append(m)
    if gone:
        vendor, product = draw(st.sampled_from(list(ARRAYS)))
        m = Map("", "36" + draw(st.text("0123456789abcdef", min_size=30, max_size=30)) + "ff", f"dm-{61 + count}", vendor,
                product, size_text(draw(st.integers(1024, 1 << 34))), draw(st.sampled_from(FEATURES)),
                handlers.get((vendor, product), ARRAYS[(vendor, product)][0]),
                draw(st.sampled_from(["rw", "ro"])) if layout == "tree" else "rw")
        m.name = m.wwid if draw(st.booleans()) else f"gone{count}"
        group = Group(draw(st.sampled_from(SELECTORS)), 0, draw(st.sampled_from(["active", "enabled"])))
        for _ in range(draw(st.integers(1, 2))):
            dm_state, checker, online = draw(st.sampled_from(GONE))
            group.paths.append(Path("#:#:#:#", "-", "#:#", (dm_state, checker if checked else "undef", online)))
        m.groups.append(group)
        maps.insert(draw(st.integers(0, len(maps))), m)
    return (tree(maps) if layout == "tree" else brackets(maps)), maps


def _header(m: Map) -> str:
    return (m.wwid if m.name == m.wwid else f"{m.name} ({m.wwid})") + f" {m.dm} {m.vendor},{m.product}"


def tree(maps: list[Map]) -> str:
    lines = []
    for m in maps:
        fields = [(p.hctl, p.dev, p.dev_t, *p.states) for g in m.groups for p in g.paths]
        widths = [max(len(f[i]) for f in fields) for i in range(6)]
        lines += [_header(m), f"size={m.size} features='{m.features}' hwhandler='{m.hwhandler}' wp={m.wp}"]
        for gi, g in enumerate(m.groups):
            last = gi == len(m.groups) - 1
            lines.append(f"{'`' if last else '|'}-+- policy='{g.selector}' prio={g.prio} status={g.status}")
            for pi, p in enumerate(g.paths):
                padded = " ".join(f.ljust(w) for f, w in zip((p.hctl, p.dev, p.dev_t, *p.states), widths))
                lines.append(f"{' ' if last else '|'} {'`-' if pi == len(g.paths) - 1 else '|-'} {padded}")
    return "\n".join(lines) + "\n"


def brackets(maps: list[Map]) -> str:
    lines = []
    for m in maps:
        fields = [(p.hctl, p.dev, p.dev_t) for g in m.groups for p in g.paths]
        widths = [max(len(f[i]) for f in fields) for i in range(3)]
        lines += [_header(m), f"[size={m.size}][features={m.features}][hwhandler={m.hwhandler}][{m.wp}]"]
        for g in m.groups:
            lines.append(f"\\_ {g.selector} [prio={g.prio}][{g.status}]")
            for p in g.paths:
                address = " ".join(f.ljust(w) for f, w in zip((p.hctl, p.dev, p.dev_t), widths))
                lines.append(f" \\_ {address} [{p.states[0]}][{p.states[1]}]")
    return "\n".join(lines) + "\n"
