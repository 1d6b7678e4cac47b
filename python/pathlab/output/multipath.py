"""`multipath -ll` for the host's devices, as a Linux host on the same SAN would print it.

Layout from multipath-tools `libmultipath/print.c` (`snprint_multipath_topology__`, 0.9 to 0.14):
the map line `NAME (WWID) dm-N VENDOR,PRODUCT` (`(WWID)` because the name is an alias), then
`size=%S features='%f' hwhandler='%h' wp=%r`, then each path group `|-+- policy='%s' prio=%p
status=%t` (`` `-+- `` for the last) and its paths `| |- %i %d %D %t %T %o` (H:C:T:L, device,
major:minor, dm state, checker state, sysfs state). `print_multipath_topology__` measures every
path field over the map's paths and pads each one to that width (`snprint_path__`).

Names and numbers as the kernel gives them, the paths discovered in H:C:T:L order (each adapter
a SCSI host, in order; targets and LUNs as in the runtime names):
* disks named and numbered as sd.c does (`linux_names.py`);
* maps are made in the order of their first path; with `user_friendly_names` each takes the next
  alias (`mpatha`, …, `mpathz`, `mpathaa`) and the next dm minor (`dm-0`, `dm-1`, …);
  `multipath -ll` lists them by name, as the kernel's DM_LIST_DEVICES returns them (dm-ioctl.c
  keeps names in a red-black tree ordered by `strcmp`).

Path groups: a device under the dm-multipath policy shows the policy's own groups. Any other
SCSI device (ESXi's PSPs, HPP, MPIO, …) shows the map a default Linux host would build, as
`describe`'s `linux` facts give it (the Rust `linux` module: multipath-tools' hardware table
entry for the array, else its compiled-in defaults): the prioritizer (`alua`: active-optimized
50, non-optimized 10, standby 1, unavailable 0; `const`: 1 for every path; `emc`/`ontap`: 4 on
the paths to the LUN's owning controller, 1 on the others; `rdac` 6 and 1, `hp_sw` 4 and 2), the
grouping (`group_by_prio`, `multibus`: one group, `failover`: one group per path), selector,
features and hardware handler. Groups are sorted by priority when the map is loaded (every path
up) and keep that order when paths fail, unless failback is immediate (then the map is reloaded,
sorted as the paths stand); a group's priority is the average over its paths that are up, 0 when
none is (`path_group_prio_update`); the group in use is `active`: the kernel keeps to the first
group, in table order, that has a path up.

`multipath -l` (`checked=False`) prints the same maps from the kernel's tables alone: no path
checker and no prioritizer is run, so every group shows `prio=0` and every path's checker state
`undef`; the dm state (`active`/`failed`) and the group status are the kernel's
(`snprint_multipath_topology` with `DI_CHECKER | DI_PRIO` off, multipath-tools `cli_handlers.c`).

Older multipath-tools printed differently (`[host] multipath_tools`, as the import read it from
the listing); each rule from opensvc/multipath-tools' history:
* 0.4.8 (tag of 2007-08-02): the bracket layout, `NAME (WWID) dm-N VENDOR,PRODUCT`, then
  `[size=%S][features=%f][hwhandler=%h][rw]`, each group `\\_ %s [prio=%p]%t` and each path
  ` \\_ %i %d %D %t%T` (print.h `PRINT_PG_INDENT`, `PRINT_PATH_INDENT`; `[rw]` from 1cf191f3 of
  2008-05-18, which the distributions' builds of that layout carry; 9b2de924 of 2008-11-19 made
  today's layout). A group's priority is the sum over its paths not down (switchgroup.c
  `select_path_group`).
* 0.4.9 (tag of 2010-05-22): today's layout; the average over the group's paths not down
  (105e5507, 2010-03-17, print.c `snprint_pg_pri`). Under `-l` no prioritizer runs and every
  path keeps PRIO_UNDEF, -1, so the average is -1 (`prio=-1`); 25251f26 (2011-02-10, in 0.5.0)
  counts only paths up or ghost, so today's `-l` prints 0.
* Both: the emc prioritizer gave the default owner's paths 1 and the others 0; 8950cc8f
  (2009-03-20, in 0.5.0) made it the LUN state plus 2 for the owner (today's 4 and 1 here).

The model has no LUN capacity: every map that was not imported shows 100G (`_derived_props`).
An imported map prints its listing's values (`listed`, `pathlab import` keeps them): see `multipath_ll`."""

from __future__ import annotations

from typing import Any

from pathlab import _core
from pathlab.linux_names import letters, sd_dev_t, sd_name
from pathlab.output.as_read import NOT_READ, now_held

#: multipath-tools' `alua` prioritizer (prioritizers/alua.c), by the ALUA state the array reports (T, a
#: transitioning group: its switch's default case, 0).
ALUA_PRIO = {"AO": 50, "ANO": 10, "STBY": 1, "UNAV": 0, "T": 0}
#: The `emc` and `ontap` prioritizers: the owning controller's paths (reported AO) 4, others 1;
#: `rdac` (prioritizers/rdac.c) the owner on its preferred controller 6, the secondary 1; `hp_sw`
#: (prioritizers/hp_sw.c) active 4, standby 2 (the policy's `owner_priority`, Rust).
OWNER_PRIO = {"AO": 4, "ANO": 1, "STBY": 1, "UNAV": 1, "T": 1}
OWNER_PRIOS = {"emc": OWNER_PRIO, "ontap": OWNER_PRIO, "rdac": {"AO": 6, "ANO": 1, "STBY": 1, "UNAV": 1, "T": 1},
               "hp_sw": {"AO": 4, "ANO": 2, "STBY": 2, "UNAV": 2, "T": 2}}
#: What every map shows as its size (512-byte sectors): the model has no LUN capacity.
SIZE_SECTORS = 100 << 21


def size_text(sectors: int) -> str:
    """`snprint_size`: kilobytes divided by 1024 while at least 1024, one decimal under 10."""
    s = float(sectors >> 1)
    units = "KMGTP"
    u = 0
    while s >= 1024 and u < len(units) - 1:
        s /= 1024
        u += 1
    return f"{s:.{1 if s < 10 else 0}f}{units[u]}"


def wwid(device: str) -> str:
    """The WWID multipath reads (udev's ID_SERIAL): the designator's type digit, then its hex."""
    kind, _, rest = device.partition(".")
    prefix = {"naa": "3", "eui": "2", "t10": "1"}.get(kind)
    return prefix + rest if prefix and rest else device


def _hctl(path: dict[str, Any], hosts: list[str]) -> tuple[int, int, int, int]:
    _, channel, target, lun = path["name"].split(":")
    return hosts.index(path["adapter"]), int(channel[1:]), int(target[1:]), int(lun[1:])


def _prio_average(paths: list[dict[str, Any]], prio: dict[str, int], every: bool = False) -> int:
    up = [prio[p["name"]] for p in paths if p["up"] or every]
    return sum(up) // len(up) if up else 0


def _setting(facts: dict[str, Any], name: str) -> str:
    return next(str(s["value"]) for s in facts["settings"] if s["name"] == name)


#: The emc prioritizer before multipath-tools 0.5.0 (8950cc8f): the default owner 1, others 0.
OLD_EMC_PRIO = {"AO": 1, "ANO": 0, "STBY": 0, "UNAV": 0, "T": 0}
#: multipath-tools' releases whose printing differs (`[host] multipath_tools`), oldest first: the
#: scenario loader's list (Rust `linux::MULTIPATH_TOOLS`).
RELEASES = tuple(_core.MULTIPATH_TOOLS)
#: A path's priority when no prioritizer ran (structs.c `alloc_path`: PRIO_UNDEF).
PRIO_UNDEF = -1


def _path_prio(prio: str, alua: str, release: str | None = None) -> int:
    if prio == "emc" and release in RELEASES:
        return OLD_EMC_PRIO[alua]
    return ALUA_PRIO[alua] if prio == "alua" else OWNER_PRIOS[prio][alua] if prio in OWNER_PRIOS else 1


def _old_group_prio(members: list[dict[str, Any]], prio: str, release: str, checked: bool) -> int:
    """A group's priority as `release` printed it: the sum (0.4.8) or the average (0.4.9) over
    its paths not down, of the prioritizer's values, or of PRIO_UNDEF under `-l`."""
    values = [_path_prio(prio, p["alua"], release) if checked else PRIO_UNDEF for p in members if p["up"]]
    if release == "0.4.8":
        return sum(values)
    return sum(values) // len(values) if values else 0


def _default_groups(paths: list[dict[str, Any]], facts: dict[str, Any]) -> list[dict[str, Any]]:
    """The groups a default Linux host makes of `paths` (in discovery order)."""
    kind = _setting(facts, "prio")
    prio = {p["name"]: _path_prio(kind, p["alua"]) for p in paths}
    grouping = _setting(facts, "path_grouping_policy")
    if grouping == "failover":
        members = [[p] for p in paths]
    elif grouping == "multibus":
        members = [list(paths)]
    else:
        grouped: dict[int, list[dict[str, Any]]] = {}
        for p in paths:
            grouped.setdefault(prio[p["name"]], []).append(p)
        members = list(grouped.values())
    # Sorted as loaded, every path up: by priority, then by number of paths (stable). With
    # failback immediate multipathd reloads the map as soon as the groups fall out of priority
    # order (`need_switch_pathgroup`), so they are sorted as the paths stand now.
    now = _setting(facts, "failback") == "immediate"
    members.sort(key=lambda g: (-_prio_average(g, prio, every=not now),
                                -sum(1 for p in g if p["up"] or not now)))
    in_use = next((i for i, g in enumerate(members) if any(p["up"] for p in g)), None)
    selector = _setting(facts, "path_selector")
    return [{"selector": selector, "priority": _prio_average(g, prio),
             "state": "active" if i == in_use else "enabled", "paths": [p["name"] for p in g]}
            for i, g in enumerate(members)]


def _policy_groups(device: dict[str, Any]) -> list[dict[str, Any]]:
    """A dm-multipath device's own groups; `active` on the one the next I/O uses."""
    in_use = device["working_paths"][0] if device["working_paths"] else None
    return [{"selector": g["selector"], "priority": g["priority"],
             "state": g["state"] if g["state"] == "disabled" else "active" if in_use in g["paths"] else "enabled",
             "paths": g["paths"]}
            for g in device["groups"]]


def _read_down(values: dict[str, str]) -> bool:
    """Whether the listing showed the path failed (the import makes it a path down from 0 s)."""
    return bool({values.get("dm_state"), values.get("checker_state")} & {"failed", "faulty"})


def multipath_ll(desc: dict[str, Any], checked: bool = True) -> str:
    """`multipath -ll`, or `multipath -l` when not `checked`, as the host's multipath-tools prints it.
    An imported map prints what its listing printed (`listed`) where the simulation still stands
    as read: its name, dm device, vendor and product, size, features, handler and wp, each group's
    selector, priority and status, each path's H:C:T:L, device, major:minor and states, in the
    listing's order; a path whose simulated state departs from the listing's (a fault after the
    start) prints the simulated state, and its group its simulated priority and status."""
    hosts: list[str] = desc["linux"]["hosts"]
    release = desc["hosts"][0].get("multipath_tools")
    order = _disk_order(desc)
    sd_index = {p["name"]: i for i, p in enumerate(order)}
    paths = {p["name"]: p for p in desc["paths"]}
    by_device: dict[str, list[dict[str, Any]]] = {}
    for p in order:
        by_device.setdefault(p["device"], []).append(p)
    devices = [(d, facts) for d, facts in zip(desc["devices"], desc["linux"]["devices"]) if by_device.get(d["name"])]
    if not all(d.get("listed") for d, _ in devices):  # an imported listing keeps its order (the scenario's)
        devices.sort(key=lambda df: sd_index[by_device[df[0]["name"]][0]["name"]])
    maps = []
    for minor, (d, facts) in enumerate(devices):
        listed = d.get("listed")
        read = listed["paths"] if listed else {}
        own = listed["device"] if listed else {}
        groups = _groups(d, facts, by_device[d["name"]], paths, release, checked)
        # The same map as the scenario held it as imported (no fault, no `--set`): what changed since
        # prints as the scenario now holds it, marked.
        imported = d.get("imported")
        then = {}
        if imported:
            was = imported["paths"]
            then = {frozenset(g["paths"]): g for g in _groups(imported["device"], imported["facts"],
                                                               [was[p["name"]] for p in by_device[d["name"]] if p["name"] in was],
                                                               was, release, checked)}
        # Paths as read: listed, and up or down in the simulation as the listing showed them.
        as_read = {n for n, v in read.items() if n in paths and paths[n]["up"] != _read_down(v)}
        groups = [_group_as_read(g, read, as_read, checked, then.get(frozenset(g["paths"])) if imported else g) for g in groups]
        numbers = [g.get("read_group") for g in groups]
        if None not in numbers and len(set(numbers)) == len(numbers):  # every group as read: in the listing's order
            groups.sort(key=lambda g: int(g["read_group"]))
        alias = own.get("name", "mpath" + letters(minor)) if listed else "mpath" + letters(minor)
        header = _header(d, own, alias, minor) if listed else \
            f"{alias} ({wwid(d['name'])}) dm-{minor} {d['vendor']},{d['model']}"
        fields: dict[str, tuple[str, ...]] = {}
        for g in groups:
            for name in g["paths"]:
                p, k = paths[name], sd_index[name]
                h, c, t, lun = _hctl(p, hosts)
                states = ("active" if p["up"] else "failed",
                          ("ready" if p["up"] else "faulty") if checked else "undef", "running")
                if name in as_read:
                    v = read[name]
                    states = (v.get("dm_state", ""), v.get("checker_state", "") if checked else "undef",
                              v.get("online_state", ""))
                # A path of an imported map that its listing did not show (pathlab zones every adapter to
                # every port of the array): its address, disk and numbers were not read, and are marked so.
                r = read.get(name, {}) if not listed or name in read else \
                    {"hctl": NOT_READ, "dev": NOT_READ, "dev_t": NOT_READ}
                fields[name] = (r.get("hctl", f"{h}:{c}:{t}:{lun}"), r.get("dev", sd_name(k)),
                                r.get("dev_t", sd_dev_t(k)), *states)
        widths = [max(len(f[i]) for f in fields.values()) for i in range(6)] if fields else [0] * 6
        props = _props(facts, own, imported["facts"] if imported else facts) if listed else _derived_props(facts)
        layout = _brackets if release == "0.4.8" else _tree
        lines = [header, *layout(props, groups, fields, widths)]
        maps.append((alias, "\n".join(lines)))
    if not all(d.get("listed") for d, _ in devices):  # as the kernel lists maps
        maps.sort(key=lambda m: m[0].encode())
    # Maps the listing printed that the scenario does not simulate: as read, at their place.
    for u in sorted(desc.get("unsimulated", []), key=lambda u: int(u["listed"]["device"].get("order", 1 << 30))):
        place = int(u["listed"]["device"].get("order", len(maps)))
        maps.insert(min(place, len(maps)), ("", _as_read_map(u, release)))
    return "".join(text + "\n" for _, text in maps)


def _disk_order(desc: dict[str, Any]) -> list[dict[str, Any]]:
    """The SCSI paths in the order the kernel discovers them (H:C:T:L), which numbers their disks.
    Native NVMe heads are not SCSI disks: dm-multipath leaves them alone (`nvme list-subsys` shows
    them, `output/nvme.py`), and their paths take no sd names."""
    hosts: list[str] = desc["linux"]["hosts"]
    heads = {d["name"] for d, facts in zip(desc["devices"], desc["linux"]["devices"]) if facts["nvme_head"]}
    return sorted((p for p in desc["paths"] if p["device"] not in heads), key=lambda p: _hctl(p, hosts))


def disk_names(desc: dict[str, Any]) -> list[tuple[str, str]]:
    """Each SCSI path's device and disk name, in the kernel's order, as `multipath_ll` prints them:
    an imported map's as its listing named them (a path it did not list has no known name and is
    left out), any other's numbered as sd.c does."""
    listed = {d["name"]: d.get("listed") for d in desc["devices"]}
    names = []
    for k, p in enumerate(_disk_order(desc)):
        own = listed.get(p["device"])
        if own is None:
            names.append((p["device"], sd_name(k)))
        elif p["name"] in own["paths"] and own["paths"][p["name"]].get("dev") not in (None, NOT_READ):
            names.append((p["device"], own["paths"][p["name"]]["dev"]))
    return names


def _as_read_map(u: dict[str, Any], release: str | None) -> str:
    """A map the scenario does not simulate (`[[unsimulated]]`) as its listing printed it: every
    field from `listed`, a field it did not print `?`; its groups in the listing's order."""
    own, read = u["listed"]["device"], u["listed"]["paths"]
    groups: dict[str, dict[str, Any]] = {}
    for name in sorted(read, key=lambda n: int(read[n].get("order", 0))):
        v = read[name]
        g = groups.setdefault(v.get("group", ""), {"selector": v.get("selector", NOT_READ),
                                                    "priority": v.get("group_prio", NOT_READ),
                                                    "state": v.get("group_status", NOT_READ),
                                                    "prio_shown": "group_prio" in v, "paths": []})
        g["paths"].append(name)
    fields = {n: tuple(read[n].get(k, NOT_READ) for k in ("hctl", "dev", "dev_t", "dm_state", "checker_state",
                                                          "online_state")) for n in read}
    widths = [max(len(f[i]) for f in fields.values()) for i in range(6)] if fields else [0] * 6
    props = {k: own.get(k, NOT_READ) for k in ("size", "features", "hwhandler")} | ({"wp": own["wp"]} if "wp" in own else {})
    layout = _brackets if release == "0.4.8" else _tree
    return "\n".join([_header(u, own, own.get("name", wwid(u["name"])), 0), *layout(props, list(groups.values()),
                                                                                    fields, widths)])


def _groups(d: dict[str, Any], facts: dict[str, Any], members: list[dict[str, Any]], paths: dict[str, dict[str, Any]],
            release: str | None, checked: bool) -> list[dict[str, Any]]:
    """The map's groups as `release` prints them: a dm-multipath device's own, else those a
    default Linux host makes of `members` (its paths, in discovery order)."""
    groups = _policy_groups(d) if d["psp"] == "dm-multipath" else _default_groups(members, facts)
    if release in RELEASES:
        kind = _setting(facts, "prio")
        return [dict(g, priority=_old_group_prio([paths[n] for n in g["paths"]], kind, release, checked))
                for g in groups]
    return [dict(g, priority=0) for g in groups] if not checked else groups


def _header(d: dict[str, Any], own: dict[str, str], alias: str, minor: int) -> str:
    """An imported map's header as its listing printed it: `[action: ]name[ (wwid)][ dm-N][ VENDOR,PRODUCT[,REV]]`."""
    name = alias if alias == wwid(d["name"]) else f"{alias} ({wwid(d['name'])})"
    action = f"{own['action']}: " if "action" in own else ""
    dm = f" {own['dm']}" if "dm" in own else ""
    vendor = (f" {own.get('vendor', '')},{own.get('product', '')}" + (f",{own['revision']}" if "revision" in own else "")
              if "vendor" in own or "product" in own else "")
    return f"{action}{name}{dm}{vendor}"


def _derived_props(facts: dict[str, Any]) -> dict[str, Any]:
    """A modelled map's properties: the model has no LUN capacity (every map 100G); features and
    handler as the claim gives them; read-write."""
    return {"size": size_text(SIZE_SECTORS), "features": facts["features"], "hwhandler": facts["hwhandler"], "wp": "rw"}


def _props(facts: dict[str, Any], own: dict[str, str], imported: dict[str, Any]) -> dict[str, Any]:
    """An imported map's properties as read; a value its listing did not print is `?`, a value the
    scenario now holds otherwise is the scenario's, marked (its name in `changed`), and wp, which
    early releases did not print, is left out as they left it out. `imported`: the map's facts as
    the scenario held them when imported."""
    props = {k: own.get(k, NOT_READ) for k in ("size", "features", "hwhandler")}
    # What the scenario holds where it is no longer what was read (`--set no_path_retry=fail`
    # drops queue_if_no_path): the scenario's, marked.
    changed = {k: facts[k] for k in ("features", "hwhandler") if facts[k] != imported[k]}
    return props | changed | {"changed": set(changed)} | ({"wp": own["wp"]} if "wp" in own else {})


def _group_as_read(g: dict[str, Any], read: dict[str, dict[str, str]], as_read: set[str], checked: bool,
                   then: dict[str, Any] | None) -> dict[str, Any]:
    """A group as its listing printed it when every path of it stands as read and the listing put
    them in one group: its selector, priority (under `-l` the rule's) and status, and its paths in
    the listing's order (and its place among the groups, `read_group`); a priority or status the
    scenario now holds otherwise than as imported (`then`: the group then, None where there was
    none of these paths) is the scenario's, marked. Otherwise the simulated group."""
    # The selector is the map's (one for every group of its table): the listing's words while the
    # simulation runs that selector (`--set` may choose another).
    selector = next((v["selector"] for v in read.values() if "selector" in v), g["selector"])
    if selector.split()[:1] != g["selector"].split()[:1]:
        selector = g["selector"]
    listed = [read[n] for n in g["paths"] if n in as_read]
    if not listed or len(listed) != len(g["paths"]) or len({v.get("group") for v in listed}) != 1:
        return dict(g, selector=selector)
    first = listed[0]
    priority = first.get("group_prio", "undef") if checked else g["priority"]
    # An alua_state fault or `--set prio=…` changed it (and it is not what was read).
    if checked and "group_prio" in first and _changed(first["group_prio"], g, then, "priority"):
        priority = now_held(g["priority"])
    state = first.get("group_status", g["state"])
    if _changed(state, g, then, "state"):
        state = now_held(g["state"])
    return dict(g, selector=selector, priority=priority, state=state,
                paths=sorted(g["paths"], key=lambda n: int(read[n].get("order", 0))),
                prio_shown="group_prio" in first or not checked, read_group=first.get("group"))


def _marked(props: dict[str, Any], key: str, shown: str) -> str:
    """A property as the layout prints it (`shown`), marked where the scenario changed it."""
    return now_held(shown) if key in props.get("changed", ()) else shown


def _changed(read: str, g: dict[str, Any], then: dict[str, Any] | None, key: str) -> bool:
    """Whether a group's `key` is not what was read because the scenario changed it since the
    import (not because the model computes the read value otherwise)."""
    return read != str(g[key]) and (then is None or then[key] != g[key])


def _tree(props: dict[str, Any], groups: list[dict[str, Any]], fields: dict[str, tuple[str, ...]],
          widths: list[int]) -> list[str]:
    """Today's layout (0.4.9 on): `size=… features=…` and the `|-+-` tree."""
    wp = f" wp={props['wp']}" if "wp" in props else ""
    features, hwhandler = (_marked(props, k, f"'{props[k]}'") for k in ("features", "hwhandler"))
    lines = [f"size={props['size']} features={features} hwhandler={hwhandler}{wp}"]
    for gi, g in enumerate(groups):
        last_group = gi == len(groups) - 1
        lines.append(f"{'`' if last_group else '|'}-+- policy='{g['selector']}' prio={g['priority']} status={g['state']}")
        for pi, name in enumerate(g["paths"]):
            leaf = "`-" if pi == len(g["paths"]) - 1 else "|-"
            padded = " ".join(f.ljust(w) for f, w in zip(fields[name], widths))
            lines.append(f"{' ' if last_group else '|'} {leaf} {padded}")
    return lines


def _brackets(props: dict[str, Any], groups: list[dict[str, Any]], fields: dict[str, tuple[str, ...]],
              widths: list[int]) -> list[str]:
    """0.4.8's layout: `[size=…][features=…][hwhandler=…][rw]`, `\\_ selector [prio=N][state]`,
    ` \\_ H:C:T:L dev maj:min [dm][checker]` (the sysfs state was not printed then; RHEL 4's
    build printed no group priority and no checker state: an imported listing's are left out so)."""
    wp = f"[{props['wp']}]" if "wp" in props else ""
    features, hwhandler = (_marked(props, k, props[k]) for k in ("features", "hwhandler"))
    lines = [f"[size={props['size']}][features={features}][hwhandler={hwhandler}]{wp}"]
    for g in groups:
        prio = f"[prio={g['priority']}]" if g.get("prio_shown", True) else ""
        lines.append(f"\\_ {g['selector']} {prio}[{g['state']}]")
        for name in g["paths"]:
            address = " ".join(f.ljust(w) for f, w in zip(fields[name][:3], widths[:3]))
            checker = f"[{fields[name][4]}]" if fields[name][4] else ""
            lines.append(f" \\_ {address} [{fields[name][3]}]{checker}")
    return lines
