"""How long after an NVMe controller stops answering Linux's keep-alive finds it: the engine's
rule (`crates/pathlab-sim/src/model/keep_alive.rs`, after the kernel's
`drivers/nvme/host/core.c` `nvme_keep_alive_work`), so that advise predicts what `run` simulates.

Without traffic-based keep-alive (TBKAS) a keep-alive goes out every KATO/2 and one unanswered
for KATO fails the controller: found KATO to 1.5 × KATO after the loss. Where the controller
advertises TBKAS (Identify Controller CTRATT bit 6), Linux checks every KATO/4 and sends none at a
check that saw completions of commands sent since the one before: under steady I/O the check
after the loss still saw some, so the next one sends it, found 1.25 to 1.5 × KATO after the loss
(1 to 1.25 × KATO on an idle connection)."""

from __future__ import annotations

from dataclasses import dataclass

from pathlab import _core

#: Where the rule comes from.
SOURCE = "Linux drivers/nvme/host/core.c nvme_keep_alive_work_period (KATO/2; KATO/4 with TBKAS, commit ea4d453b9ec9, " \
         "6.4), nvme_keep_alive_work (no keep-alive where comp_seen under TBKAS; rq->timeout = ctrl->kato * HZ), " \
         "nvme_complete_rq (comp_seen for a command started since the last check, commit 774a96365147)"


@dataclass(frozen=True)
class Detection:
    """The earliest and latest time after the loss at which the keep-alive times out, over where
    the loss falls on its grid (seconds)."""

    earliest: float
    latest: float

    @property
    def span(self) -> float:
        return self.latest - self.earliest


def detection(kato: float, traffic_based: bool, traffic: bool = True) -> Detection:
    """When a controller silent from some moment is found, KATO `kato` seconds; `traffic`: the
    connection completes commands all the time (a stall needs I/O in flight: the usual case)."""
    earliest, latest = _core.keep_alive_detection_ns(round(kato * 1e9), traffic_based, traffic)
    return Detection(earliest / 1e9, latest / 1e9)
