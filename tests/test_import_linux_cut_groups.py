"""`pathlab import` of a `multipath -ll` listing that a paste cut inside a map's second path group:
where what is left shows the map with one group, that is no one-group map read. Its grouping
(multibus) and the array's symmetry are assumed, each said with the file and the line the
listing ends at, never derived as if the listing showed the whole map.

The listing is written by multipath-tools' own grammar (`generated_multipath.tree` and
`brackets`: print.c's `snprint_multipath_topology` of 0.4.9 on, and 0.4.8's), not copied from a
sample, and cut at every character of each line of the map's second group, and after each of its
lines (`head -N`): 0.4.9's tree draws `|-+- ` before a group with another after it, `|- ` before a
path with another after it in its group and `| ` before the paths of a group that is not the last,
so a listing that ends on one of those ends inside the map; 0.4.8's `\\_ ` is drawn alike before
every group and path, so only a cut inside a line shows there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import one_error_line, pathlab, quiet
from generated_multipath import Group, Map, brackets, tree
from generated_multipath import Path as Listed
from pathlab.api import ScenarioError
from pathlab.importer import import_files
from pathlab.importer.provenance import Assumed, Derived
from pathlab.linux_names import sd_dev_t, sd_name
from pathlab.readers import multipath_ll

WWID = "3600a098038303053453f463045556f31"


def two_group_map() -> Map:
    """One map of two groups of two paths, through SCSI hosts 3 and 4: the optimized group (alua.c's
    50) to targets 0, the non-optimized one (10) to targets 1."""
    up = ("active", "ready", "running")

    def path(host: int, target: int, disk: int) -> Listed:
        return Listed(f"{host}:0:{target}:1", sd_name(disk), sd_dev_t(disk), up)

    return Map("mpatha", WWID, "dm-0", "NETAPP", "LUN C-Mode", "10G", "0", "1 alua", "rw",
               [Group("service-time 0", 50, "active", [path(3, 0, 1), path(4, 0, 2)]),
                Group("service-time 0", 10, "enabled", [path(3, 1, 3), path(4, 1, 4)])])


def _cuts(text: str) -> list[tuple[int, str, bool]]:
    """The listing of `two_group_map` cut after each character of each line of its second group (its
    header, line 6, and its paths), each with the line it ends at (the last that is not blank: a
    path line cut after the blank under the last group's branch ends the listing on the line
    before) and whether that line is whole (in 0.4.8's brackets nothing then tells the cut from the
    end of a listing; in the tree only the last line, the whole listing, ends the map)."""
    lines = text.splitlines()
    return [(i + 1 if lines[i][:end].strip() else i, "\n".join([*lines[:i], lines[i][:end]]) + "\n",
             end == len(lines[i]) or not lines[i][:end].strip())
            for i in range(5, len(lines)) for end in range(1, len(lines[i]) + 1)]


def _imported(path: Path) -> Any:
    with quiet():
        return import_files([str(path)])


def _entry(done: Any, table: str, key: str) -> Any:
    (found,) = [t.find(key) for t in done.tables.of(table)]
    return found


@pytest.mark.parametrize("write", [tree, brackets], ids=["tree", "brackets"])
def test_a_map_cut_after_its_first_group_is_no_one_group_map_read(tmp_path: Path, write: Any) -> None:
    listing = tmp_path / "mp.txt"
    one_group = two_groups = 0
    whole = write([two_group_map()])
    for line, text, at_line_end in _cuts(whole):
        listing.write_text(text)
        read = multipath_ll.read(listing)
        # every cut inside a line is seen, at the line the listing ends on (a path's online state
        # cut short too: `ru` of `running`); in the tree every cut at a line's end too, by its branches
        cut = read["maps"]["cut"][0]
        if text == whole:
            assert pd.isna(cut), text
        else:
            assert (at_line_end and write is brackets) or (not pd.isna(cut) and cut == line), text
        groups = set(read["paths"]["group"])
        done = _imported(listing)
        said = dict(done.warnings)
        policy = _entry(done, "devices", "policy")
        symmetric = _entry(done, "arrays", "symmetric")
        where = f"{listing}, line {line}"
        if groups == {1}:  # the second group's header, or it without a whole path
            one_group += 1
            # the cut is seen where the listing ends, and what rests on the one group is assumed
            assert read["maps"]["cut"][0] == line, text
            grouping = policy.source_of("path_grouping_policy")
            assert (policy.value["path_grouping_policy"], type(grouping)) == ("multibus", Assumed), text
            assert grouping.why.startswith(f"{where} (map at line 1): the listing ends inside the map after the one "
                                           "group it shows"), grouping.why
            assert said[f"devices.{WWID}.policy.path_grouping_policy"].startswith(grouping.why)
            assert [u.setting for u in done.undetermined] == ["path_grouping_policy"]
            assert (symmetric.value, type(symmetric.source)) == (True, Assumed), text
            assert said["arrays.NETAPP.symmetric"] == symmetric.source.why
            assert symmetric.source.why.startswith(f"{where} (map mpatha at line 1): the listing ends inside the "
                                                   "array's map after the one group it shows"), symmetric.source.why
        else:  # the second group shows a path: the groups apart are read, the owner's from the others
            two_groups += 1
            assert groups == {1, 2}, text
            assert (policy.value["path_grouping_policy"], type(policy.source_of("path_grouping_policy"))) == \
                ("group_by_prio", Derived), text
            assert (symmetric.value, type(symmetric.source)) == (False, Derived), text
            assert "arrays.NETAPP.symmetric" not in said
    # every cut of the header leaves one group, and so do the first path's short of its states
    assert one_group > len(whole.splitlines()[5]) and two_groups > 0, (one_group, two_groups)


@pytest.mark.parametrize("lines", [4, 5, 6, 7, 8])
def test_a_tree_listing_cut_at_a_line_s_end_ends_inside_the_map_by_its_branches(tmp_path: Path, lines: int) -> None:
    """`head -N` of the tree, after the first group's `|-+- ` (a group after it): 4 `| |- ` (a path after it), 5
    `` | `- `` (the group's last path, under the `|` down to the next group), 6 `` `-+- `` (no path
    yet), 7 `|- ` under the last group's blank (a path after it): each ends inside the map, at that
    line; only 8, the last group's `` `- ``, ends it. Cut within the first group, the map's one group
    is not read as the map's grouping (assumed multibus, with the line); cut within the second, the
    groups apart are read."""
    whole = tree([two_group_map()])
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join(whole.splitlines()[:lines]) + "\n")
    read = multipath_ll.read(listing)
    cut = read["maps"]["cut"][0]
    assert (None if pd.isna(cut) else int(cut)) == (None if lines == 8 else lines)
    done = _imported(listing)
    grouping = _entry(done, "devices", "policy").source_of("path_grouping_policy")
    if lines <= 6:
        assert type(grouping) is Assumed and grouping.why.startswith(
            f"{listing}, line {lines} (map at line 1): the listing ends inside the map after the one group it shows"), grouping
    else:
        assert type(grouping) is Derived and "group_by_prio" in grouping.rule, grouping


def test_a_cut_map_beside_a_whole_one_of_the_array_says_the_whole_one(tmp_path: Path) -> None:
    """Another map of the array, listed whole with one group, is what says the array symmetric: the
    rule names its line, not the cut map's."""
    whole = two_group_map()
    whole.groups = whole.groups[:1]
    whole.name, whole.wwid, whole.dm = "mpathb", WWID[:-2] + "32", "dm-1"
    for group in whole.groups:
        for p in group.paths:
            p.hctl = p.hctl[:-1] + "2"
    text = tree([whole, two_group_map()])
    cut_line = len(text.splitlines()) - 2  # the cut map's second group's header
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join(text.splitlines()[:cut_line - 1] + ["`-+- pol"]) + "\n")
    done = _imported(listing)
    symmetric = _entry(done, "arrays", "symmetric")
    assert (symmetric.value, type(symmetric.source)) == (True, Derived)
    assert "no map of the array parts its owner's paths from the others (map at line 1: one group" in symmetric.source.rule
    assert "arrays.NETAPP.symmetric" not in dict(done.warnings)
    cut = next(d for d in done.tables.of("devices") if d.find("name").value == WWID).find("policy")
    assert type(cut.source_of("path_grouping_policy")) is Assumed


def _second_map(product: str = "LUN C-Mode") -> Map:
    """`two_group_map` as another LUN (mpathb, LUN 2) of the array, whole, of the given product."""
    other = two_group_map()
    other.name, other.wwid, other.dm, other.product = "mpathb", WWID[:-2] + "32", "dm-1", product
    for group in other.groups:
        for p in group.paths:
            p.hctl = p.hctl[:-1] + "2"
    return other


@pytest.mark.parametrize("product", ["LUN C-Mode", "LUN"])
def test_a_cut_map_beside_a_whole_one_of_its_model_takes_that_one_s_grouping(tmp_path: Path, product: str) -> None:
    """mpathb, whole, parts its groups by priority (group_by_prio read); mpatha after it is cut
    after its first group. Of the same vendor and product (multipath.conf's device section and the
    hardware table set one grouping for both), mpatha's grouping is assumed group_by_prio naming
    mpathb and its line; of another product, nothing says it: multibus, the one group listed,
    assumed as before."""
    lines = tree([_second_map(product), two_group_map()]).splitlines()
    cut_line = len(lines) - 2  # mpatha's second group's header
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join(lines[:cut_line - 1]) + "\n")
    done = _imported(listing)
    cut = next(d for d in done.tables.of("devices") if d.find("name").value == WWID).find("policy")
    grouping = cut.source_of("path_grouping_policy")
    where = f"{listing}, line {cut_line - 1} (map at line 9): the listing ends inside the map after the one group it shows"
    assert type(grouping) is Assumed and grouping.why.startswith(where), grouping
    if product == "LUN C-Mode":
        assert cut.value["path_grouping_policy"] == "group_by_prio"
        assert "simulated as group_by_prio, the grouping map mpathb (line 1) of the same vendor and product reads" \
            in grouping.why, grouping.why
    else:
        assert cut.value["path_grouping_policy"] == "multibus"
        assert "mpathb" not in grouping.why and grouping.why.endswith("simulated as the one group listed (multibus), "
                                                                      "assumed"), grouping.why
    assert dict(done.warnings)[f"devices.{WWID}.policy.path_grouping_policy"].startswith(grouping.why)


@pytest.mark.parametrize(("write", "kept"), [(tree, ""), (tree, " wp=r"), (brackets, "")],
                         ids=["tree-no-wp", "tree-wp=r", "brackets-no-rw"])
def test_a_last_map_whose_properties_line_is_cut_short_is_cut_not_a_map_without_paths(tmp_path: Path, write: Any,
                                                                                       kept: str) -> None:
    """mpathb whole, then mpatha's header and its properties line without the write permission
    mpathb's shows (` wp=rw` or 0.4.8's `[rw]` gone, or ` wp=rw` cut to ` wp=r`): the listing ends
    inside mpatha there, which is not a map whose paths are gone (header and whole properties, no
    group), so it is left out as cut, not warned as a map with no path."""
    lines = write([_second_map(), two_group_map()]).splitlines()
    props = len(lines) - 6  # mpatha's properties line (two groups of two paths after it)
    wp = " wp=rw" if write is tree else "[rw]"
    assert lines[props - 1].endswith(wp)
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join([*lines[:props - 1], lines[props - 1].removesuffix(wp) + kept]) + "\n")
    read = multipath_ll.read(listing)
    assert list(read["maps"]["cut"].fillna(0)) == [0, props], listing.read_text()
    said = dict(_imported(listing).warnings)
    assert said["maps.mpatha"] == f"{listing}, line {props}: the listing ends inside map mpatha: no path listed, left " \
                                  "out of the scenario"
    listing.write_text("\n".join(lines[:props]) + "\n")  # the whole properties line: a map without paths
    assert pd.isna(multipath_ll.read(listing)["maps"]["cut"][1])


@pytest.mark.parametrize("last", ["| |- 3:0:0:1 sdb 8:16 act", "| |- 3:0:0:1 sdb 8:16 ", None])
def test_a_listing_that_ends_inside_its_one_map_before_any_whole_path_says_so(tmp_path: Path, last: str | None) -> None:
    """The first path cut inside its states (or after its major:minor), or no path after the first
    group's line: nothing whole to read, refused in one line that says where the listing ends, not
    the parser's view of the cut line (`expected … after 8:16, found 'act'`) nor 'no path group'."""
    lines = tree([two_group_map()]).splitlines()
    assert lines[3].startswith(last or "| |- 3:0:0:1 sdb 8:16 active ready running")
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join([*lines[:3], *([last] if last else [])]) + "\n")
    said = one_error_line(pathlab("import", str(listing)))
    assert said.endswith("the listing ends inside map mpatha (line 4) before any whole path: nothing of it to read; "
                         "give the whole `multipath -ll` (a paste cut short?)" if last else
                         "no map with SCSI paths (H:C:T:L) to import: mpatha (line 1): the listing ends inside it "
                         "(line 3) before any whole path"), said
    assert str(listing) in said


def test_without_a_handler_the_array_s_tpgs_is_assumed_too(tmp_path: Path) -> None:
    """No hardware handler: only groups apart would say the array answers for TPGS (ALUA), so a map
    cut after its first group leaves `tpgs = false` assumed, with the cut's line, as `symmetric`."""
    bare = two_group_map()
    bare.hwhandler = "0"
    lines = tree([bare]).splitlines()
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join([*lines[:5], "`-+- policy='service-t"]) + "\n")
    done = _imported(listing)
    tpgs, symmetric = _entry(done, "arrays", "tpgs"), _entry(done, "arrays", "symmetric")
    assert (tpgs.value, type(tpgs.source), symmetric.value, type(symmetric.source)) == (False, Assumed, True, Assumed)
    assert tpgs.source.why.startswith(f"{listing}, line 6 (map mpatha at line 1): the listing ends inside")


def test_a_cluster_host_cut_after_one_group_is_not_read_against_a_host_that_shows_the_owner(tmp_path: Path) -> None:
    """Host a's listing ends inside the map after its first group, host b's shows both groups: a's
    symmetry is an assumption, not a reading set against b's (the refusal of two readings apart),
    and the refusal names a's cut."""
    import pathlab

    whole = tree([two_group_map()])
    (tmp_path / "b.txt").write_text(whole)
    (tmp_path / "a.txt").write_text("\n".join([*whole.splitlines()[:5], "`-+- pol"]) + "\n")
    with quiet(), pytest.raises(ScenarioError) as refused:
        pathlab.import_cluster({"a": [str(tmp_path / "a.txt")], "b": [str(tmp_path / "b.txt")]})
    file, field, message = refused.value.args
    assert (file, field) == (str(tmp_path / "a.txt"), "ports")
    assert message.startswith("a reach array NETAPP through ports without a controller, other hosts through its "
                              f"controllers' ports (a's symmetric is assumed: {tmp_path / 'a.txt'}, line 6 (map mpatha "
                              "at line 1): the listing ends inside the array's map after the one group it shows")


@pytest.mark.parametrize("first_prio", [50, 130, 10])
def test_a_cut_map_on_an_owned_array_gets_its_one_group_s_controller_as_owner(tmp_path: Path, first_prio: int) -> None:
    """mpathb whole shows the owner A (its prio-50 group through targets 0) and B (targets 1); mpatha
    after it is cut after its first group, whose paths go through targets 1: controller B. At
    alua.c's optimized priority (50; 130 a preferred optimized path's) that group is the owner's
    (group_by_prio prints the best group first): owner B, derived, naming the group's line; at
    another (10, non-optimized) the owner's group may follow the cut: B assumed and warned, with
    the line the listing ends at. Without the rule the map gets no owner and the engine runs its
    paths as A's."""
    cut = two_group_map()
    cut.groups.reverse()
    cut.groups[0].prio, cut.groups[1].prio = first_prio, 10 if first_prio != 10 else 50
    cut.groups[0].status, cut.groups[1].status = "active", "enabled"
    lines = tree([_second_map(), cut]).splitlines()
    assert lines[10].startswith("|-+- policy='service-time 0' prio=") and lines[11].endswith("3:0:1:1 sdd 8:48 active ready running")
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join(lines[:13]) + "\n")  # mpatha's first group and its two paths
    done = _imported(listing)
    owner = next(d for d in done.tables.of("devices") if d.find("name").value == WWID).find("owner")
    ports = {p["name"]: p["controller"] for p in _entry(done, "arrays", "ports").value}
    assert ports == {"H3T0": "A", "H4T0": "A", "H3T1": "B", "H4T1": "B"}, ports
    said = dict(done.warnings)
    assert owner.value == "B"
    if first_prio != 10:
        assert type(owner.source) is Derived, owner.source
        assert owner.source.rule.startswith(f"{listing}: the controller of its one group's paths (line 11, "
                                            f"prio={first_prio}: alua.c's optimized), though the listing ends inside "
                                            "the map (line 13): group_by_prio prints the best group first"), owner.source
        assert f"devices.{WWID}.owner" not in said
    else:
        assert type(owner.source) is Assumed, owner.source
        assert owner.source.why.startswith(f"{listing}, line 13 (map at line 9): the listing ends inside the map after "
                                           "the one group it shows (line 11), whose prio=10 is no optimized one"), owner.source
        assert said[f"devices.{WWID}.owner"] == owner.source.why


@pytest.mark.parametrize("kept", ["i/o pending", "i/o pending ", "i/o", "i/o p", None])
def test_a_path_line_cut_inside_a_two_word_checker_state_is_a_fragment(tmp_path: Path, kept: str | None) -> None:
    """The map's last path in checker state `i/o pending`: print.c prints the online state after it
    (`active i/o pending running`), so its line cut after `i/o pending`, `i/o` or `i/o p` is a
    fragment: the listing ends inside the map there, and the path is not read (before, `active i/o
    pending` read as checker `i/o`, online `pending`, a whole path). Whole, it is read."""
    listed = two_group_map()
    listed.groups[1].paths[1].states = ("active", "i/o pending", "running")
    lines = tree([listed]).splitlines()
    last = lines[7]
    assert last.endswith("8:64 active i/o pending running"), last
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join([*lines[:7], last if kept is None else last[:last.index("i/o") + len(kept)]]) + "\n")
    read = multipath_ll.read(listing)
    cut, paths = read["maps"]["cut"][0], read["paths"]
    if kept is None:
        assert pd.isna(cut) and len(paths) == 4
        assert (paths["checker_state"].iloc[-1], paths["online_state"].iloc[-1]) == ("i/o pending", "running")
    else:
        assert cut == 8 and len(paths) == 3 and "sde" not in set(paths["device"]), listing.read_text()


@pytest.mark.parametrize("lines", [7, 8])
def test_a_map_cut_after_two_groups_says_its_rules_read_the_groups_before_the_cut(tmp_path: Path, lines: int) -> None:
    """`head -7` ends inside the map after its second group's first path: the grouping and the
    array's symmetry are read from the two groups listed (derived), and their rules say so, with
    the line of the cut; the whole listing (8 lines) names no cut."""
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join(tree([two_group_map()]).splitlines()[:lines]) + "\n")
    done = _imported(listing)
    grouping = _entry(done, "devices", "policy").source_of("path_grouping_policy")
    symmetric = _entry(done, "arrays", "symmetric")
    assert (type(grouping), type(symmetric.source), symmetric.value) == (Derived, Derived, False)
    if lines == 7:
        assert grouping.rule.endswith("; read from the 2 groups listed before the cut at line 7"), grouping.rule
        assert symmetric.source.rule.endswith("; map at line 1: read from the 2 groups listed before the cut at line 7"), \
            symmetric.source.rule
    else:
        assert "before the cut" not in grouping.rule + symmetric.source.rule, (grouping.rule, symmetric.source.rule)


@pytest.mark.parametrize(("write", "lines"), [(brackets, 5), (brackets, 7), (tree, 5)])
def test_a_brackets_listing_s_last_map_of_one_group_says_a_cut_there_is_not_shown(tmp_path: Path, write: Any,
                                                                                   lines: int) -> None:
    """0.4.8's `\\_` is drawn alike before every group and path, so `head -5` of the bracket layout
    (the first group and its two paths) reads as a whole map of one group: its grouping's and the
    array's symmetry's rules say the layout cannot show whether the paste stops at line 5. With both
    groups (7 lines, the second's first path) nothing rests on one group; the tree's `| `- ` shows
    the cut (assumed, as `test_a_tree_listing_cut_at_a_line_s_end_ends_inside_the_map_by_its_branches`)."""
    listing = tmp_path / "mp.txt"
    listing.write_text("\n".join(write([two_group_map()]).splitlines()[:lines]) + "\n")
    done = _imported(listing)
    grouping = _entry(done, "devices", "policy").source_of("path_grouping_policy")
    symmetric = _entry(done, "arrays", "symmetric").source
    note = ("0.4.8's `\\_` is drawn alike before every group and path, so whether the paste stops at line 5, the "
            "listing's last, with other groups after it is not shown")
    if write is brackets and lines == 5:
        assert (type(grouping), type(symmetric)) == (Derived, Derived)
        assert grouping.rule.endswith(f"; {note}"), grouping.rule
        assert symmetric.rule.endswith(f"; map at line 1: {note}"), symmetric.rule
    else:
        assert "0.4.8's `\\_`" not in str(grouping) + str(symmetric), (grouping, symmetric)
