"""Values every importer writes the same way: the size of an I/O from a capture's byte and I/O
rates, as a scenario writes it."""

from __future__ import annotations


def io_size(bytes_per_s: float, ios_per_s: float, default: int = 4096) -> int:
    """Bytes per I/O rounded to whole 512-byte sectors (at least one)."""
    if ios_per_s <= 0:
        return default
    return max(512, round(bytes_per_s / ios_per_s / 512) * 512)


def size_text(size: int) -> str:
    """`8KiB`, or `1536B` when not whole KiB."""
    return f"{size // 1024}KiB" if size % 1024 == 0 else f"{size}B"
