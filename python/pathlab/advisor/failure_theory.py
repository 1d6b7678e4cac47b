"""The stall each failure kind should cause under a set of timers, predicted from the timers
alone before anything runs (`advise --failures` prints it beside what the runs measured): the
longest time one I/O waits, by `stall_rule.py`'s rule of each stack's detection and recovery.

A prediction is the worst case over where the loss falls on a probe's grid (the NVMe keep-alive
every KATO/2, or KATO/4 with traffic-based keep-alive, open-iscsi's and ESXi's NOP-Out, MPIO's path verification, the NVMe reconnect
attempts): `tick` is that grid's period,
within which the run's stall may be shorter; a stall no grid decides has tick 0 (the run's is
the prediction plus the retry's own service)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pathlab import keep_alive
from pathlab.advisor import stall_rule as rule

#: The failure kinds whose loss the host sees as a link event (the HBA's RSCN, the NIC, the
#: NVMe transport): each path they take is lost as a link down is.
LINK_KINDS = ("link_down", "controller_reboot", "switch_down", "site_down")


@dataclass(frozen=True)
class Timers:
    """The timers one candidate runs with, in seconds (None: off), by the `[host.stack]` key the
    engine takes; `no_path_retry` as multipath.conf writes it; the TP4129 hold's multiple of
    KATO (None: no hold) and whether CCR ends it."""

    seconds: dict[str, float | None]
    no_path_retry: str = "fail"
    tp4129_hold: int | None = None
    ccr: bool = False
    iscsi: bool = False
    #: NVMe: the controller advertises traffic-based keep-alive (CTRATT TBKAS).
    traffic_based_keep_alive: bool = False

    def s(self, key: str) -> float:
        value = self.seconds.get(key)
        return math.inf if value is None else value


@dataclass(frozen=True)
class Prediction:
    """The longest wait of one I/O (None: until the paths return, which `outage` bounds), the
    grid period within which a run's may be shorter, and the rule that gives it."""

    seconds: float | None
    tick: float
    rule: str

    def text(self) -> str:
        if self.seconds is None:
            return "not predicted"
        return f"{self.seconds:g} s" + (f" (at most; within {self.tick:g} s)" if self.tick else "")


def predict(stack: str, kind: str, timers: Timers, outage: float) -> Prediction:
    """What `kind` (path_hang, a link kind, ana_change, alua_transition, all_paths_down) should
    cost on `stack` (linux-dm, linux-nvme, esxi, windows, spdk) under `timers`, the lost paths back
    after `outage` seconds. An ANA change lasts the controller's ANATT (`timers.seconds["anatt"]`),
    an ALUA transition the array's implicit transition time
    (`timers.seconds["implicit_transition_time"]`): the longest each may."""
    if kind == "alua_transition":
        change = timers.seconds.get("implicit_transition_time")
        if change is None:
            return Prediction(None, 0, "no implicit transition time: the transition's length is not known")
        return with_alua_transition(stack, predict(stack, "controller_reboot", timers, outage), change, change)
    if kind == "ana_change":
        anatt = timers.seconds.get("anatt")
        if anatt is None:
            return Prediction(None, 0, "no ANATT: the change's length is not known")
        return with_ana_change(stack, predict(stack, "controller_reboot", timers, outage), timers, anatt, anatt)
    if stack == "linux-dm":
        return _dm(kind, timers, outage)
    if stack == "linux-nvme":
        return _nvme(kind, timers, outage)
    if stack == "esxi":
        return _esxi(kind, timers, outage)
    if stack == "windows":
        return _windows(kind, timers, outage)
    if stack == "spdk":
        return _nvme(kind, timers, outage, spdk=True)
    return Prediction(None, 0, f"no rule for the {stack} stack yet")


def with_ana_change(stack: str, found: Prediction, timers: Timers, anatt: float, change: float) -> Prediction:
    """A controller reboot (`found`: its lost controller's own wait) whose partner's ANA groups
    are in the change state for `change` seconds, under ANATT `anatt`: the longer of the two
    waits (`stall_rule.nvme_ana_change`); SPDK fails the I/O once the partner's ANATT and the
    lost controller's own wait are both out."""
    if found.seconds is None:
        return found
    spdk = stack == "spdk"
    lost = rule.nvme_all_paths_down(timers.seconds.get("controller_loss_timeout"), timers.seconds.get("fast_io_fail_tmo"),
                                    timers.s("reconnect_delay") if spdk else None)
    waits = rule.nvme_ana_change(anatt, change, spdk, lost.seconds)
    if waits.seconds is None or waits.seconds <= found.seconds:
        return found
    return Prediction(waits.seconds, 0, f"{waits.rule}; the lost controller: {found.rule}")


def with_alua_transition(stack: str, found: Prediction, change: float, implicit: float | None) -> Prediction:
    """A controller reboot (`found`: its lost paths' own wait) whose partner's target port groups
    are Transitioning for `change` seconds, the array reporting `implicit` as its implicit
    transition time: the longer of the two waits (`stall_rule.alua_transition`). Linux's I/O
    goes on at the first retry after the transition ends: at most the reprep delay after it,
    the grid of its retries."""
    if found.seconds is None:
        return found
    waits = rule.alua_transition(change, stack == "esxi", implicit)
    if waits.seconds is None or waits.seconds <= found.seconds:
        return found
    if stack == "linux-dm" and rule.alua_transition_ends_in_time(change, implicit):  # at most a retry after the end
        delay = rule.ALUA_REPREP_DELAY.value or 0.0
        return Prediction(waits.seconds + delay, delay, f"{waits.rule}; the lost paths: {found.rule}")
    return Prediction(waits.seconds, 0, f"{waits.rule}; the lost paths: {found.rule}")


#: Said of a stall that is a lost command's own timeout: the paths' return does not end it.
LOST = "a command lost with the path waits its timeout, even if the path returns first"


def _bounded(found: float, tick: float, text: str, outage: float) -> Prediction:
    """A hold the fault's end cuts short: the lost paths back after `outage` resume what they held."""
    if found > outage:
        return Prediction(outage, 0, f"{text}, but the paths return after {outage:g} s first")
    return Prediction(found, tick, text)


def _dm_hold(timers: Timers) -> tuple[float, str]:
    """How long a path whose loss was seen holds its I/O before dm-multipath retries it elsewhere."""
    if timers.iscsi:
        held = timers.s("replacement_timeout") if timers.seconds.get("replacement_timeout") is not None \
            else timers.s("fast_io_fail_tmo")
        return held, f"iSCSI replacement_timeout {held:g} s"
    stall = rule.dm_link_down(timers.seconds.get("fast_io_fail_tmo"), timers.seconds.get("dev_loss_tmo"),
                              timers.no_path_retry == "queue")
    return (math.inf if stall.seconds is None else stall.seconds), stall.rule


def _dm(kind: str, timers: Timers, outage: float) -> Prediction:
    if kind == "path_hang":
        timeout = timers.s("io_timeout")
        if timers.iscsi:
            interval, noop = timers.s("noop_out_interval"), timers.s("noop_out_timeout")
            held, how = _dm_hold(timers)
            found = interval + noop + held
            if found < timeout:
                return _bounded(found, interval, f"NOP-Out every {interval:g} s, unanswered {noop:g} s, then {how}",
                                outage)
        polling = timers.s("max_polling_interval")
        stall = rule.dm_path_hang(timeout, polling, timers.s("checker_timeout"))
        return Prediction(timeout, 0, f"{stall.rule}; {LOST}")
    held, how = _dm_hold(timers)
    if kind in LINK_KINDS:
        return _bounded(held, 0, how, outage)
    # every path down: held as a lost path is, then no_path_retry; paths back after the hold are
    # found failed by the checker, which looks at a failed path every polling_interval
    if held >= outage:
        return Prediction(outage, 0, f"{how} outlasts the loss: the paths return after {outage:g} s and take what "
                                     "they held")
    retry, checker = timers.no_path_retry, timers.s("checker_interval")
    back = Prediction(outage + checker, checker, f"{how}, then no_path_retry {retry}: until the checker (every "
                                                 f"polling_interval {checker:g} s) finds a path back after {outage:g} s")
    if retry == "queue":
        return back
    after = rule.dm_all_paths_down(retry, checker)
    total = held + (after.seconds or 0)
    return Prediction(total, 0, f"{how}, then {after.rule}: the I/O fails") if total < outage else back


def _nvme_hold(timers: Timers) -> tuple[float, str]:
    """TP4129's hold after the host fails a controller (none in Linux), or CCR's end of it."""
    if timers.tp4129_hold is None:
        return 0.0, "retried on another path at once"
    kato, cqt = timers.s("keep_alive_timeout"), timers.seconds.get("command_quiesce_time") or 0.0
    stall = rule.tp4129_hold(kato, cqt, timers.tp4129_hold, timers.ccr)
    return stall.seconds or 0.0, stall.rule


def _nvme(kind: str, timers: Timers, outage: float, spdk: bool = False) -> Prediction:
    """Linux NVMe, or SPDK's bdev_nvme (`spdk`), which has no keep-alive probe in the engine: its
    I/O timeout (10 s) stands for the keep-alive timeout that finds a silent controller."""
    hold, how = _nvme_hold(timers)
    if kind == "path_hang" and spdk:
        timeout = timers.s("io_timeout")
        return Prediction(timeout + hold, 0, f"SPDK's keep-alive timeout {timeout:g} s (the I/O timeout standing for it, "
                                             f"{rule.SPDK_KEEP_ALIVE.source}); {how}; {LOST}")
    if kind == "path_hang":
        kato, timeout, tbkas = timers.s("keep_alive_timeout"), timers.s("io_timeout"), timers.traffic_based_keep_alive
        detection = keep_alive.detection(kato, tbkas)
        short = rule.nvme_short_hang(kato, timeout, outage, tbkas)
        if short is not None:  # the keep-alive may miss it: the run's may be as short as its earliest
            return Prediction(timeout, 0 if outage < detection.earliest else timeout - detection.earliest,
                              f"{short.rule}; {LOST}")
        stall = rule.nvme_controller_silent(kato, timeout, tbkas)
        found = stall.seconds or 0.0
        return _bounded(found + hold, detection.span if found < timeout else 0, f"{stall.rule}; {how}", outage)
    if kind in LINK_KINDS:  # a held I/O waits its hold out, whenever the path returns
        return Prediction(hold, 0, f"the transport sees the loss; {how}")
    # every path down: held while the controllers reconnect, every reconnect_delay from the loss,
    # until each has run out fast_io_fail_tmo or ctrl_loss_tmo from its loss
    delay, loss = timers.s("reconnect_delay"), timers.seconds.get("controller_loss_timeout")
    back = math.ceil(outage / delay) * delay if math.isfinite(outage * delay) and delay > 0 else outage
    if hold and hold >= back:
        return Prediction(hold, 0, f"{how}; a reconnect finds the paths back at {back:g} s, before it ends")
    after = f"{how}, then " if hold else ""
    gives_up = rule.nvme_all_paths_down(loss, timers.seconds.get("fast_io_fail_tmo"), delay if spdk else None)
    fails = max(hold, gives_up.seconds if gives_up.seconds is not None else math.inf)
    if fails < back:  # counted from the controllers' loss: a held I/O released after it fails at once
        return Prediction(fails, 0, f"{after}{gives_up.rule}, before a reconnect finds the paths back: the I/O fails")
    return Prediction(back, delay, f"{after}held until the first reconnect attempt (every reconnect_delay {delay:g} s) "
                                   f"after the paths return at {outage:g} s")


def _esxi(kind: str, timers: Timers, outage: float) -> Prediction:
    """ESXi; over a software iSCSI adapter (`timers.iscsi`) its session's NOP-Out and
    RecoveryTimeout decide the path's death, whose hold the paths' return cuts short."""
    if kind == "path_hang":
        timeout = timers.s("io_timeout")
        if timers.iscsi:
            interval = timers.s("noop_out_interval")
            stall = rule.esxi_iscsi_path_hang(interval, timers.s("noop_out_timeout"), timers.s("recovery_timeout"),
                                              timeout)
            found = stall.seconds or 0.0
            if found != timeout:
                return _bounded(found, interval, stall.rule, outage)
        return Prediction(timeout, 0, f"the I/O timeout {timeout:g} s ({rule.ESXI_IO_TIMEOUT.source}); {LOST}")
    if kind in LINK_KINDS:
        if timers.iscsi:
            recovery = timers.s("recovery_timeout")
            return _bounded(recovery, 0, rule.esxi_iscsi_link_down(recovery).rule, outage)
        return Prediction(0.0, 0, "the adapter sees the link go: retried on another path at once")
    if timers.seconds.get("apd_timeout", 0) is None:  # APD handling off
        return Prediction(outage, 0, f"retried in all-paths-down until the paths return after {outage:g} s "
                                     f"({rule.esxi_all_paths_down(None).rule})")
    apd = timers.s("apd_timeout")
    if apd < outage:
        return Prediction(apd, 0, f"{rule.esxi_all_paths_down(apd).rule}: the I/O fails")
    return Prediction(outage, 0, f"retried in all-paths-down until the paths return after {outage:g} s "
                                 f"(Misc.APDTimeout {apd:g} s)")


def _windows(kind: str, timers: Timers, outage: float) -> Prediction:
    """Windows MPIO (msdsm): RetryInterval before every retry, the disk timeout for a request on a
    path that stopped answering, PDORemovePeriod once no path is left."""
    interval = timers.s("retry_interval")
    if kind == "path_hang":
        period = timers.seconds.get("path_verification_period")
        stall = rule.mpio_path_hang(timers.s("io_timeout"), timers.s("retry_count"), interval, period)
        verified = period is not None and stall.rule.startswith("path verification")
        return Prediction(stall.seconds, period if verified and period else 0, f"{stall.rule}; {LOST}")
    if kind in LINK_KINDS:
        stall = rule.mpio_path_lost(interval)
        return _bounded(interval, 0, stall.rule, outage)
    # every path down: the pseudo-LUN's hold starts when a request first finds no path, at the
    # loss (new I/O) or after a held request's RetryInterval: within RetryInterval
    stall = rule.mpio_all_paths_down(timers.s("pdo_remove_period"), interval)
    found = stall.seconds or 0.0
    if found < outage:
        return Prediction(found, interval, f"{stall.rule}: the I/O fails")
    return Prediction(outage, 0, f"{stall.rule} outlasts the loss: the paths return after {outage:g} s and take "
                                 "what waits")
