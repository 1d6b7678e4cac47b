"""`advise --failures`' plot: each candidate's longest I/O wait through each failure kind (the
worst seed's), side by side per kind, with the stall its timers predicted marked on each bar."""

from __future__ import annotations

import matplotlib.pyplot as plt

from pathlab.advisor.failure_advice import FailureAdvice
from pathlab.output.report.page import figure
from pathlab.output.report.plots import PALETTE, plain_axis


def waits_figure(a: FailureAdvice) -> str:
    kinds = [k.kind for k in a.kinds]
    labels = [c.label for c in a.candidates]
    width = 0.8 / len(labels)
    fig, ax = plt.subplots(figsize=(8, 3.4))
    rows = {(r.candidate, r.kind): r for r in a.rows}
    for i, label in enumerate(labels):
        xs = [k + (i - (len(labels) - 1) / 2) * width for k in range(len(kinds))]
        ax.bar(xs, [rows[(label, k)].measured.longest_wait_s for k in kinds], width * 0.9,
               color=PALETTE[i % len(PALETTE)], label=label)
        predicted = [(x, rows[(label, k)].predicted.seconds) for x, k in zip(xs, kinds)]
        shown = [(x, p) for x, p in predicted if p is not None]
        ax.scatter([x for x, _ in shown], [p for _, p in shown], marker="_", s=300, color="black", zorder=3,
                   label="predicted" if i == 0 else None)
    ax.set_xticks(range(len(kinds)), kinds)
    ax.set_ylabel("longest I/O wait (s)")
    plain_axis(ax.yaxis)
    ax.legend(fontsize=7)
    return figure(fig, "Each candidate's longest I/O wait through each failure (the worst seed), the prediction "
                       "from its timers marked")
