#!/bin/sh
# Underruns on an idle machine: `haptic play --stats` of rising-falling.ahap (1.9 s) through the
# audio rig's PulseAudio, RUNS times at each latency, interleaved, with the hypervisor's steal time
# (/proc/stat) over the whole run. Prints how many runs saw each underrun count.
# usage: tools/bench/quiet-underruns.sh [HAPTIC] [RUNS] [LATENCIES]
#        (default Tools/.build/release/haptic, 30, "20 40"; starts a private rig)
set -eu
haptic="${1:-Tools/.build/release/haptic}"
runs="${2:-30}"
latencies="${3:-20 40}"
here="$(cd "$(dirname "$0")" && pwd)"
export HAPTIC_RIG_DIR="/tmp/haptic-underruns-rig-$$"
. "$("$here/../audio-rig/start")"
trap '"$here/../audio-rig/stop"' EXIT
pattern="$here/../../Patterns/examples/rising-falling.ahap"
steal() { awk '/^cpu / { print $9 }' /proc/stat; }
before=$(steal)
started=$(date +%s)
for _ in $(seq 1 "$runs"); do
	for latency in $latencies; do
		said="$("$haptic" play "$pattern" --latency "$latency" --stats 2>&1 | grep -o 'underruns=[0-9]*')"
		echo "--latency $latency: $said"
	done
done | sort | uniq -c
echo "steal: $(($(steal) - before)) jiffies of both cores in $(($(date +%s) - started)) s"
