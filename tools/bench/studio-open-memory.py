#!/usr/bin/env python3
"""The studio's memory on a large file (issue 28, BENCHMARKS.md "Opening a large file").

usage: studio-open-memory.py HAPTIC FOLDER FILE PORT [SAVE]
Starts `HAPTIC studio FOLDER`, opens FILE (GET /api/pattern; the peak RSS, VmHWM, 3 s later, when
the per-entry analysis made after the answer is done), then sends 10 edits of Pattern[1] as the
page does (POST /api/analyze, a 60 s window) and reads the peak again. Saves the GET's body to
SAVE if given."""
import json, os, sys, time, urllib.request
import studio_child
haptic, folder, name, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
save = sys.argv[5] if len(sys.argv) > 5 else None
proc, token = studio_child.start(haptic, folder, port)
status = lambda key: studio_child.megabytes(proc, key)
label = os.path.basename(folder.rstrip("/"))
path = f"{label}/{name}"
host = f"127.0.0.1:{port}"
headers = {"X-Studio-Token": token, "Host": host}
idle = status("VmHWM")
t = time.time()
body = urllib.request.urlopen(urllib.request.Request(f"http://{host}/api/pattern?path={urllib.parse.quote(path)}", headers=headers)).read()
took = time.time() - t
if save:
    open(save, "wb").write(body)
time.sleep(3)  # the entry analysis runs after the answer
get_peak = status("VmHWM")
rss_after = status("VmRSS")
view = json.loads(body)
line = f"{name}: {os.path.getsize(os.path.join(folder, name))/1e6:.1f} MB, answer {len(body)/1e6:.1f} MB in {took:.2f} s; idle {idle} MB, peak after GET {get_peak} MB, RSS {rss_after} MB"
if view.get("ahap"):
    entry = view["ahap"]["Pattern"][1]
    edited = json.loads(json.dumps(entry))
    inner = next(iter(edited.values()))
    inner["Time"] = inner["Time"] + 0.001
    analyze = []
    for k in range(10):
        inner["Time"] = round(inner["Time"] + 0.001, 6)
        req = {"path": path, "baseVersion": view["version"], "edits": [{"index": 1, "element": edited}],
               "window": {"start": 0, "end": 60, "columns": 1400}, "findingsKey": view["findingsKey"]}
        t = time.time()
        r = urllib.request.urlopen(urllib.request.Request(f"http://{host}/api/analyze", data=json.dumps(req).encode(),
            headers={**headers, "Origin": f"http://{host}", "Content-Type": "application/json"})).read()
        analyze.append(time.time() - t)
    line += f"; 10 analyses: first {analyze[0]*1000:.0f} ms, median {sorted(analyze)[5]*1000:.0f} ms, peak after {status('VmHWM')} MB, RSS {status('VmRSS')} MB"
print(line, flush=True)
proc.terminate()
proc.wait()
