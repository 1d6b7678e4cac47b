"""The HTML reports: one self-contained file (inline SVG plots drawn by matplotlib, no script from
the network) from a run, a compare, a lineup, a sweep or the advisor's answer. `page` builds the
page, `plots` draws the figures; each kind of report has its module. Study and advise compute;
these only draw (NOTES.md says why not plotly)."""
