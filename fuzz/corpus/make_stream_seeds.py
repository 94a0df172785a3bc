#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/targets/stream.cpp into fuzz/corpus/stream/: gaze stream
messages as a sender writes them (docs/gaze.md, "The stream protocol") and a few fovea must
refuse. msgpack is encoded by hand, by make_pupil_seeds.py's pack (standard library only).

    python3 fuzz/corpus/make_stream_seeds.py
"""

import math
from pathlib import Path

from make_pupil_seeds import pack

SEEDS = {
    "sample_px": {"v": 1, "t": 12.5, "x": 640.0, "y": 360.0, "units": "px", "valid": True, "confidence": 0.9,
                  "tracker_t": 90210.125},
    "sample_norm": {"t": 3.25, "x": 0.5, "y": 0.25, "units": "norm"},
    "sample_integers": {"t": 3, "x": 4, "y": 5},
    "blink_nan_point": {"t": 1.0, "valid": False, "x": math.nan, "y": math.nan},
    "blink_no_point": {"t": 1.0, "valid": False},
    "extra_keys": {"t": 2.0, "x": 1.0, "y": 2.0, "eye": "left", "pupil_mm": [3.1, 3.2]},
    "invalid_nan_time": {"t": math.nan, "x": 1.0, "y": 1.0},
    "invalid_no_time": {"x": 1.0, "y": 1.0},
    "invalid_confidence": {"t": 1.0, "x": 1.0, "y": 1.0, "confidence": 1.5},
    "invalid_units": {"t": 1.0, "x": 1.0, "y": 1.0, "units": "cm"},
    "invalid_version": {"v": 2, "t": 1.0, "x": 1.0, "y": 1.0},
    "invalid_not_a_map": [1.0, 2.0, 3.0],
}


def main():
    folder = Path(__file__).resolve().parent / "stream"
    folder.mkdir(exist_ok=True)
    for name, message in SEEDS.items():
        (folder / (name + ".msgpack")).write_bytes(pack(message))
    # Five bytes declaring a map of 4 billion pairs: the parser's bound must refuse it first.
    (folder / "invalid_huge_map_count.msgpack").write_bytes(b"\xdf\xff\xff\xff\xff")


if __name__ == "__main__":
    main()
