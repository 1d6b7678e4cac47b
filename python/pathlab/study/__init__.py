"""Studies of settings: sweeps over a grid, replications over seeds and their statistics, the
standard lineup of every stack's policies (their reports are drawn in `output.report`)."""
