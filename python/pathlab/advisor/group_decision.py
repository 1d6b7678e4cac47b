"""Whether a group of a cluster's hosts gets a setting of its own, decided as the cluster's choice
is: a group's own choice (`host_groups.group_choice`, on its hosts' figures from the cluster's
runs) is named only where it clears the cluster's choice on those figures, by the margin and
beyond both 95% intervals (`decide.beats`); else the group takes the cluster's. The setting per
group that follows (`group_candidate.by_group`) is recommended only where it clears, on the whole
cluster's figures, the one setting for every host it would replace."""

from __future__ import annotations

from pathlab.advisor.decide import MARGIN, Decision, beats, said
from pathlab.advisor.host_groups import HostGroup, group_choice
from pathlab.advisor.ranked import Ranked


def own_choice(ranked: list[Ranked], group: HostGroup, chosen: Ranked, objective: str) -> Ranked:
    """The candidate of `ranked` (the cluster's, the setting in force first) the group takes:
    its own choice where that clears `chosen` (the cluster's choice, or the setting in force) on
    the group's figures, else `chosen`."""
    own, on_group = group_choice(ranked, group, objective)
    mine = ranked[on_group.index(own)] if own is not None else ranked[0]
    if mine is chosen or beats(own or on_group[0], on_group[ranked.index(chosen)], objective):
        return mine
    return chosen


def per_group_decision(decision: Decision, per_group: Ranked, in_force: Ranked, objective: str) -> Decision:
    """The cluster's decision once the setting per group is simulated: that setting where it
    clears the one it would replace (the cluster's choice, or the setting in force kept), else
    `decision` as it was."""
    replaced = decision.choice or in_force
    gained = beats(per_group, replaced, objective)
    if not gained:
        return decision
    whose = "the setting in force" if decision.choice is None else f"one setting for every host ({replaced.candidate.label})"
    return Decision(per_group, f"it beats {whose} by more than {MARGIN:.0%} on {said(gained)}, beyond the 95% intervals")
