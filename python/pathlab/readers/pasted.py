"""Output as people paste it: a command's output found inside a file that also holds shell
prompts, the command lines, other commands' output (a support bundle's text, a forum post),
CRLF line ends and terminal colours.

A file is cut into sections at each command line (a prompt followed by a known command, or a
bare prompt); a reader takes the sections of its own command, or, when no section names it, the
text before the first command line. What it leaves out is said on stderr (`api.warn`), never
dropped without a word. Within its text, a reader still refuses what it cannot read."""

from __future__ import annotations

import html
import io
import itertools
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from pathlab.api import ScenarioError, warn
from pathlab.readers._file import checked_text, listing_size, without_nul, without_overlong_number

#: Commands whose lines start a section (the first word after any `sudo`, a path stripped).
#: A bare `# word` or `$ word` counts as a command line only for these, so that a comment such
#: as `# multipath.conf written by anaconda` is not taken for one.
KNOWN_COMMANDS = frozenset({
    "multipath", "multipathd", "nvme", "esxcli", "localcli", "esxcfg-mpath", "esxcfg-scsidevs",
    "vicfg-mpath", "esxtop", "resxtop", "cat", "iostat", "lsscsi", "lsblk", "dmsetup", "sg_inq",
    "sg_vpd", "rescan-scsi-bus.sh", "systemctl", "service", "ls", "ll", "grep", "egrep", "head",
    "tail", "less", "more", "uname", "hostname", "vmware", "cd", "echo", "sleep", "watch", "udevadm",
    "iscsiadm", "lspci", "rpm", "dpkg", "modinfo", "for", "while", "sanlun", "powermt", "rescan",
    "rpowermt", "mpclaim", "mpclaim.exe", "sg_rtpg",
})
#: Prompts that cannot be mistaken for output or comments: `[root@host ~]#`, `[root@esx:~]`,
#: `root@host:~#`, `user@host:/etc$`, `host:~ #` (SUSE), `~ #` (ESXi 5), `sh-4.2#`, `bash$`,
#: `multipathd>`, Windows' `C:\>` and PowerShell's `PS C:\Users\admin>`.
_CLEAR_PROMPT = re.compile(
    r"^\s*(?:\[[^\]\n@]*@[^\]\n]*\]\s*[#$%]?"     # [root@host ~]#  [root@esx:~]
    r"|[\w.-]+@[\w.-]+(?::\S*)?\s*[#$%]"            # root@host:~#  user@host:/etc$
    r"|[\w.-]+:\S*\s+[#$]"                          # host:~ #
    r"|~\s*[#$]"                                    # ~ #
    r"|(?:ba|z|k)?sh(?:-[\d.]+)?[#$]"               # sh-4.2#  bash$
    r"|multipathd>)(?:\s+|$)"
    r"|^\s*(?:PS\s+)?[A-Za-z]:\\[^>\n]*>\s*")                   # PS C:\Users\admin>  C:\>
#: A bare `#`, `$` or `>` before a command (forum posts, man pages).
_BARE_PROMPT = re.compile(r"^\s*[#$>]\s*")
#: A prompt alone on a line (`$`, `# `, `>`), as the end of a pasted output: not a line of it,
#: though a page indents it with the listing.
_LONE_PROMPT = re.compile(r"^\s*[#$>%]\s*$")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Line(NamedTuple):
    """A line as an editor numbers it (from 1), without its line end or terminal colours (a
    named tuple: each pass over a file makes its lines again, and a tuple is made in half a
    frozen dataclass's time)."""

    number: int
    text: str
    #: The last line of the file it spans, where a wrap's continuations were joined to it (`rejoin`).
    end: int = 0


@dataclass
class Section:
    """The lines after one command line (or before the first), summed up rather than kept:
    `command` is None for the latter; its first line of output and the span of its lines that
    are not blank."""

    command: str | None
    line: int | None
    first_text: str = ""
    low: int | None = None
    high: int | None = None

    def has_output(self) -> bool:
        return self.low is not None

    def add(self, line: Line) -> None:
        if line.text.strip():
            if self.low is None:
                self.low, self.first_text = line.number, line.text.strip()
            self.high = line.number


#: Lines to read, as often as needed: each call reads them again from the start (a file a line
#: at a time, so that what is kept is what each pass keeps, not the file).
Source = Callable[[], Iterator[Line]]


def decode(data: bytes) -> str:
    """The file's text: UTF-16 when it starts with a byte order mark (PowerShell's `>`), else
    UTF-8 with stray bytes replaced (a capture may carry one)."""
    utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
    return data.decode("utf-16" if utf16 else "utf-8", errors="replace").lstrip("\ufeff")


def lines_of(text: str) -> list[Line]:
    """The lines of a text with CR, LF or CRLF ends, colours removed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [Line(number, _ANSI.sub("", raw)) for number, raw in enumerate(text.split("\n"), start=1)]


def is_aside(text: str) -> bool:
    """Whether a line is a prompt (alone or with a command after it) or an elision (`...`):
    never a listing's line, nor the rest of one."""
    if _has_prompt_mark(text) and (_LONE_PROMPT.match(text) is not None or command_of(text) is not None):
        return True
    return ("..." in text or "…" in text) and _ELISION.match(text) is not None


def _has_prompt_mark(text: str) -> bool:
    """Whether the line holds one of `#$%>]`, as every prompt, clear or bare, does (`]` closes
    `[root@esx:~]`, `>` ends `C:\\>`): most lines of a listing do not, and no prompt pattern is
    tried on them (five tests of a character, not a loop over them)."""
    return "#" in text or "$" in text or "%" in text or ">" in text or "]" in text


def command_of(text: str) -> str | None:
    """The command a pasted command line runs (`multipath -ll`, prompt, `sudo` and a leading
    `date;` removed), "" for a bare prompt, or None when the line is not a command line."""
    if not _has_prompt_mark(text):  # most lines of a listing: no prompt tried
        return None
    prompt = _CLEAR_PROMPT.match(text)
    if prompt:
        rest = text[prompt.end():].strip()
        return _without_sudo(_without_header(rest))
    bare = _BARE_PROMPT.match(text)
    if bare:
        rest = _without_sudo(_without_header(text[bare.end():].strip()))
        if rest and _program(rest) in KNOWN_COMMANDS:
            return rest
    return None


#: Commands run before the listing on the same line to date or name the capture (`date;
#: multipath -ll`, `hostname && nvme list-subsys`): their one line of output stands above the
#: listing, where the reader skips it and says so.
_HEADER = re.compile(r"^(?:(?:date|hostname|uname|echo)\b[^;&|]*(?:;|&&)\s*)+")


def _without_header(command: str) -> str:
    return _HEADER.sub("", command)


def _without_sudo(command: str) -> str:
    return re.sub(r"^(?:sudo(?:\s+-\S+)*\s+)+", "", command)


def _program(command: str) -> str:
    return command.split(maxsplit=1)[0].rsplit("/", 1)[-1] if command else ""


#: Prefixes a mail reader, a logger or a test harness puts before each line of a command's
#: output, each with what it is and whether the lines without it are another's (dropped) or the
#: output's (kept): mail quoting (`> `, `> > ` a quote's quote; the lines without it are the
#: reply), avocado's `09:22:43 DEBUG| [stdout] `, a journal's `Jun 10 12:00:01 host01
#: script[42]: `, an ISO time stamp; a script's or page's comment marks (`#` before each line of
#: a sample: only the mark is taken, the indentation after it is the output's). No line a listing
#: reader takes starts with `#` (a path without its address prints `#:#:#:#` after its tree
#: marks), and a root prompt's `# ` is one line of many.
MAIL_QUOTE = re.compile(r"^(?:[ \t]*>[ \t]?)+")
COMMENT_MARK = re.compile(r"^[ \t]*#")
_LOG_PREFIXES = (
    ("mail quoting", MAIL_QUOTE, True),
    ("comment marks", COMMENT_MARK, False),
    ("the log prefix", re.compile(r"^.{0,60}?\[stdout\] ?"), True),
    ("the log prefix", re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]+ [\w./@-]+(?:\[\d+\])?: "), False),
    ("the log prefix", re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? "), False),
)
#: A character or text every line carrying each prefix holds (the prefix's pattern is tried only
#: on such lines: most lines of a listing hold no `>`, `#` or `[stdout]`).
_PREFIX_MARKS = (">", "#", "[stdout]", ":", "-")
#: Words a wiki, markdown or asciidoc page set in bold or italics (`*tcp*`, `**live optimized**`,
#: `_optimized_`): the words are the output's.
_BOLD = re.compile(r"(?<!\S)\*{1,2}([^\s*](?:[^*\n]*?[^\s*])?)\*{1,2}(?!\S)")
_ITALIC = re.compile(r"(?<!\S)_([A-Za-z][\w-]*[A-Za-z])_(?!\S)")
#: A page's code fence or block delimiter around a listing (markdown ``` or ~~~, asciidoc ---- or
#: ====): never part of the output.
_FENCE = re.compile(r"^\s*(?:```+\s*[\w+-]*|~~~+\s*[\w+-]*|-{4,}|={4,})\s*$")
_FENCE_MARKS = "`~-="  # what a fence's first character is (the pattern tried only on such lines)
#: A web page's markup around a listing or a field in it (`<pre>`, `<span class="wwid">`,
#: `<strong>`, `<br/>`): only these tag names, so that no tool's own `<…>` is taken for markup;
#: the page's escapes of `<`, `>`, `&`, quotes and blanks are read back as those characters.
_HTML_TAG = re.compile(r"</?(?:pre|code|span|strong|b|i|em|u|tt|kbd|samp|font|mark|small|big|div|p|br|a|"
                       r"blockquote|td|tr|th|table|tbody|li|ul|ol)(?:\s[^<>]*)?/?>", re.IGNORECASE)
_HTML_ESCAPE = re.compile(r"&(?:lt|gt|amp|quot|apos|nbsp|#\d{2,3}|#[xX][0-9a-fA-F]{2});")


def unwrapped(name: str, source: Source) -> Source:
    """The lines with what a page, a mail reader or a logger wrapped around the output taken off:
    mail quoting or a log prefix that most lines carry (said on stderr), a web page's tags and
    escapes, bold and italic markers around words, lone `**` lines, code fences."""
    prefixes = _Prefixes()
    for line in source():
        prefixes.add(line)
    unwrap = _unwrapper(prefixes.taken(name))
    return lambda: map(unwrap, source())


def _unwrapped_sections(name: str, source: Source) -> tuple[Source, list[Section]]:
    """`unwrapped(name, source)` and the `sections` of its lines, from one pass over the file where
    no prefix is taken (the sections of the lines unwrapped without one, found beside the count of
    the prefixes), from a second where one is."""
    prefixes = _Prefixes()
    plain = _unwrapper(None)

    def counted() -> Iterator[Line]:
        for line in source():
            prefixes.add(line)
            yield plain(line)

    cut = sections(counted())
    taken = prefixes.taken(name)
    if taken is None:
        return (lambda: map(plain, source())), cut
    unwrap = _unwrapper(taken)
    return (lambda: map(unwrap, source())), sections(map(unwrap, source()))


class _Prefixes:
    """Of a file's lines that are not blank: how many, and how many carry each of `_LOG_PREFIXES`
    (with the first and last such line, and the first prefix as an example)."""

    def __init__(self) -> None:
        self.shown = 0
        self.carrying: list[list[Any]] = [[0, 0, 0, ""] for _ in _LOG_PREFIXES]  # count, first, last line, example

    def add(self, line: Line) -> None:
        text = line.text
        if not text.strip():
            return
        self.shown += 1
        for seen, (_, prefix, _), mark in zip(self.carrying, _LOG_PREFIXES, _PREFIX_MARKS):
            if mark in text and (m := prefix.match(text)):
                seen[0] += 1
                seen[1], seen[2], seen[3] = seen[1] or line.number, line.number, seen[3] or m.group(0)

    def taken(self, name: str) -> tuple[re.Pattern[str], bool] | None:
        """The prefix most lines carry (said on stderr), and whether the lines without it are
        another's; None where none is."""
        shown = self.shown
        for (count, first, last, example), (what, prefix, drop_others) in zip(self.carrying, _LOG_PREFIXES):
            if shown and count * 2 >= shown:
                dropped = shown - count if drop_others else 0
                warn(name, f"lines {first}-{last}",
                     f"read without {what} {example!r}" + (f"; {dropped} line(s) without it skipped" if dropped else ""))
                return prefix, drop_others
        return None


def _unwrapper(taken: tuple[re.Pattern[str], bool] | None) -> Callable[[Line], Line]:
    """What `unwrapped` does to each line, the prefix `taken` (and the lines without it) taken off."""

    def unwrap(line: Line) -> Line:
        text = line.text
        if taken is not None:
            prefix, drop_others = taken
            text = prefix.sub("", text, count=1) if prefix.match(text) else "" if drop_others else text
        if "<" in text:
            text = _HTML_TAG.sub("", text)
        if "&" in text:
            text = _HTML_ESCAPE.sub(lambda m: html.unescape(m.group(0)).replace("\xa0", " "), text)
        stripped = text.strip()
        if stripped == "**" or (stripped[:1] in _FENCE_MARKS and _FENCE.match(text)):
            text = ""
        # (each line is unwrapped in every pass: the markers' patterns only where their characters are)
        if "*" in text:
            text = _BOLD.sub(r"\1", text)
        if "_" in text:
            text = _ITALIC.sub(r"\1", text)
        return line if text == line.text else Line(line.number, text)

    return unwrap


def sections(lines: Iterable[Line]) -> list[Section]:
    """The text cut at each command line."""
    out = [Section(None, None)]
    for line in lines:
        command = command_of(line.text)
        if command is None:
            out[-1].add(line)
        else:
            out.append(Section(command, line.number))
    return out


def command_outputs(name: str, source: Source, command: re.Pattern[str]) -> list[tuple[str | None, int | None, list[Line]]]:
    """Each output of `command` in a file that holds one or several, each after its own command
    line: the command as written (None for the text before any command line) with its line, and
    the output's lines. Other commands' outputs are skipped and said on stderr."""
    found: list[tuple[str | None, int | None, list[Line]]] = []
    block: list[Line] = []
    said_at: tuple[str | None, int | None] = (None, None)
    other = False  # the lines after another command's line are not ours
    skipped: list[str] = []
    for line in source():
        said = command_of(line.text)
        if said is None:
            if not other:
                block.append(line)
            continue
        if block:
            found.append((*said_at, block))
        block, other = [], not command.search(said)
        if other:
            skipped.append(f"`{said[:40]}` (line {line.number}) and its output" if said else f"a prompt (line {line.number})")
        said_at = (None, None) if other else (said, line.number)
    if block:
        found.append((*said_at, block))
    if skipped:
        warn(name, "", "skipped: " + "; ".join(skipped))
    return found


def output_lines(name: str, source: Source, commands: Sequence[re.Pattern[str]], what: str) -> Source:
    """The lines of `what`'s output in a pasted file. The sections whose command matches one of
    `commands` are taken; with none, the text before the first command line (or the only
    section that has output). More than one matching section with output is refused, naming
    both. Everything else that is not blank is said on stderr."""
    lines, cut = _unwrapped_sections(name, source)
    ours = [i for i, s in enumerate(cut) if s.command is not None and any(c.search(s.command) for c in commands)]
    if not ours:
        # No section names the command: the text before the first command line, or else the one
        # section with output (an alias, a script), which the reader then reads or refuses by content.
        with_any = [i for i, s in enumerate(cut) if s.has_output()]
        ours = with_any if len(with_any) == 1 else [0]
    with_output = [cut[i] for i in ours if cut[i].has_output()]
    if len(with_output) > 1:
        first, second = with_output[0], with_output[1]
        said = second.command[:60] if second.command else what  # the command as the file has it
        raise ScenarioError(name, f"line {second.line}", f"`{said}` output a second time (first at line "
                                                         f"{first.line}): give one run per file")
    left = [s for i, s in enumerate(cut) if i not in ours and (s.command or s.has_output())]
    if left:
        warn(name, _lines_of(left), "skipped: " + "; ".join(_describe(s) for s in left))
    command_lines, taken = [s.line for s in cut[1:]], set(ours)
    if not command_lines:  # the output alone (no command line): every line is its own
        return lines

    def read() -> Iterator[Line]:
        section = 0
        for line in lines():
            if section < len(command_lines) and line.number == command_lines[section]:
                section += 1
            elif section in taken:
                yield line

    return read


def output_of(name: str, text: str, commands: Sequence[re.Pattern[str]], what: str) -> list[Line]:
    """`output_lines` of a text held whole (a reader that needs it whole, `nvme list-subsys -o json`)."""
    every = lines_of(text)
    return list(output_lines(name, lambda: iter(every), commands, what)())


def _lines_of(left: list[Section]) -> str:
    spans = []
    for s in left:
        numbers = [n for n in (s.line, s.low, s.high) if n]
        if numbers:
            spans.append(_span(min(numbers), max(numbers)))
    return ("line " if len(spans) == 1 and "-" not in spans[0] else "lines ") + ", ".join(spans)


def _span(first: int, last: int) -> str:
    return f"{first}" if first == last else f"{first}-{last}"


def _describe(section: Section) -> str:
    first = section.first_text
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
        return checked_text(str(path), decode(Path(path).read_bytes()))
    except OSError as e:
        raise ScenarioError(str(path), "", e.strerror or "cannot be read") from None


def file_lines(path: str | Path) -> Source:
    """The lines of a capture (as `lines_of` its text), read from the file a line at a time at
    each call: memory for one line, not the file. UTF-16 when it starts with a byte order mark,
    else UTF-8 with stray bytes replaced (`decode`)."""
    listing_size(path)
    name = str(path)

    def read() -> Iterator[Line]:
        try:
            f = open(path, "rb")  # noqa: SIM115
        except OSError as e:
            raise ScenarioError(name, "", e.strerror or "cannot be read") from None
        with f:
            longest = sys.get_int_max_str_digits() or sys.maxsize  # 0: Python reads any number
            utf16 = f.read(2) in (b"\xff\xfe", b"\xfe\xff")
            f.seek(0)
            text = io.TextIOWrapper(f, encoding="utf-16" if utf16 else "utf-8", errors="replace", newline=None)
            for number, raw in enumerate(text, start=1):
                raw = raw.removesuffix("\n")
                if number == 1:
                    raw = raw.lstrip("\ufeff")
                if "\x00" in raw:
                    without_nul(name, number, raw)
                shown = _ANSI.sub("", raw) if "\x1b" in raw else raw
                if len(shown) > longest:
                    without_overlong_number(name, number, shown)
                yield Line(number, shown)

    return read


class _Part:
    """The lines of a part that are not blank: how many, the first's and last's numbers, the
    first's text."""

    def __init__(self) -> None:
        self.count, self.first, self.last, self.text = 0, 0, 0, ""

    def add(self, line: Line) -> None:
        if line.text.strip():
            self.count += 1
            self.first, self.last = self.first or line.number, line.number
            self.text = self.text or line.text.strip()

    def said(self, name: str, where: str) -> None:
        if self.count:
            warn(name, ("line " if self.count == 1 else "lines ") + _span(self.first, self.last),
                 f"skipped {self.count} line(s) {where}, from {self.text[:50]!r}")


#: A writer's mark that lines were left out (`... other devices`, `…`): no tool's line.
_ELISION = re.compile(r"^\s*(?:\.{3}|…)")


def between_lines(name: str, source: Source, first: Callable[[str], bool], last: Callable[[str], bool],
                  what: str, heading: Callable[[str], bool] | None = None) -> Source:
    """The lines from the first where `first` holds to the last where `last` holds: the output
    itself. What stands before or after it (a greeting, a question, a log line) is said on stderr;
    what stands inside is the reader's to read or refuse, and so is an indented line right after
    the last one (a listing's line the reader does not know, not a remark). `heading` tells a line
    that belongs above the first one (a block's name). Read in one pass that keeps no line."""
    start = end = None
    before, before_above, after = _Part(), _Part(), _Part()
    above: tuple[int, Line] | None = None  # the last line before the start that is not blank
    right_after: Line | None = None
    count = 0
    for i, line in enumerate(source()):
        count = i + 1
        if start is None and first(line.text):
            start = end = i
            if heading is not None and above is not None and heading(above[1].text):
                start = end = above[0]  # the name line a first block stands under
                before = before_above
                if not last(line.text):
                    # this line (and the blank ones between) come after the name line
                    right_after = line if i == end + 1 else Line(0, "")
                    after.add(line)
            if last(line.text):
                end, after, right_after = i, _Part(), None
            continue
        if start is None:
            if line.text.strip():
                before_above = _copy(before)
                above = (i, line)
            before.add(line)
            continue
        if last(line.text):
            end, after, right_after = i, _Part(), None
            continue
        if i == end + 1:  # type: ignore[operator]
            right_after = line
        after.add(line)
    if start is None:
        return source
    if right_after is not None and right_after.text[:1].isspace() and right_after.text.strip() \
            and not _LONE_PROMPT.match(right_after.text) and not _ELISION.match(right_after.text):
        end, after = count - 1, _Part()  # an indented line right after the listing belongs to it: the reader judges it
    before.said(name, f"before the `{what}` output")
    after.said(name, f"after the `{what}` output")
    span = (start, end + 1)  # type: ignore[operator]
    return lambda: itertools.islice(source(), *span)


def _copy(part: _Part) -> _Part:
    out = _Part()
    out.count, out.first, out.last, out.text = part.count, part.first, part.last, part.text
    return out


def between(name: str, lines: list[Line], first: Callable[[str], bool], last: Callable[[str], bool],
            what: str, heading: Callable[[str], bool] | None = None) -> list[Line]:
    """`between_lines` of lines held whole (a reader that needs them whole)."""
    return list(between_lines(name, lambda: iter(lines), first, last, what, heading)())
