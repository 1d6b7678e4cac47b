"""Freed memory handed back to the system between a cluster's runs. The engine allocates through
the C library's malloc, on the threads that run it: glibc keeps what a finished run frees resident
in those threads' arenas, for the next allocation. On 32 hosts × 500 devices × 8 paths two runs
at once left 640 MiB resident that `malloc_trim(0)` gave back (2,583 → 1,944 MiB, session 19),
and the capture fit and the pilots left theirs under the ranking's peak."""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache
from typing import Any


@cache
def _libc() -> Any:
    """glibc, where this process has it (None elsewhere: musl, macOS and Windows have no malloc_trim)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def free_heap() -> None:
    """Hands the free pages of every malloc arena back to the system (glibc's `malloc_trim(0)`);
    nothing where the C library has no such call."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
