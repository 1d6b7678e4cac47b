"""Worker processes that end with the process that started them: a sweep's runs
(`study/sweep.py`) and a cluster's hosts imported on every core (`importer/cluster.py`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Whether this process is a worker `in_order` started: its state (the collector's, say) is then
#: pathlab's to set, where a caller's own process (whatever started it) is not.
_in_worker = False


def in_worker() -> bool:
    """Whether this process is one of `in_order`'s workers."""
    return _in_worker


def cores() -> int:
    """The cores this process may run on (its affinity where the system says it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def in_order(work: Callable[[T], R], items: Sequence[T], workers: int) -> Iterator[R]:
    """`work` of each item, on up to `workers` processes, yielded in the items' order (an error is
    raised at its item's place, after the items before it); whatever ends the caller ends the
    workers with it. One worker, or one item, runs here: no process is started."""
    if workers <= 1 or len(items) <= 1:
        yield from map(work, items)
        return
    import multiprocessing

    pool = multiprocessing.Pool(min(workers, len(items)), initializer=_worker_started, initargs=(os.getpid(),))
    try:
        yield from pool.imap(work, items)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _worker_started(parent: int) -> None:
    """An `in_order` worker's start: it says it is one (`in_worker`) and ends with its parent."""
    global _in_worker
    _in_worker = True
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """In a worker: end when the process that started it ends, however it ends (SIGKILL
    included). Linux does it for us (PR_SET_PDEATHSIG); elsewhere a thread watches for the
    parent to change."""
    import signal

    # Ctrl-C reaches every process of the terminal: the parent itself ends its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent ended before the line above took effect
        os._exit(1)
