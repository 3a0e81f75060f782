#!/usr/bin/env python3
"""Writes small WAV seeds for the WAV fuzz target into the folder given: every sample format the
decoder reads (8/16/24/32-bit integer, 32/64-bit float, WAVE_FORMAT_EXTENSIBLE), mono and stereo,
an empty data chunk and an odd-sized chunk before the data."""
import math
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def wav(name, fmt_tag, channels, bits, samples, extensible=False, extra_chunk=False):
    rate = 8000
    block = channels * bits // 8
    data = b""
    for i in range(samples * channels):
        x = 0.8 * math.sin(i * 0.3)
        if fmt_tag == 3:
            data += struct.pack("<f" if bits == 32 else "<d", x)
        elif bits == 8:
            data += struct.pack("<B", int(128 + x * 127))
        elif bits == 16:
            data += struct.pack("<h", int(x * 32767))
        elif bits == 24:
            data += struct.pack("<i", int(x * 8388607))[:3]
        else:
            data += struct.pack("<i", int(x * 2147483647))
    if extensible:
        guid_tail = b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
        fmt = struct.pack("<HHIIHHHHI", 0xFFFE, channels, rate, rate * block, block, bits, 22, bits, 3 if channels == 2 else 4)
        fmt += struct.pack("<H", fmt_tag) + guid_tail
    else:
        fmt = struct.pack("<HHIIHH", fmt_tag, channels, rate, rate * block, block, bits)
    chunks = b"fmt " + struct.pack("<I", len(fmt)) + fmt
    if extra_chunk:
        chunks += b"LIST" + struct.pack("<I", 3) + b"abc\x00"
    chunks += b"data" + struct.pack("<I", len(data)) + data
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks)


wav("u8.wav", 1, 1, 8, 32)
wav("s16-stereo.wav", 1, 2, 16, 32)
wav("s24.wav", 1, 1, 24, 32)
wav("s32.wav", 1, 1, 32, 32, extra_chunk=True)
wav("f32.wav", 3, 1, 32, 32)
wav("f64-stereo.wav", 3, 2, 64, 16)
wav("extensible-s16.wav", 1, 2, 16, 16, extensible=True)
wav("empty.wav", 1, 1, 16, 0)
