#!/usr/bin/env python3
"""Each onset `haptic convert` misses or adds, piece by piece, with the notes that made it (issue 30).

For every piece of a set generate.py wrote: the transients of the AHAP the haptic command writes,
matched to the ground truth as mir_eval matches them (50 ms window). Prints each missed onset
(its time, the nearest detection, the gap to the onset before it and, for MIDI pieces, the notes
there and at the onset before: program, key, velocity) and each false one (the nearest true
onset), then the mean F-measure per category. The notes come from generate.py's own MIDI writer
with the set's seed, so nothing but the set's directory is read.

    PY=/work/venv/bin/python
    $PY tools/bench/onsets/misses.py --dir /tmp/onset-fresh --haptic Tools/.build/release/haptic \
        --category drums --category plucked
    $PY tools/bench/onsets/misses.py --haptic H --set tuning      # seed 30: never the check set

Seed 30's check set (check-set.txt) is left out unless --set check or --set all is given: study
misses on tuning material only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import mir_eval
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402
from evaluate import DEFAULT_CMD, ahap_transients, haptic_command, read_check_set  # noqa: E402


def notes_near(song_notes, t):
    return " ".join(f"p{p}k{k}v{v}" for start, p, k, v in song_notes if t - 0.001 <= start < t + generate.MERGE)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dir", default="/tmp/onset-bench", help="what generate.py wrote")
    p.add_argument("--haptic", required=True, help="path of a haptic binary")
    p.add_argument("--cmd", default=DEFAULT_CMD, help=f"command making an AHAP (default: {DEFAULT_CMD!r})")
    p.add_argument("--set", choices=["tuning", "check", "all"], default="tuning",
                   help="for seed 30: which part (default: tuning); other seeds: every piece")
    p.add_argument("--category", action="append", help="only these categories (repeatable)")
    p.add_argument("--summary", action="store_true", help="one line a piece, no onsets")
    a = p.parse_args()

    with open(os.path.join(a.dir, "manifest.json")) as f:
        manifest = json.load(f)
    seed = manifest["seed"]
    check = read_check_set() if seed == 30 else set()
    scores = {}
    with tempfile.TemporaryDirectory() as work:
        for piece in manifest["pieces"]:
            which = "check" if piece["name"] in check else "tuning"
            if seed == 30 and a.set != "all" and which != a.set:
                continue
            if a.category and piece["category"] not in a.category:
                continue
            wav = os.path.join(a.dir, piece["wav"])
            truth = np.loadtxt(os.path.join(a.dir, piece["onsets"]), ndmin=1)
            out = os.path.join(work, "piece.ahap")
            subprocess.run(haptic_command(a.cmd, a.haptic, wav, out), check=True, capture_output=True)
            found = ahap_transients(out)
            f, precision, recall = mir_eval.onset.f_measure(truth, found, window=0.05)
            scores.setdefault(piece["category"], []).append(f)
            matching = mir_eval.util.match_events(truth, found, 0.05)
            matched_truth = {i for i, _ in matching}
            matched_found = {j for _, j in matching}
            missed = [i for i in range(len(truth)) if i not in matched_truth]
            added = [j for j in range(len(found)) if j not in matched_found]
            print(f"{piece['name']}: F {f:.3f}, precision {precision:.3f}, recall {recall:.3f}; "
                  f"{len(truth)} onsets, {len(found)} found, {len(missed)} missed, {len(added)} false")
            if a.summary:
                continue
            if matching:
                offsets = [1000 * (found[j] - truth[i]) for i, j in matching]
                print(f"  found minus true: mean {np.mean(offsets):.1f} ms, {min(offsets):.1f} to {max(offsets):.1f} ms")
            song_notes = []
            if piece["category"] in generate.MIDI_CATEGORIES:
                song = generate.midi_piece(piece["category"], int(piece["name"].split("-")[1]), seed)
                song_notes = sorted((song.seconds(song.tick(n[2])), n[1], n[4], n[5]) for n in song.notes)
            for i in missed:
                t = truth[i]
                nearest = f"{1000 * (found[np.argmin(abs(found - t))] - t):+.1f} ms" if len(found) else "none"
                gap = f"{1000 * (t - truth[i - 1]):.0f} ms" if i else "-"
                line = f"  missed {t:8.3f} s  nearest detection {nearest}  after the previous onset {gap}"
                if song_notes:
                    line += f"  notes {notes_near(song_notes, t)}"
                    if i:
                        line += f"  | previous {notes_near(song_notes, truth[i - 1])}"
                print(line)
            for j in added:
                t = found[j]
                print(f"  false  {t:8.3f} s  nearest onset {1000 * (truth[np.argmin(abs(truth - t))] - t):+.1f} ms")
    print()
    for category, values in scores.items():
        print(f"{category}: mean F {statistics.mean(values):.3f} over {len(values)} pieces")


if __name__ == "__main__":
    main()
