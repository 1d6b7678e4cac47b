"""A cluster's own pilot: its pilot run, the candidates read off it, their devices as the engine
resolves them and the run length (`pilot_of`), started on a second thread while the capture fit
runs, for the fitted values the fit expects to end with (`Ahead`).

Every step after the fit starts from the fitted scenario; the fit's runs follow each other on one
core. The values the fit starts from (each workload's load by Little's law, the arrays as the
scenario has them) are known before its first run, and where that run agrees with the captures
they are its result (32 hosts × 500 devices × 8 paths: one fitting run). So the fitted scenario
is loaded and its own pilot taken on a thread of their own as the fit starts, beside the fit's
runs. Where the fit ends with the values expected, the advice takes the thread's scenario and
pilot: the same load, the same run at the same seed, the same rule, so the same advice; where it
ends with others, or where its values do not reproduce the captures, the thread stops after its
step under way, is waited for and what it did let go (the advice loads and runs them again for the
values fitted). The engine's load, build, run and finish let
go of the GIL: the thread's runs go beside the fit's on two cores, their Python taking turns.

The thread's pilot reports no progress (a terminal's live bar is the fit's), as the ends' pilots
(`end_pilots`); its whole result is let go once the length is read, as the main thread's was."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from pathlab.advisor import alike, run_length
from pathlab.advisor.candidates import Candidate, candidates
from pathlab.advisor.run_length import RunLength
from pathlab.api import Result, Scenario
from pathlab.devices import Device
from pathlab.importer.imported import Undetermined
from pathlab.progress import Progress

#: The own pilot's outcome: the cluster's run length, the candidates, and their devices as resolved.
Pilot = tuple[RunLength, list[Candidate], list[list[Device]]]


class Stopped(Exception):
    """A pilot let go between its steps (`pilot_of`'s `stopped`)."""


def pilot_of(scenario: Scenario, full: RunLength, progress: Progress | None, undetermined: Sequence[Undetermined],
             per_host: bool, candidates_known: Callable[[list[Candidate], list[list[Device]]], None] | None = None,
             stopped: threading.Event | None = None) -> Pilot:
    """The scenario's pilot run of the setting in force, the candidates from it, each candidate's
    devices resolved once (given to `candidates_known` as soon as they are) and the run length
    (`run_length.choose`, for the policies of every candidate; `per_host` for a cluster's).
    `stopped`: once set, `Stopped` is raised after the step under way (a run, a candidate's devices)."""

    def going() -> None:
        if stopped is not None and stopped.is_set():
            raise Stopped

    pilot, run = run_length.pilot_run(scenario, progress)  # the candidates read no more than the length does
    going()
    cands, resolved = resolved_candidates(scenario, run, undetermined, going)
    if candidates_known is not None:
        candidates_known(cands, resolved)
    return run_length.choose(run, full.duration_s, full.warmup_s, alike.classes(pilot, run), resolved, per_host), \
        cands, resolved


def resolved_candidates(scenario: Scenario, pilot: Result, undetermined: Sequence[Undetermined],
                        going: Callable[[], None] = lambda: None) -> tuple[list[Candidate], list[list[Device]]]:
    """The candidates from the scenario's pilot run, and each one's devices as the engine resolves
    them (the setting in force's: the pilot's), `going` called after each."""
    cands = candidates(scenario, pilot, undetermined)
    # A candidate's policies are the same at every end (an end sets a port's service, an array's latency or a load).
    resolved = [pilot.setups]
    for c in cands[1:]:
        resolved.append(scenario.with_set(c.overrides, to_run=True).devices)
        going()
    return cands, resolved


class Ahead:
    """The fitted scenario loaded and its own pilot taken on a thread (once `start`ed with the
    values the fit expects), for the advice to take where the fit ends with those values."""

    def __init__(self, base: Scenario, full: RunLength, undetermined: Sequence[Undetermined]) -> None:
        self._base = base
        self._full = full
        self._undetermined = list(undetermined)
        self._expected: list[tuple[str, int | str]] | None = None
        self._fitted: Scenario | None = None
        self._pilot: Pilot | None = None
        self._failed: BaseException | None = None
        self._stopped = threading.Event()
        self._loaded = threading.Event()
        self._thread = threading.Thread(target=self._work, name="pathlab own pilot", daemon=True)

    def start(self, expected: Mapping[str, int | str]) -> None:
        """The fit starts from `expected` (its values as overrides, in its order): load and pilot them."""
        self._expected = list(expected.items())
        self._thread.start()

    def fitted_for(self, fitted: Mapping[str, int | str]) -> Scenario | None:
        """The base with `fitted` set, loaded on the thread, where those are the values expected
        (the same overrides in the same order: the same scenario); else None, the thread stopped."""
        if self._expected is None or list(fitted.items()) != self._expected:
            self.stop()
            return None
        self._loaded.wait()
        if self._failed is not None:
            raise self._failed
        return self._fitted

    def pilot_for(self, scenario: Scenario, full: RunLength) -> Pilot | None:
        """The own pilot of `scenario` at `full` length, where they are those the thread took
        (`fitted_for` gave the scenario); else None, the thread stopped."""
        if self._fitted is None or scenario is not self._fitted or full != self._full:
            self.stop()
            return None
        self._thread.join()
        if self._failed is not None:
            raise self._failed
        return self._pilot

    def stop(self) -> None:
        """Nothing more done on the thread: the step under way ends, the thread is waited for and
        what it did let go, before the advice loads and runs its own (two pilot-sized results held
        at most, as `end_pilots` holds them)."""
        self._stopped.set()
        if self._thread.ident is not None:
            self._thread.join()
        self._pilot = None

    def _work(self) -> None:
        try:
            assert self._expected is not None
            self._fitted = self._base.with_set(dict(self._expected), to_run=True)  # as the advice loads it after the fit
            self._loaded.set()
            pilot = pilot_of(self._fitted, self._full, None, self._undetermined, True, stopped=self._stopped)
            if not self._stopped.is_set():  # else let go (`stop`)
                self._pilot = pilot
        except Stopped:
            pass
        except BaseException as e:  # raised where the scenario or the pilot is asked
            self._failed = e
        finally:
            self._loaded.set()


@contextmanager
def ahead(base: Scenario, full: RunLength, undetermined: Sequence[Undetermined]) -> Iterator[Ahead]:
    """An `Ahead` of the fit of `base` (started by the fit, `fit_to_capture`'s `expected`), stopped
    as the advice leaves: no run goes on behind an advice that has ended (an error's, or a test's next)."""
    taken = Ahead(base, full, undetermined)
    try:
        yield taken
    finally:
        taken.stop()
