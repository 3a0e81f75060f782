#!/usr/bin/env python3
"""Writes small Standard MIDI File seeds for the MIDI fuzz target into the folder given: format 0
and 1, tempo changes in the first track, running status, a note-on of velocity 0 as note-off,
system exclusive and text meta events, an unknown chunk, SMPTE division, drums on channel 10,
held notes, and a file without an end-of-track event."""
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def vlq(value):
    data = [value & 0x7F]
    value >>= 7
    while value:
        data.insert(0, 0x80 | (value & 0x7F))
        value >>= 7
    return bytes(data)


def track(events, end=True):
    body = b"".join(vlq(delta) + bytes(data) for delta, data in events)
    if end:
        body += b"\x00\xff\x2f\x00"
    return b"MTrk" + struct.pack(">I", len(body)) + body


def header(fmt, tracks, division=480):
    return b"MThd" + struct.pack(">IHHH", 6, fmt, tracks, division)


def tempo(micros):
    return [0xFF, 0x51, 0x03, micros >> 16, (micros >> 8) & 0xFF, micros & 0xFF]


def write(name, data):
    with open(os.path.join(out, name + ".mid"), "wb") as f:
        f.write(data)


melody = [(0, [0x90, 60, 100]), (240, [60, 0]), (0, [62, 80]), (240, [62, 0]), (0, [64, 40]), (960, [0x80, 64, 0])]
write("format0", header(0, 1) + track([(0, tempo(500000))] + melody))
write("format1-tempo", header(1, 2) + track([(0, tempo(600000)), (480, tempo(300000)), (0, [0xFF, 0x58, 4, 4, 2, 24, 8])])
      + track([(0, [0xC0, 24]), (0, [0xFF, 0x03, 4] + list(b"lead"))] + melody))
write("drums-chords", header(1, 2) + track([(0, tempo(400000))])
      + track([(0, [0x99, 36, 120]), (0, [42, 90]), (0, [0x90, 48, 70]), (2, [52, 70]), (2, [55, 70]),
               (120, [0x89, 36, 0]), (0, [0x99, 38, 110]), (120, [0x89, 38, 0]), (960, [0x80, 48, 0]), (0, [52, 0]), (0, [55, 0])]))
write("sysex-unknown-chunk", header(1, 1) + b"XFIH" + struct.pack(">I", 3) + b"abc"
      + track([(0, [0xF0, 3, 0x43, 0x12, 0xF7]), (0, [0xF7, 1, 0xF7]), (0, [0xB0, 7, 100]), (0, [0xE0, 0, 64])] + melody))
write("smpte", header(0, 1, (0xE7 << 8) | 40) + track(melody))
write("no-end", header(0, 1) + track(melody, end=False))
