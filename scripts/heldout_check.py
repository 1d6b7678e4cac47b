"""Measure pathlab on the held-out set (issue 32): `heldout/`, public outputs no code was written
against. For every sample in `heldout/SOURCES.toml` it runs `pathlab import` and, where the import
succeeds and the tool has a `show` style, `pathlab show` in the input's own style, then reports:

- read: imported, or refused (the refusal's one line);
- shown back exactly: the fields `show` prints (alias, WWID, features, hardware handler, each
  group's selector, prio and status, each path's H:C:T:L, device and states; NVMe NQN, each
  controller's transport, address and state; ESXi SATP, PSP, TPG states, working paths) equal
  the same fields of the input, in the input's order (PowerPath: each pseudo device's LUN ID,
  state and policy, each path's I/O path, interface, mode, state, queued I/Os and errors);
- found right: the topology `show` printed equals the one written by hand in SOURCES.toml before
  pathlab was run (maps, groups with status, prio and path count, each path's states; NVMe paths
  and states; ESXi SATP, PSP, iops, TPG states, working paths; PowerPath LUN ID, policy, paths).

It is a measurement, not a test: nothing here may be tuned to the set. Run:

    python scripts/heldout_check.py [--only PREFIX] [--verbose]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
SET = HERE / "heldout"

#: kind -> (what `show` prints, its style); a kind missing here has no `show` style.
STYLE = {
    "multipath-ll": ("paths", "linux"),
    "multipath-l": ("paths", "linux-l"),
    "nvme-list-subsys": ("paths", "nvme"),
    "esxcli-nmp-device-list": ("devices", "esxi"),
    "powermt": ("devices", "powerpath"),
}


# --- fields of a listing, found line by line (prefixes, indentation and markup left around) ----

_MAP = re.compile(r"(?:^|\s)(?:(?P<alias>[^\s(]+) \((?P<named>[^)]+)\)|(?P<bare>[0-9a-fA-F]{17,40}|eui\.\w+))"
                  r"\s+(?:dm-\d+|undef)\s+(?P<vp>.*)$")
_FEAT = re.compile(r"features='(?P<features>[^']*)' hwhandler='(?P<hwh>[^']*)'"
                   r"|\[features=\"?(?P<bfeatures>[^\]\"]*)\"?\]\[hwhandler=\"?(?P<bhwh>[^\]\"]*)\"?\]")
_GROUP = re.compile(r"policy='(?P<sel>[^']+)' prio=(?P<prio>-?\d+) status=(?P<status>\w+)"
                    r"|\\_ (?P<bsel>[\w-]+ \d+) \[prio=(?P<bprio>-?\d+)\]\[(?P<bstatus>\w+)\]")
_PATH = re.compile(r"(?P<hctl>\d+:\d+:\d+:\d+|#:#:#:#)\s+(?P<dev>\S+)\s+(?P<majmin>\d+:\d+|#:#)\s+"
                   r"(?:(?P<states>\w+\s+\w+\s+\w+)|\[(?P<b1>\w+)\s*\]\[(?P<b2>\w+)\s*\])")


def _feat(f: re.Match[str]) -> tuple[str, str]:
    """Features and hardware handler, of either layout, with the count's blanks as printed."""
    return (" ".join((f["features"] if f["features"] is not None else f["bfeatures"]).split()),
            " ".join((f["hwh"] if f["hwh"] is not None else f["bhwh"]).split()))


def multipath_fields(text: str) -> dict[str, Any]:
    """{wwid: {alias, features, hwhandler, groups: [(selector, prio, status, [(hctl, dev, states)])]}}."""
    maps: dict[str, Any] = {}
    current: dict[str, Any] | None = None
    for raw in text.splitlines():
        line = re.sub(r"<[^>]+>", "", raw)  # a page's markup around a field (<span>, <strong>)
        if (m := _MAP.search(line)) and "policy=" not in line:
            wwid = m["named"] or m["bare"]
            current = {"alias": m["alias"] or wwid, "features": None, "hwhandler": None, "groups": []}
            maps[wwid] = current
            if f := _FEAT.search(line):  # a flattened or joined header
                current["features"], current["hwhandler"] = _feat(f)
            continue
        if current is None:
            continue
        if f := _FEAT.search(line):
            current["features"], current["hwhandler"] = _feat(f)
        if g := _GROUP.search(line):
            current["groups"].append((g["sel"] or g["bsel"], int(g["prio"] or g["bprio"]), g["status"] or g["bstatus"], []))
        elif (p := _PATH.search(line)) and current["groups"]:
            states = " ".join(p["states"].split()) if p["states"] else f"{p['b1']} {p['b2']}"
            current["groups"][-1][3].append((p["hctl"], p["dev"], states))
    return maps


_NQN = re.compile(r"NQN=(?P<nqn>\S+)")
_CTRL = re.compile(r"\+-\s+(?P<name>nvme\d+|\(null\))\s+(?P<transport>\w+)\s+(?P<addr>.*?)(?:\s+(?P<state>live|connecting|"
                   r"resetting|deleting|new|dead|\(null\)))?(?:\s+(?P<ana>[\w-]+))?\s*$")


def _address(addr: str) -> str:
    """traddr and trsvcid, however the release separates them (`,` or a blank)."""
    return ",".join(w for w in re.split(r"[,\s]+", addr) if w.startswith(("traddr=", "trsvcid=")))


def nvme_fields(text: str) -> dict[str, Any]:
    subsystems: dict[str, Any] = {}
    current: list[Any] | None = None
    for line in text.splitlines():
        if n := _NQN.search(line):
            current = subsystems.setdefault(n["nqn"], [])
            continue
        if current is not None and (c := _CTRL.search(line)):
            current.append((c["transport"], _address(c["addr"]), c["state"] or "", c["ana"]))
    return subsystems


_DEVICE = re.compile(r"^(?P<naa>(?:naa|eui|t10)\.\S+)\s*$")
_TPG = re.compile(r"TPG_id=(\d+),TPG_state=(\w+)")


def esxi_fields(text: str) -> dict[str, Any]:
    devices: dict[str, Any] = {}
    current: dict[str, Any] | None = None
    for raw in text.splitlines():
        line = re.sub(r"</?strong>|\*\*", "", raw).strip()
        if m := _DEVICE.match(line):
            current = devices.setdefault(m["naa"], {})
            continue
        if current is None or ":" not in line:
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "Storage Array Type":
            current["satp"] = value
        elif key == "Storage Array Type Device Config":
            current["tpgs"] = [f"{i}={s}" for i, s in _TPG.findall(value)]
        elif key == "Path Selection Policy":
            current["psp"] = value
        elif key == "Path Selection Policy Device Config":
            iops = re.search(r"iops=(\d+)", value)
            current["iops"] = int(iops[1]) if iops else None
        elif key == "Working Paths":
            current["working"] = [w.strip() for w in value.split(",") if w.strip()]
    return devices


_PSEUDO = re.compile(r"Pseudo name=(?P<pseudo>[\w.-]+)")
_LOGICAL = re.compile(r"Logical device ID=(?P<lun>[0-9A-Fa-f]+)")
_STATE = re.compile(r"state=(?P<state>\w+); policy=(?P<policy>\w+);")
_PP_ROW = re.compile(r"^\s*\d+\s.*\s(?P<mode>active|standby|unlic|asb:prox|asb:iopf)\s+(?P<state>alive|dead)\s+"
                     r"(?P<queued>\d+)\s+(?P<errors>\d+)\s*$")


def powermt_fields(text: str) -> dict[str, Any]:
    """{pseudo: {lun, state, policy, paths: [(I/O path, interface, mode, state, Q-IOs, errors)]}}: the
    interface starts under the header's `Interf.` (a HW path may have blanks, the interface one or
    two words), the I/O path is the word before it."""
    devices: dict[str, Any] = {}
    current: dict[str, Any] | None = None
    column: int | None = None
    for line in text.splitlines():
        if m := _PSEUDO.search(line):
            current = devices.setdefault(m["pseudo"], {"lun": None, "state": None, "policy": None, "paths": []})
            continue
        if current is None:
            continue
        if m := _LOGICAL.search(line):
            current["lun"] = m["lun"]
        elif m := _STATE.search(line):
            current["state"], current["policy"] = m["state"], m["policy"]
        elif "Interf." in line:
            column = line.index("Interf.")
        elif (m := _PP_ROW.match(line)) and column is not None:
            before = line[:column].split()
            interface = " ".join(line[column:m.start("mode")].split())
            current["paths"].append((before[-1], interface, m["mode"], m["state"], int(m["queued"]), int(m["errors"])))
    return devices


FIELDS: dict[str, Callable[[str], dict[str, Any]]] = {
    "multipath-ll": multipath_fields, "multipath-l": multipath_fields,
    "nvme-list-subsys": nvme_fields, "esxcli-nmp-device-list": esxi_fields, "powermt": powermt_fields,
}


# --- the topology written by hand, against what show printed -----------------------------------

def _states(spec: str) -> list[str]:
    return [" ".join(s.split()) for s in spec.split("|")]


#: kind -> (SOURCES.toml's key for a device, what the devices are called, the fields compared) where
#: the expected topology is a list of devices each compared field by field.
KEYED = {
    "powermt": ("pseudo", "pseudo devices", ("lun", "policy")),
    "esxcli-nmp-device-list": ("naa", "devices", ("satp", "psp", "iops", "tpgs", "working")),
}


def topology_mismatches(kind: str, expected: dict[str, Any], shown: dict[str, Any]) -> list[str]:
    """What differs between the hand-written topology and the fields `show` printed."""
    out: list[str] = []
    if kind in ("multipath-ll", "multipath-l"):
        want = {m["wwid"]: m for m in expected["maps"]}
        if set(want) != set(shown):
            return [f"maps {sorted(shown)} instead of {sorted(want)}"]
        for wwid, m in want.items():
            got = shown[wwid]
            if m.get("name") and got["alias"] != m["name"]:
                out.append(f"{wwid}: alias {got['alias']} not {m['name']}")
            groups = [(g[2], g[1], len(g[3]), sorted({p[2] for p in g[3]})) for g in got["groups"]]
            wanted = [(s, p, n, sorted(set(_states(st)))) for s, p, n, st in m["groups"]]
            if groups != wanted:
                out.append(f"{wwid}: groups {groups} not {wanted}")
            if got["groups"] and any(g[0] != m["selector"] for g in got["groups"]):
                out.append(f"{wwid}: selector {got['groups'][0][0]} not {m['selector']}")
            for field in ("features", "hwhandler"):
                if m.get(field) is not None and got[field] is not None and " ".join(got[field].split()) != m[field]:
                    out.append(f"{wwid}: {field} '{got[field]}' not '{m[field]}'")
    elif kind == "nvme-list-subsys":
        want = {s["nqn"]: s for s in expected["subsystems"]}
        if set(want) != set(shown):
            return [f"subsystems {sorted(shown)} instead of {sorted(want)}"]
        for nqn, s in want.items():
            controllers = sorted((t, a, st) for t, a, st, _ in shown[nqn])
            listed = sorted((t, _address(a), st) for _, t, a, st in s["paths"])
            if controllers != listed:
                out.append(f"{nqn}: paths {controllers} not {listed}")
    elif kind in KEYED:
        key, what, fields = KEYED[kind]
        want = {d[key]: d for d in expected["devices"]}
        if set(want) != set(shown):
            return [f"{what} {sorted(shown)} instead of {sorted(want)}"]
        for name, d in want.items():
            got = shown[name]
            for field in fields:
                if field in d and got.get(field) != d[field]:
                    out.append(f"{name}: {field} {got.get(field)} not {d[field]}")
            if kind == "powermt" and (paths := [list(p[:4]) for p in got["paths"]]) != d["paths"]:
                out.append(f"{name}: paths {paths} not {d['paths']}")
    return out


def field_mismatches(read: dict[str, Any], shown: dict[str, Any]) -> list[str]:
    """Where the fields `show` printed differ from the same fields of the input."""
    out = []
    for key in sorted(set(read) | set(shown)):
        if key not in shown:
            out.append(f"{key}: not shown")
        elif key not in read:
            out.append(f"{key}: shown, not in the input")
        elif read[key] != shown[key]:
            out.append(f"{key}: input {read[key]!r} shown {shown[key]!r}")
    return out


# --- running pathlab ---------------------------------------------------------------------------

def _pathlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pathlab", *args], capture_output=True, text=True, timeout=300)


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("pathlab: warning")]
    return lines[-1] if lines else "(nothing on stderr)"


def check(sample: dict[str, Any], work: Path) -> dict[str, Any]:
    path = SET / sample["file"]
    kind = sample["expected"]["kind"]
    scenario = work / (path.stem + ".toml")
    done = _pathlab("import", str(path), "-o", str(scenario), "--force")
    row: dict[str, Any] = {"file": sample["file"], "kind": kind, "read": done.returncode == 0,
                           "why": "" if done.returncode == 0 else _last_line(done.stderr),
                           "exact": None, "right": None, "notes": []}
    if not row["read"]:
        return row
    if kind not in STYLE:
        row["notes"].append("no show style for this tool")
        return row
    what, style = STYLE[kind]
    shown = _pathlab("show", what, str(scenario), "--style", style)
    if shown.returncode != 0:
        row["exact"] = row["right"] = False
        row["notes"].append("show failed: " + _last_line(shown.stderr))
        return row
    fields = FIELDS[kind]
    diff = field_mismatches(fields(path.read_text(errors="replace")), fields(shown.stdout))
    row["exact"] = not diff
    wrong = topology_mismatches(kind, sample["expected"], fields(shown.stdout))
    row["right"] = not wrong
    row["notes"] += diff + wrong
    return row


def _mark(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "NO")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="only the samples whose file name starts so")
    parser.add_argument("--verbose", action="store_true", help="every difference, not the first")
    options = parser.parse_args()
    samples = tomllib.loads((SET / "SOURCES.toml").read_text())["sample"]
    samples = [s for s in samples if not options.only or s["file"].startswith(options.only)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for sample in samples:
            print(f"{sample['file']} …", file=sys.stderr)
            rows.append(check(sample, Path(tmp)))
    width = max(len(r["file"]) for r in rows)
    print(f"{'file':<{width}}  {'read':<4}  {'exact':<5}  {'right':<5}  why / first difference")
    for r in rows:
        note = r["why"] or "; ".join(r["notes"] if options.verbose else r["notes"][:1])
        print(f"{r['file']:<{width}}  {_mark(r['read']):<4}  {_mark(r['exact']):<5}  {_mark(r['right']):<5}  {note}")
    read = sum(r["read"] for r in rows)
    shown = [r for r in rows if r["exact"] is not None]
    print(f"\n{len(rows)} samples: {read} read, {len(rows) - read} refused; of {len(shown)} shown in their own "
          f"style, {sum(bool(r['exact']) for r in shown)} shown back exactly and {sum(bool(r['right']) for r in shown)} "
          f"found right; {sum(1 for r in rows if r['read'] and r['exact'] is None)} read with no show style")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
