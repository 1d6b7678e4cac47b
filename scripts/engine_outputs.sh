#!/usr/bin/env bash
# The engine's outputs on every shipped scenario and variant, for telling whether a change to the
# engine keeps them byte-identical: run it with the build before and after, then `diff -r`.
#   cargo build --release --example run -p pathlab-sim && cp target/release/examples/run /tmp/run-before
#   scripts/engine_outputs.sh /tmp/run-before /tmp/before   # ... change, build, again to /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
# Each run is shortened to 4 s after 1 s of warm-up; OUTDIR gets its summary JSON and its
# replication, controller, RAID and cache lines (the example's stderr less its wall-time line).
# The studies are sweeps, which `examples/run` does not run. Then the scenarios in
# scripts/engine_outputs/ as they are, each by its whole result (`--full`: per path, port and
# device, the policies' state; less `engine_events`, which a speed change may rightly move):
# ties.toml and mixed.toml are where the order of events at equal times shows (sessions 27 and 28,
# `sim/never_wait.rs`, `sim/known_at_send.rs`), which no summary above reveals. Its OUTDIR files are full_NAME.json and full_NAME.lines (an
# `examples/run` from before session 27 has no `--full`).
set -euo pipefail
bin=$(realpath "$1")
out=$(realpath -m "$2")
cd "$(dirname "$0")/.."
mkdir -p "$out/scenarios"
for f in scenarios/*.toml scenarios/*/*.toml; do
    case $f in scenarios/studies/*) continue ;; esac
    name=$(echo "$f" | tr / _)
    sed -e 's/^duration = .*/duration = "4s"/' -e 's/^warmup = .*/warmup = "1s"/' "$f" >"$out/scenarios/$name"
    for variant in "" $(sed -n 's/^\[variants\.\([a-z0-9_]*\)\]$/\1/p' "$f"); do
        "$bin" "$out/scenarios/$name" $variant >"$out/$name.$variant.json" 2>"$out/$name.$variant.err"
        grep -v " I/Os in " "$out/$name.$variant.err" >"$out/$name.$variant.lines" || true
        rm "$out/$name.$variant.err"
    done
done
for f in scripts/engine_outputs/*.toml; do
    name=full_$(basename "$f" .toml)
    "$bin" "$f" --full 2>"$out/$name.err" | sed 's/"engine_events":[0-9]*,//' >"$out/$name.json"
    grep -v " I/Os in " "$out/$name.err" >"$out/$name.lines" || true
    rm "$out/$name.err"
done
echo "$(ls "$out"/*.json | wc -l) runs in $out" >&2
