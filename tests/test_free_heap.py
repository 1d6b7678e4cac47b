"""A cluster's runs' freed memory handed back between them (`advisor/free_heap.py`)."""

from __future__ import annotations

import ctypes
import sys

import pytest

from pathlab.advisor.free_heap import _libc, free_heap


def _resident_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux") or _libc() is None, reason="glibc's malloc_trim")
def test_memory_freed_in_the_middle_of_the_heap_leaves_the_resident_set_once_handed_back() -> None:
    # 160 blocks of 1 MiB, each under a block of 3 MiB allocated after it (too large for any hole
    # below): freed, the small ones stay resident (none is at the heap's top), as a finished run's
    # memory stayed under the next runs.
    libc = _libc()
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    libc.mallopt(-3, 4 * 2**20)  # M_MMAP_THRESHOLD above the blocks: they come from the heap, as small ones do
    blocks = [(libc.malloc(2**20), libc.malloc(3 * 2**20)) for _ in range(160)]
    for b, _ in blocks:
        ctypes.memset(b, 1, 2**20)
    for b, _ in blocks:
        libc.free(b)
    held = _resident_mib()
    free_heap()
    assert held - _resident_mib() >= 100
    for _, pin in blocks:
        libc.free(pin)
