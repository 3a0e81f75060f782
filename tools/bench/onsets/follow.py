#!/usr/bin/env python3
"""Do the rendered haptics follow the sound? (issue 30's third criterion)

For each piece `generate.py` wrote under DIR, this converts the sound with the default options
(`haptic convert piece.wav -o x.ahap`), renders the pattern (`haptic render x.ahap -o x.wav
--format f32`, 48 kHz mono, the default voice) and measures two things.

1. Envelope correlation. Both envelopes are on one grid: a point every 10 ms from 0 to the
   sound's end, each from a 46.4 ms Hann window (2,229 samples at 48 kHz; the converter's
   analysis frame, 1,024 points at about 22 kHz) centred on the point; the rendered WAV is
   padded with silence to the sound's length. Each is put on the pattern's intensity scale:

   - the sound: its loudness as the converter defines it (docs/audio-to-haptics.md), the
     window's RMS (channels mixed to their mean) as L = min(1, (RMS / 0.2512)^0.6), Stevens'
     loudness exponent with -12 dBFS at 1, and 0 below the -60 dBFS silence gate;
   - the render: its effective intensity, the RMS of the rendered WAV inverted through the
     default voice's law (amplitude = 0.8 * intensity^2, docs/voicing.md), I = sqrt(RMS).
     A constant factor does not change a Pearson correlation, so sqrt(RMS) is that inversion.

   The render, not the AHAP's numbers, because the criterion is about what is felt: it
   includes the transients' clicks on top of the continuous events, the curves as the
   renderer interpolates them, the events' envelopes and the limiter. The figure is the
   Pearson correlation of L and I over the grid. For comparison the tool also gives the
   correlation of the two RMS levels in dB (floor -100 dB), the measure of the unit test
   `AudioHapticsTests.loudnessFollowed`.

2. Onsets. The converter's detected onsets are the AHAP's transients' times. The rendered
   onsets are found in the render itself: the pattern is rendered a second time without its
   transients, and the difference of the two renders is the transients' clicks as rendered
   (the limiter's effect included). In 1 ms blocks of that difference (peak |x| a block), a
   rendered onset is the start of a block louder than -120 dBFS (the two f32 renders are equal
   sample for sample where no click plays) and more than twice (6 dB) the
   loudest of the 3 blocks before it, refined to the first sample of that block above a
   tenth of the block's peak; rises within 5 ms of each other are one onset. Each detected
   onset is matched to the nearest rendered one: the offset is rendered - detected. Given: the
   largest |offset|, the 99th percentile, and how many detected onsets have no rendered onset
   within 10 ms, and how many detected onsets render a click whose peak stays under -60 dBFS
   (too faint to feel, but still a rendered onset).

    /work/venv/bin/python tools/bench/onsets/follow.py --dir /tmp/onset-judge --haptic H \
        [--json out.json] [--jobs 2] [--work DIR] [--keep] [--piece NAME] [-v]

Needs numpy and soundfile.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import soundfile

RATE = 48000
HOP = 480
WINDOW = 2229
FULL_SCALE_RMS = 0.2512
EXPONENT = 0.6
GATE_DB = -60.0
BLOCK = 48
CLICK_FLOOR = 1e-6
FAINT = 10 ** (-60 / 20)
TOLERANCE = 0.010


def windowed_rms(x, length):
    """RMS in a Hann window centred on every 10 ms point from 0 to `length` samples."""
    x = np.asarray(x, dtype=np.float64)
    if len(x) < length:
        x = np.concatenate([x, np.zeros(length - len(x))])
    x = x[:length]
    half = WINDOW // 2
    padded = np.concatenate([np.zeros(half), x, np.zeros(half + 1)])
    window = np.hanning(WINDOW)
    weight = window.sum()
    points = np.arange(0, length, HOP)
    sq = padded * padded
    out = np.empty(len(points))
    for i, p in enumerate(points):
        out[i] = np.dot(sq[p : p + WINDOW], window) / weight
    return np.sqrt(out)


def loudness(rms):
    level = np.minimum(1.0, (rms / FULL_SCALE_RMS) ** EXPONENT)
    level[20 * np.log10(rms + 1e-20) < GATE_DB] = 0
    return level


def pearson(a, b):
    a = a - a.mean()
    b = b - b.mean()
    d = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / d) if d > 0 else float("nan")


def rendered_onsets(clicks):
    n = len(clicks) // BLOCK
    peaks = np.abs(clicks[: n * BLOCK]).reshape(n, BLOCK).max(axis=1)
    onsets = []
    last = -1e9
    for k in range(3, n):
        before = peaks[k - 3 : k].max()
        if peaks[k] > CLICK_FLOOR and peaks[k] > 2 * before:
            block = np.abs(clicks[k * BLOCK : (k + 1) * BLOCK])
            first = k * BLOCK + int(np.argmax(block >= 0.1 * peaks[k]))
            t = first / RATE
            if t - last > 0.005:
                onsets.append(t)
            last = t
    return np.array(onsets)


def read_mono(path):
    x, rate = soundfile.read(path, dtype="float64", always_2d=True)
    if rate != RATE:
        raise SystemExit(f"{path}: {rate} Hz, expected {RATE}")
    return x.mean(axis=1)


def run(argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")


def measure(haptic, wav, work, keep=False):
    name = os.path.splitext(os.path.basename(wav))[0]
    ahap = os.path.join(work, name + ".ahap")
    bare = os.path.join(work, name + ".bare.ahap")
    render = os.path.join(work, name + ".render.wav")
    render_bare = os.path.join(work, name + ".bare.wav")
    run([haptic, "convert", wav, "-o", ahap])
    pattern = json.load(open(ahap))
    transients = sorted(
        e["Event"]["Time"] for e in pattern["Pattern"] if e.get("Event", {}).get("EventType") == "HapticTransient"
    )
    pattern["Pattern"] = [e for e in pattern["Pattern"] if e.get("Event", {}).get("EventType") != "HapticTransient"]
    json.dump(pattern, open(bare, "w"))
    run([haptic, "render", ahap, "-o", render, "--format", "f32"])
    run([haptic, "render", bare, "-o", render_bare, "--format", "f32"])
    sound = read_mono(wav)
    full = read_mono(render)
    without = read_mono(render_bare)
    if not keep:
        os.remove(render)
        os.remove(render_bare)
    length = len(sound)
    a_rms = windowed_rms(sound, length)
    r_rms = windowed_rms(full, length)
    l_audio = loudness(a_rms)
    i_render = np.sqrt(r_rms)
    correlation = pearson(l_audio, i_render)
    db = pearson(20 * np.log10(np.maximum(a_rms, 1e-5)), 20 * np.log10(np.maximum(r_rms, 1e-5)))
    m = max(len(full), len(without))
    clicks = np.pad(full, (0, m - len(full))) - np.pad(without, (0, m - len(without)))
    found = rendered_onsets(clicks)
    offsets = []
    unmatched = []
    faint = []
    for t in transients:
        if len(found) == 0:
            unmatched.append(t)
            continue
        j = int(np.argmin(np.abs(found - t)))
        off = found[j] - t
        offsets.append(off)
        if abs(off) > TOLERANCE:
            unmatched.append(t)
        i = int(round(t * RATE))
        if np.abs(clicks[i : i + 960]).max(initial=0) < FAINT:
            faint.append(t)
    offsets = np.array(offsets)
    return {
        "name": name,
        "correlation": correlation,
        "correlation_db": db,
        "transients": len(transients),
        "rendered_onsets": len(found),
        "offsets_ms": [round(o * 1000, 3) for o in offsets],
        "largest_ms": float(np.max(np.abs(offsets)) * 1000) if len(offsets) else 0.0,
        "unmatched": [round(t, 4) for t in unmatched],
        "faint": [round(t, 4) for t in faint],
        "seconds": length / RATE,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dir", default="/tmp/onset-bench")
    p.add_argument("--haptic", required=True)
    p.add_argument("--json")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--work", default=None, help="where the AHAPs and renders go (default: a temporary folder)")
    p.add_argument("--piece", action="append", help="only this piece (repeatable)")
    p.add_argument("--keep", action="store_true", help="keep the renders (about 20 MB a piece) beside the AHAPs")
    p.add_argument("-v", action="store_true", help="one line per piece")
    a = p.parse_args()
    manifest = json.load(open(os.path.join(a.dir, "manifest.json")))
    work = a.work or tempfile.mkdtemp(prefix="follow-")
    os.makedirs(work, exist_ok=True)
    haptic = os.path.abspath(a.haptic)
    pieces = [piece for piece in manifest["pieces"] if not a.piece or piece["name"] in a.piece]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(measure, haptic, os.path.join(a.dir, piece["wav"]), work, a.keep) for piece in pieces]
        results = [f.result() for f in futures]
    for piece, r in zip(pieces, results):
        r["category"] = piece["category"]
        if a.v:
            print(
                f"{r['name']:12} r={r['correlation']:.3f} (dB {r['correlation_db']:.3f}) "
                f"onsets {r['transients']} -> {r['rendered_onsets']}, largest {r['largest_ms']:.1f} ms, "
                f"over 10 ms {len(r['unmatched'])}"
            )
    categories = []
    for piece in pieces:
        if piece["category"] not in categories:
            categories.append(piece["category"])
    print(f"seed {manifest.get('seed')}, {len(pieces)} pieces")
    print("| category | pieces | correlation median | minimum | dB-scale median | onsets | largest offset | p99 | over 10 ms | click under -60 dBFS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for category in categories + ["all"]:
        rs = [r for r in results if category == "all" or r["category"] == category]
        cs = np.array([r["correlation"] for r in rs])
        ds = np.array([r["correlation_db"] for r in rs])
        offs = np.abs(np.concatenate([np.array(r["offsets_ms"]) for r in rs] + [np.zeros(0)]))
        p99 = float(np.percentile(offs, 99)) if len(offs) else 0.0
        print(
            f"| {category} | {len(rs)} | {np.median(cs):.3f} | {cs.min():.3f} | {np.median(ds):.3f} | "
            f"{sum(r['transients'] for r in rs)} | {offs.max() if len(offs) else 0:.1f} ms | {p99:.1f} ms | "
            f"{sum(len(r['unmatched']) for r in rs)} | {sum(len(r['faint']) for r in rs)} |"
        )
    low = [r for r in results if not r["correlation"] >= 0.9]
    print("below 0.9: " + (", ".join(f"{r['name']} {r['correlation']:.3f}" for r in low) or "none"))
    if a.json:
        json.dump({"seed": manifest.get("seed"), "pieces": results}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
