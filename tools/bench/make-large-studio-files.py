#!/usr/bin/env python3
"""Large but legal AHAP files for the studio's memory (issue 28, BENCHMARKS.md "Opening a large
file"): lint refuses none (AHAPLimits: at most 16 MiB, 100,000 events, 1,000 control points a
curve here, under an hour). Deterministic.

usage: make-large-studio-files.py events|curves TARGET_MB [compact] > file.ahap
  events: 3 transients and a continuous event with 4 parameters every 120 ms
  curves: parameter curves of 1,000 control points, a continuous event under each pair
  compact: no spaces or line breaks (more values per megabyte)"""
import json, sys
kind = sys.argv[1]
target = float(sys.argv[2]) * 1e6
pattern = []
if kind == "events":
    # one group: 3 transients and 1 continuous event with 4 parameters; ~1.3 KB with indent 1
    per = 1320 if not (len(sys.argv) > 3 and sys.argv[3] == "compact") else 882
    groups = min(25000, int(target / per))
    for g in range(groups):
        t = g * 0.12
        for k in range(3):
            level = round(0.3 + 0.7 * (((g * 3 + k) * 7) % 10) / 9, 3)
            pattern.append({"Event": {"Time": round(t + k * 0.03, 4), "EventType": "HapticTransient", "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": level},
                {"ParameterID": "HapticSharpness", "ParameterValue": round(1.3 - level, 3)}]}})
        pattern.append({"Event": {"Time": round(t + 0.09, 4), "EventType": "HapticContinuous", "EventDuration": 0.025,
            "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": 0.8},
                {"ParameterID": "HapticSharpness", "ParameterValue": 0.4},
                {"ParameterID": "AttackTime", "ParameterValue": 0.01},
                {"ParameterID": "ReleaseTime", "ParameterValue": 0.01}]}})
elif kind == "curves":
    points = 1000
    per_curve = points * (62 if not (len(sys.argv) > 3 and sys.argv[3] == "compact") else 36)
    curves = int(target / per_curve)
    span = 10.0
    for c in range(curves):
        t = (c // 2) * span
        pattern.append({"Event": {"Time": t, "EventType": "HapticContinuous", "EventDuration": span,
            "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.7}]}} if c % 2 == 0 else None)
        pid = "HapticIntensityControl" if c % 2 == 0 else "HapticSharpnessControl"
        pts = [{"Time": round(i * span / points, 4), "ParameterValue": round(0.5 + 0.5 * (((i * 37 + c) % 100) / 100 - 0.5), 3)} for i in range(points)]
        pattern.append({"ParameterCurve": {"ParameterID": pid, "Time": t, "ParameterCurveControlPoints": pts}})
    pattern = [p for p in pattern if p is not None]
else:
    sys.exit("events or curves")
doc = {"Version": 1.0, "Metadata": {"Project": "swift-haptics studio memory (issue 28)", "Description": kind}, "Pattern": pattern}
compact = len(sys.argv) > 3 and sys.argv[3] == "compact"
json.dump(doc, sys.stdout, **({"separators": (",", ":")} if compact else {"indent": 1}))
sys.stdout.write("\n")
