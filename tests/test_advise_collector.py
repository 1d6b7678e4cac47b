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
        count = gc.get_freeze_count()
        with given_frozen():
            made: list[list[int]] = [[]]
            assert gc.get_threshold() == before and not frozen(made)
        assert frozen(mine) and gc.get_freeze_count() == count
    finally:
        gc.unfreeze()
