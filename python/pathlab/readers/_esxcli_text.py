"""What the esxcli listing readers share: the file read as lines, `Key: value` blocks under an
optional name line (research/formats.md §2), the keys that tell one listing from another, and the
small value grammars (runtime names, booleans, `{k=v,...}` configs).

Every error is a ScenarioError(file, "line N", what was expected), never a traceback."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from pathlab.api import ScenarioError
from pathlab.readers import _plain_listing, pasted
from pathlab.readers._file import listing_size
from pathlab.readers._listed_once import NOT_PRINTED
from pathlab.readers._whole import is_whole  # noqa: F401 (the listings readers ask `t.is_whole`)
from pathlab.readers.rejoin import MARGINS, rejoined

#: `Key: value` (or `Key:` with nothing after it). Keys are words in title case, as esxcli prints
#: them (`Runtime Name`, `IOOperation Limit`, `UID`); device and path names (`naa.…`,
#: `fc.…:…-naa.…`, `vmhba1:C0:T0:L0`) start in lower case or have no blank after their colons.
KEY = re.compile(r"^\s*([A-Z][A-Za-z0-9 /()._-]{0,60}?):(?:\s+(.*?))?\s*$")
#: A command line pasted without its prompt.
_COMMAND = re.compile(r"^(?:esxcli|localcli|esxcfg-[a-z]+|vicfg-[a-z]+|for|grep)\b")
_TABLE = re.compile(r"^Name\s{2,}\S")
RUNTIME_NAME = re.compile(r"^(vmhba\d+):C(\d+):T(\d+):L(\d+)$")
#: The settings in a PSP's config, as `esxcli storage nmp psp roundrobin deviceconfig set` sets
#: them (`--type` printed as `policy=`, `--iops`, `--bytes`, `--useano`, and the latency type's
#: `--latency-eval-time` and `--num-sampling-cycles`, printed as `latencyEvalTime=` and
#: `samplingCycles=`) and `esxcli storage nmp psp fixed deviceconfig set --path` (`preferred=`).
#: The rest of a config is of the listing's moment (round robin's `lastPathIndex`, `CurrentPath`,
#: pending I/Os, `curSamplingCycle`, `latency`; FIXED's `current`; a third party PSP's counters,
#: as Nimble's `numIOsSinceLastInq`).
PSP_SETTINGS = ("policy", "iops", "bytes", "useANO", "latencyEvalTime", "samplingCycles", "preferred")
#: The settings and topology in an SATP's device or path config: the ALUA SATP's options
#: (`esxcli storage nmp satp generic deviceconfig set`, and the claim rule's `--option`:
#: `implicit_support`, `explicit_support`, `explicit_allow`, `alua_followover`,
#: `action_OnRetryErrors`; the CX SATP's `navireg`, `ipfilter`) and the target port group and
#: relative port ids (`TPG_id`, `RTP_id`: which port the path reaches). A group's state and a
#: port's health (`TPG_state`, `RTP_health`) are of the moment: a failover moves them.
SATP_SETTINGS = ("implicit_support", "explicit_support", "explicit_allow", "alua_followover", "action_OnRetryErrors",
                 "navireg", "ipfilter", "TPG_id", "RTP_id")
_PAIR = re.compile(r"([A-Za-z_]+)\s*[=:]\s*([^;,}{\s]*)")


#: A path UID whose target part is ESXi's placeholder: `…-unknown-<device>`, `…-unknown.1:0-<device>`.
UNKNOWN_IN_NAME = re.compile(r"-unknown(?:\.[^-]*)?-[^-]+$", re.IGNORECASE)
#: A target identifier that names no target: empty, ESXi's `unknown` placeholder, or an iSCSI
#: session's with no target name (`00023d000001,,t,1`).
UNKNOWN_IDENTIFIER = re.compile(r"^(?:unknown(?:\..*)?|(?:[0-9A-Fa-f]{12})?,,t,\d+)?$", re.IGNORECASE)
#: What a core path list prints for a target's transport details where its path lost it.
_NO_DETAILS = re.compile(r"^unavailable or path is unclaimed$", re.IGNORECASE)


def target_named(value: Any) -> Any:
    """A path's target as a listing names it, or `NOT_PRINTED` where it prints ESXi's placeholder
    for a target it no longer reaches (a dead path: `unknown`, a UID `…-unknown.1:0-…`, `Unavailable
    or path is unclaimed`): two runs around a path's death name its target alike (`_listed_once`)."""
    if isinstance(value, str) and (UNKNOWN_IDENTIFIER.match(value.strip()) or UNKNOWN_IN_NAME.search(value)
                                   or _NO_DETAILS.match(value.strip())):
        return NOT_PRINTED
    return value


def named_pairs(names: tuple[str, ...]) -> Callable[[Any], Any]:
    """What of a `{k=v,…}` config (a PSP's, an SATP's) is a setting: its pairs named in `names`,
    in order (an ALUA config prints a pair per target port group); a config that is a sentence
    (`SATP VMW_SATP_LOCAL does not support device configuration.`) as printed."""
    wanted = frozenset(names)

    def settings(config: Any) -> Any:
        found = _PAIR.findall(config) if isinstance(config, str) else None
        return config if not found else [(k, v) for k, v in found if k in wanted]

    return settings


psp_settings = named_pairs(PSP_SETTINGS)
satp_settings = named_pairs(SATP_SETTINGS)


#: Keys that belong to one listing only: seeing one in another reader's input names the listing
#: the file really is.
SIGNATURES: dict[str, tuple[str, ...]] = {
    "esxcli storage nmp device list": (
        "Storage Array Type", "Storage Array Type Device Config", "Path Selection Policy",
        "Path Selection Policy Device Config", "Path Selection Policy Device Custom Config",
        "Working Paths"),
    "esxcli storage nmp path list": (
        "Group State", "Array Priority", "Storage Array Type Path Config",
        "Path Selection Policy Path Config"),
    "esxcli storage core path list": (
        "UID", "Plugin", "Adapter Identifier", "Target Identifier", "Adapter Transport Details",
        "Target Transport Details", "Maximum IO Size"),
    "esxcli storage core device list": (
        "Display Name", "Has Settable Display Name", "Size", "Device Type", "Multipath Plugin",
        "Devfs Path", "Vendor", "Model", "Revision"),
    "esxcli storage nmp psp roundrobin deviceconfig get": (
        "Byte Limit", "IOOperation Limit", "I/O Operation Limit", "Latency Evaluation Interval",
        "Limit Type", "Number Of Sampling IOs Per Path", "Use Active Unoptimized Paths"),
    "esxcli storage hpp device list": (
        "Path Selection Scheme", "Path Selection Scheme Config", "Current Path", "Working Path Set",
        "Use ANO", "Paths"),
    "esxcli storage hpp path list": ("Path State",),
}


@dataclass
class Block:
    """One record: the name line above it (None for listings without one) and its keys, each
    with its value and line number."""

    header: str | None
    line: int
    last: int
    fields: dict[str, tuple[str, int]] = field(default_factory=dict)

    def get(self, key: str) -> str | None:
        return self.fields[key][0] if key in self.fields else None

    def where(self, key: str) -> str:
        return f"line {self.fields[key][1] if key in self.fields else self.line}"

    @property
    def label(self) -> str:
        return f"`{self.header}`" if self.header else "the block"


class Reader:
    """Errors of one file, named as the user gave it; `lines` are the file's lines as an editor
    numbers them (CR, LF or CRLF ends), with what is not this listing's output (other commands'
    sections of a pasted bundle) blanked and said on stderr."""

    def __init__(self, path: str | Path, command: str) -> None:
        self.name = str(path)
        self.command = command
        listing_size(path)
        # The command's output alone (most files): its lines and blocks from one split of its text.
        self.plain = _plain_listing.read(path, _KNOWN_KEYS, _COMMAND.match)
        if self.plain is not None:
            return
        every = pasted.file_lines(path)  # read a line at a time at each pass, never whole
        lines = rejoined(pasted.output_lines(self.name, every, _patterns(command), command), _continued)
        self.ours = pasted.between_lines(self.name, lines, _listing_line, _listing_line, command, _name_line)

    @property
    def lines(self) -> Iterator[tuple[int, str]]:
        """Every line of the file up to the listing's last with its number, blank where it is not
        the listing's; the listing's as unwrapped (without mail quoting, a log prefix or bold
        markers), a line whose rest a wrap put on the next lines whole at its number, those lines
        left out (`rejoin`). (The lines after the listing's last would be blank: no reader needs
        them; the listing's own lines are read in one pass, not beside a second pass numbering
        every line.)"""
        if self.plain is not None:
            lines, stanzas = self.plain
            yield from enumerate(lines[: stanzas[-1][2]], start=1)
            return
        number = 0  # the last line of the file given or joined
        for line in self.ours():
            for other in range(number + 1, line.number):  # not the listing's
                yield other, ""
            yield line.number, line.text
            number = max(line.number, line.end)

    def told_as(self, command: str) -> Reader:
        """The same file and lines as `command`'s listing (its errors and checks name it), once
        its blocks told which listing it is (`esxcli_paths.read`): not read a second time."""
        told = copy.copy(self)
        told.command = command
        return told

    def fail(self, where: str | int, message: str) -> NoReturn:
        raise ScenarioError(self.name, f"line {where}" if isinstance(where, int) else where, message)

    def empty(self) -> NoReturn:
        self.fail(1, f"no output: the file is empty; expected `{self.command}` output")


#: Keys every path or device listing prints (with those of SIGNATURES, they tell a listing's lines
#: from a remark pasted around it).
_COMMON_KEYS = frozenset({"Runtime Name", "Device", "Device Display Name", "Adapter", "Channel", "Target", "LUN",
                          "State", "Transport", "Is USB", "Is Local SAS Device", "Is Boot USB Device"})
_KNOWN_KEYS = _COMMON_KEYS.union(*SIGNATURES.values())
#: A table row: cells apart by two spaces or more (a remark has single spaces).
_ROW = re.compile(r"^\S.*?\S\s{2,}\S")


def _listing_line(line: str) -> bool:
    """A line of a listing: a known `Key: value`, a table header or a row (the dashes under a
    header lie between them; a page's `----` around a listing is not one)."""
    key = KEY.match(line)
    if key:
        return key.group(1).strip() in _KNOWN_KEYS
    return bool(_TABLE.match(line) or _ROW.match(line))


#: A display name's last part as ESXi prints it: the device in brackets (`NETAPP Fibre Channel Disk (naa.…)`).
_DEVICE_IN_BRACKETS = re.compile(r"^\((?:naa|eui|t10|mpx|uuid)\.[\w.:-]+\)$")


#: ESXi's sentence for a plugin without a configuration, cut before its end
#: (`SATP VMW_SATP_EQL does not support device configuration.`).
_NO_CONFIG_CUT = re.compile(r"^(?:SATP|PSP) \S+ does not support(?: device| path)?$")


def _continued(line: str, next_line: str) -> bool:
    """Whether a wrap left the rest of a `Key: value` line on the next line (`rejoin`): a display
    name's `(naa.…)`, the rest of a `{…}` config whose brace is still open or of a runtime name
    list that ends in `,`, the value of a key left alone on its line, or words that are neither a
    key nor a prompt nor a name above a block (one word, as `naa.…`, `vmhba1:C0:T0:L1`) and would
    not have fit on the line before the least margin (else a sign-off after the last line is
    joined to its value: `Working Paths: vmhba3:C0:T0:L82 Thanks Bob`)."""
    if KEY.match(next_line):  # (most lines: a key after a key, one match)
        return False
    key, rest = KEY.match(line), next_line.strip()
    if key is None or is_shell(next_line):
        return False
    value = key.group(2) or ""
    if key.group(1).strip() == "Device Display Name" and _DEVICE_IN_BRACKETS.match(rest):
        return True
    if value.count("{") > value.count("}") or value.endswith(",") or _NO_CONFIG_CUT.match(value):
        return True
    if value and len(line.rstrip()) + 1 + len(rest.split()[0]) <= MARGINS[0]:
        return False  # its first word had room on the line: no wrapper moved it (a mail's sign-off, a note)
    return not _name_line(next_line) or rest[:1] in "{(" or "=" in rest or ";" in rest


def _name_line(line: str) -> bool:
    """A device or path name above a block (`naa.…`, `fc.…-naa.…`, `vmhba1:C0:T0:L0`): one word."""
    return bool(re.fullmatch(r"\s*\S+\s*", line)) and not KEY.match(line) and not is_shell(line)


#: The other names a listing is printed by.
_ALIASES = {"esxcli storage core path list": (r"^esxcfg-mpath\b.*\s-(?:l|-list)\b",)}
#: ESX 4.x's names of the same listings, before ESXi 5.0 put them under `storage` (vSphere CLI
#: 4.1 reference: `esxcli nmp device list`, `nmp path list`, `nmp satp listrules`, `nmp
#: roundrobin getconfig`); the blocks they print carry the same keys.
_ESX4 = {
    "esxcli storage nmp device list": "esxcli nmp device list",
    "esxcli storage nmp path list": "esxcli nmp path list",
    "esxcli storage nmp satp rule list": "esxcli nmp satp listrules",
    "esxcli storage nmp psp roundrobin deviceconfig get": "esxcli nmp roundrobin getconfig",
}


def _patterns(command: str) -> tuple[re.Pattern[str], ...]:
    """The command lines a listing follows: `esxcli storage nmp device list` as `esxcli` or
    `localcli` runs it, with options anywhere (`esxcli --server h storage nmp device list -d naa.…`)."""
    out: list[re.Pattern[str]] = []
    for one in command.split("` or `"):
        for spelling in (one, *([_ESX4[one]] if one in _ESX4 else [])):
            words = spelling.split()[1:]
            out.append(re.compile(r"^(?:esxcli|localcli)\b.*\b" + r"\s+(?:-\S+\s+)*".join(map(re.escape, words)) + r"\b"))
        out.extend(re.compile(alias) for alias in _ALIASES.get(one, ()))
    return tuple(out)


def is_shell(line: str) -> bool:
    """A prompt or a command pasted with the output, not output: `[root@esx:~] esxcli …`,
    `~ # esxcli …`, `esxcli …`, or a bare prompt."""
    return pasted.command_of(line) is not None or bool(_COMMAND.match(line.strip()))


def blocks(reader: Reader) -> list[Block]:
    """The file as blocks: a name line (optional) then `Key: value` lines; a blank line, a grep
    `--`, a new name line or, for blocks without a name, a key seen again starts the next one.
    Pasted prompts and commands are skipped."""
    if reader.plain is not None:  # a plain listing's blocks, as read (`_plain_listing`)
        return [Block(name, line, last, dict(fields)) for name, line, last, fields in reader.plain[1]]
    out: list[Block] = []
    current: Block | None = None
    for number, raw in reader.lines:
        line = raw.rstrip()
        if not line.strip() or line.strip() == "--":
            current = None
            continue
        key = KEY.match(line)
        if key:
            name, value = key.group(1).strip(), (key.group(2) or "").strip()
            if current is None or (current.header is None and name in current.fields):
                current = Block(None, number, number)
                out.append(current)
            elif name in current.fields:
                reader.fail(number, f"`{name}` a second time in {current.label} (line {current.line}): "
                                    "expected a blank line or a new name between two blocks")
            current.fields[name] = (value, number)
            current.last = number
            continue
        if is_shell(line):
            continue
        if current is not None and current.header is not None and not current.fields:
            if _TABLE.match(current.header):
                reader.fail(current.line, "a table header (`Name  Device  Vendor …`): this is a table such as "
                                          f"`esxcli storage nmp satp rule list`, not `{reader.command}` output")
            reader.fail(number, f"expected `Key: value` lines under {current.label} (line {current.line}), "
                                f"found {line.strip()[:60]!r}")
        current = Block(line.strip().rstrip(":").strip(), number, number)
        out.append(current)
    return out


def listing(reader: Reader) -> list[Block]:
    """The file's blocks; a file with none (empty, or only prompts) is refused."""
    found = blocks(reader)
    if not found:
        reader.empty()
    return found


def named_blocks(reader: Reader, found: list[Block], known: Iterable[str], name: str,
                 under: str) -> Iterator[tuple[Block, str]]:
    """The blocks of a listing that prints each block under its `name` (a device or path name),
    each checked against the keys of other listings, with that name."""
    own = frozenset(known)  # (once, not once a block: a host lists thousands of paths)
    for block in found:
        check_listing(reader, block, own)
        if block.header is None:
            reader.fail(block.line, f"`Key: value` lines without the {name} above them: expected "
                                    f"`{reader.command}` blocks, each under its {under}")
        yield block, block.header


def check_listing(reader: Reader, block: Block, known: Iterable[str]) -> None:
    """Refuses a block holding a key of another listing, naming that listing."""
    own = known if isinstance(known, frozenset) else frozenset(known)
    if own.issuperset(block.fields):  # (most blocks: their own keys alone)
        return
    for key, (_, number) in block.fields.items():
        if key in own:
            continue
        for command, keys in SIGNATURES.items():
            if key in keys and command != reader.command:
                reader.fail(number, f"`{key}` is printed by `{command}`: this is not `{reader.command}` output")


def require(reader: Reader, block: Block, keys: Iterable[str],
            filled: Iterable[str] = ("Device", "Runtime Name")) -> None:
    """Refuses a block without one of `keys` (a truncated block, or another listing), or with
    one of `filled` empty."""
    missing = [k for k in keys if k not in block.fields]
    if missing:
        span = f"line {block.line}" if block.last == block.line else f"lines {block.line}–{block.last}"
        listed = ", ".join(f"`{k}`" for k in missing)
        reader.fail(block.line, f"{block.label} ({span}) has no {listed}: expected every `{reader.command}` "
                                "block to have them (is the file cut short?)")
    for key in filled:
        if key in block.fields and not block.fields[key][0]:
            reader.fail(block.where(key), f"`{key}` is empty")


def integer(reader: Reader, block: Block, key: str, unit: str = "") -> int | None:
    """The value of `key` as a whole number (an optional unit word after it), None when absent."""
    value = block.get(key)
    if value is None:
        return None
    text = value[: -len(unit)].strip() if unit and value.endswith(unit) else value
    if not is_whole(text):
        reader.fail(block.where(key), f"`{key}`: expected a whole number{' of ' + unit if unit else ''}, "
                                      f"found {value[:40]!r}")
    number = whole(text)
    # (the refusal's words made only for a number past the column: thousands of paths' numbers are read)
    return number if number <= LARGEST else within_column(reader.name, block.where(key), f"`{key}`", text)


#: The largest whole number a listing's value is read as (its table's column holds 64 bits).
LARGEST = 2**63 - 1


#: Digits of `LARGEST`: a longer run of digits (its leading zeros aside) is past it.
_DIGITS = len(str(LARGEST))


def whole(text: str) -> int:
    """The whole number `text` (`is_whole`), or `LARGEST + 1` for one of more digits than
    `LARGEST` (told by its length: `int` refuses a string of over 4,300 digits)."""
    digits = text.lstrip("0")
    return int(digits or "0") if len(digits) <= _DIGITS else LARGEST + 1


def within_column(name: str, where: str | int, what: str, text: str) -> int:
    """The whole number `text` (`is_whole`), refused in one line where it is past `LARGEST`."""
    value = whole(text)
    if value > LARGEST:
        raise ScenarioError(name, f"line {where}" if isinstance(where, int) else where,
                            f"{what}: {text[:24]}{'…' if len(text) > 24 else ''} is past the largest whole number "
                            f"read ({LARGEST:,}): not a value the tool prints")
    return value


def boolean(reader: Reader, block: Block, key: str) -> bool | None:
    value = block.get(key)
    if value is None:
        return None
    if value not in ("true", "false"):
        reader.fail(block.where(key), f"`{key}`: expected true or false, found {value[:40]!r}")
    return value == "true"


def runtime_name(reader: Reader, block: Block, key: str, value: str) -> dict[str, Any]:
    """`vmhbaA:Cc:Tt:Ll` as adapter, channel, target, lun."""
    match = RUNTIME_NAME.match(value)
    if not match:
        reader.fail(block.where(key), f"`{key}`: expected a runtime name like vmhba2:C0:T1:L4, "
                                      f"found {value[:40]!r}")
    numbers = [whole(part) for part in match.group(2, 3, 4)]
    if max(numbers) > LARGEST:  # refused at the first past the column, in its words
        numbers = [within_column(reader.name, block.where(key), f"`{key}`: {part}", match.group(i))
                   for i, part in ((2, "C"), (3, "T"), (4, "L"))]
    return {"adapter": match.group(1), "channel": numbers[0], "target": numbers[1], "lun": numbers[2]}


def path_list(value: str | None) -> list[str]:
    """`vmhba3:C0:T1:L2, vmhba2:C0:T1:L2` as a list."""
    return [p.strip() for p in (value or "").split(",") if p.strip()]


def pairs(config: str, separators: str = ",;") -> dict[str, str]:
    """`{TPG_id=1,TPG_state=AO}` or `{preferred=none;}` as a dict (the braces and empty
    items dropped; a value's quotes removed)."""
    out = {}
    for item in re.split(f"[{re.escape(separators)}]", config.strip().strip("{}")):
        key, sep, value = item.partition("=")
        if sep and key.strip():
            out[key.strip()] = value.strip().strip("'\"")
    return out


def frame(rows: list[dict[str, Any]], dtypes: dict[str, str], command: str) -> Any:
    """The rows as a DataFrame with these columns in this order and these dtypes (pandas'
    nullable ones, so a missing figure is <NA>, not a float NaN), tagged with the listing."""
    import pandas as pd

    df = pd.DataFrame(rows, columns=list(dtypes)).astype(dtypes)
    df.attrs["listing"] = command
    return df
