"""The collector while a cluster's advice runs (`advisor/collector.py`): what was given frozen and
full passes rarer, then the collector as it was; a caller's own freeze left alone."""

import gc

from pathlab.advisor.collector import FULL_PASS_EVERY, given_frozen


def frozen(obj: object) -> bool:
    """Tracked, and in no generation the collector walks."""
    return gc.is_tracked(obj) and not any(o is obj for o in gc.get_objects())


def test_what_was_alive_is_frozen_while_it_runs_and_given_back_after() -> None:
    given: list[list[int]] = [[]]
    before = gc.get_threshold()
    with given_frozen():
        made: list[list[int]] = [[]]
        assert frozen(given) and not frozen(made)
        assert gc.get_threshold() == (*before[:2], max(before[2], FULL_PASS_EVERY))
    assert gc.get_freeze_count() == 0 and not frozen(given)
    assert gc.get_threshold() == before


def test_a_callers_own_freeze_is_left_as_it_is() -> None:
    mine: list[list[int]] = [[]]
    before = gc.get_threshold()
    gc.freeze()
    try:
        with given_frozen():
            made: list[list[int]] = [[]]
            assert gc.get_threshold() == before and not frozen(made)
        # Nothing given back (the caller's still frozen) and nothing more frozen. Not the freeze
        # count: a frozen object another thread lets go (pytest-xdist's own) lowers it meanwhile.
        assert frozen(mine) and not frozen(made) and gc.get_threshold() == before
    finally:
        gc.unfreeze()


def test_a_full_pass_ends_it_while_what_was_given_is_still_frozen() -> None:
    # The middle generation's passes counted while frozen would set off a full pass over everything
    # (the cluster given back) at the next allocations: one full pass is made before it is given back.
    frozen_in_full_passes: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            frozen_in_full_passes.append(gc.get_freeze_count())

    with given_frozen():
        for _ in range(20):
            gc.collect(1)  # each counts one pass of the middle generation towards a full one
        assert gc.get_count()[2] >= 20
        gc.callbacks.append(seen)
    gc.callbacks.remove(seen)
    assert gc.get_count()[2] == 0 and gc.get_freeze_count() == 0
    assert len(frozen_in_full_passes) == 1 and frozen_in_full_passes[0] > 0
