#!/usr/bin/env bash
# Render benchmark (issue 2, section 7): the whole `haptic render LONG -o - > /dev/null`
# process, pinned to one core, timed by hyperfine over repeated runs.
#
#   tools/bench/render.sh            # 10-minute pattern, 48 kHz mono f32
#   RUNS=30 tools/bench/render.sh
#
# Prints hyperfine's table and the speed as a multiple of real time (pattern length
# divided by the mean wall time of the process).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v hyperfine >/dev/null || { echo "render.sh: needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
runs=${RUNS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bin=$(tools/build-release --quiet)
python3 tools/bench/make-long-pattern.py 10 > "$work/long.ahap"

# Sanity: the output is the full-length WAV, not an early exit.
bytes=$(taskset -c 0 "$bin" render "$work/long.ahap" -o - --sample-rate 48000 --format f32 --channels 1 | wc -c)
echo "output: $bytes bytes"

hyperfine --runs "$runs" --warmup 3 --export-json "$work/h.json" \
  "taskset -c 0 $bin render $work/long.ahap -o - --sample-rate 48000 --format f32 --channels 1 > /dev/null"

python3 - "$work/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
length = 600.0
print(f"mean {r['mean']*1000:.1f} ms, median {r['median']*1000:.1f} ms, min {r['min']*1000:.1f} ms, max {r['max']*1000:.1f} ms")
print(f"speed: {length / r['mean']:.0f}x real time (mean), {length / r['median']:.0f}x (median)")
PY
