#!/usr/bin/env python3
"""A misbehaving order endpoint for the tests, on 127.0.0.1 only.

Usage: fault-server.py LOG [--tls CERT KEY] [--lifetime SECONDS]

Prints its port on the first line of standard output and writes it to LOG.port, then serves until --lifetime
(default 300 s) passes. The first part of the request path picks the behaviour:

  /ok            201, echoes the order; a repeated Idempotency-Key gets the first answer again
  /slow?ms=N     waits N ms, then as /ok (the order is recorded before the wait)
  /500           HTTP 500
  /302 /307      a redirect to /ok
  /neg-length    Content-Length: -5
  /chunk-empty   a chunked body whose size line is empty
  /chunk-neg     chunk size -5
  /chunk-huge    chunk size 7fffffffffffffff
  /garbage       binary noise instead of an answer
  /close         closes without answering
  /reset         resets the connection (RST)
  /stall         reads the order and never answers
  /drip          a 200 head, then the body 1 byte a second
  /short         Content-Length 500, 12 bytes, close

Every complete POST is appended to LOG as a JSON line: path, idempotency key, order body,
and whether the key had been seen before ("replay").
"""
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time

log_path = sys.argv[1]
tls = None
lifetime = 300.0
args = sys.argv[2:]
while args:
    if args[0] == "--tls":
        tls = (args[1], args[2])
        args = args[3:]
    elif args[0] == "--lifetime":
        lifetime = float(args[1])
        args = args[2:]
    else:
        sys.exit("unknown argument " + args[0])

lock = threading.Lock()
answers = {}  # idempotency key -> first answer body


def record(entry):
    with lock:
        with open(log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        body += chunk
    return method, path, headers, body


def answer(conn, status, body, extra=""):
    conn.sendall(
        ("HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n%s\r\n"
         % (status, len(body), extra)).encode() + body)


def serve(conn):
    try:
        conn.settimeout(60)
        request = read_request(conn)
        if request is None:
            return
        method, path, headers, body = request
        mode = path.split("?")[0].strip("/").split("/")[0]
        key = headers.get("idempotency-key")
        with lock:
            replay = key in answers
            if not replay and mode in ("ok", "slow"):
                answers[key] = body
            first = answers.get(key, body)
        record({"path": path, "mode": mode, "key": key, "method": method, "replay": replay,
                "body": body.decode("utf-8", "replace")})
        if mode == "ok":
            answer(conn, 201 if not replay else 200, first)
        elif mode == "slow":
            ms = int(path.split("ms=")[1]) if "ms=" in path else 500
            time.sleep(ms / 1000)
            answer(conn, 201 if not replay else 200, first)
        elif mode == "500":
            answer(conn, 500, b'{"error":"oven on fire"}')
        elif mode in ("302", "307"):
            answer(conn, int(mode), b"", "Location: /ok\r\n")
        elif mode == "neg-length":
            conn.sendall(b"HTTP/1.1 201 X\r\nContent-Length: -5\r\n\r\n" + first)
        elif mode == "chunk-empty":
            conn.sendall(b"HTTP/1.1 201 X\r\nTransfer-Encoding: chunked\r\n\r\n\r\n")
        elif mode == "chunk-neg":
            conn.sendall(b"HTTP/1.1 201 X\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n")
        elif mode == "chunk-huge":
            conn.sendall(b"HTTP/1.1 201 X\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nhello\r\n0\r\n\r\n")
        elif mode == "garbage":
            conn.sendall(bytes((i * 37 + 11) % 256 for i in range(1024)))
        elif mode == "close":
            pass
        elif mode == "reset":
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif mode == "stall":
            time.sleep(30)
        elif mode == "drip":
            conn.sendall(b"HTTP/1.1 201 X\r\nContent-Length: 100000\r\n\r\n")
            for _ in range(60):
                time.sleep(1)
                conn.sendall(b" ")
        elif mode == "short":
            conn.sendall(b"HTTP/1.1 201 X\r\nContent-Length: 500\r\n\r\n" + first[:12])
        else:
            answer(conn, 404, b"{}")
    except (OSError, ValueError, IndexError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    context = None
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls[0], tls[1])
    port = str(listener.getsockname()[1])
    with open(log_path + ".port.tmp", "w") as f:
        f.write(port)
    os.rename(log_path + ".port.tmp", log_path + ".port")
    print(port, flush=True)
    end = time.monotonic() + lifetime
    listener.settimeout(0.5)
    while time.monotonic() < end:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        if context:
            def handshake_then_serve(raw):
                try:
                    raw.settimeout(10)
                    serve(context.wrap_socket(raw, server_side=True))
                except (OSError, ssl.SSLError):
                    raw.close()
            threading.Thread(target=handshake_then_serve, args=(conn,), daemon=True).start()
        else:
            threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
