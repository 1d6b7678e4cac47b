"""The advice of a pickled cluster as `python -m pathlab.cli.stage_meter --cluster=FILE
[--duration=D]` measures it, with the CPU (each thread's own) of the parts of each step added up
by name on stderr: the scenarios loaded (`with_set`), the simulations' set-up (`_simulation`),
the runs with their set-up and end (`_run`), the ranking's figures (`figures_of`), the heap handed
back (`free_heap`), the candidates' devices resolved, and Python's collector by generation.

    python scripts/advice_parts.py --cluster=CLUSTER.pkl [--duration=D]
"""
from __future__ import annotations

import collections
import functools
import gc
import sys
import threading
import time

import pathlab.advisor.pipeline as pipeline
import pathlab.advisor.rank as rank
from pathlab import api
from pathlab.cli import stage_meter

cpu = time.thread_time
lock = threading.Lock()
stage = ["before"]
parts = collections.defaultdict(lambda: [0.0, 0])


def add(name, seconds):
    with lock:
        p = parts[(stage[0], name)]
        p[0] += seconds
        p[1] += 1


def timed(name, f):
    @functools.wraps(f)
    def inner(*a, **k):
        t = cpu()
        try:
            return f(*a, **k)
        finally:
            add(name, cpu() - t)
    return inner


api.Scenario.with_set = timed("load (with_set)", api.Scenario.with_set)
api.Scenario._simulation = timed("set-up (_simulation)", api.Scenario._simulation)
api.Scenario._run = timed("run with set-up and end (_run)", api.Scenario._run)
rank.figures_of = timed("figures_of", rank.figures_of)
pipeline.free_heap = timed("free_heap", pipeline.free_heap)  # (the ranking no longer frees its heap)
rank._simulated = timed("_simulated (devices resolved)", rank._simulated)
devices = api.Scenario.devices
api.Scenario.devices = property(timed("Scenario.devices", devices.fget))
started = {}


def collector(phase, info):
    if phase == "start":
        started[threading.get_ident()] = cpu()
    elif threading.get_ident() in started:
        add(f"gc generation {info['generation']}", cpu() - started.pop(threading.get_ident()))


gc.callbacks.append(collector)
original_stage = stage_meter.StageMeter.stage


def on_stage(self, name):
    original_stage(self, name)
    stage[0] = name


stage_meter.StageMeter.stage = on_stage
try:
    stage_meter.main(sys.argv[1:])
finally:
    for (st, name), (s, n) in sorted(parts.items(), key=lambda kv: (kv[0][0], -kv[1][0])):
        print(f"{st:45} {name:35} {s:8.2f} s CPU in {n} calls", file=sys.stderr)
