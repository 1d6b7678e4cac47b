"""Output files written whole or not at all, whatever the verb."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from pathlab.api import ScenarioError


@contextlib.contextmanager
def written(path: str | Path, option: str) -> Iterator[Path]:
    """A temporary file beside `path` for the block to write, renamed onto `path` when the block
    ends well and removed otherwise: a failed write (a full disk) leaves no half-written file,
    and the old one whole. A write error becomes one line naming the option and the file."""
    import tempfile  # here: `pathlab run` to stdout writes no file, and starts without it

    target = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(name, 0o666 & ~umask)  # as a plain open() would have made it
    try:
        yield Path(name)
        os.replace(name, target)
    except OSError as e:
        raise ScenarioError(option, str(path), f"could not be written: {e.strerror or e}") from None
    finally:
        if os.path.exists(name):
            os.unlink(name)


class OutputFile(click.ParamType):
    """The type of every option (or argument) that names a file a verb writes: the verb checks it
    with `writable_outputs` before anything runs, and one that exists is refused unless --force
    is given (docs/getting-started.md, "Output files"). `stem` marks a name that several files
    share (`sweep --out STEM`: STEM-runs.csv, ...)."""

    name = "file"

    def __init__(self, stem: bool = False) -> None:
        self.stem = stem

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return value  # checked by writable_outputs, with the inputs and the other outputs
