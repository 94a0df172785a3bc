#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/targets/pupil.cpp into fuzz/corpus/pupil/: Pupil Capture
message payloads shaped as Pupil sends them (a surface message's gaze_on_surfaces, a gaze.
datum with its pupil datum in base_data), and a few it must refuse. msgpack is encoded by
hand (standard library only), the subset Pupil's payloads use.

    python3 fuzz/corpus/make_pupil_seeds.py
"""

import math
import struct
from pathlib import Path


def pack(value):
    """msgpack of dicts, lists, str, bool, None, int and float (float64, or float32 when
    wrapped in F32)."""
    if value is None:
        return b"\xc0"
    if value is True:
        return b"\xc3"
    if value is False:
        return b"\xc2"
    if isinstance(value, F32):
        return b"\xca" + struct.pack(">f", value.value)
    if isinstance(value, int):
        if 0 <= value < 0x80:
            return bytes([value])
        if -32 <= value < 0:
            return struct.pack("b", value)
        if 0 <= value < 1 << 32:
            return b"\xce" + struct.pack(">I", value)
        return b"\xd3" + struct.pack(">q", value)
    if isinstance(value, float):
        return b"\xcb" + struct.pack(">d", value)
    if isinstance(value, str):
        data = value.encode()
        if len(data) < 32:
            return bytes([0xA0 | len(data)]) + data
        return b"\xd9" + bytes([len(data)]) + data
    if isinstance(value, list):
        assert len(value) < 16
        return bytes([0x90 | len(value)]) + b"".join(pack(v) for v in value)
    if isinstance(value, dict):
        assert len(value) < 16
        return bytes([0x80 | len(value)]) + b"".join(pack(k) + pack(v) for k, v in value.items())
    raise TypeError(value)


class F32:
    def __init__(self, value):
        self.value = value


def surface_gaze(x, y, confidence, timestamp, on_surf=None):
    return {
        "topic": "gaze.3d.01._on_surface",
        "norm_pos": [x, y],
        "confidence": confidence,
        "on_surf": (0 <= x <= 1 and 0 <= y <= 1) if on_surf is None else on_surf,
        "base_data": ["gaze.3d.01.", timestamp],
        "timestamp": timestamp,
    }


def surface_message(gaze):
    return {
        "topic": "surfaces.screen",
        "name": "screen",
        "surf_to_img_trans": [[1.02, 0.01, -3.5], [0.0, 0.98, 2.25], [0.0, 0.0, 1.0]],
        "img_to_surf_trans": [[0.98, -0.01, 3.4], [0.0, 1.02, -2.3], [0.0, 0.0, 1.0]],
        "gaze_on_surfaces": gaze,
        "fixations_on_surfaces": [],
        "timestamp": 1234.5678,
    }


def gaze_datum(x, y, confidence, timestamp):
    pupil = {
        "topic": "pupil.0.3d",
        "id": 0,
        "method": "3d c++",
        "norm_pos": [0.52, 0.47],
        "diameter": 41.3,
        "confidence": 0.97,
        "timestamp": timestamp - 0.004,
        "ellipse": {"center": [99.8, 101.6], "axes": [38.9, 44.1], "angle": -61.2},
    }
    return {
        "topic": "gaze.3d.0.",
        "norm_pos": [x, y],
        "confidence": confidence,
        "timestamp": timestamp,
        "base_data": [pupil],
        "gaze_point_3d": [12.5, -30.1, 498.0],
        "eye_center_3d": [20.0, 15.0, -20.0],
        "gaze_normal_3d": [-0.02, -0.09, 0.99],
    }


def main():
    out = Path(__file__).resolve().parent / "pupil"
    out.mkdir(exist_ok=True)
    two = surface_message([surface_gaze(0.41, 0.62, 0.93, 1234.561), surface_gaze(0.43, 0.6, 0.88, 1234.565)])
    seeds = {
        "surface_one_entry.msgpack": pack(surface_message([surface_gaze(0.5, 0.5, 0.95, 1234.56)])),
        "surface_two_entries.msgpack": pack(two),
        "surface_three_entries_one_off.msgpack": pack(surface_message([
            surface_gaze(0.2, 0.8, 0.9, 1234.557),
            surface_gaze(1.3, 0.7, 0.85, 1234.561),
            surface_gaze(0.25, 0.79, 0.4, 1234.565),
        ])),
        "surface_no_entries.msgpack": pack(surface_message([])),
        # Python may send a whole number as an integer, and float32 values are msgpack too.
        "surface_integer_and_float32.msgpack": pack(surface_message([surface_gaze(1, F32(0.25), 1, 1234, True)])),
        "gaze_datum.msgpack": pack(gaze_datum(0.48, 0.53, 0.96, 1234.57)),
        "gaze_datum_off_image.msgpack": pack(gaze_datum(-0.2, 1.4, 0.71, 1234.58)),
        # Refused: what the decoder is for.
        "invalid_truncated.msgpack": pack(two)[:-7],
        "invalid_bytes_after_message.msgpack": pack(gaze_datum(0.48, 0.53, 0.96, 1234.57)) + b"\x00",
        "invalid_norm_pos_string.msgpack": pack(gaze_datum("0.5", 0.5, 0.9, 1234.6)),
        "invalid_confidence_above_one.msgpack": pack(surface_message([surface_gaze(0.5, 0.5, 1.5, 1234.6)])),
        "invalid_nan_timestamp.msgpack": pack(gaze_datum(0.5, 0.5, 0.9, math.nan)),
        "invalid_on_surf_off_surface.msgpack": pack(surface_message([surface_gaze(1.2, 0.5, 0.9, 1234.6, True)])),
        "invalid_on_surf_not_bool.msgpack": pack(surface_message([dict(surface_gaze(0.5, 0.5, 0.9, 1234.6), on_surf=1)])),
        # A map declaring 2^32 - 1 pairs in five bytes: refused before anything is allocated.
        "invalid_huge_map_count.msgpack": b"\xdf\xff\xff\xff\xff",
        "invalid_not_a_map.msgpack": pack([0.5, 0.5, 0.9]),
    }
    for name, data in seeds.items():
        assert len(data) < 4096, name
        (out / name).write_bytes(data)


if __name__ == "__main__":
    main()
