"""The summary figures of a run, declared once. Every verb, table, report, sweep and the advisor
take their keys, headings, formats and which end is better from here; the keys are those of the
engine's summary (a test checks that they agree)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    key: str
    #: Column heading in tables.
    heading: str
    #: Axis and bar-chart name in reports.
    name: str
    fmt: str
    #: Which end is better (max or min); None where neither is (queue depth).
    better: Callable[[Iterable[float]], float] | None

    def show(self, value: float) -> str:
        return self.fmt.format(value)


#: Every figure of a run's summary, in the order tables show them: vdbench's columns, the
#: percentiles, then the error counts.
ALL: tuple[Figure, ...] = (
    Figure("iops", "I/O rate", "I/O rate", "{:.1f}", max),
    Figure("mbps", "MB/sec", "MB/sec", "{:.2f}", max),
    Figure("resp_ms", "resp (ms)", "mean response (ms)", "{:.3f}", min),
    Figure("read_resp_ms", "read resp", "mean read response (ms)", "{:.3f}", min),
    Figure("write_resp_ms", "write resp", "mean write response (ms)", "{:.3f}", min),
    Figure("resp_max_ms", "resp max", "longest response (ms)", "{:.3f}", min),
    Figure("resp_stddev_ms", "resp stddev", "response standard deviation (ms)", "{:.3f}", min),
    Figure("queue_depth", "queue depth", "I/Os outstanding", "{:.1f}", None),
    Figure("p50_ms", "p50 (ms)", "median response (ms)", "{:.3f}", min),
    Figure("p90_ms", "p90 (ms)", "p90 (ms)", "{:.3f}", min),
    Figure("p99_ms", "p99 (ms)", "p99 (ms)", "{:.3f}", min),
    Figure("p999_ms", "p99.9 (ms)", "p99.9 (ms)", "{:.3f}", min),
    Figure("errors", "errors", "commands in error", "{:d}", min),
    Figure("retries", "retries", "I/Os retried", "{:d}", min),
    Figure("failed", "failed", "I/Os failed", "{:d}", min),
    Figure("in_flight", "in flight", "I/Os in flight at the end", "{:d}", None),
)  # fmt: skip

BY_KEY: dict[str, Figure] = {f.key: f for f in ALL}
#: Every key, in table order (what a sweep keeps per run).
KEYS: tuple[str, ...] = tuple(f.key for f in ALL)
#: The figures a field report publishes and a scenario may name in `[published]` (the engine's
#: `PUBLISHABLE`): the rates and response times, not the error counts.
PUBLISHABLE: tuple[str, ...] = KEYS[:12]
#: The three a decision turns on: rate, mean response, p99.
HEADLINE: tuple[Figure, ...] = tuple(BY_KEY[k] for k in ("iops", "resp_ms", "p99_ms"))
#: What a comparison over seeds shows with intervals: the headline and the far tail (p99.9), so
#: that a tail claim comes with its confidence.
REPLICATED: tuple[Figure, ...] = (*HEADLINE, BY_KEY["p999_ms"])
#: Response-time percentiles with their quantile.
PERCENTILES: tuple[tuple[str, float], ...] = (("p50_ms", 0.5), ("p90_ms", 0.9), ("p99_ms", 0.99), ("p999_ms", 0.999))


def pick(*keys: str) -> tuple[Figure, ...]:
    return tuple(BY_KEY[k] for k in keys)
