"""`[host] multipath_tools`: `show --style linux|linux-l` prints `multipath -ll`/`-l` as an older
multipath-tools did (the bracket layout and summed group priorities of 0.4.8, the averaged
PRIO_UNDEF `prio=-1` of 0.4.9's `-l`, the emc prioritizer's 1/0 before 0.5.0), and the import
sets it where the listing shows which release printed it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import pathlab, quiet
from pathlab import _core
from pathlab.importer import linux
from pathlab.output import multipath
from pathlab.readers import multipath_ll

CORPUS = Path(__file__).parent / "data" / "corpus"
CX4 = "cx4-alua-path-failure.toml"


def _paths(*states: tuple[str, bool]) -> list[dict[str, object]]:
    return [{"alua": alua, "up": up} for alua, up in states]


@pytest.mark.parametrize(("release", "checked", "prio", "states", "shown"), [
    ("0.4.8", True, "alua", [("AO", True)] * 4 + [("ANO", True)] * 4, 240),  # 016's one group of eight
    ("0.4.9", True, "alua", [("AO", True)] * 4 + [("ANO", True)] * 4, 30),
    ("0.4.8", True, "alua", [("AO", True), ("AO", False)], 50),  # a path down is not counted
    ("0.4.9", False, "alua", [("AO", True)] * 4, -1),  # 003: -l averages PRIO_UNDEF
    ("0.4.9", False, "alua", [("AO", False)] * 2, 0),  # no path up: no average
    ("0.4.8", True, "emc", [("AO", True)] * 2, 2),  # emc before 8950cc8f: owner 1
    ("0.4.9", True, "emc", [("ANO", True)] * 2, 0),  # and the other SP 0
])
def test_group_priorities_follow_the_release(release: str, checked: bool, prio: str,
                                             states: list[tuple[str, bool]], shown: int) -> None:
    assert multipath._old_group_prio(_paths(*states), prio, release, checked) == shown


def test_today_the_emc_prioritizer_gives_4_and_1() -> None:
    assert multipath._path_prio("emc", "AO") == 4 and multipath._path_prio("emc", "ANO") == 1
    assert multipath._path_prio("emc", "AO", "0.4.9") == 1 and multipath._path_prio("emc", "ANO", "0.4.8") == 0


def test_release_0_4_8_prints_the_bracket_layout_with_summed_priorities(tmp_path: Path, scenarios: Path) -> None:
    done = pathlab("show", "paths", str(scenarios / CX4), "--style", "linux", "--set", 'host.multipath_tools="0.4.8"')
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("[size=100G][features=")
    today = pathlab("show", "paths", str(scenarios / CX4), "--style", "linux")
    listings = []
    for name, text in (("old.txt", done.stdout), ("today.txt", today.stdout)):
        (tmp_path / name).write_text(text)
        listings.append(multipath_ll.read(tmp_path / name)["paths"])
    old, now = listings
    assert list(old["hctl"]) == list(now["hctl"]) and list(old["group_status"]) == list(now["group_status"])
    # Each group's sum is today's average times its paths (every path is up at 0 s).
    sizes = now.groupby(["map", "group"]).size()
    assert (old.groupby(["map", "group"])["group_prio"].first()
            == now.groupby(["map", "group"])["group_prio"].first() * sizes).all()


def test_every_release_the_loader_takes_has_its_own_printing(scenarios: Path) -> None:
    # One list of releases (Rust's, through the bindings): a release added there without its
    # printing rules would print as another release does.
    shown = {None: pathlab("show", "paths", str(scenarios / CX4), "--style", "linux-l").stdout}
    for release in _core.MULTIPATH_TOOLS:
        done = pathlab("show", "paths", str(scenarios / CX4), "--style", "linux-l",
                       "--set", f'host.multipath_tools="{release}"')
        assert done.returncode == 0, done.stderr
        shown[release] = done.stdout
    assert len(set(shown.values())) == len(shown), "two releases print alike"


def test_an_unknown_release_is_refused_in_one_line(scenarios: Path) -> None:
    done = pathlab("show", "paths", str(scenarios / CX4), "--style", "linux", "--set", 'host.multipath_tools="0.3"')
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "host.multipath_tools" in done.stderr and "allowed 0.4.8, 0.4.9" in done.stderr


@pytest.mark.parametrize(("sample", "release"), [
    ("multipath-ll/016-hp-eva-hsv210-guide-brackets", "0.4.8"),
    ("multipath-l/003-hp-3par-ubuntu-guide-lost-indent", "0.4.9"),
    ("multipath-ll/002-netapp-aff-rocky10-alua-two-groups", None),
])
def test_the_import_reads_the_release_from_the_listing(sample: str, release: str | None) -> None:
    with quiet():
        table = multipath_ll.read(CORPUS / sample / "bare.txt")
    found = linux.listing_release(list(table["maps"].itertuples()), list(table["paths"].itertuples()))
    assert (found[0] if found else None) == release
