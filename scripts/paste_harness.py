"""Each reader's samples pasted the ways pastes go wrong, through `pathlab import`: a mail's `> `
quoting, a prompt and the command above the output, CRLF line ends, tabs turned to spaces, the
indentation lost, long lines wrapped, the output cut in the middle, two outputs one after the
other, prose after it, a huge number, a NUL byte. Reported: a traceback, an exit code other
than 0 (read) or 2 (refused in one line), a scenario written that does not parse as TOML, and a
0 exit whose `show` differs from the clean
sample's where the mutation leaves the listing's content as it was (every mutation but the cut,
the second output and the huge number: such a paste is read as the clean one or refused, never
read otherwise).

    python scripts/paste_harness.py [--only SUBSTRING] [--show-diffs] [--refusals]

The samples: each corpus sample's `bare.txt` (its folder names the command, for the prompt) and
the listings under tests/data/{linux,esxcli,powerpath,mpio}; a sample the importer refuses clean
is still mutated (a refusal must stay one line, exit 2). Prints one line per finding and the
counts (a refusal of a paste whose clean sample is read counted apart: `refused, clean read`,
each named with `--refusals`); exit 1 when anything was found."""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from pathlab.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"

#: The command each corpus folder's samples are the output of, for the prompt mutation.
COMMANDS = {
    "multipath-ll": "multipath -ll", "multipath-l": "multipath -l",
    "esxcli-nmp-device-list": "esxcli storage nmp device list", "esxcli-nmp-path-list": "esxcli storage nmp path list",
    "esxcli-hpp-path-list": "esxcli storage hpp path list", "esxcli-satp-rule-list": "esxcli storage nmp satp rule list",
    "esxcfg-mpath": "esxcfg-mpath -b", "iostat-x": "iostat -x 1 3", "iscsiadm-session": "iscsiadm -m session -P 3",
    "multipath-conf": "cat /etc/multipath.conf", "nvme-list-subsys": "nvme list-subsys",
    "nvme-show-topology": "nvme show-topology", "proc-diskstats": "cat /proc/diskstats",
}
#: The mutations that leave the listing's content as it was: a 0 exit must show the clean sample.
#: The exit code said of an import that wrote a scenario TOML cannot parse.
UNREADABLE = -1
HARMLESS = ("mail quote", "prompt", "crlf", "tabs to spaces", "lost indentation", "wrapped lines", "trailing prose")


def wrapped(text: str, width: int = 76) -> str:
    """`text` as a word wrapper wraps it: each line longer than `width` cut at its last blank
    before it (the blank dropped), or at `width` where it has none, the rest going on."""
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            cut = line.rfind(" ", 0, width)
            cut = cut if cut > 0 else width
            out.append(line[:cut])
            line = line[cut:].lstrip(" ")
        out.append(line)
    return "\n".join(out)


def _huge(text: str) -> str:
    return re.sub(r"(?<![\w.])\d+(?![\w.])", "9" * 40, text, count=3)


def _nul(text: str) -> str:
    middle = len(text) // 2
    return text[:middle] + "\x00" + text[middle:]


def mutations(text: str, command: str | None) -> dict[str, str]:
    """Each mutation of a sample's text (the prompt one only where the command is known)."""
    lines = text.split("\n")
    prompt = "[root@esx01:~] " if command and command.startswith("esx") else "[root@host01 ~]# "
    out = {
        "mail quote": "\n".join(f"> {line}" if line else ">" for line in lines),
        "crlf": text.replace("\n", "\r\n"),
        "tabs to spaces": text.replace("\t", "    "),
        "lost indentation": "\n".join(line.lstrip(" \t") for line in lines),
        "wrapped lines": wrapped(text),
        "cut in the middle": text[: len(text) // 2],
        "two outputs": text + ("" if text.endswith("\n") else "\n") + text,
        "trailing prose": text + ("" if text.endswith("\n") else "\n") + "\nThanks, let me know if you need more.\n",
        "huge numbers": _huge(text),
        "nul byte": _nul(text),
    }
    if command:
        out["prompt"] = f"{prompt}{command}\n{text}"
    return {k: v for k, v in out.items() if v != text}


def samples(only: str | None) -> list[tuple[Path, str | None]]:
    """Each sample and the command it is the output of (None where not known)."""
    found: list[tuple[Path, str | None]] = [(p, COMMANDS.get(p.parent.parent.name))
                                             for p in sorted((DATA / "corpus").glob("*/*/bare.txt"))]
    for folder in ("linux", "esxcli", "powerpath", "mpio"):
        found += [(p, None) for p in sorted((DATA / folder).rglob("*")) if p.is_file() and p.suffix in (".txt", "")]
    return [(p, c) for p, c in found if only is None or only in str(p)]


def _cli(*args: str) -> tuple[int, str, str, bool]:
    """Exit code, stdout, stderr, and whether it ended in a traceback."""
    with contextlib.chdir(ROOT):
        result = CliRunner().invoke(main, list(args), prog_name="pathlab")
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    err = result.stderr
    if crashed:
        import traceback

        err += "".join(traceback.format_exception(*result.exc_info))  # type: ignore[misc]
    return result.exit_code, result.stdout, err, crashed


def imported(file: Path, out: Path) -> tuple[int, str, bool, dict | None]:
    """`pathlab import FILE -o OUT`: exit code, stderr, traceback, the scenario's values."""
    code, _, err, crashed = _cli("import", str(file), "-o", str(out), "--force")
    if code != 0:
        return code, err, crashed, None
    try:
        return code, err, crashed, tomllib.loads(out.read_text())
    except tomllib.TOMLDecodeError as e:  # written, but not a scenario anything reads back
        return UNREADABLE, f"{err}the scenario written does not parse: {e}", crashed, None


def shown(out: Path) -> str:
    """What `show` prints of an imported scenario: its devices and paths (JSON, every stack)."""
    return "".join(_cli("show", what, str(out), "--style", "json")[1] for what in ("devices", "paths"))


def run(only: str | None, show_diffs: bool, say: Callable[[str], None],
        tally: dict[str, dict[str, int]], verbose: bool = False) -> dict[str, int]:
    """The counts of what was found; `tally` gets each mutation's outcomes (read, refused, …)."""
    counts = {"samples": 0, "pastes": 0, "traceback": 0, "exit code": 0, "unreadable": 0, "read otherwise": 0}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for sample, command in samples(only):
            text = sample.read_text(errors="surrogateescape")
            clean_out = folder / "clean.toml"
            clean_code, _, clean_crashed, clean_values = imported(sample, clean_out)
            clean_show = shown(clean_out) if clean_code == 0 else None
            counts["samples"] += 1
            name = sample.relative_to(ROOT)
            for mutation, pasted in mutations(text, command).items():
                counts["pastes"] += 1
                file = folder / sample.name
                file.write_bytes(pasted.encode(errors="surrogateescape"))
                out = folder / "pasted.toml"
                code, err, crashed, values = imported(file, out)
                outcome = "traceback" if crashed else {0: "read", 2: "refused"}.get(code, f"exit {code}")
                if outcome == "refused" and clean_code == 0:  # what the paste alone cost: the clean sample is read
                    outcome = "refused, clean read"
                    if verbose:
                        say(f"refused, clean read: {name}, {mutation}: {(err.strip().splitlines() or [''])[-1][:200]}")
                tally.setdefault(mutation, {}).setdefault(outcome, 0)
                tally[mutation][outcome] += 1
                last = (err.strip().splitlines() or [""])[-1][:200]
                if crashed:
                    counts["traceback"] += 1
                    say(f"traceback: {name}, {mutation}: {last}")
                elif code == UNREADABLE:
                    counts["unreadable"] += 1
                    say(f"unreadable scenario written: {name}, {mutation}: {last}")
                elif code not in (0, 2):
                    counts["exit code"] += 1
                    say(f"exit {code}: {name}, {mutation}: {last}")
                elif code == 0 and mutation in HARMLESS and clean_show is not None and values != clean_values:
                    pasted_show = shown(out)
                    if pasted_show != clean_show:
                        counts["read otherwise"] += 1
                        say(f"read otherwise: {name}, {mutation}")
                        if show_diffs:
                            import difflib

                            say("".join(difflib.unified_diff(clean_show.splitlines(True), pasted_show.splitlines(True),
                                                             "clean", mutation, n=1)))
            if clean_crashed:
                counts["traceback"] += 1
                say(f"traceback: {name}, clean")
    return counts


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="only the samples whose path contains this")
    parser.add_argument("--show-diffs", action="store_true", help="print how a paste read otherwise differs")
    parser.add_argument("--refusals", action="store_true", help="name each paste refused whose clean sample is read")
    return parser.parse_args(argv)


def main_(argv: list[str]) -> int:
    args = parse_args(argv)
    tally: dict[str, dict[str, int]] = {}
    counts = run(args.only, args.show_diffs, lambda line: print(line, flush=True), tally, args.refusals)
    for mutation, outcomes in tally.items():
        print(f"  {mutation}: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(", ".join(f"{k}: {v}" for k, v in counts.items()))
    return 1 if any(counts[k] for k in ("traceback", "exit code", "unreadable", "read otherwise")) else 0


if __name__ == "__main__":
    sys.exit(main_(sys.argv[1:]))
