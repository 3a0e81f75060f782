#!/usr/bin/env bash
# Many files on every core (issue 12): `haptic lint`, `haptic review` and `haptic render` of one
# folder, pinned to one core (taskset -c 0) and then on every core; prints the median wall time
# of each and the speed-up.
#
#   tools/bench/many.sh                   # Patterns/ copied 8 times: 152 files
#   COPIES=4 RUNS=3 tools/bench/many.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
copies=${COPIES:-8}
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bin=$(tools/build-release --quiet)
for i in $(seq 1 "$copies"); do
  mkdir -p "$work/in/$i"
  find Patterns -name '*.ahap' | while read -r f; do cp "$f" "$work/in/$i/$i-$(basename "$f")"; done
done
files=$(find "$work/in" -name '*.ahap' | wc -l)
echo "$files files, $(nproc) cores, median of $runs runs"

python3 - "$bin" "$work" "$runs" <<'PY'
import statistics, subprocess, sys, time
bin, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
jobs = {
    "lint": [bin, "lint", f"{work}/in"],
    "review": [bin, "review", f"{work}/in", "-o", f"{work}/review.html", "--preview-seconds", "10"],
    "render": [bin, "render", f"{work}/in", "-o", f"{work}/wavs"],
}
def median(cmd):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
for name, cmd in jobs.items():
    one = median(["taskset", "-c", "0"] + cmd)
    every = median(cmd)
    print(f"{name:7} one core {one * 1000:7.0f} ms   every core {every * 1000:7.0f} ms   speed-up {one / every:.2f}x")
PY
