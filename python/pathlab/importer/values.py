"""Values every importer writes the same way: the size of an I/O from a capture's byte and I/O
rates, as a scenario writes it, and what an importer assumes of every array it writes."""

from __future__ import annotations


def io_size(bytes_per_s: float, ios_per_s: float, default: int = 4096) -> int:
    """Bytes per I/O rounded to whole 512-byte sectors (at least one)."""
    if ios_per_s <= 0:
        return default
    return max(512, round(bytes_per_s / ios_per_s / 512) * 512)


def size_text(size: int) -> str:
    """`8KiB`, or `1536B` when not whole KiB."""
    return f"{size // 1024}KiB" if size % 1024 == 0 else f"{size}B"


def zero_load_assumed(array: str) -> tuple[str, str]:
    """The warning of an array whose time beyond its ports' service at low load no capture gave:
    none is written, so none is simulated, and the prediction rests on it (advise's gain ranges
    span 0-0.3 ms of it: `advise.ranges`)."""
    return (f"arrays.{array}.read_latency", "the array's time beyond its ports' service at low load is not in the "
                                            "captures: none assumed")
