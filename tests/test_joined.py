"""`importer.joined`: the small union-find the ESXi import joins port groups active-optimized
together with, and the Windows import joins disks that share a target into arrays with."""

from __future__ import annotations

from pathlab.importer.joined import Joined


def test_keys_that_share_a_join_are_one_block_under_the_root_joined_to() -> None:
    joined: Joined[int] = Joined()
    for key in (5, 1, 3, 4, 2):
        joined.add(key)
    joined.join(3, 1)  # 3's block under 1
    joined.join(4, 3)  # 4's under 3's root, 1
    joined.join(7, 2)  # 7 is added by the join
    assert joined.blocks() == {5: [5], 1: [1, 3, 4], 2: [2, 7]}
    assert [joined.root(k) for k in (4, 7, 5)] == [1, 2, 5]
    joined.join(1, 5)  # a block joined whole, and the keys keep the order they were added in
    assert joined.blocks() == {5: [5, 1, 3, 4], 2: [2, 7]}
