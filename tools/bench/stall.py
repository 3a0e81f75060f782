#!/usr/bin/env python3
"""A stalled audio server: how fast `haptic` reacts (the figures in BENCHMARKS.md).

Starts a private PulseAudio rig of its own (tools/audio-rig with HAPTIC_RIG_DIR set, so a rig
other people use is never stopped), plays through it, freezes the server with SIGSTOP and measures:

  ctrl-c     SIGINT to process exit, with the server stopped (target <= 100 ms, exit 130)
  stall      SIGSTOP to exit of a looping play (target: reported within 2.5 s, exit 1)
  order      haptic order --script with the server stopped mid-session: exits, orders saved
  start      a play started while the server is stopped: time to exit and its message

Usage: tools/bench/stall.py [--haptic PATH] [--rounds N]
"""
import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))


def start_rig(rig_dir):
    env = dict(os.environ, HAPTIC_RIG_DIR=rig_dir)
    envfile = subprocess.run([os.path.join(root, "tools/audio-rig/start")], env=env, check=True,
                             capture_output=True, text=True).stdout.strip()
    for line in open(envfile):
        line = line.strip()
        if line.startswith("export "):
            line = line[len("export "):]
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            env[key] = value.strip("'\"")
    pid = int(open(os.path.join(rig_dir, "pulseaudio.pid")).read())
    return env, pid


def stop_rig(rig_dir):
    subprocess.run([os.path.join(root, "tools/audio-rig/stop")], env=dict(os.environ, HAPTIC_RIG_DIR=rig_dir))


def play(haptic, env, *extra):
    return subprocess.Popen([haptic, "play", *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_exit(proc, timeout):
    """Seconds until `proc` exits (None: killed after `timeout`), and its standard error.

    A blocking wait with a kill timer: Popen.wait(timeout=) polls with sleeps of up to 50 ms."""
    start = time.monotonic()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    proc.wait()
    elapsed = time.monotonic() - start
    killed = not timer.is_alive()
    timer.cancel()
    return (None if killed else elapsed), proc.stderr.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--haptic", default=os.path.join(root, "Tools/.build/release/haptic"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--pattern", default=os.path.join(root, "Patterns/examples/rising-falling.ahap"))
    args = parser.parse_args()
    rig_dir = f"/tmp/haptic-stall-rig-{os.getpid()}"
    env, server = start_rig(rig_dir)
    try:
        latencies, codes = [], []
        for _ in range(args.rounds):
            proc = play(args.haptic, env, "--loop", args.pattern)
            time.sleep(1.0)
            os.kill(server, signal.SIGSTOP)
            time.sleep(0.5)
            os.kill(proc.pid, signal.SIGINT)
            seconds, err = wait_exit(proc, 30)
            os.kill(server, signal.SIGCONT)
            latencies.append(seconds if seconds is not None else float("inf"))
            codes.append(proc.returncode)
            time.sleep(0.3)
        ms = [1000 * s for s in latencies]
        print(f"ctrl-c: rounds={len(ms)} median={statistics.median(ms):.1f} ms max={max(ms):.1f} ms "
              f"exit codes={sorted(set(codes))}")

        detected, codes, message = [], [], ""
        for _ in range(max(1, args.rounds // 2)):
            proc = play(args.haptic, env, "--loop", args.pattern)
            time.sleep(1.0)
            os.kill(server, signal.SIGSTOP)
            seconds, err = wait_exit(proc, 30)
            os.kill(server, signal.SIGCONT)
            detected.append(seconds if seconds is not None else float("inf"))
            codes.append(proc.returncode)
            message = err.strip().splitlines()[-1] if err.strip() else ""
            time.sleep(0.3)
        print(f"stall: rounds={len(detected)} median={statistics.median(detected):.2f} s "
              f"max={max(detected):.2f} s exit codes={sorted(set(codes))}")
        print(f"stall: message: {message}")

        # haptic order with the server stopped after the first action: the orders are saved and
        # the process exits (the script itself takes 1.5 s).
        work = f"/tmp/haptic-stall-order-{os.getpid()}"
        os.makedirs(work, exist_ok=True)
        script = os.path.join(work, "order.txt")
        with open(script, "w") as f:
            f.write("quantity 6\nname Ada\nstreet 1 Loop\ncity Cupertino\nzip 95014\n"
                    "wait 0.5\nsubmit\nwait 1\nquantity +1\nsubmit\n")
        proc = subprocess.Popen([args.haptic, "order", "--script", script, "--store", os.path.join(work, "store")],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.8)
        os.kill(server, signal.SIGSTOP)
        seconds, err = wait_exit(proc, 60)
        os.kill(server, signal.SIGCONT)
        saved = proc.stdout.read().count("is on its way")
        shown = "did not exit in 60 s" if seconds is None else f"{seconds:.2f} s after the server stopped"
        print(f"order: exit {shown}, code {proc.returncode}, {saved} of 2 orders saved; "
              f"{err.strip().splitlines()[-1] if err.strip() else ''}")
        subprocess.run(["rm", "-rf", work])
        time.sleep(0.3)

        os.kill(server, signal.SIGSTOP)
        proc = play(args.haptic, env, args.pattern)
        seconds, err = wait_exit(proc, 30)
        os.kill(server, signal.SIGCONT)
        last = err.strip().splitlines()[-1] if err.strip() else ""
        shown = "did not exit in 30 s" if seconds is None else f"{seconds:.2f} s"
        print(f"start: exit after {shown}, code {proc.returncode}: {last}")
    finally:
        try:
            os.kill(server, signal.SIGCONT)
        except ProcessLookupError:
            pass
        stop_rig(rig_dir)


if __name__ == "__main__":
    sys.exit(main())
