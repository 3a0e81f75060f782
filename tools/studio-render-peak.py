# Peak resident size (VmHWM) of `haptic studio` while it serves N concurrent POST /api/render of a
# generated 1-hour pattern (taps at 1 s and 3,599 s), each response read and dropped as it arrives.
# Usage: python3 tools/studio-render-peak.py PATH-TO-haptic N   (issue 32; BENCHMARKS.md)
import json, os, re, socket, subprocess, sys, tempfile, threading, time
haptic, n = sys.argv[1], int(sys.argv[2])
d = tempfile.mkdtemp()
open(os.path.join(d, "hour.ahap"), "w").write(json.dumps({"Pattern": [
    {"Event": {"Time": 1, "EventType": "HapticTransient"}},
    {"Event": {"Time": 3599, "EventType": "HapticTransient"}}]}))
p = subprocess.Popen([haptic, "studio", d, "--device", "null"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
url = None
while url is None:
    line = p.stdout.readline()
    m = re.search(r"http://127.0.0.1:(\d+)/#token=(\w+)", line)
    if m: url = m
port, token = int(url.group(1)), url.group(2)
def hwm():
    return int(re.search(r"VmHWM:\s+(\d+)", open(f"/proc/{p.pid}/status").read()).group(1))
idle = hwm()
body = json.dumps({"path": os.path.basename(d) + "/hour.ahap"}).encode()
sizes = []
def get():
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /api/render HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Studio-Token: %s\r\nOrigin: http://127.0.0.1:%d\r\n"
              b"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (port, token.encode(), port, len(body)) + body)
    total = 0
    while True:
        c = s.recv(1 << 20)
        if not c: break
        total += len(c)
    sizes.append(total)
t0 = time.time()
ts = [threading.Thread(target=get) for _ in range(n)]
[t.start() for t in ts]; [t.join() for t in ts]
print(f"{n} request(s): {time.time()-t0:.1f} s, bytes received {sizes}, server VmHWM idle {idle/1024:.1f} MB, after {hwm()/1024:.1f} MB")
p.terminate(); p.wait()
