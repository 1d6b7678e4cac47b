"""Output as people paste it: a command's output found inside a file that also holds shell
prompts, the command lines, other commands' output (a support bundle's text, a forum post),
CRLF line ends and terminal colours.

A file is cut into sections at each command line (a prompt followed by a known command, or a
bare prompt); a reader takes the sections of its own command, or, when no section names it, the
text before the first command line. What it leaves out is said on stderr (`api.warn`), never
dropped without a word. Within its text, a reader still refuses what it cannot read."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pathlab.api import ScenarioError, warn
from pathlab.readers._file import listing_size

#: Commands whose lines start a section (the first word after any `sudo`, a path stripped).
#: A bare `# word` or `$ word` counts as a command line only for these, so that a comment such
#: as `# multipath.conf written by anaconda` is not taken for one.
KNOWN_COMMANDS = frozenset({
    "multipath", "multipathd", "nvme", "esxcli", "localcli", "esxcfg-mpath", "esxcfg-scsidevs",
    "vicfg-mpath", "esxtop", "resxtop", "cat", "iostat", "lsscsi", "lsblk", "dmsetup", "sg_inq",
    "sg_vpd", "rescan-scsi-bus.sh", "systemctl", "service", "ls", "ll", "grep", "egrep", "head",
    "tail", "less", "more", "uname", "hostname", "vmware", "cd", "echo", "sleep", "watch", "udevadm",
    "iscsiadm", "lspci", "rpm", "dpkg", "modinfo", "for", "while", "sanlun", "powermt", "rescan",
})
#: Prompts that cannot be mistaken for output or comments: `[root@host ~]#`, `[root@esx:~]`,
#: `root@host:~#`, `user@host:/etc$`, `host:~ #` (SUSE), `~ #` (ESXi 5), `sh-4.2#`, `bash$`,
#: `multipathd>`.
_CLEAR_PROMPT = re.compile(
    r"^\s*(?:\[[^\]\n@]*@[^\]\n]*\]\s*[#$%]?"     # [root@host ~]#  [root@esx:~]
    r"|[\w.-]+@[\w.-]+(?::\S*)?\s*[#$%]"            # root@host:~#  user@host:/etc$
    r"|[\w.-]+:\S*\s+[#$]"                          # host:~ #
    r"|~\s*[#$]"                                    # ~ #
    r"|(?:ba|z|k)?sh(?:-[\d.]+)?[#$]"               # sh-4.2#  bash$
    r"|multipathd>)(?:\s+|$)")
#: A bare `#`, `$` or `>` before a command (forum posts, man pages).
_BARE_PROMPT = re.compile(r"^\s*[#$>]\s*")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass(frozen=True, slots=True)
class Line:
    """A line as an editor numbers it (from 1), without its line end or terminal colours."""

    number: int
    text: str


@dataclass
class Section:
    """The lines after one command line (or before the first): `command` is None for the latter."""

    command: str | None
    line: int | None
    lines: list[Line] = field(default_factory=list)

    def has_output(self) -> bool:
        return any(line.text.strip() for line in self.lines)


def decode(data: bytes) -> str:
    """The file's text: UTF-16 when it starts with a byte order mark (PowerShell's `>`), else
    UTF-8 with stray bytes replaced (a capture may carry one)."""
    utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
    return data.decode("utf-16" if utf16 else "utf-8", errors="replace").lstrip("\ufeff")


def lines_of(text: str) -> list[Line]:
    """The lines of a text with CR, LF or CRLF ends, colours removed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [Line(number, _ANSI.sub("", raw)) for number, raw in enumerate(text.split("\n"), start=1)]


def command_of(text: str) -> str | None:
    """The command a pasted command line runs (`multipath -ll`, prompt and `sudo` removed), ""
    for a bare prompt, or None when the line is not a command line."""
    prompt = _CLEAR_PROMPT.match(text)
    if prompt:
        rest = text[prompt.end():].strip()
        return _without_sudo(rest)
    bare = _BARE_PROMPT.match(text)
    if bare:
        rest = _without_sudo(text[bare.end():].strip())
        if rest and _program(rest) in KNOWN_COMMANDS:
            return rest
    return None


def _without_sudo(command: str) -> str:
    return re.sub(r"^(?:sudo(?:\s+-\S+)*\s+)+", "", command)


def _program(command: str) -> str:
    return command.split(maxsplit=1)[0].rsplit("/", 1)[-1] if command else ""


#: Prefixes a logger or a test harness puts before each line of a command's output, each with
#: whether the lines without it are the harness's own (dropped) or the output's (kept):
#: avocado's `09:22:43 DEBUG| [stdout] `, a journal's `Jun 10 12:00:01 host01 script[42]: `,
#: an ISO time stamp.
_LOG_PREFIXES = (
    (re.compile(r"^.{0,60}?\[stdout\] ?"), True),
    (re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]+ [\w./@-]+(?:\[\d+\])?: "), False),
    (re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? "), False),
)
#: Words a wiki, markdown or asciidoc page set in bold or italics (`*tcp*`, `**live optimized**`,
#: `_optimized_`): the words are the output's.
_BOLD = re.compile(r"(?<!\S)\*{1,2}([^\s*](?:[^*\n]*?[^\s*])?)\*{1,2}(?!\S)")
_ITALIC = re.compile(r"(?<!\S)_([A-Za-z][\w-]*[A-Za-z])_(?!\S)")
#: A page's code fence or block delimiter around a listing (markdown ``` or ~~~, asciidoc ---- or
#: ====): never part of the output.
_FENCE = re.compile(r"^\s*(?:```+\s*[\w+-]*|~~~+\s*[\w+-]*|-{4,}|={4,})\s*$")


def unwrapped(name: str, lines: list[Line]) -> list[Line]:
    """The lines with what a page or a logger wrapped around the output taken off: a log prefix
    that most lines carry (said on stderr), bold and italic markers around words, lone `**` lines,
    code fences."""
    shown = [line for line in lines if line.text.strip()]
    for prefix, drop_others in _LOG_PREFIXES:
        carrying = [line for line in shown if prefix.match(line.text)]
        if shown and len(carrying) * 2 >= len(shown):
            example = prefix.match(carrying[0].text).group(0)  # type: ignore[union-attr]
            dropped = len(shown) - len(carrying) if drop_others else 0
            warn(name, f"lines {carrying[0].number}-{carrying[-1].number}",
                 f"read without the log prefix {example!r}" + (f"; {dropped} line(s) without it skipped" if dropped else ""))
            lines = [Line(line.number, prefix.sub("", line.text, count=1)) if prefix.match(line.text)
                     else Line(line.number, "" if drop_others else line.text) for line in lines]
            break
    return [Line(line.number, "" if line.text.strip() == "**" or _FENCE.match(line.text)
                 else _ITALIC.sub(r"\1", _BOLD.sub(r"\1", line.text))) for line in lines]


def sections(lines: Iterable[Line]) -> list[Section]:
    """The text cut at each command line."""
    out = [Section(None, None)]
    for line in lines:
        command = command_of(line.text)
        if command is None:
            out[-1].lines.append(line)
        else:
            out.append(Section(command, line.number))
    return out


def output_of(name: str, text: str, commands: Sequence[re.Pattern[str]], what: str) -> list[Line]:
    """The lines of `what`'s output in a pasted file. The sections whose command matches one of
    `commands` are taken; with none, the text before the first command line (or the only
    section that has output). More than one matching section with output is refused, naming
    both. Everything else that is not blank is said on stderr."""
    cut = sections(unwrapped(name, lines_of(text)))
    ours = [s for s in cut if s.command is not None and any(c.search(s.command) for c in commands)]
    if not ours:
        # No section names the command: the text before the first command line, or else the one
        # section with output (an alias, a script), which the reader then reads or refuses by content.
        with_any = [s for s in cut if s.has_output()]
        ours = with_any if len(with_any) == 1 else [cut[0]]
    with_output = [s for s in ours if s.has_output()]
    if len(with_output) > 1:
        first, second = with_output[0], with_output[1]
        raise ScenarioError(name, f"line {second.line}", f"`{what}` output a second time (first at line "
                                                         f"{first.line}): give one run per file")
    taken = {id(s) for s in ours}
    left = [s for s in cut if id(s) not in taken and (s.command or s.has_output())]
    if left:
        warn(name, _lines_of(left), "skipped: " + "; ".join(_describe(s) for s in left))
    return [line for s in ours for line in s.lines]


def _lines_of(left: list[Section]) -> str:
    spans = []
    for s in left:
        numbers = ([s.line] if s.line else []) + [ln.number for ln in s.lines if ln.text.strip()]
        if numbers:
            spans.append(_span(min(numbers), max(numbers)))
    return ("line " if len(spans) == 1 and "-" not in spans[0] else "lines ") + ", ".join(spans)


def _span(first: int, last: int) -> str:
    return f"{first}" if first == last else f"{first}-{last}"


def _describe(section: Section) -> str:
    first = next((line.text.strip() for line in section.lines if line.text.strip()), "")
    text = f", from {first[:50]!r}" if first else ""
    if section.command is None:
        return "text before the first command line" + text
    if not section.command:
        return f"a shell prompt (line {section.line})" + (f" and the text after it{text}" if first else "")
    shown = section.command if len(section.command) <= 40 else section.command[:37] + "..."
    return f"`{shown}` (line {section.line})" + (f" and its output{text}" if first else "")


def read_text(path: str | Path) -> str:
    """The text of a capture, or one line naming the file and why it cannot be read."""
    listing_size(path)  # missing, a folder, a device or a FIFO, or too large to be a listing: one line each
    try:
        return decode(Path(path).read_bytes())
    except OSError as e:
        raise ScenarioError(str(path), "", e.strerror or "cannot be read") from None


def between(name: str, lines: list[Line], first: Callable[[str], bool], last: Callable[[str], bool],
            what: str, heading: Callable[[str], bool] | None = None) -> list[Line]:
    """The lines from the first where `first` holds to the last where `last` holds: the output
    itself. What stands before or after it (a greeting, a question, a log line) is said on stderr;
    what stands inside is the reader's to read or refuse, and so is an indented line right after
    the last one (a listing's line the reader does not know, not a remark). `heading` tells a line
    that belongs above the first one (a block's name)."""
    start = next((i for i, line in enumerate(lines) if first(line.text)), None)
    if start is None:
        return lines
    above = next((i for i in range(start - 1, -1, -1) if lines[i].text.strip()), None)
    if heading is not None and above is not None and heading(lines[above].text):
        start = above  # the name line a first block stands under
    end = max((i for i, line in enumerate(lines) if i >= start and last(line.text)), default=start)
    after = lines[end + 1:]
    if after and after[0].text[:1].isspace() and after[0].text.strip():
        end = len(lines) - 1  # an indented line right after the listing belongs to it: the reader judges it
    for part, where in ((lines[:start], f"before the `{what}` output"), (lines[end + 1:], f"after the `{what}` output")):
        numbers = [line.number for line in part if line.text.strip()]
        if numbers:
            shown = next(line.text.strip() for line in part if line.text.strip())
            warn(name, ("line " if len(numbers) == 1 else "lines ") + _span(numbers[0], numbers[-1]),
                 f"skipped {len(numbers)} line(s) {where}, from {shown[:50]!r}")
    return lines[start:end + 1]
