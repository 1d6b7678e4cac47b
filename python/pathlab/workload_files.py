"""Workloads as the field writes them: a fio job file, a vdbench parameter file, or a named mix.
Each becomes `--set` overrides (the scenario's `workloads`, and the run's length where the file
gives it) applied to every device of the scenario. An option the model cannot honour is refused
by name; options that only say how the real tool reaches the disk are accepted without effect."""

from __future__ import annotations

import html
import re
import tomllib
from dataclasses import dataclass, field
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
#: The most digits a whole part may have: 20 hold any 64-bit quantity, and with them every
#: product below stays a finite float (1e20 TiB per second is still one).
_MAX_DIGITS = 20


def _short(text: str, file: str, field: str) -> str:
    """`text`, or a refusal when a number in it has more digits than any quantity needs."""
    if re.search(rf"[0-9]{{{_MAX_DIGITS + 1},}}", text):
        raise ScenarioError(file, field, f"{text.strip()[:24]!r}...: a number of more than {_MAX_DIGITS} digits")
    return text


def _bytes(text: str, file: str, field: str) -> int:
    _short(text, file, field)
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?", text.strip().lower())
    if not m:
        raise ScenarioError(file, field, f"{text!r} is not a size like 4k, 512 or 1m")
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def _seconds(text: str, file: str, field: str, unit: str = "s") -> str:
    _short(text, file, field)
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(us|ms|s|m|h)?", text.strip().lower())
    if not m:
        raise ScenarioError(file, field, f"{text!r} is not a time like 30, 30s, 5m")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}[m.group(2) or unit]
    return f'"{round(float(m.group(1)) * scale * 1000)}ms"'


def _micros(text: str, file: str, field: str) -> str:
    """fio's time with microseconds as the default unit, as a scenario duration."""
    _short(text, file, field)
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


@dataclass
class Overrides:
    """A workload as `--set` overrides, and where in the workload file each value was written."""
    sets: list[str]
    #: Scenario field (`workloads.1.block_size`, `run.duration`) → the option that gave it, as
    #: `line 6: tiny.bs`: an error the engine finds in the value names the file's line.
    origins: dict[str, str] = field(default_factory=dict)

    def origin(self, scenario_field: str) -> str | None:
        """Where the value of `scenario_field` (or of the field holding it: `workloads.0.bssplit.1`
        is in `workloads.0.bssplit`) was written, if the workload file wrote it."""
        parts = scenario_field.split(".")
        return next((self.origins[key] for n in range(len(parts), 0, -1) if (key := ".".join(parts[:n])) in self.origins),
                    None)


def _sets(workloads: list[dict[str, Any]], run: dict[str, str], origins: dict[str, str] | None = None) -> Overrides:
    return Overrides([f"workloads=[{', '.join(to_toml(w) for w in workloads)}]", *(f"run.{k}={v}" for k, v in run.items())],
                     origins or {})


def mix_overrides(name: str, devices: list[str], outstanding: int = 32) -> Overrides:
    _, parts = MIXES[name]
    return _sets([{"devices": devices, "outstanding": max(1, round(outstanding * p["share"])),
                   **{k: v for k, v in p.items() if k != "share"}} for p in parts], {})


# fio ------------------------------------------------------------------------------------------

_FIO_NO_EFFECT = {"ioengine", "direct", "description", "filename", "group_reporting", "invalidate", "time_based",
                  "io_submit_mode", "stonewall", "new_group", "name"}
#: Options fio takes without a value (a bare `time_based`).
_FIO_FLAGS = {"time_based", "group_reporting", "stonewall", "new_group", "invalidate", "direct"}
#: rw values that mix reads and writes: only they take rwmixread/rwmixwrite.
_FIO_MIXED = ("rw", "readwrite", "randrw")
_FIO_RW = {"read": (100, "sequential"), "write": (0, "sequential"), "rw": (50, "sequential"), "readwrite": (50, "sequential"),
           "randread": (100, "random"), "randwrite": (0, "random"), "randrw": (50, "random")}

#: Each workload value and the fio options it comes from (the first the job gives is blamed).
_FIO_ORIGINS = {"read_pct": ("rwmixread", "rwmixwrite", "rw", "readwrite"), "access": ("rw", "readwrite"),
                "block_size": ("bs",), "bssplit": ("bssplit",), "outstanding": ("iodepth", "numjobs"),
                "rate": ("rate_iops",), "arrival": ("rate_process",), "range": ("size",), "think_time": ("thinktime",)}


def _fio_jobs(path: str) -> list[tuple[str, int, dict[str, tuple[str | None, int]]]]:
    """The jobs of a fio job file, each (name, line, {option: (value or None, line)}): every
    section is one job, even when two share a name (as fio runs them), and a `[global]` section
    applies to the jobs after it (only: "a job is only affected by a global section residing
    above it", fio HOWTO)."""
    glob: dict[str, tuple[str | None, int]] = {}
    jobs: list[tuple[str, int, dict[str, tuple[str | None, int]], dict[str, tuple[str | None, int]]]] = []
    current: dict[str, tuple[str | None, int]] | None = None
    for n, raw in enumerate(_read(path).splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise ScenarioError(path, f"line {n}", f"{line!r} is not a section header like [job]")
            name = line[1:-1].strip()
            current = glob if name == "global" else {}
            if name != "global":
                jobs.append((name, n, dict(glob), current))
            continue
        if current is None:
            raise ScenarioError(path, f"line {n}", "an option before any [section]")
        key, sep, value = line.partition("=")
        current[key.strip()] = (value.strip() if sep else None, n)
    return [(name, n, {**above, **opts}) for name, n, above, opts in jobs]


def _fio_int(text: str, kb_base: int, file: str, field: str) -> int:
    """A fio integer: digits with an optional unit prefix (k, m, g, t: kb_base to the power)."""
    _short(text, file, field)
    m = re.fullmatch(r"(\d+)\s*([kmgt]?)", text.strip().lower())
    if not m:
        raise ScenarioError(file, field, f"{text!r} is not a whole number (like 16 or 1k)")
    return int(m.group(1)) * kb_base ** "_kmgt".index(m.group(2) or "_")


def _fio_pct(text: str, file: str, field: str) -> int:
    m = re.fullmatch(r"(\d+)\s*%?", text.strip())
    if not m or int(m.group(1)) > 100:
        raise ScenarioError(file, field, f"{text!r} is not a percentage from 0 to 100")
    return int(m.group(1))


def fio_overrides(path: str, devices: list[str]) -> Overrides:
    """Each job of a fio job file as one workload, its options read as the fio HOWTO defines
    them (integers with k/m/g suffixes of kb_base, percentages with or without %); every option
    is honoured or refused with its line."""
    jobs = _fio_jobs(path)
    if not jobs:
        raise ScenarioError(path, "", "no job section")
    workloads: list[dict[str, Any]] = []
    run: dict[str, str] = {}
    origins: dict[str, str] = {}
    for job, job_line, options in jobs:
        lines = {k: n for k, (_, n) in options.items()}
        field = lambda k, job=job, lines=lines, at=job_line: f"line {lines.get(k, at)}: {job}.{k}"  # noqa: E731
        for taken, keys in _FIO_ORIGINS.items():
            if option := next((k for k in keys if k in options), None):
                origins[f"workloads.{len(workloads)}.{taken}"] = field(option)
        for key, (value, _) in options.items():
            if value is None and key not in _FIO_FLAGS:
                raise ScenarioError(path, field(key), "needs a value (key=value)")
        opts = {k: v for k, (v, _) in options.items() if v is not None}
        kb_text = opts.pop("kb_base", "1024")
        if kb_text not in ("1000", "1024"):
            raise ScenarioError(path, field("kb_base"), f"{kb_text!r}: allowed 1000, 1024")
        kb_base = int(kb_text)
        w: dict[str, Any] = {"devices": devices}
        rw_key = "rw" if "rw" in opts else "readwrite"
        rw = opts.pop("rw", None) or opts.pop("readwrite", None) or "read"
        if ":" in rw:
            raise ScenarioError(path, field(rw_key), f"{rw!r}: an offset modifier (:N) is not supported")
        if rw not in _FIO_RW:
            raise ScenarioError(path, field(rw_key), f"{rw!r} is not supported; supported: {', '.join(_FIO_RW)}")
        w["read_pct"], w["access"] = _FIO_RW[rw]
        for mix in ("rwmixread", "rwmixwrite"):
            if mix in opts:
                if rw not in _FIO_MIXED:
                    raise ScenarioError(path, field(mix), f"applies to mixed I/O (rw={', '.join(_FIO_MIXED)}), not rw={rw}")
                pct = _fio_pct(opts.pop(mix), path, field(mix))
                w["read_pct"] = pct if mix == "rwmixread" else 100 - pct
        if "bs" in opts:
            sizes = {_bytes(b, path, field("bs")) for b in opts.pop("bs").split(",") if b}
            if len(sizes) != 1:
                raise ScenarioError(path, field("bs"), "different read and write sizes are not supported")
            w["block_size"] = f"{sizes.pop()}B"
        if "bssplit" in opts:
            split = opts.pop("bssplit").split(",")
            if len({part for part in split if part}) > 1:
                raise ScenarioError(path, field("bssplit"), "different read and write size mixes are not supported")
            pairs = [part.split("/") for part in split[0].split(":") if part]
            if any(len(pair) != 2 for pair in pairs):
                raise ScenarioError(path, field("bssplit"), "expected size/percent pairs like 4k/50:8k/50")
            w.pop("block_size", None)
            w["bssplit"] = [[f"{_bytes(size, path, field('bssplit'))}B", pct] for size, pct_text in pairs
                            if (pct := _fio_pct(pct_text, path, field("bssplit"))) > 0]
        iodepth = _fio_int(opts.pop("iodepth", "1"), kb_base, path, field("iodepth"))
        numjobs = _fio_int(opts.pop("numjobs", "1"), kb_base, path, field("numjobs"))
        if iodepth < 1 or numjobs < 1:
            raise ScenarioError(path, field("iodepth" if iodepth < 1 else "numjobs"), "must be at least 1")
        if "rate_iops" in opts:  # per job: numjobs jobs issue numjobs times as many
            rates = opts.pop("rate_iops").split(",")
            if len({r for r in rates if r}) > 1:
                raise ScenarioError(path, field("rate_iops"), "different read and write rates are not supported: give one")
            w["rate"] = float(_fio_int(rates[0], kb_base, path, field("rate_iops")) * numjobs)
            process = opts.pop("rate_process", "linear")
            if process not in ("linear", "poisson"):
                raise ScenarioError(path, field("rate_process"), f"{process!r}: allowed linear, poisson")
            w["arrival"] = "poisson" if process == "poisson" else "uniform"
        else:
            if "rate_process" in opts:
                raise ScenarioError(path, field("rate_process"), "applies with rate_iops only")
            w["outstanding"] = iodepth * numjobs
        if "size" in opts:
            w["range"] = f"{_bytes(opts.pop('size'), path, field('size'))}B"
        for key, option in (("duration", "runtime"), ("warmup", "ramp_time")):
            if option in opts:
                text = opts.pop(option)
                value = _seconds(text, path, field(option))
                if run.setdefault(key, value) != value:  # one run: fio's jobs may each stop at their own time
                    raise ScenarioError(path, field(option), f"{text!r} where {origins[f'run.{key}']} gives another "
                                                             f"time: the jobs run as one run here; give one {option}")
                origins.setdefault(f"run.{key}", field(option))
        if "thinktime" in opts:  # microseconds unless a unit is given
            w["think_time"] = _micros(opts.pop("thinktime"), path, field("thinktime"))
        for key in opts:
            if key not in _FIO_NO_EFFECT:
                raise ScenarioError(path, field(key), "option not supported; supported: rw, rwmixread, rwmixwrite, bs, bssplit, "
                                    "iodepth, numjobs, rate_iops, rate_process, ramp_time, runtime, size, thinktime, "
                                    f"kb_base (and, without effect on the model: {', '.join(sorted(_FIO_NO_EFFECT))})")
        workloads.append(w)
    return _sets(workloads, run, origins)


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


def vdbench_overrides(path: str, devices: list[str]) -> Overrides:
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
    if len(entries["rd"]) > 1:
        n = entries["rd"][1][0]
        raise ScenarioError(path, f"line {n}: rd", "a second run definition: vdbench runs each in turn, a run here is "
                            "one workload; give one rd= per file")
    rd_line, rd = entries["rd"][0]
    if "wd" not in rd:
        raise ScenarioError(path, f"line {rd_line}: rd", "names no workload definition: add wd=NAME (or wd=*)")
    pattern = re.compile("^" + re.escape(rd["wd"]).replace(r"\*", ".*") + "$")
    wds = [(n, wd) for n, wd in entries["wd"] if pattern.match(wd["wd"])]
    if not wds:
        raise ScenarioError(path, f"line {rd_line}: wd", f"{rd['wd']!r} matches no wd= entry")
    threads_text, threads_line = next(((e["threads"], n) for n, e in [(rd_line, rd), *entries["sd"]] if e.get("threads")),
                                      ("8", rd_line))
    if not re.fullmatch("[0-9]+", _short(threads_text, path, f"line {threads_line}: threads")) or int(threads_text) < 1:
        raise ScenarioError(path, f"line {threads_line}: threads", f"{threads_text!r}: a whole number of at least 1")
    threads = int(threads_text)
    iorate = rd.get("iorate", "max").lower()
    if iorate != "max" and not re.fullmatch(r"[0-9]+(\.[0-9]+)?", _short(iorate, path, f"line {rd_line}: iorate")):
        raise ScenarioError(path, f"line {rd_line}: iorate", f"{iorate!r} is not supported (curve and lists of rates run "
                            "several runs in turn): give max or one rate")
    sizes = {sd["size"]: n for n, sd in entries["sd"] if sd.get("size")}
    workloads: list[dict[str, Any]] = []
    origins: dict[str, str] = {}
    for n, wd in wds:
        at = f"workloads.{len(workloads)}"
        origins |= {f"{at}.{value}": f"line {n}: {key}" for value, key in (
            ("read_pct", "rdpct"), ("block_size", "xfersize"), ("bssplit", "xfersize"), ("access", "seekpct"),
            ("streams", "streams")) if key in wd}
        origins |= {f"{at}.{value}": f"line {rd_line}: {key}" for value, key in (
            ("rate", "iorate"), ("arrival", "distribution")) if key in rd}
        origins[f"{at}.outstanding"] = f"line {threads_line}: threads"
        if "iorate" in wd:
            raise ScenarioError(path, f"line {n}: iorate", "a WD's own rate is not supported: give iorate on the rd=")
        rdpct = wd.get("rdpct", "100")
        if not re.fullmatch(r"\d+(\.\d+)?", rdpct) or float(rdpct) > 100:
            raise ScenarioError(path, f"line {n}: rdpct", f"{rdpct!r} is not a percentage from 0 to 100")
        w: dict[str, Any] = {"devices": devices, "read_pct": float(rdpct)}
        if len(sizes) == 1:
            (size, size_line), = sizes.items()
            w["range"] = f"{_bytes(size, path, f'line {size_line}: size')}B"
            origins[f"{at}.range"] = f"line {size_line}: size"
        xfer = wd.get("xfersize", "4k").strip("()").split(",")
        if len(xfer) > 1 and len(xfer) % 2:
            raise ScenarioError(path, f"line {n}: xfersize", "a distribution is size,percent pairs: (4k,50,8k,50)")
        if len(xfer) == 1:
            w["block_size"] = f"{_bytes(xfer[0], path, f'line {n}: xfersize')}B"
        else:
            if bad := next((p for p in xfer[1::2] if not re.fullmatch(r"[0-9]{1,3}(\.[0-9]+)?", p) or float(p) > 100), None):
                raise ScenarioError(path, f"line {n}: xfersize", f"{bad!r} is not a percentage from 0 to 100")
            w["bssplit"] = [[f"{_bytes(s, path, f'line {n}: xfersize')}B", round(float(p))] for s, p in zip(xfer[::2], xfer[1::2])]
        seek = wd.get("seekpct", "100").lower()
        if seek in ("0", "seq", "sequential", "eof"):
            w["access"] = "sequential"
        elif seek in ("100", "random"):
            w["access"] = "random"
        else:
            raise ScenarioError(path, f"line {n}: seekpct", f"{seek}: allowed 0 (sequential) or 100 (random)")
        if "streams" in wd:
            if not re.fullmatch("[0-9]+", _short(wd["streams"], path, f"line {n}: streams")):
                raise ScenarioError(path, f"line {n}: streams", f"{wd['streams']!r} is not a whole number")
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
    origins |= {f"run.{k}": f"line {rd_line}: {v}" for k, v in timing if v in rd}
    return _sets(workloads, run, origins)


def workload_overrides(spec: str, scenario: str) -> Overrides:
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
