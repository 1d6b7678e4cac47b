"""A kind of input `pathlab import` and `advise` read (`kinds.py` lists them): the command whose
output it is, how it is recognised, its reader, what it gives the host's scenario, and the host
stacks it describes. Each stack's module takes the inputs given as {file: Kind}."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Kind:
    name: str
    #: The command whose output it is.
    command: str
    #: Whether a file's first `kinds.HEAD_BYTES` (as text) are this kind.
    recognise: Callable[[str], bool]
    #: The file read into tables.
    read: Callable[[str], Any]
    #: What it gives the host's scenario.
    contributes: str
    #: The host stacks it describes: esxi, linux (dm-multipath), nvme (native NVMe multipath).
    stacks: tuple[str, ...]
    #: Whether a host may give several files of it (one per adapter or option, each naming its own).
    repeatable: bool = False
