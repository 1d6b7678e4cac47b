"""Keys joined into blocks where they share something (a small union-find): the ESXi import's
controller of the port groups a device shows active-optimized together
(`esxi_optimized_together`), the Windows import's arrays of the disks that reach a common
target (`mpio`)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Joined(Generic[K]):
    """Each key's block, by the key that stands for it (its root). Keys are kept in the order they
    were added, and a join puts the first key's block under the second's root."""

    def __init__(self) -> None:
        self._parent: dict[K, K] = {}

    def add(self, key: K) -> None:
        self._parent.setdefault(key, key)

    def join(self, key: K, to: K) -> None:
        """`key`'s block into `to`'s (both added where they are not yet)."""
        self.add(key)
        self.add(to)
        self._parent[self.root(key)] = self.root(to)

    def root(self, key: K) -> K:
        while self._parent[key] != key:
            key = self._parent[key]
        return key

    def blocks(self) -> dict[K, list[K]]:
        """Each block's keys, by its root, in the order the keys were added."""
        out: dict[K, list[K]] = {}
        for key in self._parent:
            out.setdefault(self.root(key), []).append(key)
        return out
