#!/bin/sh
# Format conversions (issue 13): for every .ahap and .haptic file under a folder, the `convert
# --check` figures for each target (envelope correlation, onsets, loudness, length), and for
# every .haptic clip its rendered length against its last breakpoint.
# usage: tools/bench/formats.sh FOLDER [HAPTIC]   (default Tools/.build/release/haptic)
set -eu
folder="$1"
haptic="${2:-Tools/.build/release/haptic}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
find "$folder" -name '*.ahap' -o -name '*.haptic' -o -name '*.vij' | sort | while read -r file; do
	for target in ahap haptic android; do
		line="$("$haptic" convert "$file" -o "$work/out" --to "$target" --check 2>&1 | grep 'check:' | sed 's/.*check: //')" || true
		echo "$(basename "$file") -> $target: ${line:-refused}"
	done
done
find "$folder" -name '*.haptic' | sort | while read -r file; do
	if "$haptic" render "$file" -o "$work/clip.wav" 2>/dev/null; then
		python3 - "$file" "$work/clip.wav" <<'PY'
import json, sys, wave
clip = json.load(open(sys.argv[1]))["signals"]["continuous"]["envelopes"]
last = max(env[-1]["time"] for env in clip.values() if env)
w = wave.open(sys.argv[2])
seconds = w.getnframes() / w.getframerate()
print(f"{sys.argv[1].split('/')[-1]}: rendered {seconds * 1000:.2f} ms, last breakpoint {last * 1000:.2f} ms, difference {(seconds - last) * 1000:+.2f} ms")
PY
	else
		echo "$(basename "$file"): refused"
	fi
done
