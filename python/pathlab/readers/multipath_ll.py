"""`multipath -ll` and `multipath -l` (and `multipathd show topology`): every layout hosts print
(research/formats.md §3.1, multipath-tools `libmultipath/print.c`).

* multipath-tools ≥ 0.4.9 (RHEL 6 on): a map header `alias (wwid) dm-N VENDOR,PRODUCT` (no `(wwid)`
  when the map has no alias, an `action: ` prefix while a map is being created or reloaded), then
  `size=… features='…' hwhandler='…' wp=rw` (`wp=` missing in early versions), then path groups
  `|-+- policy='service-time 0' prio=50 status=active` holding paths
  `| |- 3:0:0:1 sdb 8:16 active ready running` (dm state, checker state — two words for
  `i/o pending`, `i/o timeout`, after which the online state is printed too: a line ending in
  them is cut — and online state). `-l` runs no checker: the checker state is `undef`.
* multipath-tools 0.4.7 and 0.4.8 (RHEL 4, 5): `[size=…][features=…][hwhandler=…][rw]` on the header
  or the next line, groups `\\_ round-robin 0 [prio=1][active]`, paths
  `  \\_ 2:0:0:6 sdb 8:16 [active][ready]` (RHEL 4: only the dm state, and no group priority).
* native NVMe namespaces shown through multipath's `nvme` foreign library:
  `eui.… [nvme]:nvme1n1 NVMe,MODEL,FIRMWARE`, paths `1:1:1 nvme1c1n1 0:0 n/a optimized live`.

Log lines (`Aug 30 05:09:18 | …`, `12.345 | …`), checker messages (`sdb: checker msg is …`), the
`===== paths list =====` block of `-v3`/`-v4` and `multipathd> ` prompts are skipped; any other line
that is not part of the topology is refused with its line number, but for a fragment of one as the
listing's last line (a paste cut inside a map). A map that the listing ends inside has `cut`, the
line it ends at: a header without its properties, a group without paths, that fragment, or (0.4.9
on) a group or path the tree's branches show is not the map's last, at the end (a header and
properties without groups is a map without paths, as multipath-tools prints it, unless the
properties line lacks the write permission the other maps print: ` wp=rw` cut off)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError
from pathlab.readers.pasted import between_lines, file_lines, output_lines
from pathlab.readers.rejoin import rejoined

if TYPE_CHECKING:
    import pandas as pd

#: The two tables and their columns.
MAP_COLUMNS = ["name", "wwid", "dm", "vendor", "product", "revision", "size", "size_bytes", "features",
               "hwhandler", "wp", "layout", "action", "paths", "line", "props_line", "cut"]
PATH_COLUMNS = ["map", "group", "selector", "group_prio", "group_status", "group_line", "hctl", "device", "dev_t",
                "dm_state", "checker_state", "online_state", "line"]

ACTIONS = ("create", "reload", "switchpg", "rename", "resize", "reject", "unchanged")
_LOG = re.compile(r"^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d+\.\d+) \| ")
_CHECKER_MSG = re.compile(r"^\S+: checker msg is ")
#: The tree drawn in front of groups and paths: `|-+- `, `` `- ``, `\\_ ` and spaces.
_TREE = re.compile(r"^[\s|`+\\_-]*")
_DM = re.compile(r" (dm-\d+|undef|\[[A-Za-z0-9_-]+\]:\S+)(?= |$)")
_PROPS = re.compile(r"^size=(?P<size>\S+) features='(?P<features>[^']*)' hwhandler='(?P<hwhandler>[^']*)'"
                    r"(?: wp=(?P<wp>\S+))?\s*$")
_OLD_PROPS = re.compile(r"^\[size=(?P<size>[^\]]*)\]\[features=(?P<features>[^\]]*)\]"
                        r"\[hwhandler=(?P<hwhandler>[^\]]*)\](?:\[(?P<wp>[^\]]*)\])?\s*$")
_GROUP = re.compile(r"^policy='(?P<selector>[^']*)' prio=(?P<prio>\S+) status=(?P<status>\S+)\s*$")
_OLD_GROUP = re.compile(r"^(?P<selector>[a-z][\w-]*(?: \d+)?) (?:\[prio=(?P<prio>[^\]]*)\])?"
                        r"\[(?P<status>[a-z]+)\]\s*$")
_PATH = re.compile(r"^(?P<hctl>\d+:\d+:\d+(?::\d+)?|#:#:#:#)\s+(?P<device>\S+)\s+(?P<dev_t>\d+:\d+|#:#)"
                   r"(?:\s+(?P<rest>.*?))?\s*$")
#: Commands whose output this is, as pasted before it.
_COMMANDS = (re.compile(r"^multipath\b"), re.compile(r"^multipathd\b.*\btopo"), re.compile(r"^show\s+(?:maps\s+)?topo"))
_SIZE_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60}
_INT64 = 1 << 63


def _printed_last(branches: str) -> bool | None:
    """Whether print.c's `snprint_multipath_topology` (0.4.9 on) drew these branches in front of
    the last line of its kind: `` `-+- `` before the map's last group, `|-+- ` before the others;
    `` `- `` before a group's last path, `|- ` before the others, under a `|` that goes on down to
    a later group (`| |- `, `` | `- ``) or a blank under the last one (stripped by `_clean`). A path
    is printed last (the map's last line) only as `` `- `` alone. None for 0.4.8's `\\_ `, which
    draws every group and path alike."""
    words = branches.split()
    if not words or words[-1] not in ("|-+-", "`-+-", "|-", "`-"):
        return None
    return words == ["`-+-"] or words == ["`-"]


def _size_bytes(size: str) -> float | None:
    """`54T`, `2.0G`, `576 GB` (RHEL 4/5) as bytes; a bare number (the nvme foreign library prints
    the namespace's sysfs `size`) counts 512-byte sectors."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?) ?([KMGTPE]?)B?", size.strip())
    if not m:
        return None
    value = float(m.group(1))
    return value * _SIZE_UNITS[m.group(2)] if m.group(2) else value * 512


def _prio(text: str | None, name: str, where: str) -> int | None:
    if text is None or text in ("", "undef"):
        return None
    if not re.fullmatch(r"-?\d+", text) or abs(int(text)) >= _INT64:
        raise ScenarioError(name, where, f"prio={text!r}: expected a whole number")
    return int(text)


def _header(line: str) -> dict[str, Any] | None:
    """The map a header line names, or None if the line is not a header."""
    if not line or line[0].isspace():
        return None
    action = None
    m = re.match(r"^([a-z]+): (.*)$", line)
    if m and m.group(1) in ACTIONS:
        action, line = m.group(1), m.group(2)
    props = None
    inline = line.find(" [size=")
    if inline >= 0:
        line, props = line[:inline], line[inline + 1:]
    dm = _DM.search(line)
    if dm:
        left, vp = line[:dm.start()], line[dm.end():].strip()
        if vp and "," not in vp:
            return None
    else:
        left, vp = line.rstrip(), ""
        if not (left.endswith(")") and " (" in left):
            return None
    name, wwid = left, left
    if left.endswith(")") and " (" in left:
        cut = left.rfind(" (")
        name, wwid = left[:cut], left[cut + 2:-1]
        if not re.fullmatch(r"\S+", name):  # an alias has no spaces (a bare wwid may: `1IET     00080001`)
            return None
    if not name or "'" in name or "=" in name or len(name.split()) > 2:
        return None  # a bare wwid has at most one run of blanks (`1IET     00080001`); a remark has more
    vendor = product = revision = None
    if vp:
        vendor, _, product = vp.partition(",")
        if dm and dm.group(1).startswith("[") and product.count(",") == 1:
            product, _, revision = product.partition(",")
        vendor, product = vendor.strip(), product.strip()
    return {"name": name, "wwid": wwid, "dm": dm.group(1) if dm else None, "vendor": vendor,
            "product": product, "revision": revision, "action": action, "_props": props}


#: What a map's name or WWID cannot hold: udev keeps letters, digits and `#+-.:=@_` in an ID
#: (blanks become `_`, or stay in an old bare WWID), and an alias has no blanks; a quote, a
#: backslash, `<`, `>` or a control character is something else left in the paste.
_NOT_IN_NAME = re.compile(r'["\\<>\x00-\x1f\x7f]')


def _refuse_markup(header: dict[str, Any], name: str, where: str) -> None:
    for field in ("name", "wwid"):
        if bad := _NOT_IN_NAME.search(header[field]):
            what = "alias" if field == "name" and header["name"] != header["wwid"] else "WWID"
            raise ScenarioError(name, where, f"the map's {what} {header[field][:60]!r} holds {bad.group(0)!r}: a WWID is "
                                             "letters, digits and # + - . : = @ _ as udev gives it (3600…, naa.…, "
                                             "eui.…), an alias has no blanks; markup or another tool's text left in?")


def _clean(line: str) -> str:
    """The line without a `multipathd> ` prompt or the indentation a page added (a markdown list
    indents a whole listing); the tree characters, not the indentation, tell groups and paths."""
    line = line.lstrip(" \t")
    return line[len("multipathd> "):] if line.startswith("multipathd> ") else line


def _continued(line: str, next_line: str) -> bool:
    """Whether a wrap left the rest of a map's `size=… features='…' hwhandler='…' wp=…` line on
    the next line (`rejoin`): the line holds `size=` but not yet the whole form, and either a
    quoted value is still open or the next line starts with the form's next field; the joined
    line must then be the form."""
    line, rest = _clean(line), next_line.strip()
    if not line.startswith("size=") or _PROPS.match(line):
        return False
    return line.count("'") % 2 == 1 or rest.startswith(("features=", "hwhandler=", "wp="))


def _is_topology(line: str) -> bool:
    """A line of the listing itself: a map header, its properties, a path group or a path."""
    line = _clean(line)
    if _header(line) is not None or _PROPS.match(line) or _OLD_PROPS.match(line) or line.strip() == "===== paths list =====":
        return True
    tree = _TREE.match(line)
    body = line[tree.end():] if tree else line
    return bool(_GROUP.match(body) or _PATH.match(body) or (line.lstrip().startswith("\\_") and _OLD_GROUP.match(body)))


def _props(m: re.Match[str]) -> dict[str, Any]:
    unquote = lambda s: s.strip().strip('"').strip() if s is not None else None  # noqa: E731
    size = unquote(m.group("size")) or ""
    return {"size": size, "size_bytes": _size_bytes(size), "features": unquote(m.group("features")),
            "hwhandler": unquote(m.group("hwhandler")), "wp": unquote(m.group("wp")),
            # Which layout printed it: `[size=…]…` is multipath-tools' before 0.4.9 (9b2de924).
            "layout": "brackets" if m.re is _OLD_PROPS else "tree"}


def _path_states(rest: str | None) -> tuple[str | None, str | None, str | None] | None:
    """(dm state, checker state, online state) of what follows major:minor, or None."""
    if not rest:
        return None
    if rest.startswith("["):
        states = re.findall(r"\[([^\]]*)\]", rest)
        if not states or re.sub(r"\[[^\]]*\]", "", rest).strip():
            return None
        return states[0].strip(), states[1].strip() if len(states) > 1 else None, None
    words = rest.split()
    if len(words) < 3 or (words[1] == "i/o" and len(words) < 4):
        return None  # print.c prints the online state after `i/o pending` and `i/o timeout` too: a line cut short
    return words[0], " ".join(words[1:-1]), words[-1]


#: The start of a group or path line under the tree's branches (`| |- 2:0:0:1 sdf 8:`, `|-+- policy='se`,
#: `\\_ 2:0:`): what a paste cut inside a map leaves as its last line.
_FRAGMENT = re.compile(r"^\s*(?:[|`]\s*)*[|`]-[+-]*\s*(?:\d|#|policy=)|^\s*\\_ \S")
#: The tree's branches alone, or before a beginning of a group's `policy='` (`|`, `` `-+ ``,
#: `` `-+- pol ``, `\\_`): print.c writes them first on every group and path line (`|-+- `,
#: `| |- `, `` `- ``; 0.4.8 `\\_ `), so a listing's last line that holds no more is one cut there.
_BRANCHES = re.compile(r"^\s*(?:(?:[|`]\s*)*[|`](?:-[+-]*)?|\\_?)\s*(?P<rest>\S*)$")


def _fragment(line: str, in_props: bool) -> bool:
    """Whether a line the reader could not read is a fragment of the listing: the start of a
    map's properties after its header, or of a group or path line."""
    if in_props:
        return line.lstrip().startswith(("size=", "[size="))
    tree = _TREE.match(line)
    body = line[tree.end():] if tree else line
    path = _PATH.match(body)
    whole = _GROUP.match(body) or (path and _path_states(path.group("rest")) is not None)
    branches = _BRANCHES.match(line)
    cut_on_branches = branches is not None and "policy=".startswith(branches.group("rest"))
    return (bool(_FRAGMENT.match(line)) or cut_on_branches) and not whole  # a whole line misplaced is no cut


#: The online states a path line ends in: print.c's `snprint_offline` (`running`, `offline`,
#: `unknown`) and the SCSI device states some releases print there (drivers/scsi/scsi_sysfs.c
#: `sdev_states`).
ONLINE_STATES = ("running", "offline", "unknown", "blocked", "transport-offline", "created", "created-blocked",
                 "quiesce", "cancel", "deleted")


def _props_cut(last: dict[str, Any], others: list[dict[str, Any]], end: int) -> bool:
    """Whether the listing ends on the last map's properties line cut short: the line is the last
    read, no group follows, and its write permission (`wp=rw` of 0.4.9 on, 0.4.8's `[rw]`; print.c
    prints it on every map of a release that has it) is missing or a start of one another map of
    the listing prints (` wp=r`)."""
    if last.get("_groups") or last.get("props_line") != end:
        return False
    wp = last.get("wp")
    return any(o.get("wp") and o["layout"] == last["layout"] and (wp is None or (o["wp"] != wp and o["wp"].startswith(wp)))
               for o in others)


def _mark_cut(last: dict[str, Any], paths: list[dict[str, Any]], end: int, others: list[dict[str, Any]]) -> None:
    """The last map as cut at line `end` when the listing ends inside it, after a group with no
    path (multipath-tools prints none), after a group or path the tree's branches show another
    after (`_printed_last`: `|-+- `, `|- `, `` | `- ``), or inside its last path's states: its
    online state cut short (`ru` of `running`), or its bracketed checker state gone where the other
    paths show one (`[active]` after `[active][ready]` lines; 0.4.7 prints the dm state alone on
    every line). The path is read, its states as left. A header and its properties with no group
    is how it prints a map whose paths are gone (multipath-tools' test listing of maps without
    paths), not a cut, unless that properties line is cut short (`_props_cut`)."""
    if _props_cut(last, others, end):
        last["cut"] = end
    groups = last.get("_groups", 0)
    if groups and not any(p["map"] == last["name"] and p["group"] == groups for p in paths):
        last["cut"] = end
    if last.get("_group_last") is False or (paths and paths[-1]["map"] == last["name"]
                                            and paths[-1]["_printed_last"] is False):
        last["cut"] = end
    if not paths or paths[-1]["line"] != end:
        return
    state = paths[-1]["online_state"]
    if state and state not in ONLINE_STATES and any(known.startswith(state) for known in ONLINE_STATES):
        last["cut"] = end
    if paths[-1]["checker_state"] is None and any(p["checker_state"] is not None for p in paths[:-1]):
        last["cut"] = end


def read(path: str | Path) -> dict[str, pd.DataFrame]:
    """`maps` (one row per map: name, wwid, dm device, vendor, product, size as printed and in bytes,
    features, hardware handler, write permission, pending action, number of paths, the lines of its
    header and of its properties) and `paths` (one row per path: map, group number from 1, selector,
    group priority, status and line, H:C:T:L, device, major:minor, dm, checker and online states, line)."""
    import pandas as pd

    name = str(path)
    every = file_lines(path)  # read a line at a time, in each pass: what is kept is the maps and paths
    lines = between_lines(name, rejoined(output_lines(name, every, _COMMANDS, "multipath -ll"), _continued), _is_topology,
                          lambda line: _is_topology(line) or _fragment(_clean(line), False)
                          or _fragment(_clean(line), True), "multipath -ll")
    maps: list[dict[str, Any]] = []
    paths: list[dict[str, Any]] = []
    group: dict[str, Any] | None = None
    need_props: int | None = None
    in_paths_list = False
    unread: ScenarioError | None = None  # a fragment inside a map: refused unless it is the last line
    end = 0  # the last line read
    for number, line in ((line.number, _clean(line.text)) for line in lines()):
        where = f"line {number}"
        if not line.strip() or _LOG.match(line) or _CHECKER_MSG.match(line):
            continue
        if unread is not None:
            raise unread
        end = number
        try:
            if line.strip() == "===== paths list =====":
                in_paths_list = True
                continue
            if need_props is not None:
                m = _PROPS.match(line) or _OLD_PROPS.match(line)
                if not m:
                    raise ScenarioError(name, where, "expected the map's `size=… features='…' hwhandler='…'` line "
                                                     f"after the map header at line {need_props}, found {line.strip()[:50]!r}")
                maps[-1].update(_props(m), props_line=number)
                need_props = None
                continue
            header = _header(line)
            if in_paths_list and header is None:
                continue
            in_paths_list = False
            if header is not None:
                _refuse_markup(header, name, where)
                inline = header.pop("_props")
                header.update(size=None, size_bytes=None, features=None, hwhandler=None, wp=None, layout=None, paths=0,
                              line=number, props_line=None)
                maps.append(header)
                group = None
                if inline is not None:
                    m = _OLD_PROPS.match(inline)
                    if not m:
                        raise ScenarioError(name, where, f"expected [size=…][features=…][hwhandler=…], found {inline[:50]!r}")
                    header.update(_props(m), props_line=number)
                else:
                    need_props = number
                continue
            tree = _TREE.match(line)
            body = line[tree.end():] if tree else line
            m_group = _GROUP.match(body) or (_OLD_GROUP.match(body) if line.lstrip().startswith("\\_") else None)
            m_path = _PATH.match(body)
            if m_group and not m_path:
                if not maps:
                    raise ScenarioError(name, where, "a path group before any map header (`mpatha (3600…) dm-0 VENDOR,PRODUCT`)")
                maps[-1]["_groups"] = maps[-1].get("_groups", 0) + 1
                maps[-1]["_group_last"] = _printed_last(line[:tree.end()] if tree else "")
                group = {"map": maps[-1]["name"], "group": maps[-1]["_groups"], "selector": m_group.group("selector"),
                         "group_prio": _prio(m_group.group("prio"), name, where), "group_status": m_group.group("status"),
                         "group_line": number}
                continue
            if m_path:
                if group is None:
                    raise ScenarioError(name, where, "a path line before any path group (`|-+- policy='…' prio=… status=…`)")
                states = _path_states(m_path.group("rest"))
                if states is None:
                    raise ScenarioError(name, where, "expected `dm_state checker_state online_state` (or `[active][ready]`) "
                                                     f"after {m_path.group('dev_t')}, found {(m_path.group('rest') or '')[:40]!r}")
                paths.append({**group, "hctl": m_path.group("hctl"), "device": m_path.group("device"),
                              "dev_t": m_path.group("dev_t"), "dm_state": states[0], "checker_state": states[1],
                              "online_state": states[2], "line": number,
                              "_printed_last": _printed_last(line[:tree.end()] if tree else "")})
                maps[-1]["paths"] += 1
                continue
            raise ScenarioError(name, where, "expected a map header (`mpatha (3600…) dm-0 VENDOR,PRODUCT`), a path group "
                                             f"(`|-+- policy='…' prio=… status=…`) or a path (`|- 3:0:0:1 sdb 8:16 active "
                                             f"ready running`), found {line.strip()[:50]!r}")
        except ScenarioError as refused:
            if not maps or not _fragment(line, need_props is not None):
                raise
            unread, maps[-1]["cut"] = refused, number
    # A listing cut inside its last map is read up to the cut when it gave a path to read;
    # otherwise nothing of it is left to read, and that is what is said (not the parser's view of
    # the cut line: `expected … after 8:16, found 'act'`).
    if unread is not None and not paths:
        cut, where = maps[-1]["cut"], f"line {maps[-1]['cut']}"
        raise ScenarioError(name, where, f"the listing ends inside map {maps[-1]['name']} (line {cut}) before any whole "
                                         "path: nothing of it to read; give the whole `multipath -ll` (a paste cut short?)")
    if need_props is not None and unread is None and not paths:
        raise ScenarioError(name, f"line {need_props}", "the file ends after this map header: expected "
                                                        "`size=… features='…' hwhandler='…'` next (truncated?)")
    if need_props is not None:
        maps[-1]["cut"] = maps[-1].get("cut", need_props)
    elif unread is None and maps:
        _mark_cut(maps[-1], paths, end, maps[:-1])
    if not maps:
        where = "line 1"
        empty = not any(line.text.strip() for line in every())
        raise ScenarioError(name, where, "empty file: expected `multipath -ll` output" if empty else
                            "no multipath map: not `multipath -ll` output")
    first_line: dict[str, int] = {}
    for entry in maps:
        entry.pop("_groups", None)
        entry.pop("_group_last", None)
        if entry["name"] in first_line:
            raise ScenarioError(name, f"line {entry['line']}", f"map {entry['name']} a second time (first at line "
                                                              f"{first_line[entry['name']]}): two listings in one file? "
                                                              "give one listing of one host")
        first_line[entry["name"]] = entry["line"]
    map_table = pd.DataFrame(maps, columns=MAP_COLUMNS).astype(
        {c: "string" for c in MAP_COLUMNS if c not in ("size_bytes", "paths", "line", "props_line", "cut")}
        | {"size_bytes": "float64", "paths": "Int64", "line": "Int64", "props_line": "Int64", "cut": "Int64"})
    path_table = pd.DataFrame(paths, columns=PATH_COLUMNS).astype(
        {c: "string" for c in PATH_COLUMNS if c not in ("group", "group_prio", "group_line", "line")}
        | {"group": "Int64", "group_prio": "Int64", "group_line": "Int64", "line": "Int64"})
    return {"maps": map_table, "paths": path_table}
