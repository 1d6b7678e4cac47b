"""Workloads as the field writes them: a fio job file, a vdbench parameter file, or a named mix.
Each becomes `--set` overrides (the scenario's `workloads`, and the run's length where the file
gives it) applied to every device of the scenario. An option the model cannot honour is refused
by name; options that only say how the real tool reaches the disk are accepted without effect."""

from __future__ import annotations

import configparser
import html
import re
import tomllib
from pathlib import Path
from typing import Any

from pathlab.api import ScenarioError, _read
from pathlab.toml_values import to_toml

#: Named mixes: each a list of workloads sharing `outstanding` I/Os per device by `share`.
MIXES: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "oltp": ("8 KiB random, 70% read: the OLTP profile of VMware I/O Analyzer and of most array vendors' "
             "sizing guides", [{"share": 1.0, "block_size": "8KiB", "read_pct": 70, "access": "random"}]),
    "exchange": ("JetStress-like: database 32 KiB random at about 1.5 reads per write, log 4 KiB sequential writes "
                 "(Microsoft, Exchange Server storage configuration and JetStress field guide)",
                 [{"share": 0.9, "block_size": "32KiB", "read_pct": 60, "access": "random"},
                  {"share": 0.1, "block_size": "4KiB", "read_pct": 0, "access": "sequential"}]),
    "orion": ("Oracle Orion-like mixed run: small random 8 KiB reads with large sequential 1 MiB reads "
              "(Oracle ORION user guide: -size_small 8, -size_large 1024, -type seq)",
              [{"share": 0.5, "block_size": "8KiB", "read_pct": 100, "access": "random"},
               {"share": 0.5, "block_size": "1MiB", "read_pct": 100, "access": "sequential"}]),
}

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _bytes(text: str, file: str, field: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?", text.strip().lower())
    if not m:
        raise ScenarioError(file, field, f"{text!r} is not a size like 4k, 512 or 1m")
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def _seconds(text: str, file: str, field: str, unit: str = "s") -> str:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(us|ms|s|m|h)?", text.strip().lower())
    if not m:
        raise ScenarioError(file, field, f"{text!r} is not a time like 30, 30s, 5m")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}[m.group(2) or unit]
    return f'"{round(float(m.group(1)) * scale * 1000)}ms"'


def _micros(text: str, file: str, field: str) -> str:
    """fio's time with microseconds as the default unit, as a scenario duration."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(us|ms|s)?", text.strip().lower())
    if not m:
        raise ScenarioError(file, field, f"{text!r} is not a time like 100, 100us, 2ms")
    scale = {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2) or "us"]
    return f"{round(float(m.group(1)) * scale)}us"


def _devices(scenario: str) -> list[str]:
    try:
        data = tomllib.loads(_read(scenario))
    except tomllib.TOMLDecodeError:
        return []  # Scenario.load reports the file's own error
    return [d.get("name", "") for d in data.get("devices", [])]


def _sets(workloads: list[dict[str, Any]], run: dict[str, str]) -> list[str]:
    return [f"workloads=[{', '.join(to_toml(w) for w in workloads)}]", *(f"run.{k}={v}" for k, v in run.items())]


def mix_overrides(name: str, devices: list[str], outstanding: int = 32) -> list[str]:
    _, parts = MIXES[name]
    return _sets([{"devices": devices, "outstanding": max(1, round(outstanding * p["share"])),
                   **{k: v for k, v in p.items() if k != "share"}} for p in parts], {})


# fio ------------------------------------------------------------------------------------------

_FIO_NO_EFFECT = {"ioengine", "direct", "description", "filename", "group_reporting", "invalidate", "time_based",
                  "io_submit_mode", "stonewall", "new_group", "name"}
_FIO_RW = {"read": (100, "sequential"), "write": (0, "sequential"), "rw": (50, "sequential"), "readwrite": (50, "sequential"),
           "randread": (100, "random"), "randwrite": (0, "random"), "randrw": (50, "random")}


def fio_overrides(path: str, devices: list[str]) -> list[str]:
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",), comment_prefixes=("#", ";"),
                                       inline_comment_prefixes=None, allow_no_value=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_string(_read(path))
    except configparser.Error as e:
        raise ScenarioError(path, "", f"not a fio job file ({e.message.splitlines()[0]})") from None
    glob = dict(parser["global"]) if parser.has_section("global") else {}
    jobs = [s for s in parser.sections() if s != "global"]
    if not jobs:
        raise ScenarioError(path, "", "no job section")
    workloads, run = [], {}
    for job in jobs:
        opts = {**glob, **dict(parser[job])}
        field = lambda k, job=job: f"{job}.{k}"  # noqa: E731
        w: dict[str, Any] = {"devices": devices}
        rw = (opts.pop("rw", None) or opts.pop("readwrite", None) or "read").split(":")[0]
        if rw not in _FIO_RW:
            raise ScenarioError(path, field("rw"), f"{rw!r} is not supported; supported: {', '.join(_FIO_RW)}")
        w["read_pct"], w["access"] = _FIO_RW[rw]
        if "rwmixread" in opts:
            w["read_pct"] = int(opts.pop("rwmixread"))
        if "rwmixwrite" in opts:
            w["read_pct"] = 100 - int(opts.pop("rwmixwrite"))
        if "bs" in opts:
            sizes = {_bytes(b, path, field("bs")) for b in opts.pop("bs").split(",") if b}
            if len(sizes) != 1:
                raise ScenarioError(path, field("bs"), "different read and write sizes are not supported")
            w["block_size"] = f"{sizes.pop()}B"
        if "bssplit" in opts:
            pairs = [p.split("/") for p in opts.pop("bssplit").split(",")[0].split(":") if p]
            w.pop("block_size", None)
            w["bssplit"] = [[f"{_bytes(s, path, field('bssplit'))}B", int(pct or 0)] for s, pct in pairs if int(pct or 0) > 0]
        iodepth, numjobs = int(opts.pop("iodepth", 1)), int(opts.pop("numjobs", 1))
        if "rate_iops" in opts:  # per job: numjobs jobs issue numjobs times as many
            w["rate"] = float(opts.pop("rate_iops").split(",")[0]) * numjobs
            process = opts.pop("rate_process", "linear")
            if process not in ("linear", "poisson"):
                raise ScenarioError(path, field("rate_process"), f"{process!r}: allowed linear, poisson")
            w["arrival"] = "poisson" if process == "poisson" else "uniform"
        else:
            opts.pop("rate_process", None)
            w["outstanding"] = iodepth * numjobs
        if "size" in opts:
            w["range"] = f"{_bytes(opts.pop('size'), path, field('size'))}B"
        if "runtime" in opts:
            run["duration"] = _seconds(opts.pop("runtime"), path, field("runtime"))
        if "ramp_time" in opts:
            run["warmup"] = _seconds(opts.pop("ramp_time"), path, field("ramp_time"))
        if "thinktime" in opts:  # microseconds unless a unit is given
            w["think_time"] = _micros(opts.pop("thinktime"), path, field("thinktime"))
        for key in opts:
            if key not in _FIO_NO_EFFECT:
                raise ScenarioError(path, field(key), "option not supported; supported: rw, rwmixread, rwmixwrite, bs, bssplit, "
                                    "iodepth, numjobs, rate_iops, rate_process, ramp_time, runtime, size (and, without "
                                    f"effect on the model: {', '.join(sorted(_FIO_NO_EFFECT))})")
        workloads.append(w)
    return _sets(workloads, run)


# vdbench --------------------------------------------------------------------------------------

_VDB_KEYS = {
    "hd": {"hd", "vdbench", "user", "shell", "master", "system", "jvms"},
    "sd": {"sd", "lun", "size", "threads", "openflags", "host", "align"},
    "wd": {"wd", "sd", "rdpct", "xfersize", "seekpct", "iorate", "streams", "host"},
    "rd": {"rd", "wd", "sd", "iorate", "elapsed", "interval", "warmup", "threads", "distribution"},
}
_VDB_NO_EFFECT = {"hd", "vdbench", "user", "shell", "master", "system", "jvms", "lun", "openflags", "host", "align"}


def _vdb_key(kind: str, word: str, path: str, line: int) -> str:
    """vdbench accepts the shortest unique prefix of at least two letters (`xf`, `seek`)."""
    word = word.lower()
    known = _VDB_KEYS[kind]
    if word in known:
        return word
    matches = [k for k in known if len(word) >= 2 and k.startswith(word)]
    if len(matches) == 1:
        return matches[0]
    raise ScenarioError(path, f"line {line}: {word}", f"{kind.upper()} parameter not supported; supported: {', '.join(sorted(known))}")


def _vdb_fields(text: str) -> list[tuple[str, str]]:
    parts = re.findall(r"[^,(]+(?:\([^)]*\))?[^,]*", text)
    return [(p.split("=", 1)[0], p.split("=", 1)[1]) if "=" in p else (p, "") for p in parts]


def vdbench_overrides(path: str, devices: list[str]) -> list[str]:
    text = html.unescape(re.sub(r"<[^>]+>", "", _read(path)))  # vdbench's parmfile.html echo too
    entries: dict[str, list[tuple[int, dict[str, str]]]] = {"hd": [], "sd": [], "wd": [], "rd": []}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("*", "#", "/")) or "=" not in line:
            continue
        fields = _vdb_fields(line)
        kind = fields[0][0].strip().lower()
        if kind not in entries:
            raise ScenarioError(path, f"line {n}: {kind}", "not supported; supported entries: hd, sd, wd, rd")
        entries[kind].append((n, {_vdb_key(kind, k.strip(), path, n): v.strip() for k, v in fields}))
    if not entries["rd"] or not entries["wd"]:
        raise ScenarioError(path, "rd", "a run definition (rd=) with its workload definitions (wd=) is needed")
    rd_line, rd = entries["rd"][0]  # vdbench runs the RDs in turn; the first is the workload here
    pattern = re.compile("^" + re.escape(rd["wd"]).replace(r"\*", ".*") + "$")
    wds = [(n, wd) for n, wd in entries["wd"] if pattern.match(wd["wd"])]
    threads = int(rd.get("threads") or next((sd["threads"] for _, sd in entries["sd"] if sd.get("threads")), "8"))
    iorate = rd.get("iorate", "max").lower()
    sizes = {sd["size"] for _, sd in entries["sd"] if sd.get("size")}
    workloads = []
    for n, wd in wds:
        w: dict[str, Any] = {"devices": devices, "read_pct": float(wd.get("rdpct", 100))}
        if len(sizes) == 1:
            w["range"] = f"{_bytes(next(iter(sizes)), path, 'sd.size')}B"
        xfer = wd.get("xfersize", "4k").strip("()").split(",")
        if len(xfer) == 1:
            w["block_size"] = f"{_bytes(xfer[0], path, f'line {n}: xfersize')}B"
        else:
            w["bssplit"] = [[f"{_bytes(s, path, f'line {n}: xfersize')}B", round(float(p))] for s, p in zip(xfer[::2], xfer[1::2])]
        seek = wd.get("seekpct", "100").lower()
        if seek in ("0", "seq", "sequential", "eof"):
            w["access"] = "sequential"
        elif seek in ("100", "random"):
            w["access"] = "random"
        else:
            raise ScenarioError(path, f"line {n}: seekpct", f"{seek}: allowed 0 (sequential) or 100 (random)")
        if "streams" in wd:
            w["streams"] = int(wd["streams"])
        if iorate == "max":
            w["outstanding"] = max(1, threads // len(wds))
        else:
            w["rate"] = float(iorate) / len(wds) / max(1, len(devices))
            dist = rd.get("distribution", "exponential").lower()
            w["arrival"] = "poisson" if dist.startswith("exp") else "uniform"
        workloads.append(w)
    timing = (("duration", "elapsed"), ("interval", "interval"), ("warmup", "warmup"))
    run = {k: _seconds(rd[v], path, f"line {rd_line}: {v}") for k, v in timing if v in rd}
    return _sets(workloads, run)


def workload_overrides(spec: str, scenario: str) -> list[str]:
    """`--workload`: a named mix, a fio job file (.fio, .ini, .job) or a vdbench parameter file."""
    devices = _devices(scenario)
    if spec in MIXES:
        return mix_overrides(spec, devices)
    if not Path(spec).exists():
        raise ScenarioError(spec, "--workload", f"no such file; named mixes: {', '.join(MIXES)}")
    text = _read(spec)
    if re.search(r"^\s*\[", text, re.M):
        return fio_overrides(spec, devices)
    return vdbench_overrides(spec, devices)
