"""A cluster's pilots at its spans' ends, on a second thread beside the cluster's own pilot and
its setting in force's run.

An end's pilot needs nothing from the cluster's own but the candidates' devices, and only for
its length (`run_length.choose`); the setting in force's run needs the cluster's own length
alone. So the ends' pilots run on a thread of their own from the start: each end is loaded, run
and its alike devices found (`alike.classes`) while the cluster's pilot runs, and its length is
chosen once the candidates are known (`given`), for those simulated at the ends. The engine's load, build, run and finish let go
of the GIL, so the two threads' runs go side by side on two cores; their Python (a result made
into objects, the classes and the length) takes turns. An end's pilot not started by the time
its length is asked (`lengths`) is run by the asking thread. Each length is the one a pilot run
on its own gives (the same run, the same seed, the same rule): the advice is the same.

One end's pilot at a time on the second thread, as on the first: two results of 32 hosts × 500
devices × 8 paths are held at most (about 700 MiB each), and the freed heap is handed back after
each (`free_heap`). The second thread's runs report no progress (a terminal's live bar is one at
a time)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from pathlab.advisor import alike, run_length
from pathlab.advisor.candidate import Candidate, devices_at_ends
from pathlab.advisor.free_heap import free_heap
from pathlab.advisor.ranges import AtEnd
from pathlab.advisor.run_length import RunLength
from pathlab.devices import Device


class EndPilots:
    """The ends' pilots under way (`started`): `given` the candidates' devices, then `lengths`."""

    def __init__(self, at_ends: Sequence[AtEnd], full: RunLength) -> None:
        self._full = full
        self._pending = deque(enumerate(at_ends))
        self._lengths: list[RunLength | None] = [None] * len(at_ends)
        self._resolved: list[list[Device]] | None = None
        self._known = threading.Event()
        self._lock = threading.Lock()
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="pathlab end pilots", daemon=True)
        if at_ends:
            self._thread.start()

    def given(self, cands: list[Candidate], resolved: list[list[Device]]) -> None:
        """The candidates and their devices, as resolved on the cluster (a candidate's policies are the
        same at every end): an end's length is chosen for those simulated there (`candidate.at_ends`)."""
        self._resolved = devices_at_ends(cands, resolved)
        self._known.set()

    def lengths(self) -> list[RunLength]:
        """Each end's run length, in the ends' order: the ends not started yet run on this thread,
        then the second thread's last is waited for."""
        self._work()
        if self._thread.ident is not None:
            self._thread.join()
        if self._failed is not None:
            raise self._failed
        lengths = [length for length in self._lengths if length is not None]
        assert len(lengths) == len(self._lengths), "an end's pilot stopped before its length"
        return lengths

    def _stop(self) -> None:
        """No more ends started, and an end waiting for the candidates let go (the advice ended early)."""
        with self._lock:
            self._pending.clear()
        self._known.set()

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._pending or self._failed is not None:
                    return
                i, end = self._pending.popleft()
            try:
                self._lengths[i] = self._length(end)
            except BaseException as e:  # raised where the lengths are asked
                self._failed = e
                return

    def _length(self, end: AtEnd) -> RunLength | None:
        pilot, run = run_length.pilot_run(end)
        classes = alike.classes(pilot, run)
        self._known.wait()
        if self._resolved is None:  # stopped
            return None
        full = self._full
        length = run_length.choose(run, full.duration_s, full.warmup_s, classes, self._resolved, per_host=True)
        del run, pilot
        free_heap()  # the pilot's freed memory back to the system before the next
        return length


@contextmanager
def started(at_ends: Sequence[AtEnd], full: RunLength) -> Iterator[EndPilots]:
    """The ends' pilots started on their thread (none where there are no ends), stopped if the
    advice leaves before their lengths are asked, and the pilot under way waited for: no run goes
    on behind an advice that has ended (an error's, or a test's next)."""
    pilots = EndPilots(at_ends, full)
    try:
        yield pilots
    finally:
        pilots._stop()
        if pilots._thread.ident is not None:
            pilots._thread.join()
