#!/usr/bin/env python3
"""Writes the render benchmark's pattern (issue 2, section 7) to stdout.

A 10-minute pattern: a transient every 100 ms, and every 5 s a 2-second continuous
event under an intensity curve and a sharpness curve. Deterministic: the same file
every time, so figures from different machines and commits compare.

usage: make-long-pattern.py [MINUTES] > long.ahap
"""
import json
import sys

minutes = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
length = minutes * 60.0
pattern = []
for n in range(int(round(length * 10))):
    t = round(n * 0.1, 3)
    level = round(0.3 + 0.7 * ((n * 7) % 10) / 9, 3)
    pattern.append({"Event": {"Time": t, "EventType": "HapticTransient", "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": level},
        {"ParameterID": "HapticSharpness", "ParameterValue": round(1 - level + 0.3, 3) if level > 0.3 else 1.0}]}})
for k in range(int(length // 5)):
    t = k * 5.0
    pattern.append({"Event": {"Time": t + 0.05, "EventType": "HapticContinuous", "EventDuration": 2.0,
        "EventParameters": [
            {"ParameterID": "HapticIntensity", "ParameterValue": 0.8},
            {"ParameterID": "HapticSharpness", "ParameterValue": 0.4},
            {"ParameterID": "AttackTime", "ParameterValue": 0.1},
            {"ParameterID": "ReleaseTime", "ParameterValue": 0.2}]}})
    pattern.append({"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": t + 0.05,
        "ParameterCurveControlPoints": [
            {"Time": 0.0, "ParameterValue": 0.2}, {"Time": 0.5, "ParameterValue": 1.0},
            {"Time": 1.5, "ParameterValue": 0.6}, {"Time": 2.0, "ParameterValue": 0.0}]}})
    pattern.append({"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": t + 0.05,
        "ParameterCurveControlPoints": [
            {"Time": 0.0, "ParameterValue": -0.3}, {"Time": 1.0, "ParameterValue": 0.4},
            {"Time": 2.0, "ParameterValue": -0.2}]}})
pattern.sort(key=lambda e: next(iter(e.values()))["Time"])
doc = {"Version": 1.0,
       "Metadata": {"Project": "swift-haptics render benchmark",
                    "Description": f"{minutes:g} minutes: a transient every 100 ms; every 5 s a 2 s continuous event under intensity and sharpness curves."},
       "Pattern": pattern}
json.dump(doc, sys.stdout, indent=1)
sys.stdout.write("\n")
