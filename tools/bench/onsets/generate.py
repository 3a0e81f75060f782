#!/usr/bin/env python3
"""Onset benchmark material with known onsets (issue 30).

Writes, under OUT (default /tmp/onset-bench; never inside the repository):

    OUT/<category>/<name>.wav        48 kHz audio
    OUT/<category>/<name>.onsets     ground truth: one onset time in seconds a line
    OUT/<category>/<name>.mid        the MIDI file the audio was rendered from (MIDI pieces)
    OUT/timing/long-ensemble.wav     a 3-minute ensemble piece, for whole-process timing
    OUT/manifest.json                every piece: name, category, files, onset count

Categories: drums, piano, plucked (guitar, harp, pizzicato), ensemble (MIDI written here and
rendered by fluidsynth with the General MIDI soundfont), speech (espeak-ng words placed at known
times) and effects (hits and bursts synthesised here and placed at known times). Everything is
made from a seed: the same seed gives the same files.

Ground truth for MIDI is the note-on time from the tempo map; onsets closer than 30 ms are
merged into the first (a chord, a strum, a kick under a hi-hat are one onset), as onset data
sets used with mir_eval do. Speech and effects are placed where the first sample of each word
or sound reaches -40 dB of its peak, so the ground truth is where the sound starts.

    /work/venv/bin/python tools/bench/onsets/generate.py [--out DIR] [--seed N]
    /work/venv/bin/python tools/bench/onsets/generate.py --check-set > tools/bench/onsets/check-set.txt

Needs fluidsynth, fluid-soundfont-gm, espeak-ng and sox (Debian), numpy and soundfile (PyPI).
"""
import argparse
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
import soundfile

SOUNDFONT = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
RATE = 48000
DIVISION = 480
MERGE = 0.030
PIECES_PER_MIDI_CATEGORY = 10
PIECES_SPEECH = 6
PIECES_EFFECTS = 6
CHECK_SET_SEED = 20261125
MIDI_CATEGORIES = ["drums", "piano", "plucked", "ensemble"]
CATEGORIES = MIDI_CATEGORIES + ["speech", "effects"]


def piece_names():
    names = []
    for category in MIDI_CATEGORIES:
        names += [(category, f"{category}-{i:02d}") for i in range(1, PIECES_PER_MIDI_CATEGORY + 1)]
    names += [("speech", f"speech-{i:02d}") for i in range(1, PIECES_SPEECH + 1)]
    names += [("effects", f"effects-{i:02d}") for i in range(1, PIECES_EFFECTS + 1)]
    return names


def check_set():
    """A third of each category, chosen at random with a fixed seed."""
    rng = random.Random(CHECK_SET_SEED)
    chosen = []
    for category in CATEGORIES:
        names = [n for c, n in piece_names() if c == category]
        chosen += sorted(rng.sample(names, round(len(names) / 3)))
    return chosen


# ---------------------------------------------------------------- MIDI writing


def vlq(value):
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(out))


def track_chunk(events):
    """events: (tick, bytes) in any order; written sorted with delta times."""
    body = bytearray()
    now = 0
    # Note-offs (and everything else) before note-ons at the same tick.
    order = sorted(events, key=lambda e: (e[0], 0 if (e[1][0] & 0xF0) != 0x90 else 1))
    for tick, data in order:
        body += vlq(tick - now) + data
        now = tick
    body += vlq(0) + b"\xff\x2f\x00"
    return b"MTrk" + struct.pack(">I", len(body)) + bytes(body)


def midi_file(tracks):
    head = b"MThd" + struct.pack(">IHHH", 6, 1, len(tracks), DIVISION)
    return head + b"".join(track_chunk(t) for t in tracks)


class Song:
    """Notes in beats, a tempo map, and a MIDI file and note-on times from them."""

    def __init__(self, bpm):
        self.tempos = [(0.0, bpm)]  # (beat, bpm)
        self.notes = []  # (channel, program, beat, beats, key, velocity)

    def tempo(self, beat, bpm):
        self.tempos.append((beat, bpm))

    def note(self, channel, program, beat, beats, key, velocity):
        beat += 1  # one beat of silence first: no onset at the file's first sample
        key = max(0, min(127, key))
        velocity = max(1, min(127, int(velocity)))
        self.notes.append((channel, program, beat, max(beats, 0.05), key, velocity))

    def tick(self, beat):
        return int(round(beat * DIVISION))

    def tempo_map(self):
        """tick -> microseconds a beat, as written; a later change at a tick replaces an earlier one."""
        return dict(sorted((self.tick(b), int(round(60_000_000 / bpm))) for b, bpm in self.tempos))

    def seconds(self, tick):
        changes = self.tempo_map()
        starts = sorted(changes)
        t = 0.0
        for i, start in enumerate(starts):
            if start >= tick:
                break
            end = min(starts[i + 1], tick) if i + 1 < len(starts) else tick
            t += (end - start) / DIVISION * changes[start] / 1e6
        return t

    def end_beat(self):
        return max(b + d for _, _, b, d, _, _ in self.notes)

    def midi(self):
        conductor = []
        for tick, micros in self.tempo_map().items():
            conductor.append((tick, b"\xff\x51\x03" + micros.to_bytes(3, "big")))
        conductor.append((0, b"\xff\x58\x04\x04\x02\x18\x08"))
        by_channel = {}
        for ch, prog, beat, beats, key, vel in self.notes:
            by_channel.setdefault((ch, prog), []).append((beat, beats, key, vel))
        tracks = [conductor]
        # Two seconds of tail so fluidsynth renders every release.
        tail = self.tick(self.end_beat() + 4)
        for (ch, prog), notes in sorted(by_channel.items()):
            events = [(0, bytes([0xC0 | ch, prog]))]
            for beat, beats, key, vel in notes:
                events.append((self.tick(beat), bytes([0x90 | ch, key, vel])))
                events.append((self.tick(beat + beats), bytes([0x80 | ch, key, 0])))
            events.append((tail, b"\xff\x01\x04tail"))
            tracks.append(events)
        return midi_file(tracks)

    def onsets(self):
        return merge(sorted(self.seconds(self.tick(n[2])) for n in self.notes))


def merge(times):
    out = []
    for t in times:
        if not out or t - out[-1] >= MERGE:
            out.append(t)
    return out


# ---------------------------------------------------------------- MIDI pieces

KICK, SNARE, CLOSED_HAT, OPEN_HAT, CRASH, RIDE, TOM_LOW, TOM_MID, TOM_HIGH, CLAP = 36, 38, 42, 46, 49, 51, 45, 47, 50, 39


def drums(song, rng, beats, start=0.0, busy=1.0, channel=9):
    """A groove with ghost notes, fills and rolls."""
    bar = 0
    while bar * 4 < beats:
        b0 = start + bar * 4
        fill = rng.random() < 0.25
        subdivision = rng.choice([2, 4]) if busy > 0.5 else 2
        for s in range(4 * subdivision):
            beat = b0 + s / subdivision
            if fill and s >= 2 * subdivision:
                continue
            hat_vel = rng.randint(40, 100) if s % subdivision else rng.randint(70, 115)
            if rng.random() < 0.9:
                song.note(channel, 0, beat, 0.1, CLOSED_HAT if rng.random() < 0.85 else OPEN_HAT, hat_vel)
            if s % (2 * subdivision) == 0 and rng.random() < 0.95:
                song.note(channel, 0, beat, 0.2, KICK, rng.randint(80, 127))
            elif s % subdivision == 0 and s % (2 * subdivision) == subdivision:
                song.note(channel, 0, beat, 0.2, SNARE, rng.randint(85, 127))
            elif rng.random() < 0.12 * busy:
                song.note(channel, 0, beat, 0.1, SNARE, rng.randint(18, 40))  # ghost note
        if fill:
            # A roll: 16ths or 32nds over toms and snare, getting louder.
            step = rng.choice([0.25, 0.125]) if busy > 0.5 else 0.25
            n = int(2 / step)
            kit = rng.choice([[SNARE], [TOM_HIGH, TOM_MID, TOM_LOW], [SNARE, TOM_HIGH, TOM_LOW]])
            for i in range(n):
                song.note(channel, 0, b0 + 2 + i * step, 0.1, kit[(i * len(kit)) // n], 50 + 70 * i / n)
            song.note(channel, 0, b0 + 4, 0.5, CRASH, 110)
        bar += 1


def piano_part(song, rng, beats, program=0, channel=0, low=48, high=84, rhythm=(0.5, 1, 1, 2)):
    beat = 0.0
    scale = [0, 2, 4, 5, 7, 9, 11]
    root = rng.randint(0, 11)
    while beat < beats:
        kind = rng.random()
        base = low + rng.randint(0, 12)
        dyn = rng.choice([30, 55, 80, 105])  # soft to loud passages
        if kind < 0.35:  # a chord
            d = rng.choice(rhythm)
            for k in rng.sample([0, 4, 7, 12, 16], rng.randint(2, 4)):
                song.note(channel, program, beat, d * 0.95, base + root % 12 + k, dyn + rng.randint(-10, 10))
            beat += d
        elif kind < 0.55:  # an arpeggio
            step = rng.choice([0.25, 1 / 3, 0.5])
            for i, k in enumerate([0, 4, 7, 12, 7, 4][: rng.randint(3, 6)]):
                song.note(channel, program, beat + i * step, step * 2, base + root % 12 + k, dyn + rng.randint(-15, 15))
            beat += step * 6
        elif kind < 0.65:  # fast repeated notes
            step = rng.choice([0.125, 1 / 6, 0.25])
            key = rng.randint(low + 6, high)
            for i in range(rng.randint(4, 8)):
                song.note(channel, program, beat + i * step, step * 0.8, key, dyn + rng.randint(-10, 10))
            beat += step * 8
        else:  # a melody line over a held bass
            song.note(channel, program, beat, 2, base - 12, dyn - 10)
            t = beat
            while t < beat + 2:
                d = rng.choice([0.25, 0.5, 0.5, 1])
                key = base + 12 + scale[rng.randint(0, 6)] + root % 12
                vel = dyn + rng.randint(-20, 20) if rng.random() > 0.15 else rng.randint(20, 35)
                song.note(channel, program, t, d, min(high + 12, key), vel)
                t += d
            beat += 2


def plucked_part(song, rng, beats, program, channel=0):
    beat = 0.0
    root = 40 + rng.randint(0, 12)
    shapes = [[0, 7, 12, 16, 19, 24], [0, 5, 10, 15, 19, 24], [0, 7, 12, 15, 19, 24]]
    while beat < beats:
        shape = rng.choice(shapes)
        kind = rng.random()
        dyn = rng.choice([35, 60, 85, 110])
        if kind < 0.3 and program != 45:  # a strum: six strings within 30 ms, one onset
            gap = rng.uniform(0.003, 0.0055)
            bpm = song.tempos[-1][1]
            for i, k in enumerate(shape):
                song.note(channel, program, beat + i * gap * bpm / 60, 1.5, root + k, dyn + rng.randint(-8, 8))
            beat += rng.choice([1, 2])
        elif kind < 0.7:  # picked arpeggio
            step = rng.choice([0.25, 0.5, 1 / 3])
            order = shape[:] if rng.random() < 0.5 else shape[::-1]
            for i, k in enumerate(order):
                song.note(channel, program, beat + i * step, step * 3, root + k, dyn + rng.randint(-20, 15))
            beat += step * len(order)
        else:  # a melody with repeats and soft notes
            t = beat
            key = root + 12 + rng.choice(shape)
            for _ in range(rng.randint(4, 10)):
                d = rng.choice([0.125, 0.25, 0.25, 0.5, 1]) if program != 46 else rng.choice([0.25, 0.5, 1])
                vel = dyn + rng.randint(-15, 15) if rng.random() > 0.2 else rng.randint(22, 40)
                song.note(channel, program, t, d, key, vel)
                if rng.random() < 0.6:
                    key = root + 12 + rng.choice(shape) + rng.choice([0, 0, 2, -1])
                t += d
            beat = t


def tempo_changes(song, rng, beats):
    """None, one or two tempo changes, so the tempo map matters."""
    for _ in range(rng.choice([0, 1, 1, 2])):
        song.tempo(rng.randint(2, int(beats) // 4) * 4, rng.randint(60, 180))


def midi_piece(category, index, seed, seconds=None):
    rng = random.Random(seed * 1000 + CATEGORIES.index(category) * 100 + index)
    bpm = rng.randint(66, 176)
    song = Song(bpm)
    beats = (seconds or rng.uniform(18, 30)) * bpm / 60
    beats = 4 * math.ceil(beats / 4)
    if seconds is None:
        tempo_changes(song, rng, beats)
    if category == "drums":
        drums(song, rng, beats, busy=rng.random() + 0.3)
    elif category == "piano":
        piano_part(song, rng, beats)
    elif category == "plucked":
        plucked_part(song, rng, beats, program=[24, 25, 46, 45][index % 4])
    else:
        drums(song, rng, beats, busy=rng.random() * 0.6)
        bass = 32 + rng.randint(0, 3)  # acoustic, finger, picked, fretless bass
        t = 0.0
        while t < beats:
            d = rng.choice([0.5, 1, 1, 2])
            song.note(1, bass, t, d * 0.9, 28 + rng.randint(0, 12), rng.randint(60, 110))
            t += d
        lead = rng.choice([0, 4, 11, 12, 24, 56, 65])  # piano, e-piano, vibes, marimba, guitar, trumpet, sax
        piano_part(song, rng, beats, program=lead, channel=2, low=55, high=84)
        if rng.random() < 0.3:
            plucked_part(song, rng, beats, program=rng.choice([24, 25, 46]), channel=3)
    return song


def render_midi(song, out_base):
    mid = out_base + ".mid"
    with open(mid, "wb") as f:
        f.write(song.midi())
    wav = out_base + ".wav"
    subprocess.run(
        ["fluidsynth", "-ni", "-q", "-g", "0.35", "-r", str(RATE), "-T", "wav", "-O", "s16", "-F", wav, SOUNDFONT, mid],
        check=True, stdout=subprocess.DEVNULL)
    return song.onsets()


# ---------------------------------------------------------------- speech and effects

# One onset each: an initial consonant and a vowel, no final plosive or initial cluster, so a
# word has one start to find (a final "t" or "k" is a second onset that no ground truth lists).
WORDS = ["go", "no", "me", "man", "ten", "sun", "fun", "run", "one", "moon", "ball", "fall", "car", "bar",
         "zoo", "tea", "key", "day", "boy", "toy", "low", "bell", "well", "know", "pen", "bin", "ray", "new"]


def start_of(x, floor_db=-40.0):
    peak = np.max(np.abs(x)) if len(x) else 0.0
    if peak <= 0:
        return 0
    return int(np.argmax(np.abs(x) >= peak * 10 ** (floor_db / 20)))


def speech_word(word, speed, pitch, voice, work):
    raw = os.path.join(work, "w.wav")
    res = os.path.join(work, "r.wav")
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", raw, word], check=True)
    subprocess.run(["sox", raw, "-r", str(RATE), "-b", "32", "-e", "floating-point", res], check=True)
    x, _ = soundfile.read(res, dtype="float32")
    if x.ndim > 1:
        x = x.mean(axis=1)
    return x[start_of(x):]


def place(sounds, seconds, rng, gap, noise_db):
    """Mix each sound in at a time at least `gap` after the previous start; returns audio, onsets."""
    out = np.zeros(int(seconds * RATE) + RATE, dtype=np.float64)
    onsets = []
    t = rng.uniform(0.3, 0.8)
    for s, level in sounds:
        if t + len(s) / RATE > seconds:
            break
        i = int(round(t * RATE))
        out[i:i + len(s)] += s * level
        onsets.append(i / RATE)
        t += max(gap(len(s) / RATE), 0.06)
    out += rng_normal(rng, len(out)) * 10 ** (noise_db / 20)
    return out, onsets


def rng_normal(rng, n):
    return np.random.default_rng(rng.randrange(2**32)).standard_normal(n)


def speech_piece(index, seed, work):
    rng = random.Random(seed * 1000 + 400 + index)
    voice = rng.choice(["en", "en-us", "en-gb-x-rp", "en+f3", "en+m3", "en-us+f2"])
    speed, pitch = rng.randint(140, 220), rng.randint(30, 70)
    sounds = []
    for _ in range(40):
        w = speech_word(rng.choice(WORDS), speed, pitch, voice, work)
        sounds.append((w / max(np.max(np.abs(w)), 1e-9), 10 ** (rng.uniform(-20, -3) / 20)))
    audio, onsets = place(sounds, rng.uniform(15, 22), rng, lambda d: d + rng.uniform(0.08, 0.6), -65)
    return audio, onsets


def effect(rng):
    """One synthesised sound with a sharp start."""
    kind = rng.choice(["noise", "kick", "click", "metal", "thud", "zap"])
    d = {"noise": rng.uniform(0.05, 0.4), "kick": 0.35, "click": 0.01, "metal": rng.uniform(0.3, 0.8),
         "thud": 0.25, "zap": rng.uniform(0.1, 0.3)}[kind]
    t = np.arange(int(d * RATE)) / RATE
    g = np.random.default_rng(rng.randrange(2**32))
    if kind == "noise":
        x = g.standard_normal(len(t)) * np.exp(-t / (d / rng.uniform(3, 6)))
    elif kind == "kick":
        f = 50 + 120 * np.exp(-t / 0.03)
        x = np.sin(2 * np.pi * np.cumsum(f) / RATE) * np.exp(-t / 0.12)
    elif kind == "click":
        x = g.standard_normal(len(t)) * np.exp(-t / 0.002)
    elif kind == "metal":
        x = sum(np.sin(2 * np.pi * f * t + g.uniform(0, 6.3)) for f in g.uniform(400, 6000, 6)) * np.exp(-t / (d / 4))
    elif kind == "thud":
        x = np.sin(2 * np.pi * rng.uniform(60, 110) * t) * np.exp(-t / 0.06) + 0.3 * g.standard_normal(len(t)) * np.exp(-t / 0.01)
    else:
        f = rng.uniform(800, 2000) * np.exp(-t / (d / 2))
        x = np.sign(np.sin(2 * np.pi * np.cumsum(f) / RATE)) * np.exp(-t / (d / 3)) * 0.5
    ramp = min(len(t), int(0.001 * RATE))
    x[:ramp] *= np.linspace(0, 1, ramp)  # 1 ms fade-in: no click artefact before the start
    return x / max(np.max(np.abs(x)), 1e-9)


def effects_piece(index, seed):
    rng = random.Random(seed * 1000 + 500 + index)
    sounds = [(effect(rng), 10 ** (rng.uniform(-24, -2) / 20)) for _ in range(60)]
    # Bursts: sometimes a fast run 70-120 ms apart, otherwise spread out.
    audio, onsets = place(sounds, rng.uniform(15, 22), rng,
                          lambda d: rng.uniform(0.07, 0.12) if rng.random() < 0.3 else rng.uniform(0.15, 0.9),
                          rng.choice([-70, -60, -50]))
    return audio, onsets


def write_audio(path, audio):
    peak = np.max(np.abs(audio))
    if peak > 0.9:
        audio = audio * (0.9 / peak)
    soundfile.write(path, audio.astype(np.float32), RATE, subtype="PCM_16")


def write_onsets(path, onsets):
    with open(path, "w") as f:
        f.writelines(f"{t:.6f}\n" for t in onsets)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="/tmp/onset-bench")
    p.add_argument("--seed", type=int, default=30)
    p.add_argument("--check-set", action="store_true", help="print the check set and exit")
    a = p.parse_args()
    if a.check_set:
        print(f"# Check set for tools/bench/onsets: a third of each category, random.Random({CHECK_SET_SEED}).")
        print("# Written by: generate.py --check-set. Report tuning and check figures separately.")
        print("\n".join(check_set()))
        return
    repo = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    out = os.path.realpath(a.out)
    if out == repo or out.startswith(repo + os.sep):
        sys.exit(f"generate.py: {out} is inside the repository; write somewhere else (default /tmp/onset-bench)")
    for tool in ["fluidsynth", "espeak-ng", "sox"]:
        if not shutil.which(tool):
            sys.exit(f"generate.py: {tool} is not installed (apt-get install fluidsynth fluid-soundfont-gm espeak-ng sox)")
    if not os.path.exists(SOUNDFONT):
        sys.exit(f"generate.py: {SOUNDFONT} is missing (apt-get install fluid-soundfont-gm)")
    manifest = []
    with tempfile.TemporaryDirectory() as work:
        for category, name in piece_names():
            os.makedirs(os.path.join(out, category), exist_ok=True)
            base = os.path.join(out, category, name)
            index = int(name.rsplit("-", 1)[1])
            if category in MIDI_CATEGORIES:
                onsets = render_midi(midi_piece(category, index, a.seed), base)
            elif category == "speech":
                audio, onsets = speech_piece(index, a.seed, work)
                write_audio(base + ".wav", audio)
            else:
                audio, onsets = effects_piece(index, a.seed)
                write_audio(base + ".wav", audio)
            write_onsets(base + ".onsets", onsets)
            manifest.append({"name": name, "category": category, "wav": f"{category}/{name}.wav",
                             "onsets": f"{category}/{name}.onsets", "count": len(onsets)})
            print(f"{name}: {len(onsets)} onsets", file=sys.stderr)
        os.makedirs(os.path.join(out, "timing"), exist_ok=True)
        render_midi(midi_piece("ensemble", 99, a.seed, seconds=180), os.path.join(out, "timing", "long-ensemble"))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"seed": a.seed, "pieces": manifest, "timing": "timing/long-ensemble.wav"}, f, indent=1)
    print(f"wrote {len(manifest)} pieces under {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
