"""The page around a report's figures: the title, sections, scenario text and provenance, and the
self-check the headless browser test reads. The same input gives the same bytes: SVG ids come
from a fixed salt and no date is written."""

from __future__ import annotations

import hashlib
import html
import io
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402 - after the backend is chosen

from pathlab.version import __version__  # noqa: E402

matplotlib.rcParams.update({"svg.hashsalt": "pathlab", "svg.fonttype": "none", "figure.figsize": (8, 3.4),
                            "axes.grid": True, "grid.alpha": 0.3, "font.size": 9, "axes.spines.top": False,
                            "axes.spines.right": False, "legend.frameon": False})

# Marks each figure whose SVG drew with a non-empty box, and any script error, in the page itself:
# a reader sees a plot that failed, and the headless browser test reads the marks.
SELF_CHECK = """<script>
window.addEventListener("error", e => document.body.setAttribute("data-script-error", e.message));
window.addEventListener("load", () => {
  let drawn = 0;
  for (const f of document.querySelectorAll("figure")) {
    const s = f.querySelector("svg"), b = s && s.getBBox();
    const ok = !!b && b.width > 0 && b.height > 0 && s.querySelectorAll("path,line,use").length > 0;
    f.setAttribute("data-drawn", ok ? "yes" : "no");
    drawn += ok;
  }
  document.body.setAttribute("data-plots", drawn + "/" + document.querySelectorAll("figure").length);
});
</script>"""

STYLE = """<style>
body { font: 14px/1.45 system-ui, sans-serif; max-width: 64rem; margin: 2rem auto; padding: 0 1rem; color: #222 }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd }
.setting { font-size: 1.1rem; font-weight: normal; color: #444 }
figure { margin: 1rem 0 } figure svg { max-width: 100%; height: auto } figcaption { color: #555; font-size: 0.9em }
table { border-collapse: collapse; font-variant-numeric: tabular-nums } td, th { padding: 2px 8px; text-align: right }
th { border-bottom: 1px solid #999 }
pre { background: #f6f6f6; padding: 0.8rem; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere }
</style>"""


#: The label of a figure whose panels are placed by hand (`plots.panels`): saved as laid out,
#: since a tight box draws the figure twice, a second or more for a grid of 16 panels.
LAID_OUT = "laid out"


def svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches=None if fig.get_label() == LAID_OUT else "tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


def figure(fig: Any, caption: str) -> str:
    return f"<figure>{svg(fig)}<figcaption>{html.escape(caption)}</figcaption></figure>"


def page(title: str, sections: Sequence[tuple[str, str]], scenario_text: str | None, provenance: dict[str, Any],
         setting: str | None = None) -> str:
    """The page; `setting` (the policy and its setting in force) is shown under the title and in
    the browser's tab."""
    full = f"{title}: {setting}" if setting else title
    shown = f"<br><span class='setting'>{html.escape(setting)}</span>" if setting else ""
    body = [f"<h1>{html.escape(title)}{shown}</h1>"]
    body += [f"<h2>{html.escape(h)}</h2>{content}" for h, content in sections]
    if scenario_text is not None:
        digest = hashlib.sha256(scenario_text.encode()).hexdigest()[:16]
        provenance = {**provenance, "scenario sha256": digest}
        body.append(f"<h2>Scenario</h2><pre>{html.escape(scenario_text)}</pre>")
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td style='text-align:left'>{html.escape(str(v))}</td></tr>"
                   for k, v in {**provenance, "pathlab": __version__}.items())
    body.append(f"<h2>Provenance</h2><table>{rows}</table>")
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{html.escape(full)}</title>"
            f"{STYLE}</head><body>{''.join(body)}{SELF_CHECK}</body></html>\n")
