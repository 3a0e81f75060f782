# Shared by the audio-rig scripts: where the private rig lives. Sourced, not executed.
# HAPTIC_RIG_DIR overrides the location; keep it short, PulseAudio's socket path is limited to 108 bytes.
rig_dir="${HAPTIC_RIG_DIR:-${TMPDIR:-/tmp}/haptic-audio-rig-$(id -u)}"
rig_socket="$rig_dir/native"
rig_server="unix:$rig_socket"
rig_sink="haptic_rig"
rig_pidfile="$rig_dir/pulseaudio.pid"
rig_envfile="$rig_dir/env"

# pactl against the private server only; never autospawns or touches the user's own daemon.
rig_pactl() {
	PULSE_SERVER="$rig_server" PULSE_CLIENTCONFIG="$rig_dir/client.conf" \
		XDG_RUNTIME_DIR="$rig_dir/runtime" HOME="$rig_dir/home" pactl "$@"
}

rig_marker="$rig_dir/.haptic-audio-rig"

# The PulseAudio this rig started, if it is still alive (checked by name, so a reused pid is ignored).
rig_pid() {
	[ -f "$rig_pidfile" ] || return 1
	pid="$(cat "$rig_pidfile")"
	[ "$(ps -p "$pid" -o comm= 2>/dev/null)" = "pulseaudio" ] || return 1
	echo "$pid"
}

rig_running() {
	rig_pid >/dev/null && rig_pactl info >/dev/null 2>&1
}

# Removes the rig directory, but only one this rig created (it carries the marker file).
rig_remove_dir() {
	[ -e "$rig_dir" ] || return 0
	if [ ! -f "$rig_marker" ]; then
		echo "audio-rig: refusing to delete '$rig_dir': it was not created by the audio rig" >&2
		return 1
	fi
	rm -rf "$rig_dir"
}
