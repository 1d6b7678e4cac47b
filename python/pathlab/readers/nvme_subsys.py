"""`nvme list-subsys` and `nvme show-topology` (nvme-cli), as text or JSON (`-o json`): the paths of
native NVMe multipath subsystems, with controller and ANA states (research/formats.md §3.5,
nvme-cli `nvme-print-stdout.c` and `nvme-print-json.c`).

Text: a subsystem line `nvme-subsys0 - NQN=…`, indented `hostnqn=…`/`iopolicy=…` lines, a `\\`
line, then ` +- nvme0 tcp traddr=…,trsvcid=4420 live optimized` per controller (nvme-cli 1.x prints
the address fields separated by spaces and no ANA state; the state is missing in the oldest).
`show-topology` nests paths under ` +- ns 1` (`+- ns id 1` in its first version), under
` +- nvme0n1 (ns 1)` with path rows `+- nvme0c0n1 optimized 0 nvme0 tcp … live` (ranking by
multipath), or lists ` +- ns 1 live optimized` under each controller (ranking by controller).

With `-v`, nvme-cli 2.13 and later print the subsystem's `model=` (its controllers' model number,
commit 3ccb47d5f 'nvme-print: display model in list-subsys output'), with `serial=`, `firmware=`
and `type=`: the model is read with its line; `undefined` is none.

JSON: `nvme list -v -o json` (`{"Devices": [{"HostNQN", "Subsystems": …}]}`, `nvme_list_json`);
nvme-cli 1.x `{"Subsystems": [{"Name", "NQN"}, {"Paths": […]}, …]}` (each subsystem's paths
in the element after it); 2.x `[{"HostNQN", "Subsystems": [{"Name", "NQN", "IOPolicy"?, "Model"?, "Paths": […]}]}]`,
and for `show-topology` `"Namespaces": [{"NSID", "Paths": […]}]` whose paths are either flat
(`Name`, `Transport`, `Address`, `State`, `ANAState`) or `{"Path", "ANAState", "Controller": [{…}]}`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError, warn
from pathlab.readers._json_values import as_dict, as_list, as_str
from pathlab.readers.nvme_list_verbose import namespace_id
from pathlab.readers.pasted import Line, between, output_of, read_text
from pathlab.readers.rejoin import rejoined

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["subsystem", "nqn", "hostnqn", "iopolicy", "nsid", "path", "controller", "transport", "address",
           "state", "ana_state", "line", "iopolicy_line", "model", "model_line", "shown"]
#: `shown`: what a listing printed beyond the other columns (`nvme list -v`'s serials, models,
#: usage…: `{"device": …, "path": …}`), for `show` to print back; None for the other listings.
#: What nvme-cli prints for a model libnvme could not read (`libnvme_subsystem_get_model`'s default,
#: and a null string): no model.
NO_MODEL = ("undefined", "(null)")
#: A `model=` attribute's value: the rest of the line (a model has blanks: `NetApp ONTAP
#: Controller`), up to another attribute a page put on the same line.
_MODEL = re.compile(r"(?:^|\s)model=(?P<value>.*?)\s*(?=\s(?:hostnqn|hostid|iopolicy|serial|firmware|type)=|\\?\s*$)")
#: Controller states (kernel `nvme_sysfs_show_state`) and ANA states (`nvme_ana_state_names`).
STATES = ("new", "live", "resetting", "connecting", "deleting", "dead", "unknown")
ANA_STATES = ("optimized", "non-optimized", "inaccessible", "persistent-loss", "change")
_SUBSYS = re.compile(r"^\s*(?P<name>nvme-subsys\d+) - NQN=(?P<nqn>.*?)\s*\\?\s*$")
_ATTR = re.compile(r"^\s*(?P<key>hostnqn|hostid|iopolicy|model|serial|firmware|type)=(?P<value>.*?)\s*$")
_NS = re.compile(r"^\s*\+- ns(?: id)? (?P<nsid>\d+)\s*$")
_NS_HEAD = re.compile(r"^\s*\+- (?P<head>nvme\d+n\d+) \(ns (?P<nsid>\d+)\)\s*$")
_NS_UNDER_CTRL = re.compile(r"^\s*\+- ns (?P<nsid>\d+) (?P<rest>.*)$")
_ROW = re.compile(r"^\s*\+-\s+(?P<body>\S.*)$")
_CTRL = re.compile(r"^nvme\d+(?:c\d+n\d+)?$")
_PATH_NAME = re.compile(r"^nvme\d+c\d+n\d+$")
_TRANSPORT = re.compile(r"^[a-z][a-z0-9_-]*$")
#: Commands whose output this is, as pasted before it.
_COMMANDS = (re.compile(r"^nvme\s+(?:list-subsys|show-topology)\b"),)


def _is_listing(line: str) -> bool:
    """A line of the text listing itself: a subsystem, its attributes, the `\\`, a namespace or a row."""
    return bool(_SUBSYS.match(line) or _ATTR.match(line) or _ROW.match(line) or line.strip() == "\\")


def _tail_states(words: list[str]) -> tuple[list[str], str | None, str | None]:
    """Splits `… live optimized` into (the words before, state, ANA state)."""
    ana = state = None
    if words and words[-1] in ANA_STATES:
        ana = words.pop()
    if len(words) >= 3 and words[-3:] == ["deleting", "(no", "IO)"]:
        del words[-3:]
        state = "deleting (no IO)"
    elif len(words) >= 2 and words[-2:] == ["unknown", "state"]:
        del words[-2:]
        state = "unknown state"
    elif words and (words[-1] in STATES or words[-1] == NO_NAME):  # (null): nvme-cli read no state
        state = words.pop()
    return words, state, ana


def _read_text(name: str, lines: list[Line]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    subsys: dict[str, Any] | None = None
    nsid: int | None = None
    ctrl_row: dict[str, Any] | None = None  # the controller a `+- ns N state ana` line belongs to
    count_at: dict[int, int] = {}
    unnamed_at = 0  # the line of a controller printed without a name

    def close(s: dict[str, Any] | None) -> None:
        if s is not None and count_at[s["line"]] == len(rows):
            raise ScenarioError(name, f"line {s['line']}", f"subsystem {s['subsystem']} lists no controller "
                                                           "(` +- nvme0 tcp traddr=… live`): truncated?")

    body = between(name, lines, lambda line: bool(_SUBSYS.match(line)), _is_listing, "nvme list-subsys")
    for index, (number, line) in enumerate((line.number, line.text) for line in body):
        where = f"line {number}"
        if not line.strip() or line.strip() == "\\":
            continue
        m = _SUBSYS.match(line)
        if m:
            close(subsys)
            if not m.group("nqn"):
                raise ScenarioError(name, where, "expected `nvme-subsysN - NQN=<subsystem NQN>`, the NQN is empty")
            # A page may put `hostnqn=…` (and `iopolicy=…`) on the subsystem line, after the NQN.
            nqn, *attributes = re.split(r"\s+(?=(?:hostnqn|iopolicy)=)", m.group("nqn").strip())
            subsys = {"subsystem": m.group("name"), "nqn": nqn, "hostnqn": None, "iopolicy": None, "line": number,
                      "iopolicy_line": None, "model": None, "model_line": None}
            subsys.update(a.partition("=")[::2] for a in attributes)
            if subsys["iopolicy"] is not None:
                subsys["iopolicy_line"] = number
            count_at[number] = len(rows)
            nsid, ctrl_row = None, None
            continue
        if subsys is None:
            raise ScenarioError(name, where, "expected a subsystem line `nvme-subsys0 - NQN=…` first, found "
                                             f"{line.strip()[:50]!r}")
        m = _ATTR.match(line)
        if m:
            # One attribute a line, or several on one (`hostnqn=… iopolicy=round-robin\\`, a page's layout).
            for key, value in re.findall(r"(\w+)=(\S+)", line.rstrip().rstrip("\\")):
                if key in ("hostnqn", "iopolicy"):
                    subsys[key] = value
                if key == "iopolicy":
                    subsys["iopolicy_line"] = number
            model = _MODEL.search(line.rstrip())
            if model is not None and model.group("value") and model.group("value") not in NO_MODEL:
                subsys["model"], subsys["model_line"] = model.group("value"), number
            continue
        m = _NS.match(line) or _NS_HEAD.match(line)
        if m:
            nsid, ctrl_row = namespace_id(name, where, m.group("nsid")), None
            continue
        m = _NS_UNDER_CTRL.match(line)
        if m and ctrl_row is not None:
            words, state, ana = _tail_states(m.group("rest").split())
            if words:
                raise ScenarioError(name, where, f"expected `+- ns N <state> [<ANA state>]`, found {line.strip()[:50]!r}")
            rows.append({**ctrl_row, "nsid": namespace_id(name, where, m.group("nsid")), "state": state, "ana_state": ana, "line": number})
            continue
        m = _ROW.match(line)
        if not m:
            raise ScenarioError(name, where, "expected a controller line ` +- nvme0 tcp traddr=… live [optimized]`, "
                                             f"found {line.strip()[:50]!r}")
        words = m.group("body").split()
        base = {k: subsys[k] for k in ("subsystem", "nqn", "hostnqn", "iopolicy", "iopolicy_line", "model", "model_line")}
        if len(words) >= 2 and _PATH_NAME.match(words[0]) and words[1] in ANA_STATES:
            # show-topology ranked by multipath: path, ANA state, [numa nodes | queue depth], controller …
            at = next((i for i in range(2, len(words)) if re.fullmatch(r"nvme\d+", words[i])), None)
            if at is None or at > 3 or len(words) < at + 2:
                raise ScenarioError(name, where, "expected `+- nvmeXcYnZ <ANA state> [numa|qdepth] nvmeX <transport> "
                                                 f"<address> <state>`, found {line.strip()[:60]!r}")
            rest, state, _ = _tail_states(words[at + 2:])
            rows.append({**base, "nsid": nsid, "path": words[0], "controller": words[at], "transport": words[at + 1],
                         "address": " ".join(rest) or None, "state": state, "ana_state": words[1], "line": number})
            continue
        unnamed = bool(words) and words[0] == NO_NAME
        if unnamed:
            words = _unnamed_controller(name, where, words, unnamed_at)
            unnamed_at = unnamed_at or number
        if len(words) < 2 or not (unnamed or _CTRL.match(words[0])) or not _TRANSPORT.match(words[1]):
            raise ScenarioError(name, where, "expected ` +- nvme0 <transport> <address> <state> [<ANA state>]`, "
                                             f"found {line.strip()[:60]!r}")
        rest, state, ana = _tail_states(words[2:])
        if not rest and state is None:
            raise ScenarioError(name, where, f"expected the address and state of {words[0]} after {words[1]!r} "
                                             "(truncated?)")
        row = {**base, "nsid": nsid, "path": None, "controller": words[0], "transport": words[1],
               "address": " ".join(rest) or None, "state": state, "ana_state": ana, "line": number}
        if state is None and ana is None and _namespaces_follow(body, index):
            ctrl_row = row  # show-topology ranked by controller: namespaces follow
            continue
        rows.append(row)
    close(subsys)
    return rows


#: What nvme-cli 2 prints (`printf("%s")` of a null name, address or state) for a controller the
#: kernel has not made a device of yet: one still connecting.
NO_NAME = "(null)"


def _unnamed_controller(name: str, where: str, words: list[str], first_at: int) -> list[str]:
    """The words of a controller line printed without a name (` +- (null) tcp (null) (null)`): a
    path that is not live, said on stderr; its state as printed, `(null)` too (nothing is put in
    its place: the importer says what it takes it for); an address printed `(null)` is none. The
    paths are told apart by their controllers' names, so a second one without a name is refused."""
    if first_at:
        raise ScenarioError(name, where, f"a second controller without a name ({NO_NAME}; the first at line "
                                         f"{first_at}): paths are told apart by name; give the listing once they "
                                         "are connected")
    rest = words[2:]
    state = rest[-1:] if rest and rest[-1] == NO_NAME else []
    rest = [w for w in rest[:len(rest) - len(state)] if w != NO_NAME]
    printed = _tail_states(list(rest))[1]
    if printed == "live":  # named late, but printed live: read as printed
        warn(name, where, f"a controller without a name ({NO_NAME}), printed live: read as a live path")
    else:
        warn(name, where, f"a controller without a name ({NO_NAME}): one the kernel is still connecting, read as "
                          "a path that is not live" + ("; its state printed (null) too" if state else ""))
    return [NO_NAME, *words[1:2], *rest, *state]


def _namespaces_follow(lines: list[Line], index: int) -> bool:
    """Whether the lines after `lines[index]` are ` \\` and `+- ns N …` (ranking by controller)."""
    after = [line.text.strip() for line in lines[index + 1:index + 4] if line.text.strip()]
    return len(after) >= 2 and after[0] == "\\" and bool(_NS_UNDER_CTRL.match(" " + after[1]))


def _read_json(name: str, text: str, offset: int) -> list[dict[str, Any]]:
    """The first JSON document of `text`, which starts at line `offset` + 1 of the file; what
    follows it (a prompt, a remark) is said on stderr."""
    try:
        doc, end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError as e:
        raise ScenarioError(name, f"line {e.lineno + offset}", f"not JSON: {e.msg}") from None
    except (ValueError, RecursionError) as e:
        raise ScenarioError(name, "line 1", f"not JSON that can be read: {str(e)[:60]}") from None
    if text[end:].strip():
        after = offset + text.count("\n", 0, end) + 1
        warn(name, f"line {after}", f"skipped what follows the JSON document, from {text[end:].strip()[:50]!r}")
    from pathlab.readers import nvme_list_json

    if nvme_list_json.is_detail_list(doc):  # `nvme list -v -o json`
        return nvme_list_json.rows(name, doc, text, offset)
    hosts = doc if isinstance(doc, list) else [doc]
    rows: list[dict[str, Any]] = []
    for h, host in enumerate(hosts):
        hwhere = f"[{h}]" if isinstance(doc, list) else "(top)"
        host = as_dict(host, name, hwhere)
        hostnqn = as_str(host.get("HostNQN"), name, f"{hwhere}.HostNQN")
        subsys: dict[str, Any] | None = None
        for i, item in enumerate(as_list(host.get("Subsystems"), name, f"{hwhere}.Subsystems")):
            where = f"{hwhere}.Subsystems[{i}]"
            item = as_dict(item, name, where)
            if "NQN" in item or "Name" in item:
                subsys = {"subsystem": as_str(item.get("Name"), name, f"{where}.Name"),
                          "nqn": as_str(item.get("NQN"), name, f"{where}.NQN"), "hostnqn": hostnqn,
                          "iopolicy": as_str(item.get("IOPolicy"), name, f"{where}.IOPolicy")}
                model = as_str(item.get("Model"), name, f"{where}.Model")
                if model is not None and model.strip() and model.strip() not in NO_MODEL:
                    subsys["model"] = model.strip()
            if subsys is None:
                raise ScenarioError(name, where, "paths before any subsystem (an object with Name and NQN)")
            rows.extend(_json_paths(name, item, subsys, where))
    return rows


def _json_controller(name: str, obj: dict[str, Any], where: str) -> dict[str, Any]:
    """Controller fields of an object: `Name` (or a `Controller` name), transport, address, state."""
    ctrl = obj.get("Name", obj.get("Controller") if isinstance(obj.get("Controller"), str) else None)
    return {"controller": as_str(ctrl, name, f"{where}.Name"),
            "transport": as_str(obj.get("Transport"), name, f"{where}.Transport"),
            "address": as_str(obj.get("Address"), name, f"{where}.Address"),
            "state": as_str(obj.get("State"), name, f"{where}.State")}


def _json_path(name: str, p: dict[str, Any], where: str) -> dict[str, Any]:
    """A path object: flat (`Name`, `Transport`, …, `ANAState`) or with its controller nested
    (`Path`, `ANAState`, `Controller`: [{`Name`, `Transport`, `Address`, `State`}], nvme-cli ≥ 2.12)."""
    row = {"path": as_str(p.get("Path"), name, f"{where}.Path"),
           "ana_state": as_str(p.get("ANAState"), name, f"{where}.ANAState"), **_json_controller(name, p, where)}
    nested = p.get("Controller")
    if isinstance(nested, list):
        for c, entry in enumerate(nested):
            cwhere = f"{where}.Controller[{c}]"
            row.update({k: v for k, v in _json_controller(name, as_dict(entry, name, cwhere), cwhere).items()
                        if v is not None})
    elif nested is not None and not isinstance(nested, str):
        raise ScenarioError(name, f"{where}.Controller", f"expected a list or a name, found {type(nested).__name__}")
    return row


def _json_paths(name: str, item: dict[str, Any], subsys: dict[str, Any], where: str) -> list[dict[str, Any]]:
    rows = []
    for j, p in enumerate(as_list(item.get("Paths"), name, f"{where}.Paths")):
        rows.append({**subsys, "nsid": None, **_json_path(name, as_dict(p, name, f"{where}.Paths[{j}]"),
                                                          f"{where}.Paths[{j}]")})
    for k, ns in enumerate(as_list(item.get("Namespaces"), name, f"{where}.Namespaces")):
        nwhere = f"{where}.Namespaces[{k}]"
        ns = as_dict(ns, name, nwhere)
        nsid = ns.get("NSID")
        if nsid is not None and (not isinstance(nsid, int) or isinstance(nsid, bool) or not 0 <= nsid < 1 << 32):
            raise ScenarioError(name, f"{nwhere}.NSID", f"expected a namespace number, found {nsid!r}")
        for j, p in enumerate(as_list(ns.get("Paths"), name, f"{nwhere}.Paths")):
            rows.append({**subsys, "nsid": nsid, **_json_path(name, as_dict(p, name, f"{nwhere}.Paths[{j}]"),
                                                              f"{nwhere}.Paths[{j}]")})
        for j, c in enumerate(as_list(ns.get("Controller"), name, f"{nwhere}.Controller")):
            cwhere = f"{nwhere}.Controller[{j}]"
            rows.append({**subsys, "nsid": nsid, "path": None, "ana_state": None,
                         **_json_controller(name, as_dict(c, name, cwhere), cwhere)})
    for k, c in enumerate(as_list(item.get("Controllers"), name, f"{where}.Controllers")):
        cwhere = f"{where}.Controllers[{k}]"
        c = as_dict(c, name, cwhere)
        ctrl = _json_controller(name, c, cwhere)
        paths = as_list(c.get("Paths"), name, f"{cwhere}.Paths")
        for j, p in enumerate(paths):
            p = as_dict(p, name, f"{cwhere}.Paths[{j}]")
            rows.append({**subsys, "nsid": None, **ctrl, "path": as_str(p.get("Path"), name, f"{cwhere}.Paths[{j}].Path"),
                         "ana_state": as_str(p.get("ANAState"), name, f"{cwhere}.Paths[{j}].ANAState")})
        if not paths:
            rows.append({**subsys, "nsid": None, **ctrl, "path": None, "ana_state": None})
    return rows


#: What a line of the text listing starts with (a subsystem, an attribute, the tree, a path).
_LINE_STARTS = ("nvme-subsys", "NQN=", "hostnqn=", "hostid=", "iopolicy=", "model=", "serial=", "firmware=", "type=",
                "\\", "+-", "[", "{", "]", "}")


def _continued(line: str, next_line: str) -> bool | str:
    """Whether a wrap left the rest of a line on the next one (`rejoin`): the NQN of a subsystem
    line cut at its ` - ` (`nvme-subsys4 -`, then `NQN=…`), an NQN or host NQN cut inside, or a
    controller's address and states (`+- nvme13 tcp traddr=…,` then `src_addr=… live`: the
    address's `,`-separated pairs have no blank between); never a line that starts as a line of
    the listing does."""
    line, rest = line.strip(), next_line.strip()
    if re.fullmatch(r"nvme-subsys\d+ -", line):
        return rest.startswith("NQN=")
    if rest.startswith(_LINE_STARTS) or _is_listing(next_line):
        return False
    if line.endswith(",") and _ROW.match(line):
        return ""
    return bool(_SUBSYS.match(line) or line.startswith("hostnqn=") or re.match(r"\+-\s+(?:nvme\d|\(null\))", line))


def read(path: str | Path) -> pd.DataFrame:
    """One row per path (per namespace for `show-topology`): subsystem name and NQN, host NQN and
    I/O policy when shown, namespace id, path device (`nvme0c0n1`, when shown), controller,
    transport, address, controller state (`live`, `connecting`, …) and ANA state (`optimized`,
    `non-optimized`, `inaccessible`, …; missing when not shown), the line, the line of the
    subsystem's `iopolicy=` (text only), and the model with its line where shown (`model=`, JSON
    `Model`, `nvme list -v`'s MN). `nvme list -v` gives the same rows (`nvme_list_verbose`)."""
    from pathlab.readers import nvme_list_verbose

    name = str(path)
    text = read_text(path)
    if nvme_list_verbose.is_verbose_list(text):
        return _table(nvme_list_verbose.read_lines(name, text))
    every = output_of(name, text, _COMMANDS, "nvme list-subsys")
    lines = list(rejoined(lambda: iter(every), _continued)())
    if not any(line.text.strip() for line in lines):
        raise ScenarioError(name, "line 1", "empty file: expected `nvme list-subsys` or `nvme show-topology` output")
    start = next(i for i, line in enumerate(lines) if line.text.strip())
    if lines[start].text.lstrip()[:1] in "[{":
        rows = _read_json(name, "\n".join(line.text for line in lines[start:]), lines[start].number - 1)
    else:
        rows = _read_text(name, lines)
    if not rows:
        raise ScenarioError(name, "line 1", "no subsystem with a controller: not `nvme list-subsys` output")
    return _table(rows)


def _table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    table = pd.DataFrame(rows, columns=COLUMNS)
    lines = ("nsid", "line", "iopolicy_line", "model_line")
    return table.astype({c: "string" for c in COLUMNS if c not in (*lines, "shown")} | dict.fromkeys(lines, "Int64"))
