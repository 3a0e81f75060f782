#!/usr/bin/env python3
"""Two `haptic` binaries side by side on the 10-minute render (issue 12).

Runs OLD and NEW in turn (the order alternating every round), each pinned to core 0, and prints
the median and best wall time, the median CPU time and the speed as a multiple of real time.
Alternating keeps a busy machine's drift from favouring either binary.

    cp "$(tools/build-release --quiet)" /tmp/haptic-new
    git stash && cp "$(tools/build-release --quiet)" /tmp/haptic-old && git stash pop
    tools/bench/compare.py /tmp/haptic-old /tmp/haptic-new          # 30 rounds, f32
    tools/bench/compare.py /tmp/haptic-old /tmp/haptic-new 20 s16   # 20 rounds, 16-bit
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

if len(sys.argv) < 3:
    sys.exit(__doc__)
binaries = sys.argv[1:3]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 30
sample_format = sys.argv[4] if len(sys.argv) > 4 else "f32"
here = os.path.dirname(os.path.abspath(__file__))
minutes = 10
with tempfile.TemporaryDirectory() as work:
    pattern = os.path.join(work, "long.ahap")
    with open(pattern, "w") as out:
        subprocess.run([sys.executable, os.path.join(here, "make-long-pattern.py"), str(minutes)], stdout=out, check=True)
    wall = {b: [] for b in binaries}
    cpu = {b: [] for b in binaries}
    for r in range(rounds):
        for b in binaries if r % 2 == 0 else binaries[::-1]:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            with open(os.devnull, "wb") as null:
                subprocess.run(
                    ["taskset", "-c", "0", b, "render", pattern, "-o", "-", "--format", sample_format], stdout=null, check=True)
            wall[b].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[b].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    seconds = minutes * 60
    for b in binaries:
        median = statistics.median(wall[b])
        print(
            f"{b}: wall median {median * 1000:.1f} ms (best {min(wall[b]) * 1000:.1f}), "
            f"CPU median {statistics.median(cpu[b]) * 1000:.1f} ms, "
            f"{seconds / median:,.0f}x real time (best {seconds / min(wall[b]):,.0f}x)")
