#!/bin/sh
# Hostile sizes (issue 11): a 134-byte AHAP with one 3,600 s continuous event, and one hour of audio.
#   info at 96 kHz stereo: peak RSS (target <= 200 MB)
#   review: page size (target <= 25 MB) and peak RSS
# usage: tools/bench/hostile-sizes.sh [HAPTIC]   (default Tools/.build/release/haptic)
set -eu
haptic="${1:-Tools/.build/release/haptic}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '{"Version":1.0,"Metadata":{"Project":"hostile"},"Pattern":[{"Event":{"Time":0.0,"EventType":"HapticContinuous","EventDuration":3600.0}}]}' \
	>"$work/one-event.ahap"
# The reader caps a continuous event at 30 s (as Core Haptics does), so the 134-byte file renders
# 30 s; one hour of audio takes 120 back-to-back 30 s events (about 9 KB).
python3 - "$work/hour.ahap" <<'PY'
import json, sys
events = [{"Event": {"Time": 30.0 * n, "EventType": "HapticContinuous", "EventDuration": 30.0}} for n in range(120)]
json.dump({"Version": 1.0, "Pattern": events}, open(sys.argv[1], "w"))
PY

measure() { # label, command...
	label="$1"
	shift
	/usr/bin/time -f "%M %e" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || true
	read -r kb seconds <"$work/time"
	echo "$label: peak RSS $((kb / 1024)) MB, $seconds s"
}

echo "one-event.ahap: $(wc -c <"$work/one-event.ahap") bytes, one 3600 s continuous event"
measure "  info --sample-rate 96000 --channels 2" "$haptic" info "$work/one-event.ahap" --sample-rate 96000 --channels 2
grep rendered "$work/out" | sed 's/^ */    /'
echo "hour.ahap: $(wc -c <"$work/hour.ahap") bytes, 120 x 30 s continuous events"
measure "  info --sample-rate 96000 --channels 2" "$haptic" info "$work/hour.ahap" --sample-rate 96000 --channels 2
grep rendered "$work/out" | sed 's/^ */    /'
measure "  review (default --preview-seconds 60)" "$haptic" review "$work/hour.ahap" -o "$work/review.html"
echo "    page: $(($(wc -c <"$work/review.html") / 1024)) KiB; $(grep -o 'Preview: the first [^<]*' "$work/review.html")"
measure "  plot" "$haptic" plot "$work/hour.ahap" -o "$work/plot.svg"
echo "    plot: $(($(wc -c <"$work/plot.svg") / 1024)) KiB"
