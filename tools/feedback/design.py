#!/usr/bin/env python3
"""Writes Patterns/feedback/*.ahap, the sensory-feedback presets, which SwiftPM embeds in the
SensoryFeedback module (Sources/SensoryFeedback/Presets links to the folder). Edit the designs here,
run it, commit the files."""
import json, os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

def tap(t, i, s):
    return {"Event": {"Time": t, "EventType": "HapticTransient", "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": i},
        {"ParameterID": "HapticSharpness", "ParameterValue": s}]}}

def buzz(t, d, i, s, attack=0.0, decay=0.0, release=0.0, sustained=1.0):
    params = [{"ParameterID": "HapticIntensity", "ParameterValue": i},
              {"ParameterID": "HapticSharpness", "ParameterValue": s}]
    for pid, v in (("AttackTime", attack), ("DecayTime", decay), ("ReleaseTime", release)):
        if v: params.append({"ParameterID": pid, "ParameterValue": v})
    if sustained != 1.0: params.append({"ParameterID": "Sustained", "ParameterValue": sustained})
    return {"Event": {"Time": t, "EventType": "HapticContinuous", "EventDuration": d, "EventParameters": params}}

# name -> (description, events)
PRESETS = [
    ("success", "a medium tap, then a stronger, crisper one 100 ms later",
     [tap(0.0, 0.55, 0.5), tap(0.1, 1.0, 0.7)]),
    ("warning", "a strong tap, then a weaker, duller one 150 ms later",
     [tap(0.0, 1.0, 0.6), tap(0.15, 0.5, 0.3)]),
    ("error", "four quick taps 60 ms apart, the third one accented",
     [tap(0.0, 0.7, 0.5), tap(0.06, 0.7, 0.5), tap(0.12, 1.0, 0.9), tap(0.18, 0.55, 0.4)]),
    ("selection", "one very light, crisp tick",
     [tap(0.0, 0.35, 1.0)]),
    ("increase", "a rising pair: a soft tap, then a stronger, brighter one 80 ms later",
     [tap(0.0, 0.45, 0.3), tap(0.08, 0.85, 0.8)]),
    ("decrease", "a falling pair: a strong, bright tap, then a softer, duller one 80 ms later",
     [tap(0.0, 0.85, 0.8), tap(0.08, 0.45, 0.3)]),
    ("start", "a firm tap followed by a short buzz that swells (something begins)",
     [tap(0.0, 0.8, 0.6), buzz(0.03, 0.15, 0.6, 0.4, attack=0.6)]),
    ("stop", "a short buzz that fades, closed by a dull tap (something ends)",
     [buzz(0.0, 0.15, 0.6, 0.4, decay=0.6, sustained=0.0), tap(0.17, 0.8, 0.2)]),
    ("alignment", "one crisp click, firmer than a selection tick (snapping into place)",
     [tap(0.0, 0.65, 0.9)]),
    ("level-change", "a medium tap with a short low rumble after it (crossing a threshold)",
     [tap(0.0, 0.7, 0.5), buzz(0.02, 0.08, 0.4, 0.1)]),
    ("path-complete", "three rising taps 80 ms apart (a gesture finished its path)",
     [tap(0.0, 0.4, 0.4), tap(0.08, 0.65, 0.6), tap(0.16, 0.95, 0.8)]),
    ("impact-light", "a light collision: a small, fairly crisp tap",
     [tap(0.0, 0.45, 0.6)]),
    ("impact-medium", "a medium collision: a full tap of middle sharpness (the default impact)",
     [tap(0.0, 0.75, 0.5)]),
    ("impact-heavy", "a heavy collision: a strong dull tap with a brief rumble",
     [tap(0.0, 1.0, 0.3), buzz(0.0, 0.05, 0.6, 0.1, decay=0.05, sustained=0.0)]),
    ("impact-rigid", "rigid objects colliding: a short, very sharp click",
     [tap(0.0, 0.9, 1.0)]),
    ("impact-solid", "solid objects colliding: a firm tap, sharper than medium",
     [tap(0.0, 0.85, 0.75)]),
    ("impact-soft", "soft objects colliding: a duller, longer thud",
     [tap(0.0, 0.6, 0.05), buzz(0.0, 0.09, 0.45, 0.0, decay=0.09, sustained=0.0)]),
]

def main():
    folder = os.path.join(ROOT, "Patterns", "feedback")
    os.makedirs(folder, exist_ok=True)
    for name, description, events in PRESETS:
        doc = {"Version": 1.0,
               "Metadata": {"Project": "swift-haptics", "Description": description[0].upper() + description[1:] + "."},
               "Pattern": events}
        with open(os.path.join(folder, name + ".ahap"), "w") as f:
            f.write(json.dumps(doc, indent=4) + "\n")


main()
