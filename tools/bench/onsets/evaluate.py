#!/usr/bin/env python3
"""Onset F-measure of librosa, aubio and `haptic convert` on the pieces generate.py wrote (issue 30).

For each piece: librosa.onset.onset_detect with its defaults (librosa.load's 22,050 Hz mono,
backtrack off), aubio's default onset detector (the `aubio onset` command with no options), and
the transients of the AHAP a `haptic` binary writes. Each is scored against the ground truth with
mir_eval.onset.f_measure (50 ms window). The table gives the mean F-measure per category for the
tuning set, the check set (tools/bench/onsets/check-set.txt) and both. Tune on the tuning set;
quote the check set.

    PY=/work/venv/bin/python
    $PY tools/bench/onsets/generate.py                        # once: /tmp/onset-bench
    $PY tools/bench/onsets/evaluate.py                        # librosa and aubio only
    $PY tools/bench/onsets/evaluate.py --haptic Tools/.build/release/haptic
    $PY tools/bench/onsets/evaluate.py --haptic H --cmd '{haptic} convert {wav} -o {out} --transients-only'
    $PY tools/bench/onsets/evaluate.py --haptic H --time 5   # also whole-process times, one core
    $PY tools/bench/onsets/evaluate.py --set tuning --category drums --haptic H --skip-reference

--cmd is the command that makes an AHAP from a WAV; {haptic}, {wav} and {out} are replaced.
A missing binary or a failed run is reported and scored as n/a, never stops the table.
--time N runs each whole process N times pinned to core 0 (taskset -c 0) on the 3-minute piece
and prints the median and best wall time: librosa (python start, import, load, onset_detect),
aubio (the `aubio onset` command) and the haptic command.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import mir_eval
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CMD = "{haptic} convert {wav} -o {out} --transients-only"
AUBIO = os.path.join(os.path.dirname(sys.executable), "aubio")
LIBROSA_PROCESS = ("import sys, librosa; y, sr = librosa.load(sys.argv[1]); "
                   "print(len(librosa.onset.onset_detect(y=y, sr=sr, units='time')))")


def read_check_set():
    with open(os.path.join(HERE, "check-set.txt")) as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def librosa_onsets(wav):
    import librosa
    y, sr = librosa.load(wav)
    return librosa.onset.onset_detect(y=y, sr=sr, units="time")


def aubio_onsets(wav):
    out = subprocess.run([AUBIO, "onset", "-i", wav], capture_output=True, text=True, check=True).stdout
    return np.array([float(x) for x in out.split()])


def ahap_transients(path):
    with open(path) as f:
        pattern = json.load(f)
    times = []
    for entry in pattern.get("Pattern", []):
        event = entry.get("Event")
        if event and event.get("EventType") == "HapticTransient":
            times.append(float(event.get("Time", 0.0)))
    return np.array(sorted(times))


def haptic_command(template, haptic, wav, out):
    return [part.format(haptic=haptic, wav=wav, out=out) for part in shlex.split(template)]


def haptic_onsets(template, haptic, wav, work):
    out = os.path.join(work, os.path.basename(wav) + ".ahap")
    run = subprocess.run(haptic_command(template, haptic, wav, out), capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"exit {run.returncode}: {(run.stderr or run.stdout).strip().splitlines()[:1]}")
    return ahap_transients(out)


def f_measure(truth, found):
    if len(truth) == 0 and len(found) == 0:
        return 1.0
    f, _, _ = mir_eval.onset.f_measure(np.asarray(truth, float), np.asarray(found, float), window=0.05)
    return f


def time_process(argv, runs):
    walls = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(["taskset", "-c", "0"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls), min(walls)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dir", default="/tmp/onset-bench", help="what generate.py wrote")
    p.add_argument("--haptic", help="path of a haptic binary; without it only librosa and aubio are scored")
    p.add_argument("--cmd", default=DEFAULT_CMD, help=f"command making an AHAP (default: {DEFAULT_CMD!r})")
    p.add_argument("--set", choices=["tuning", "check", "all"], default="all")
    p.add_argument("--category", action="append", help="only these categories (repeatable)")
    p.add_argument("--skip-reference", action="store_true", help="score haptic only (faster while tuning)")
    p.add_argument("--time", type=int, default=0, metavar="N", help="time whole processes N times on the 3-minute piece")
    p.add_argument("--json", help="write per-piece results here")
    p.add_argument("--verbose", "-v", action="store_true", help="print each piece's scores")
    a = p.parse_args()

    manifest_path = os.path.join(a.dir, "manifest.json")
    if not os.path.exists(manifest_path):
        sys.exit(f"evaluate.py: {manifest_path} is missing; run generate.py --out {a.dir} first")
    with open(manifest_path) as f:
        manifest = json.load(f)
    check = read_check_set()
    haptic = a.haptic
    haptic_note = None
    if haptic and not (os.path.isfile(haptic) and os.access(haptic, os.X_OK)):
        haptic_note = f"{haptic} is not an executable file"
        haptic = None
    elif not haptic:
        haptic_note = "no --haptic given"

    detectors = ([] if a.skip_reference else ["librosa", "aubio"]) + ["haptic"]
    rows = []
    failures = []
    with tempfile.TemporaryDirectory() as work:
        for piece in manifest["pieces"]:
            which = "check" if piece["name"] in check else "tuning"
            if a.set != "all" and which != a.set:
                continue
            if a.category and piece["category"] not in a.category:
                continue
            wav = os.path.join(a.dir, piece["wav"])
            truth = np.loadtxt(os.path.join(a.dir, piece["onsets"]), ndmin=1)
            row = {"name": piece["name"], "category": piece["category"], "set": which, "onsets": len(truth)}
            if not a.skip_reference:
                row["librosa"] = f_measure(truth, librosa_onsets(wav))
                row["aubio"] = f_measure(truth, aubio_onsets(wav))
            row["haptic"] = None
            if haptic:
                try:
                    found = haptic_onsets(a.cmd, haptic, wav, work)
                    row["haptic"] = f_measure(truth, found)
                    row["haptic_count"] = len(found)
                except (RuntimeError, OSError, ValueError, json.JSONDecodeError) as error:
                    failures.append(f"{piece['name']}: {error}")
            rows.append(row)
            if a.verbose:
                scores = "  ".join(f"{d} {row[d]:.3f}" if row.get(d) is not None else f"{d} n/a" for d in detectors)
                print(f"{piece['name']:<14} {which:<6} {len(truth):>4} onsets  {scores}", file=sys.stderr)

    def mean(subset, detector):
        values = [r[detector] for r in subset if r.get(detector) is not None]
        return f"{statistics.mean(values):.3f}" if values and len(values) == len(subset) else "n/a"

    categories = [c for c in ["drums", "piano", "plucked", "ensemble", "speech", "effects"]
                  if any(r["category"] == c for r in rows)]
    print(f"Onset F-measure (mir_eval, 50 ms), mean over pieces; ground truth {a.dir} (seed {manifest['seed']})")
    print()
    print("| set | category | pieces | onsets | " + " | ".join(detectors) + " |")
    print("|---|---|---|---|" + "---|" * len(detectors))
    for which in ["tuning", "check", "all"]:
        in_set = [r for r in rows if which == "all" or r["set"] == which]
        if not in_set:
            continue
        for category in categories + ["all"]:
            subset = [r for r in in_set if category == "all" or r["category"] == category]
            if not subset or (which == "all" and category != "all"):
                continue
            label = f"**{category}**" if category == "all" else category
            print(f"| {which} | {label} | {len(subset)} | {sum(r['onsets'] for r in subset)} | "
                  + " | ".join(mean(subset, d) for d in detectors) + " |")
    if haptic_note:
        print(f"\nhaptic: n/a ({haptic_note})")
    if failures:
        print(f"\nhaptic failed on {len(failures)} piece(s):")
        for line in failures[:10]:
            print(f"  {line}")

    if a.time:
        long_wav = os.path.join(a.dir, manifest["timing"])
        seconds = float(subprocess.run(["soxi", "-D", long_wav], capture_output=True, text=True).stdout or 0)
        print(f"\nWhole processes on one core (taskset -c 0), {seconds:.0f} s piece, {a.time} runs: median, best")
        timings = {"librosa": [sys.executable, "-c", LIBROSA_PROCESS, long_wav], "aubio": [AUBIO, "onset", "-i", long_wav]}
        if haptic:
            timings["haptic"] = haptic_command(a.cmd, haptic, long_wav, os.path.join(tempfile.gettempdir(), "onset-bench-long.ahap"))
        results = {}
        for name, argv in timings.items():
            try:
                results[name] = time_process(argv, a.time)
                print(f"  {name:<8} {results[name][0]:8.3f} s  {results[name][1]:8.3f} s")
            except subprocess.CalledProcessError as error:
                print(f"  {name:<8} failed: exit {error.returncode}")
        if "haptic" in results and "librosa" in results:
            print(f"  librosa / haptic (median): {results['librosa'][0] / results['haptic'][0]:.1f}x")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
