#!/usr/bin/env python3
"""Hostile inputs for `haptic order --script` and `haptic order replay` (issue 28).

usage: tools/bench/order-hostile.py HAPTIC [PROBE ...]   (every probe when none is named)

Each probe prints its exit status, wall time, peak RSS (/usr/bin/time) and the first 300
characters of what haptic said. Files are written to a temporary folder, named at the end."""
import subprocess, sys, os, time, tempfile, json
H = sys.argv[1]
only = sys.argv[2:]
W = tempfile.mkdtemp(prefix="orderprobe-")
env = dict(os.environ, HAPTIC_OUTPUT=os.path.join(W, "out.wav"))
def write(name, data):
    p = os.path.join(W, name)
    with open(p, "wb") as f:
        if callable(data): data(f)
        else: f.write(data if isinstance(data, bytes) else data.encode())
    return p
def run(name, args, stdin=None, shell=None, timeout=60):
    if only and name not in only: return
    store = os.path.join(W, "store-" + name)
    base = ["/usr/bin/time", "-f", "RSS %M", H]
    cmd = base + args
    t = time.time()
    try:
        if shell:
            p = subprocess.run(["bash", "-c", shell.replace("HAPTIC", "/usr/bin/time -f 'RSS %M' " + H).replace("STORE", store)], capture_output=True, timeout=timeout, env=env)
        else:
            cmd = [c.replace("STORE", store) for c in cmd]
            p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env, stdin=stdin)
        el = time.time() - t
        err = p.stderr.decode(errors="replace").strip().splitlines()
        rss = [l for l in err if l.startswith("RSS ")]
        err = [l for l in err if not l.startswith("RSS ") and not l.startswith("Command exited")]
        msg = (" | ".join(err))[:300]
        out = p.stdout.decode(errors="replace").strip()[:150]
        print(f"{name}: rc {p.returncode} {el:.2f} s {int(rss[-1][4:])//1024 if rss else '?'} MB :: {msg} :: {out}", flush=True)
    except subprocess.TimeoutExpired:
        print(f"{name}: TIMEOUT after {timeout} s", flush=True)
        subprocess.run(["pkill", "-f", W])

def lines(n, line):
    def f(fh):
        chunk = (line + "\n") * 10000
        for _ in range(n // 10000): fh.write(chunk.encode())
    return f
order = ["order", "--store", "STORE", "--device", "null", "--script"]
addr = "name A\nstreet B\ncity C\nzip 12345\n"
run("script-infinite-stdin", [], shell=f"yes 'quantity +1' | HAPTIC order --store STORE --device null --script -", timeout=40)
run("script-infinite-comments", [], shell=f"yes '# hi' | HAPTIC order --store STORE --device null --script -", timeout=40)
run("script-dev-zero", order + ["/dev/zero"], timeout=40)
run("script-200MB-comments", order + [write("c.txt", lines(20_000_000, "# a comment that is rather long, ten"))])
run("script-50MB-line", order + [write("l.txt", "name " + "x" * (50 << 20) + "\n")])
run("script-10MB-name-submit", order + [write("n.txt", "name " + "x" * (10 << 20) + "\nstreet B\ncity C\nzip 1\nsubmit\n")])
run("script-quantity-huge", order + [write("q.txt", "quantity 99999999999999999999999999\n")])
run("script-quantity-neg", order + [write("q2.txt", "quantity -5\n")])
run("script-1M-plus", order + [write("p.txt", lines(1_000_000, "quantity +1"))], timeout=120)
for w in ["1e308", "nan", "inf", "-1", "1e-320", "0x1p1000"]:
    run("script-wait-" + w, order + [write("w%s.txt" % w, "wait %s\n" % w)], timeout=20)
run("script-waits-sum-1000s", order + [write("ws.txt", lines(1_000_000, "wait 0.001"))], timeout=30)
run("script-nul-bytes", order + [write("z.txt", b"quantity +1\x00\x00\nsubmit\n")])
run("script-bad-utf8", order + [write("u.txt", b"name \xff\xfe\xfd\n")])
run("script-type-long", order + [write("t.txt", "type " + "y" * (20 << 20) + "\n")])
# replay
def log(events):
    return "\n".join(json.dumps(e) for e in events) + "\n"
ev = lambda t, fb="increase": {"change": "quantity", "feedback": fb, "new": "4", "old": "3", "t": t}
rep = ["order", "replay", "--device", "null"]
repo = ["order", "replay", "-o", os.path.join(W, "r.wav")]
run("replay-t-1e300", rep + [write("a.jsonl", log([ev(0), ev(1e300)]))], timeout=20)
run("replay-t-1e300-wav", repo + [write("a2.jsonl", log([ev(0), ev(1e300)]))], timeout=20)
run("replay-t-1e6-wav", repo + [write("a3.jsonl", log([ev(0), ev(1e6)]))], timeout=60)
run("replay-t-neg", rep + [write("b.jsonl", log([ev(-5), ev(0.1)]))], timeout=20)
run("replay-t-nan", rep + [write("c.jsonl", '{"change":"quantity","feedback":"increase","t":NaN}\n')], timeout=20)
run("replay-unsorted", rep + [write("d.jsonl", log([ev(0.5), ev(0.1), ev(0.3)]))], timeout=20)
run("replay-speed-0", rep + ["--speed", "0", write("e.jsonl", log([ev(0), ev(0.1)]))], timeout=20)
run("replay-speed-tiny", rep + ["--speed", "1e-300", write("e2.jsonl", log([ev(0), ev(0.1)]))], timeout=20)
run("replay-speed-huge", rep + ["--speed", "1e300", write("e3.jsonl", log([ev(0), ev(0.1)]))], timeout=20)
run("replay-speed-nan", rep + ["--speed", "nan", write("e4.jsonl", log([ev(0), ev(0.1)]))], timeout=20)
big_log = lambda: write("f.jsonl", lines(1_200_000, json.dumps(ev(0.001))))  # 100 MB, 1.2 million feedbacks
run("replay-100MB", repo + [big_log()], timeout=120)
run("replay-1M-increasing-wav", repo + [write("f2.jsonl", "".join(json.dumps(ev(k * 0.001)) + "\n" for k in range(1_000_000)))], timeout=120)
run("replay-50MB-line", rep + [write("g.jsonl", '{"change":"name","new":"' + "x" * (50 << 20) + '","t":0}\n')], timeout=60)
run("replay-deep", rep + [write("h.jsonl", "[" * 1_000_000 + "]" * 1_000_000 + "\n")], timeout=60)
run("replay-dev-zero", rep + ["/dev/zero"], timeout=40)
run("replay-dev-urandom", rep + ["/dev/urandom"], timeout=40)
run("replay-binary", rep + [write("i.jsonl", os.urandom(1 << 20))], timeout=40)
run("replay-summary-100MB", rep + ["--summary", big_log()], timeout=120)
print("workdir", W)
