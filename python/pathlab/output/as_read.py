"""How the host views (`multipath -ll`, `nvme list-subsys`) mark, in an imported device, what they
do not print as its listing printed it: `?` for a value the listing did not print, and a value the
scenario now holds otherwise than as imported (a fault or `--set` changed it) followed by `?`.
Neither is anything a host's tool prints."""

from __future__ import annotations

from typing import Any

#: What `show` prints for a value an imported device's listing did not print (a paste cut before
#: its `size=` line): a mark no multipath-tools or nvme-cli release prints, not a value of pathlab's own.
NOT_READ = "?"


def now_held(value: Any) -> str:
    """A value the scenario now holds that differs from what the listing printed (a fault or
    `--set` changed it since the import): the scenario's, followed by the mark of a value not read."""
    return f"{value}{NOT_READ}"
