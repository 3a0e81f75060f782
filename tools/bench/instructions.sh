#!/usr/bin/env bash
# Instruction count of the offline render (issue 12): the whole `haptic render LONG -o - > /dev/null`
# process under valgrind's callgrind, which counts instructions exactly, so the figure holds on a
# busy shared machine where wall time does not.
#
#   tools/bench/instructions.sh          # 10-minute pattern, 48 kHz mono f32
#   tools/bench/instructions.sh 2        # 2 minutes
#
# Prints the total and the top functions (self cost).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
minutes=${1:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bin=$(tools/build-release --quiet)
python3 tools/bench/make-long-pattern.py "$minutes" > "$work/long.ahap"
# valgrind 3.19 (Debian 12) cannot read clang's DWARF 5 (the C shims of dependencies): count a copy
# without debug info; the symbol table still names every function.
objcopy --strip-debug "$bin" "$work/haptic"
valgrind --tool=callgrind --callgrind-out-file="$work/cg" \
  "$work/haptic" render "$work/long.ahap" -o - --sample-rate 48000 --format f32 --channels 1 > /dev/null 2> "$work/log"
total=$(sed -n 's/^totals: //p' "$work/cg")
echo "render of a $minutes-minute pattern: $total instructions"
callgrind_annotate "$work/cg" 2>/dev/null | grep -E '^ *[0-9,]+ \(' | head -16 | { swift demangle --simplified 2>/dev/null || cat; } | cut -c1-150
