#!/usr/bin/env python3
"""Where the studio's time goes on an edit (issue 28, BENCHMARKS.md "Server-Timing").

usage: tools/bench/studio-server-timing.py HAPTIC FOLDER FILE PORT [EDITS]
Starts `HAPTIC studio FOLDER`, opens FILE, then sends EDITS (default 100) nudges of one event as
a drag does (POST /api/analyze with the edit, the whole pattern as the window, 1,400 columns,
the findings key it was last sent), one after another, and prints p50 and p99 of each
Server-Timing stage and of the request as the client saw it (to its last byte)."""
import http.client, json, sys, time, urllib.parse
import studio_child
haptic, folder, name, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
edits = int(sys.argv[5]) if len(sys.argv) > 5 else 100
proc, token = studio_child.start(haptic, folder, port)
host = f"127.0.0.1:{port}"
path = f"{folder.rstrip('/').split('/')[-1]}/{name}"
headers = {"X-Studio-Token": token, "Host": host, "Origin": f"http://{host}", "Content-Type": "application/json"}
conn = http.client.HTTPConnection("127.0.0.1", port)
conn.request("GET", "/api/pattern?path=" + urllib.parse.quote(path), headers=headers)
view = json.loads(conn.getresponse().read())
index = 11
entry = json.loads(json.dumps(view["ahap"]["Pattern"][index]))
inner = next(iter(entry.values()))
key = view["findingsKey"]
stages, totals = {}, []
for k in range(edits):
    inner["Time"] = round(inner["Time"] + (0.001 if k % 2 == 0 else -0.001), 6)
    body = json.dumps({"path": path, "baseVersion": view["version"], "edits": [{"index": index, "element": entry}],
                       "window": {"start": 0, "end": view["duration"], "columns": 1400}, "findingsKey": key})
    t = time.perf_counter()
    conn.request("POST", "/api/analyze", body=body, headers=headers)
    response = conn.getresponse()
    answer = json.loads(response.read())
    totals.append((time.perf_counter() - t) * 1000)
    key = answer.get("findingsKey", key)
    for part in response.getheader("Server-Timing", "").split(", "):
        stage, duration = part.split(";dur=")
        stages.setdefault(stage, []).append(float(duration))
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]
for stage, values in list(stages.items()) + [("client, to the last byte", totals)]:
    print(f"{stage}: p50 {pct(values, 50):.2f} ms, p99 {pct(values, 99):.2f} ms")
print(f"answer size: {len(json.dumps(answer)) / 1000:.0f} kB; {edits} edits of {name}")
proc.terminate()
proc.wait()
