#!/usr/bin/env python3
"""Do the transients play at the intensity the converter measured, under the pattern's controls?

For each piece follow.py converted (its --work DIR, with --keep), this converts the sound again
with --transients-only (no curves, so each transient's intensity is the measured one, not
compensated) and, for each transient of the full pattern at the same time, computes its
effective intensity: its HapticIntensity times the HapticIntensityControl in force at its time
(the latest curve starting at or before it, linear between points, its last value held after
its last point; 1 with no curve). Dynamic parameters multiply transients too, read at their
onset (docs/voicing.md). A transient is short of its level ("capped") when its effective
intensity is under the measured one by more than 0.002 (the 3-decimal rounding of both values).

    /work/venv/bin/python tools/bench/onsets/capped.py --haptic H --dir /tmp/onset-judge \
        --work WORK [-v]
"""
import argparse
import glob
import json
import os
import subprocess


def control(curves, t):
    live = [c for c in curves if c["Time"] <= t + 1e-12]
    if not live:
        return 1.0
    curve = max(live, key=lambda c: c["Time"])
    points = [(curve["Time"] + p["Time"], p["ParameterValue"]) for p in curve["ParameterCurveControlPoints"]]
    if t >= points[-1][0]:
        return points[-1][1]
    for (t0, v0), (t1, v1) in zip(points, points[1:]):
        if t0 <= t <= t1:
            return v1 if t1 == t0 else v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    return points[0][1]


def transients(pattern):
    return {
        round(e["Event"]["Time"], 6): {p["ParameterID"]: p["ParameterValue"] for p in e["Event"]["EventParameters"]}
        for e in pattern["Pattern"]
        if "Event" in e and e["Event"]["EventType"] == "HapticTransient"
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--haptic", required=True)
    parser.add_argument("--dir", required=True, help="what generate.py wrote")
    parser.add_argument("--work", required=True, help="follow.py's --work directory (with --keep)")
    parser.add_argument("-v", action="store_true", help="print each capped transient")
    args = parser.parse_args()
    total = 0
    ratios = []
    faint = 0
    for ahap in sorted(glob.glob(os.path.join(args.work, "*.ahap"))):
        if ahap.endswith(".bare.ahap") or ahap.endswith(".only.ahap"):
            continue
        name = os.path.basename(ahap)[:-5]
        wav = glob.glob(os.path.join(args.dir, "*", name + ".wav"))[0]
        only = os.path.join(args.work, name + ".only.ahap")
        subprocess.run([args.haptic, "convert", wav, "-o", only, "--transients-only"], check=True, capture_output=True)
        pattern = json.load(open(ahap))
        curves = [
            e["ParameterCurve"]
            for e in pattern["Pattern"]
            if "ParameterCurve" in e and e["ParameterCurve"]["ParameterID"] == "HapticIntensityControl"
        ]
        measured = transients(json.load(open(only)))
        for t, params in transients(pattern).items():
            if t not in measured:
                continue
            total += 1
            effective = params["HapticIntensity"] * control(curves, t)
            wanted = measured[t]["HapticIntensity"]
            if effective < wanted - 0.002:
                ratios.append(effective / wanted)
                faint += effective < 0.01
                if args.v:
                    print(f"{name} {t} s: effective {effective:.3f}, measured {wanted:.3f}")
    ratios.sort()
    print(f"transients {total}, capped {len(ratios)}, of them effective under 0.01: {faint}")
    if ratios:
        print(f"effective / measured of the capped: median {ratios[len(ratios) // 2]:.3f}, min {ratios[0]:.3f}")


if __name__ == "__main__":
    main()
