#!/usr/bin/env python3
"""What the studio keeps resident after a large request (issue 28, BENCHMARKS.md).

usage: tools/bench/studio-trim.py HAPTIC PORT [FOLDER]
Starts `HAPTIC studio FOLDER` (default the current folder), posts one /api/diff of two patterns
of 35,000 events (about 8 MB), and prints the resident size idle, at its peak and 2 s after the
answer."""
import json, sys, time, urllib.request
import studio_child
haptic, port = sys.argv[1], int(sys.argv[2])
folder = sys.argv[3] if len(sys.argv) > 3 else "."
proc, token = studio_child.start(haptic, folder, port)
status = lambda key: studio_child.megabytes(proc, key)
host = f"127.0.0.1:{port}"
h = {"X-Studio-Token": token, "Host": host, "Origin": f"http://{host}", "Content-Type": "application/json"}
ev = lambda k, i=1.0: {"Event": {"Time": k * 0.01, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": i}]}}
a = {"Version": 1, "Pattern": [ev(k) for k in range(35000)]}
b = {"Version": 1, "Pattern": [ev(k, 0.5) for k in range(35000)]}
idle = status("VmRSS")
t = time.time()
r = urllib.request.urlopen(urllib.request.Request(f"http://{host}/api/diff", data=json.dumps({"a": a, "b": b}).encode(), headers=h)).read()
took = time.time() - t
time.sleep(2)
print(f"{haptic}: diff of 2 x 35,000 events in {took:.1f} s; idle {idle} MB, peak {status('VmHWM')} MB, RSS 2 s after {status('VmRSS')} MB")
proc.terminate(); proc.wait()
