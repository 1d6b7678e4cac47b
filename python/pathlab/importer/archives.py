"""A vm-support bundle or sosreport given as its tarball (`.tgz`, `.tar.gz`, `.tar.xz`, `.tar`):
read as a stream, a member at a time (a gzip'ed tarball has no index: it is decompressed once,
and memory does not grow with its members), and only what an import may read written into a folder
of its own, read as the extracted tree would be: the files at the archive's top (a folder of
listings), the captures a tree is searched for (`readers.bundle.KNOWN`), the host's name
(`host_names.HOSTNAME_FILES`) and a copy of /sys (NVMe attributes); its folders are made, its other
files (logs, a vm-support's hundreds of command outputs) are left in the archive and counted on
stderr. Only folders and regular files are unpacked: links (a sosreport has many: its top-level
`hostname` leads into `sos_commands/`) and devices are left out, and said; a member whose path
leaves the folder (absolute, `..`) is refused naming it, as is an archive that holds more than
`MAX_BYTES` or `MAX_MEMBERS`."""

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
    """Unpacks what an import may read of `archive` under `into` (a fresh folder); returns the
    folder it went to."""
    out = into / Path(archive).name
    out.mkdir(parents=True)
    members = total = left = 0
    links: list[str] = []
    try:
        with tarfile.open(archive, "r|*") as tar:
            for member in tar:  # checked as read: a tarball of millions of members is refused early
                tar.members = []  # type: ignore[attr-defined]  # a stream's members are not looked up again: kept, they fill memory
                members += 1
                if members > MAX_MEMBERS:
                    raise ScenarioError(archive, "", f"more than {MAX_MEMBERS:,} members: not a host's bundle")
                path = PurePosixPath(member.name)
                if path.is_absolute() or ".." in path.parts:
                    raise ScenarioError(archive, _shown(member.name), "a member outside the archive's folder: not unpacked")
                total += member.size if member.isfile() else 0
                if total > MAX_BYTES:
                    raise ScenarioError(archive, _shown(member.name), f"the archive unpacks to more than {MAX_BYTES >> 30} GiB")
                target = out.joinpath(*path.parts)
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                elif not member.isfile():
                    links.append(member.name)
                elif not _read_by_import(path):
                    left += 1
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    source = tar.extractfile(member)
                    assert source is not None
                    with source, open(target, "wb") as f:
                        while chunk := source.read(1 << 20):
                            f.write(chunk)
    except (tarfile.TarError, OSError, EOFError) as e:
        raise ScenarioError(archive, "", f"not a readable tar archive: {e}") from None
    if links:
        warn(archive, "links", f"{len(links)} link(s) or special file(s) not unpacked (only folders and regular "
                               f"files are read), e.g. {_shown(links[0])}")
    if left:
        warn(archive, "files", f"{left:,} file(s) left in the archive: none is a capture pathlab reads")
    return out


def _read_by_import(path: PurePosixPath) -> bool:
    """Whether an import may read the member at `path` (inside the archive): a file at its top, a
    capture a tree is searched for, the host's name, or a file of a copy of /sys."""
    from pathlab.importer.host_names import HOSTNAME_FILES
    from pathlab.readers.bundle import KNOWN

    inside = path.as_posix()
    return (len(path.parts) == 1 or any(k.name.search(inside) for k in KNOWN) or "sys" in path.parts[:-1]
            or any(inside == h or inside.endswith("/" + h) for h, _ in HOSTNAME_FILES))
