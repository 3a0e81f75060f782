"""`haptic studio` as a child process for the bench scripts (imported by studio-*.py)."""
import re, subprocess


def start(haptic, folder, port):
    """Starts `haptic studio FOLDER --port PORT`; returns the process and the token it printed."""
    proc = subprocess.Popen([haptic, "studio", folder, "--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        m = re.search(r"token=([0-9a-f]+)", line)
        if m:
            return proc, m.group(1)
    raise SystemExit(f"{haptic} studio printed no token")


def megabytes(proc, key):
    """`key` of the process's /proc/PID/status (VmRSS, VmHWM), in MB."""
    for line in open(f"/proc/{proc.pid}/status"):
        if line.startswith(key):
            return int(line.split()[1]) // 1024
