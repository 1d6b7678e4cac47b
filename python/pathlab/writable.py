"""Whether an output file may be written, checked before any work: every verb's and the
library's (`sweep(out=)`) outputs, so that no result replaces an input or an existing file
without being told to."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pathlab.api import ScenarioError


def writable_output(path: str | None, option: str, inputs: Sequence[str] = (), force: bool = False,
                    how_to_force: str = "--force") -> None:
    """Checks, before any run, that an output file can be created, is none of the command's
    `inputs` and, unless `force`, does not exist yet: one line and exit 2 if not."""
    if path is None:
        return
    if "\0" in path:
        raise ScenarioError(option, path.replace("\0", "\\0"), "a file name cannot hold a NUL character")
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ScenarioError(option, path, "is a directory: give a file name")
    if not folder.is_dir():
        raise ScenarioError(option, path, f"folder {folder} does not exist")
    if target.exists() and not target.is_file():
        raise ScenarioError(option, path, "is not a regular file (a device, a FIFO or a socket): give a file name")
    # A folder given as input stands for every file under it (a capture folder, a sosreport tree,
    # whose captures lie deep in it): none of them may be replaced.
    given = list(map(Path, inputs))
    if any(_same_file(target, f) for f in given if not f.is_dir()) or \
            (target.exists() and any(target.resolve().is_relative_to(f.resolve()) for f in given if f.is_dir())):
        raise ScenarioError(option, path, "is an input of this command: writing it would destroy it")
    if target.exists() and not force:
        raise ScenarioError(option, path, f"already exists: give {how_to_force} to replace it")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise ScenarioError(option, path, "permission denied")
    # The one sure test (a read-only file system, /proc, a full quota): create a file beside it.
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise ScenarioError(option, path, f"cannot be written: {e.strerror or e}") from None


def writable_outputs(outputs: Sequence[tuple[str | Path | None, str]], inputs: Sequence[str] = (),
                     force: bool = False, how_to_force: str = "--force") -> None:
    """`writable_output` for each (path, option), and no two options naming one file."""
    given = [(str(path), option) for path, option in outputs if path is not None]
    for i, (path, option) in enumerate(given):
        writable_output(path, option, inputs, force, how_to_force)
        for other, other_option in given[:i]:
            if _same_file(Path(path), Path(other)):
                raise ScenarioError(option, path, f"is also the file of {other_option}: give each output its own file")


def _same_file(a: Path, b: Path) -> bool:
    """Whether two names are one file (links and relative names included), existing or not."""
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)
