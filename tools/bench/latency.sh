#!/bin/sh
# --latency the device cannot keep (issue 11): wall time of `haptic play` of rising-falling.ahap
# (1.9 s) through the audio rig's PulseAudio at 2-8 ms, with what haptic says about it.
# usage: tools/bench/latency.sh [HAPTIC]   (default Tools/.build/release/haptic; starts a private rig)
set -eu
haptic="${1:-Tools/.build/release/haptic}"
here="$(cd "$(dirname "$0")" && pwd)"
export HAPTIC_RIG_DIR="/tmp/haptic-latency-rig-$$"
. "$("$here/../audio-rig/start")"
trap '"$here/../audio-rig/stop"' EXIT
pattern="$here/../../Patterns/examples/rising-falling.ahap"
for flags in "--latency 2" "--latency 3" "--latency 4" "--latency 5" "--latency 8" "--latency 20" \
	"--latency 2 --latency-strict"; do
	start=$(date +%s%N)
	# shellcheck disable=SC2086
	said="$("$haptic" play $flags "$pattern" --stats 2>&1 | tr '\n' ' ')"
	end=$(date +%s%N)
	echo "$flags: $(((end - start) / 1000000)) ms; $said"
done
