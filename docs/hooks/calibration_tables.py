"""The calibration page's measured tables (`calibration.md`), drawn from the validated figures'
data file (`python/pathlab/validated.toml`, via `pathlab.validated`) when the site builds: the
page and advise read the same errors, and `python scripts/calibration_table.py` regenerates them."""

from __future__ import annotations

from typing import Any

from pathlab import validated

PAGE = "calibration.md"
#: Where each table goes in the page, and what draws it.
MARKERS = {"<!-- validated figures -->": "figures", "<!-- validated reports -->": "reports"}
FIGURE_NAMES = {"iops": "I/O rate", "resp_ms": "resp (ms)", "resp_stddev_ms": "resp stddev (ms)",
                "resp_max_ms": "resp max (ms)"}


def _value(figure: str, value: float) -> str:
    return f"{value:,.0f}" if figure == "iops" else f"{value:,.3f}" if value < 100 else f"{value:,.1f}"


def _error(row: validated.Figure) -> str:
    if row.simulated is None:
        return "not measured"
    if row.check == "tolerance":
        return f"{row.error(row.simulated) * 100:+.1f}%".replace("-", "−")
    return f"×{row.simulated / row.published:.2f}"


def figures_table(rows: list[validated.Figure]) -> str:
    out = ["| case | variant | figure | published | simulated | error | must be | measured at |",
           "|---|---|---|---|---|---|---|---|"]
    last = ("", "")
    for r in rows:
        case = r.case if r.case != last[0] else ""
        variant = r.variant if (r.case, r.variant) != last else ""
        last = (r.case, r.variant)
        simulated = "–" if r.simulated is None else _value(r.figure, r.simulated)
        allowed = r.allowed + (f" ({r.why})" if r.why else "")
        run = f"{r.run[0]} after {r.run[1]}"
        out.append(f"| {case} | {variant} | {FIGURE_NAMES.get(r.figure, r.figure)} | {_value(r.figure, r.published)} | "
                   f"{simulated} | {_error(r)} | {allowed} | {r.measured or '–'}, `{r.commit or '–'}`, {run} |")
    return "\n".join(out)


def reports_table(reports: list[validated.Report]) -> str:
    out = ["| scenario | the field's report | the model gives it | as the model gives them (I/O/s, mean ms) | "
           "checked by | measured at |", "|---|---|---|---|---|---|"]
    for r in reports:
        figures = "; ".join(f"{v}: {text}" for v, text in r.figures.items()) or "not measured"
        out.append(f"| `{r.scenario}` | {r.field} | {'yes' if r.holds else 'no'} | {figures} | "
                   f"`{r.test.split('::')[-1]}` ({r.test.split('::')[0]}) | {r.measured or '–'}, `{r.commit or '–'}` |")
    return "\n".join(out)


def render(markdown: str) -> str:
    drawn = {"figures": lambda: figures_table(validated.figures()), "reports": lambda: reports_table(validated.reports())}
    for marker, table in MARKERS.items():
        if marker not in markdown:
            raise ValueError(f"{PAGE}: the marker {marker} is gone; the hook draws a table there")
        markdown = markdown.replace(marker, drawn[table]())
    return markdown


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """The mkdocs hook: the tables replace their markers as the page is read."""
    return render(markdown) if page.file.src_uri == PAGE else markdown
