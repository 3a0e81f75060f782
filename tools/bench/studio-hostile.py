# Hostile requests to a running `haptic studio`, as an outsider with the token would send them
# (issue 28): for each probe the answer's status and first bytes, the time, and the server's peak
# resident size during it (VmHWM, reset before each probe through /proc/PID/clear_refs).
# Usage: python3 tools/bench/studio-hostile.py PATH-TO-haptic [PROBE...]   (BENCHMARKS.md)
# Sends traffic to 127.0.0.1 only; every loop is bounded in count and time.
import base64, json, os, re, select, shutil, socket, struct, subprocess, sys, tempfile, threading, time

haptic = sys.argv[1]
wanted = set(sys.argv[2:])
folder = tempfile.mkdtemp(prefix="studio-hostile-")
pats = os.path.join(folder, "pats")
os.mkdir(pats)


def event(t, kind="HapticTransient", duration=None, i=0.5, s=0.5):
    e = {"Time": t, "EventType": kind,
         "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": i},
                             {"ParameterID": "HapticSharpness", "ParameterValue": s}]}
    if duration is not None:
        e["EventDuration"] = duration
    return {"Event": e}


def write(name, text):
    with open(os.path.join(pats, name), "w") as f:
        f.write(text)


write("small.ahap", json.dumps({"Version": 1.0, "Pattern": [event(0.0), event(0.5, "HapticContinuous", 0.3)]}, indent=2))
# A big ordinary file: 20,000 taps over 600 s.
write("big.ahap", json.dumps({"Version": 1.0, "Pattern": [event(i * 0.03) for i in range(20_000)]}, indent=2))
# Absurd .haptic (v1) and .vij (v0) clips.
def clip(n, t0=0.0, step=0.001, amp=1.0):
    return {"version": {"major": 1, "minor": 0, "patch": 0},
            "signals": {"continuous": {"envelopes": {
                "amplitude": [{"time": t0 + k * step, "amplitude": amp} for k in range(n)],
                "frequency": [{"time": t0 + k * step, "frequency": 0.5} for k in range(n)]}}}}
write("many.haptic", json.dumps(clip(400_000)))                     # ~16 MB: 400k breakpoints each
write("huge-times.haptic", json.dumps(clip(3, t0=1e308, step=1e307)))
write("nan.haptic", json.dumps(clip(3)).replace('"amplitude": 1.0', '"amplitude": NaN', 1))
write("deep.haptic", "[" * 2_000_000 + "]" * 2_000_000)
write("deep.vij", "{\"a\":" * 1_000_000 + "1" + "}" * 1_000_000)
write("many.vij", json.dumps({"version": {"major": 0, "minor": 0, "patch": 0},
                              "signals": {"continuous": {"envelopes": {
                                  "amplitude": [{"time": k * 0.0001, "amplitude": 0.5} for k in range(300_000)],
                                  "frequency": [{"time": k * 0.0001, "frequency": 0.5} for k in range(300_000)]}}}}))
write("long-string.vij", json.dumps({"version": {"major": 0, "minor": 0, "patch": 0}, "x": "a" * 15_000_000}))
write("deep.ahap", "[" * 4_000_000 + "]" * 4_000_000)
write("overlap.ahap", json.dumps({"Pattern": [event(0.0, "HapticContinuous", 30.0) for _ in range(500)]}))

proc = subprocess.Popen([haptic, "studio", pats, "--device", "null"], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
m = None
while m is None:
    line = proc.stdout.readline()
    if not line:
        sys.exit("the studio did not start")
    m = re.search(r"http://127.0.0.1:(\d+)/#token=(\w+)", line)
port, token = int(m.group(1)), m.group(2)
threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()


def status_kb(field):
    return int(re.search(field + r":\s+(\d+)", open(f"/proc/{proc.pid}/status").read()).group(1))


def reset_peak():
    with open(f"/proc/{proc.pid}/clear_refs", "w") as f:
        f.write("5")


def request(method, target, body=b"", timeout=600, headers=()):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(timeout)
    head = (f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Studio-Token: {token}\r\n"
            f"Origin: http://127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
            + "\r\n").encode()
    s.sendall(head + body)
    data = b""
    try:
        while True:
            c = s.recv(1 << 20)
            if not c:
                break
            data += c if len(data) < 4096 else b""
            if len(data) >= 4096:
                total[0] += len(c)
    except socket.timeout:
        data += b" [TIMEOUT]"
    s.close()
    line = data.split(b"\r\n", 1)[0].decode(errors="replace")
    body_start = data.find(b"\r\n\r\n")
    return line, data[body_start + 4:body_start + 4 + 200].decode(errors="replace") if body_start >= 0 else ""


total = [0]
results = []


def probe(name, fn):
    if wanted and name not in wanted:
        return
    if proc.poll() is not None:
        print(f"{name}: the studio is gone (exit {proc.returncode})", flush=True)
        return
    reset_peak()
    before = status_kb("VmRSS")
    t0 = time.time()
    try:
        outcome = fn()
    except Exception as e:  # noqa: BLE001 — a probe's failure is its result
        outcome = f"probe failed: {e!r}"
    elapsed = time.time() - t0
    time.sleep(0.2)
    alive = proc.poll() is None
    after = status_kb("VmRSS") if alive else 0
    peak = status_kb("VmHWM") if alive else 0
    row = (f"{name}: {outcome} | {elapsed:.2f} s | RSS before {before / 1024:.0f} MB, peak {peak / 1024:.0f} MB, "
           f"after {after / 1024:.0f} MB" + ("" if alive else f" | STUDIO DIED (exit {proc.returncode})"))
    print(row, flush=True)
    results.append(row)


def post(target, obj=None, raw=None, method="POST"):
    body = raw if raw is not None else json.dumps(obj).encode()
    line, text = request(method, target, body)
    return f"{line} {text[:160]!r} ({len(body)} B sent)"


def version(name):
    _, text = request("GET", f"/api/pattern?path=pats/{name}")
    return re.search(r'"version":"([^"]+)"', text).group(1) if '"version"' in text else None


def full_get(target):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Studio-Token: {token}\r\nConnection: close\r\n\r\n".encode())
    data = b""
    while True:
        c = s.recv(1 << 20)
        if not c:
            break
        data += c
    return data.split(b"\r\n\r\n", 1)[1]


small_v = json.loads(full_get("/api/pattern?path=pats/small.ahap"))["version"]
big_v = json.loads(full_get("/api/pattern?path=pats/big.ahap"))["version"]
MiB = 1 << 20

# --- /api/analyze -------------------------------------------------------------------------
probe("analyze-deep-element", lambda: post("/api/analyze", raw=(
    '{"path":"pats/small.ahap","baseVersion":"%s","edits":[{"index":0,"element":' % small_v
    + "[" * (7 * MiB) + "]" * (7 * MiB) + "}]}").encode()))
probe("analyze-deep-body", lambda: post("/api/analyze", raw=("[" * (8 * MiB - 1) + "]" * (8 * MiB - 1)).encode()))
probe("analyze-deep-objects", lambda: post("/api/analyze", raw=(
    '{"path":"pats/small.ahap","baseVersion":"%s","edits":[{"index":0,"element":' % small_v
    + '{"a":' * (2 * MiB) + "1" + "}" * (2 * MiB) + "}]}").encode()))
probe("analyze-1M-same-removes", lambda: post("/api/analyze", {
    "path": "pats/small.ahap", "baseVersion": small_v, "edits": [{"remove": 0}] * 1_200_000}))
probe("analyze-20k-removes-big", lambda: post("/api/analyze", {
    "path": "pats/big.ahap", "baseVersion": big_v, "edits": [{"remove": i} for i in range(0, 19_999)]}))
probe("analyze-600k-sets-one-index", lambda: post("/api/analyze", {
    "path": "pats/small.ahap", "baseVersion": small_v,
    "edits": [{"index": 0, "element": {"Event": {"Time": k * 1e-3, "EventType": "HapticTransient"}}} for k in range(200_000)]}))
probe("analyze-20k-sets-big", lambda: post("/api/analyze", {
    "path": "pats/big.ahap", "baseVersion": big_v,
    "edits": [{"index": i, "element": event(i * 0.03 + 0.001)} for i in range(20_000)]}))
probe("analyze-150k-adds", lambda: post("/api/analyze", {
    "path": "pats/small.ahap", "baseVersion": small_v,
    "edits": [{"add": {"Event": {"Time": k * 0.02, "EventType": "HapticTransient"}}} for k in range(150_000)]}))
probe("analyze-adds-overlapping-continuous", lambda: post("/api/analyze", {
    "path": "pats/small.ahap", "baseVersion": small_v,
    "edits": [{"add": {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30}}} for k in range(100_000)]}))
for label, index in [("huge", 10**30), ("neg", -1), ("int64max", 2**63 - 1), ("float", 1.5), ("1e308", 1e308)]:
    probe(f"analyze-index-{label}", lambda index=index: post("/api/analyze", raw=(
        '{"path":"pats/small.ahap","baseVersion":"%s","edits":[{"index":%s,"element":{"Event":{"Time":0,"EventType":"HapticTransient"}}}]}'
        % (small_v, json.dumps(index))).encode()))
for label, value in [("NaN", "NaN"), ("1e308", "1e308"), ("1e309", "1e309"), ("-1e308", "-1e308"), ("tiny", "4.9e-324"),
                     ("longdigits", "1" * 100_000)]:
    probe(f"analyze-time-{label}", lambda value=value: post("/api/analyze", raw=(
        '{"path":"pats/small.ahap","baseVersion":"%s","edits":[{"index":1,"element":{"Event":{"Time":%s,"EventType":"HapticContinuous","EventDuration":%s}}}]}'
        % (small_v, value, value)).encode()))
for label, window in [("huge-end", {"start": 0, "end": 1e308, "columns": 8192}),
                      ("columns-1e9", {"start": 0, "end": 1, "columns": 1_000_000_000}),
                      ("reversed", {"start": 5, "end": 1, "columns": 10}),
                      ("neg", {"start": -1e308, "end": 1e308, "columns": 8192})]:
    probe(f"analyze-window-{label}", lambda window=window: post("/api/analyze", {
        "path": "pats/big.ahap", "baseVersion": big_v, "edits": [], "window": window}))
probe("analyze-findingsKey-huge", lambda: post("/api/analyze", {
    "path": "pats/small.ahap", "baseVersion": small_v, "edits": [], "findingsKey": "k" * (15 * MiB)}))
probe("analyze-long-path", lambda: post("/api/analyze", {"path": "pats/" + "a/" * 4_000_000 + "x.ahap", "edits": []}))

# --- /api/diff ------------------------------------------------------------------------------
def ahap_with(n, f):
    return {"Version": 1, "Pattern": [f(k) for k in range(n)]}
probe("diff-2x35k-events", lambda: post("/api/diff", {"a": ahap_with(35_000, lambda k: event(k * 0.01)),
                                                      "b": ahap_with(35_000, lambda k: event(k * 0.01 + 0.005))}))
probe("diff-2x35k-same-time", lambda: post("/api/diff", {"a": ahap_with(35_000, lambda k: event(1.0)),
                                                        "b": ahap_with(35_000, lambda k: event(1.0, i=0.3))}))
probe("diff-deep", lambda: post("/api/diff", raw=('{"a":' + "[" * (8 * MiB - 8) + "]" * (8 * MiB - 8) + "}").encode()))
probe("diff-edits-against-self", lambda: post("/api/diff", {
    "path": "pats/big.ahap", "baseVersion": big_v, "against": "pats/big.ahap",
    "edits": [{"index": i, "element": event(i * 0.03 + 0.001)} for i in range(0, 20_000, 2)]}))
probe("diff-curves-16pts-x20k", lambda: post("/api/diff", {
    "a": ahap_with(20_000, lambda k: {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": k * 0.1,
                                                         "ParameterCurveControlPoints": [{"Time": j * 0.001, "ParameterValue": 0.5} for j in range(16)]}}),
    "b": ahap_with(1, lambda k: event(0))}))

# --- /api/render --------------------------------------------------------------------------
probe("render-100k-continuous-30s", lambda: post("/api/render", {
    "ahap": ahap_with(100_000, lambda k: {"Event": {"Time": k * 0.035, "EventType": "HapticContinuous", "EventDuration": 30}})}))
probe("render-1000-overlapping-hour", lambda: post("/api/render", {
    "ahap": ahap_with(120, lambda k: {"Event": {"Time": k * 29.9, "EventType": "HapticContinuous", "EventDuration": 30}})}))
probe("render-600-at-once", lambda: post("/api/render", {
    "ahap": ahap_with(600, lambda k: {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30}})}))
probe("render-rate-edge", lambda: post("/api/render", {"path": "pats/small.ahap", "rate": 0.001}))
probe("render-voice-long", lambda: post("/api/render", {"path": "pats/small.ahap", "voice": "v" * (15 * MiB)}))

# --- absurd files in the folder ---------------------------------------------------------------
for name in ["many.haptic", "huge-times.haptic", "nan.haptic", "deep.haptic", "deep.vij", "many.vij",
             "long-string.vij", "deep.ahap", "overlap.ahap"]:
    probe(f"open-{name}", lambda name=name: post(f"/api/pattern?path=pats/{name}", raw=b"", method="GET"))
probe("files-list", lambda: post("/api/files", raw=b"", method="GET"))

# --- WebSocket ---------------------------------------------------------------------------------
def ws_open(read_first=True):
    s = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n"
               f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
    if read_first:
        data = b""
        s.settimeout(10)
        while b"\r\n\r\n" not in data:
            c = s.recv(4096)
            if not c:
                break
            data += c
        if not data.startswith(b"HTTP/1.1 101"):
            s.close()
            return None, data.split(b"\r\n", 1)[0].decode(errors="replace")
    return s, "101"


def frame(opcode, payload, fin=True):
    mask = os.urandom(4)
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if n < 100_000 else bytes(n)  # zero mask below
    return head + (mask if n < 100_000 else b"\0\0\0\0") + masked


def ws_many(n):
    socks, refused = [], {}
    for _ in range(n):
        try:
            s, how = ws_open()
        except OSError as e:
            how, s = f"connect: {e.errno}", None
        if s:
            socks.append(s)
        else:
            refused[how] = refused.get(how, 0) + 1
    files = post("/api/files", raw=b"", method="GET")[:40]
    for s in socks:
        s.close()
    return f"{len(socks)} open, refused {refused}; /api/files during: {files}"
probe("ws-2000-connections", lambda: ws_many(2000))


def ws_nonreaders(n, seconds):
    # Sockets that never read while the studio broadcasts (a play's playhead every 16 ms, and a
    # file changed 200 times); one reader beside them counts what reaches it.
    socks = []
    for _ in range(n):
        s, _ = ws_open()
        if s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            socks.append(s)
    reader, _ = ws_open()
    got = [0]
    stop = [False]

    def read():
        reader.settimeout(1)
        while not stop[0]:
            try:
                c = reader.recv(65536)
                if not c:
                    break
                got[0] += c.count(b'"type"')
            except socket.timeout:
                pass
    t = threading.Thread(target=read)
    t.start()
    post("/api/play", {"ahap": ahap_with(1, lambda k: {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30}})})
    t0 = time.time()
    k = 0
    rss = []
    while time.time() - t0 < seconds:
        write("small.ahap", json.dumps({"Version": 1.0, "Pattern": [event(0.0), event(0.5 + k * 1e-4, "HapticContinuous", 0.3)]}, indent=2))
        k += 1
        time.sleep(0.05)
        rss.append(status_kb("VmRSS"))
    post("/api/stop", {})
    stop[0] = True
    t.join()
    for s in socks:
        s.close()
    reader.close()
    return f"{len(socks)} non-readers; the reader got {got[0]} messages in {seconds} s; RSS over the run {rss[0] // 1024}..{max(rss) // 1024}..{rss[-1] // 1024} MB"
_ = version("small.ahap")
probe("ws-200-nonreaders-20s", lambda: ws_nonreaders(200, 20))


def ws_inbound(kind):
    s, _ = ws_open()
    s.settimeout(20)
    if kind == "huge-frame":
        # One 16 MiB frame header then its payload.
        s.sendall(frame(2, bytes(16 * MiB)))
    elif kind == "small-frames":
        burst = frame(1, b"x") * 100_000
        for _ in range(10):
            s.sendall(burst)
    elif kind == "fragments":
        # One message in 2,000 16-KiB continuation frames (32 MB), never finished.
        s.sendall(frame(1, bytes(16000), fin=False))
        for _ in range(2000):
            s.sendall(frame(0, bytes(16000), fin=False))
    data = b""
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            data += c
    except (socket.timeout, ConnectionResetError, BrokenPipeError) as e:
        data += f" [{type(e).__name__}]".encode()
    s.close()
    return f"answer {data[:80]!r}"
for kind in ["huge-frame", "small-frames", "fragments"]:
    probe(f"ws-{kind}", lambda kind=kind: ws_inbound(kind))

probe("after-all-files", lambda: post("/api/files", raw=b"", method="GET"))
proc.terminate()
proc.wait()
shutil.rmtree(folder)
