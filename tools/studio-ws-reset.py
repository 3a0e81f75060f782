# Resident size of `haptic studio` after N WebSockets that each subscribe and then end one way:
# close (a close frame), reserved (a frame with a reserved opcode), big (a frame over the 16 KiB
# limit), rst (the connection reset, SO_LINGER 0); then 50 file changes broadcast (issue 28).
# Usage: python3 tools/studio-ws-reset.py PATH-TO-haptic close|reserved|big|rst N   (BENCHMARKS.md)
# Sends traffic to 127.0.0.1 only.
import base64, os, re, socket, subprocess, sys, tempfile, time, json
haptic, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
import shutil
d = tempfile.mkdtemp(); open(os.path.join(d, "a.ahap"), "w").write('{"Pattern":[]}')
p = subprocess.Popen([haptic, "studio", d, "--device", "null"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
m = None
while m is None: m = re.search(r"127.0.0.1:(\d+)/#token=(\w+)", p.stdout.readline())
port, token = int(m.group(1)), m.group(2)
def rss(): return int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{p.pid}/status").read()).group(1))
def threads(): return int(re.search(r"Threads:\s+(\d+)", open(f"/proc/{p.pid}/status").read()).group(1))
def ws():
    s = socket.create_connection(("127.0.0.1", port)); key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    data = b""; s.settimeout(10)
    while b"subscribed" not in data:
        c = s.recv(4096)
        if not c: break
        data += c
    return s
def bad(s):
    if kind == "reserved": s.sendall(bytes([0x83, 0x80]) + b"\0\0\0\0")
    elif kind == "big": s.sendall(bytes([0x82, 0xFF]) + (1 << 20).to_bytes(8, "big") + b"\0\0\0\0" + bytes(1 << 15))
    elif kind == "close": s.sendall(bytes([0x88, 0x82]) + b"\0\0\0\0" + b"\x03\xe8")
    elif kind == "rst":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0"); s.close(); return
    s.settimeout(10)
    try:
        while s.recv(4096): pass
    except Exception: pass
    s.close()
time.sleep(1); r0 = rss(); t0 = time.time()
for i in range(n): bad(ws())
time.sleep(2)
# Broadcasts: the file changed 50 times, each told to every subscriber still registered.
c0 = sum(map(int, open(f"/proc/{p.pid}/stat").read().split()[13:15]))
for k in range(50):
    open(os.path.join(d, "a.ahap"), "w").write('{"Pattern":[], "x": %d}' % k)
print(f"{kind} x{n}: {time.time()-t0:.1f} s, RSS {r0//1024} -> {rss()//1024} MB, threads {threads()}")
p.terminate(); p.wait(); shutil.rmtree(d)
