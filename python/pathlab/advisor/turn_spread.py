"""How long the capture fit warms up before it measures: until the turns of devices that started
together have spread over their ports.

Round robin at iops=1000 sends a device's I/Os down one path for 1,000 in a row (a dwell). Every
device starts at once, where its claim put it, so at the start several devices' turns fall on one
port while another has none. Where a device's turn alone loads its port to half or more, two
turns on one port exceed it and repel (docs/design/2026-11-29-lun-phases.md: in a shared FIFO the
device that arrived first keeps more commands queued there, is served more, and pulls ahead until
the two no longer meet), and the rate climbs as they part. The climb lasts a count of dwells, not
of seconds: on the three-host fixture (`tests/data/cluster/three-esxi-hosts.toml`, six devices
at about 30,000 I/O/s on four 16.6 µs ports, three seeds, 0.1-0.2 s intervals from a warm-up of
0) the rate first came within 5% of its settled mean after 0.3-0.4 s at iops=300, 1.1-1.5 s at
iops=1000 and 2.0-3.0 s at iops=3000: 21-45 dwells of 9, 33 and 94 ms; C3's four LUNs started on
one port spread in about a second (38 dwells of 26.5 ms). A device whose turn loads its port
lightly repels nothing: the generated 4 × 50 × 8 cluster (1,000 I/O/s a device on 20 µs ports,
2% each) ran at its settled rate from its first 0.5 s interval.

The rule: the warm-up lasts `SPREAD_DWELLS` dwells of the slowest-switching device whose turn
loads its port to `REPELLING_LOAD` or more (its rate times the port's service), on an array with
another such device, where a device's dwell is the I/Os its policy sends down a path in a row
over its rate."""

from __future__ import annotations

from collections.abc import Iterable

#: Dwells for started-together turns to spread: the most measured (45, the fixture at iops=1000,
#: seed 3), rounded down to the 40 the C3 start gives within a second.
SPREAD_DWELLS = 40
#: The load a device's turn alone puts on its port from which two turns on the port exceed it.
REPELLING_LOAD = 0.5


def spread_s(devices: Iterable[tuple[str, float, float, float]]) -> float:
    """The warm-up for the turns to spread, from each device's (array, rate in I/O/s, I/Os in a
    row on a path, its port's service in s); 0 where no array has two devices whose turns load
    their port to `REPELLING_LOAD` (a lone device has no turn to part from), or where every
    device's policy chooses per I/O (nothing to spread)."""
    repelling: dict[str, list[float]] = {}
    for array, rate, in_a_row, service in devices:
        if rate > 0 and in_a_row > 1 and rate * service >= REPELLING_LOAD:
            repelling.setdefault(array, []).append(SPREAD_DWELLS * in_a_row / rate)
    return max((s for spread in repelling.values() if len(spread) >= 2 for s in spread), default=0.0)
