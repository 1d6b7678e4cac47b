"""What the application saw through a run's faults, as `pathlab run` prints it and the report
shows it: each host's and device's longest stall and failed I/Os, how each came back from each
fault, and a timeline per device that merges the faults, what the host logged, the stall and the
recovery. Everything is read from the run's result (`application` and `events`)."""

from __future__ import annotations

from typing import Any

from pathlab.output.seconds import seconds, window

#: The host events that mark a timer's work on a timeline, with the name an admin gives it.
MARKS = {"path_failed": "detection", "alua": "failover", "owner_moved": "failover", "gave_up": "give-up",
         "path_reinstated": "path back"}


def shown(data: dict[str, Any]) -> bool:
    """Whether the run has something to say here: a fault, or an I/O that failed back."""
    app = data["application"]
    return bool(app["faults"]) or any(d["failed_ios"] for d in app["devices"])


def duration(value: float) -> str:
    """A stall as an admin reads it: seconds from one second up, else milliseconds."""
    return seconds(value) if value >= 1 else seconds(value * 1e3, suffix=" ms")


def _span(start: float, end: float | None, missing: str) -> str:
    return f"{seconds(start, suffix='')}-" + seconds(end, missing)


def fault_name(f: dict[str, Any]) -> str:
    return f"{f['kind'].replace('_', ' ')} {f['target']} {window(f['start_s'], f['end_s'])}"


def stall_rows(data: dict[str, Any]) -> list[list[str]]:
    """A row per host, then its devices: longest stall, when, failed I/Os and when."""
    app = data["application"]
    rows = []
    for h in app["hosts"]:
        for who, r in [(f"host {h['host']}", h)] + [(f"  {d['device']}", d) for d in app["devices"]
                                                    if d["host"] == h["host"]]:
            ongoing = " (still stalled at the end)" if r["stall_to_s"] is None else ""
            stalled = seconds(r["stall_from_s"]) + ongoing if r["longest_stall_s"] else "-"
            failed = _span(r["first_failed_s"], r["last_failed_s"], "") if r["failed_ios"] else "-"
            rows.append([who, duration(r["longest_stall_s"]), stalled, f"{r['failed_ios']:,}", failed])
    return rows


STALL_HEAD = ["", "longest stall", "from", "failed I/Os", "failed"]
RECOVERY_HEAD = ["fault", "host/device", "full rate", "lowest", "back to full rate", "paths before",
                 "failed back"]


def recovery_rows(data: dict[str, Any]) -> list[list[str]]:
    """A row per fault and device it touched, and per fault and host."""
    app = data["application"]
    rows = []
    for r in app["recovery"]:
        f = app["faults"][r["fault"]]
        rate = "-" if r["iops_before"] is None else f"{r['iops_before']:,.0f}/s"
        lowest = "-" if r["lowest_iops"] is None else f"{r['lowest_iops']:,.0f}/s"
        back = "no interval before" if r["iops_before"] is None else seconds(r["back_to_full_rate_s"], "not by the end")
        lasts = r["end_s"] is None or r["end_s"] >= data["warmup_s"] + data["duration_s"]
        failed_back = "-" if lasts else seconds(r["failed_back_s"], "not by the end")
        who = r["device"] or f"host {r['host']}"
        rows.append([fault_name(f), who, rate, lowest, back, ", ".join(r["paths_before"]) or "-", failed_back])
    return rows


def timeline(data: dict[str, Any], device: str) -> list[tuple[float, str]]:
    """A device's timeline: the faults' starts and ends, what the host logged of it (a timer's
    work named: detection, failover, give-up, path back), then what the application saw: its
    longest stall when it falls within a fault, its failed I/Os, back to full rate and failed
    back. At one time, in that order."""
    app = data["application"]
    lines: list[tuple[float, int, str]] = []
    recoveries = [r for r in app["recovery"] if r["device"] == device]
    windows = []
    for r in recoveries:
        f = app["faults"][r["fault"]]
        name = f"{f['kind'].replace('_', ' ')} {f['target']}"
        windows.append((f["start_s"], f["start_s"] if f["end_s"] is None else f["end_s"]))
        lines.append((f["start_s"], 0, f"{name} starts" if f["end_s"] is not None else name))
        if f["end_s"] is not None:
            lines.append((f["end_s"], 0, f"{name} ends"))
        if r["back_to_full_rate_s"]:
            lines.append((f["start_s"] + r["back_to_full_rate_s"], 2, "back to full rate"))
        if f["end_s"] is not None and r["failed_back_s"]:
            lines.append((f["end_s"] + r["failed_back_s"], 2, "failed back to " + (", ".join(r["paths_before"]) or "-")))
    for e in data["events"]:
        if e["device"] == device:
            mark = f" ({MARKS[e['event']]})" if e["event"] in MARKS else ""
            what = " ".join(x for x in (e["event"].replace("_", " "), e["path"], e["detail"]) if x)
            lines.append((e["t_s"], 1, what + mark))
    for d in app["devices"]:
        if d["device"] != device:
            continue
        to = d["stall_to_s"] if d["stall_to_s"] is not None else float("inf")
        if d["longest_stall_s"] > 0 and any(d["stall_from_s"] <= end and to >= start for start, end in windows):
            lines.append((d["stall_from_s"], 2, f"longest stall starts ({duration(d['longest_stall_s'])})"))
            if d["stall_to_s"] is not None:
                lines.append((d["stall_to_s"], 2, "longest stall ends"))
        if d["failed_ios"]:
            lines.append((d["first_failed_s"], 2, f"first failed I/O (of {d['failed_ios']:,})"))
            if d["last_failed_s"] != d["first_failed_s"]:
                lines.append((d["last_failed_s"], 2, "last failed I/O"))
    return [(t, what) for t, _, what in sorted(lines, key=lambda line: line[:2])]


def devices_with_a_timeline(data: dict[str, Any]) -> list[str]:
    """The devices a fault touched or whose I/O failed back, in result order."""
    app = data["application"]
    touched = {r["device"] for r in app["recovery"]}
    return [d["device"] for d in app["devices"] if d["device"] in touched or d["failed_ios"]]


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows]]


#: Lines of a device's timeline printed at most, and devices given one (the JSON has it all).
TIMELINE_LINES = 20
TIMELINE_DEVICES = 8


def text(data: dict[str, Any]) -> list[str]:
    """The section `pathlab run` prints, empty when the run has no fault and no failed I/O."""
    if not shown(data):
        return []
    parts = ["what the application saw (a stall: I/O outstanding and none answered, completed or failed):",
             *_table(STALL_HEAD, stall_rows(data)), ""]
    rows = recovery_rows(data)
    if rows:
        parts += ["after each fault (back to full rate: from its start, the first interval within 5% of the rate "
                  "before it; failed back: from its end, until the paths in use before are again):",
                  *_table(RECOVERY_HEAD, rows), ""]
    devices = devices_with_a_timeline(data)
    for device in devices[:TIMELINE_DEVICES]:
        lines = timeline(data, device)
        more = f", first {TIMELINE_LINES} of {len(lines)}" if len(lines) > TIMELINE_LINES else ""
        parts.append(f"timeline of {device}{more}:")
        parts += [f"  {t:10.3f} s  {what}" for t, what in lines[:TIMELINE_LINES]]
        parts.append("")
    if len(devices) > TIMELINE_DEVICES:
        parts += [f"({len(devices) - TIMELINE_DEVICES} more devices were touched: --format json gives every "
                  "timeline's events and figures)", ""]
    return parts
