"""A vm-support bundle or sosreport given as its tarball (`.tgz`, `.tar.gz`, `.tar.xz`, `.tar`):
unpacked into a folder of its own that is read as the extracted tree would be. Only folders and
regular files are unpacked: links (a sosreport has many: its top-level `hostname` leads into
`sos_commands/`) and devices are left out, and said; a member whose path leaves the folder
(absolute, `..`) is refused naming it, as is an archive that would unpack to more than
`MAX_BYTES`."""

from __future__ import annotations

import tarfile
from pathlib import Path, PurePosixPath

from pathlab.api import ScenarioError, warn

SUFFIXES = (".tgz", ".tar.gz", ".tar.xz", ".txz", ".tar.bz2", ".tar")
#: What a bundle may unpack to: a vm-support of a large host is a few GiB with its logs.
MAX_BYTES = 8 << 30
#: Members a bundle may hold: a large vm-support or sosreport holds tens of thousands; a small
#: tarball of millions of empty files would take memory and time for nothing.
MAX_MEMBERS = 500_000


def _shown(name: str) -> str:
    """A member's name as a message may print it: a line break or an escape sequence in it
    would forge a line of pathlab's own."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)


def is_archive(name: str) -> bool:
    return Path(name).is_file() and name.lower().endswith(SUFFIXES)


def unpack(archive: str, into: Path) -> Path:
    """Unpacks `archive` under `into` (a fresh folder); returns the folder it went to."""
    out = into / Path(archive).name
    out.mkdir(parents=True)
    try:
        with tarfile.open(archive) as tar:
            members = []
            total = 0
            for member in tar:  # counted as read: a tarball of millions of members is refused early
                members.append(member)
                if len(members) > MAX_MEMBERS:
                    raise ScenarioError(archive, "", f"more than {MAX_MEMBERS:,} members: not a host's bundle")
                path = PurePosixPath(member.name)
                if path.is_absolute() or ".." in path.parts:
                    raise ScenarioError(archive, _shown(member.name), "a member outside the archive's folder: not unpacked")
                total += member.size if member.isfile() else 0
                if total > MAX_BYTES:
                    raise ScenarioError(archive, _shown(member.name), f"the archive unpacks to more than {MAX_BYTES >> 30} GiB")
            left = [m.name for m in members if not (m.isfile() or m.isdir())]
            if left:
                warn(archive, "links", f"{len(left)} link(s) or special file(s) not unpacked (only folders and regular "
                                       f"files are read), e.g. {_shown(left[0])}")
            for member in members:
                target = out.joinpath(*PurePosixPath(member.name).parts)
                if not (member.isfile() or member.isdir()):
                    continue
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                with source, open(target, "wb") as f:
                    while chunk := source.read(1 << 20):
                        f.write(chunk)
    except (tarfile.TarError, OSError, EOFError) as e:
        raise ScenarioError(archive, "", f"not a readable tar archive: {e}") from None
    return out
