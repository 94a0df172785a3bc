"""A FAKE of pylsl, for fovea's tests only (tests/python/test_gaze_bridges.py).

The real pylsl is the Python interface of the Lab Streaming Layer (`pip install pylsl`;
https://github.com/labstreaminglayer/pylsl, docs at https://labstreaminglayer.readthedocs.io).
It is no Debian package and needs an outlet on the network, so the tests run
experiments/python/lsl_bridge.py against this file, put first on the path. It has only the
calls the bridge makes, behaving as pylsl's docstrings say:

    resolve_byprop(prop, value, minimum=1, timeout=FOREVER) -> list of StreamInfo (empty when
    none is found in time); StreamInfo.name(), type(), channel_count();
    StreamInlet(info); inlet.pull_sample(timeout) -> (sample, time stamp on the outlet's clock)
    or (None, None); inlet.time_correction(timeout) -> add it to a time stamp to get
    local_clock()'s; local_clock() -> seconds

One outlet, named "FakeGaze" of type "Gaze", its samples scripted: FOVEA_FAKE_GAZE holds JSON
segments [{"s": seconds, "sample": [channel values]}, ...] from the first pull (NaN, JSON's
NaN, for a blink); the last segment lasts for ever. The outlet's machine's clock runs
OUTLET_CLOCK_AHEAD_S ahead of this one's; samples come at 250 Hz, oldest first as an inlet's
queue gives them, each reaching the inlet ARRIVAL_DELAY_S after it was taken.
"""

import math
import time

from fake_gaze_path import scripted_path, segment_at

FOREVER = 32000000.0
LOCAL_CLOCK_OFFSET_S = 5000.0   # local_clock(): the computer's monotonic clock + 5000 s
OUTLET_CLOCK_AHEAD_S = 0.75     # the outlet's machine stamps samples 0.75 s ahead of local_clock()
SAMPLE_INTERVAL_S = 1.0 / 250.0
ARRIVAL_DELAY_S = 0.002
STREAM_NAME, STREAM_TYPE = "FakeGaze", "Gaze"
DEFAULT_PATH = [
    {"s": 0.6, "sample": [3.0, 0.1, 0.2]},
    {"s": 0.5, "sample": [0.0, math.nan, math.nan]},
    {"s": 1.0, "sample": [3.0, 0.9, 0.8]},
]


def local_clock():
    return time.monotonic() + LOCAL_CLOCK_OFFSET_S


def _path():
    return scripted_path(DEFAULT_PATH)


class StreamInfo:
    def name(self):
        return STREAM_NAME

    def type(self):
        return STREAM_TYPE

    def channel_count(self):
        return len(_path()[0]["sample"])


def resolve_byprop(prop, value, minimum=1, timeout=FOREVER):
    if {"name": STREAM_NAME, "type": STREAM_TYPE}.get(prop) == value:
        return [StreamInfo()]
    time.sleep(min(timeout, 1.0))  # looked for it until the timeout
    return []


class StreamInlet:
    def __init__(self, info, max_buflen=360, max_chunklen=0, recover=True, processing_flags=0):
        self._path = _path()
        self._first_s = None  # local clock of the first sample, set at the first pull
        self._next = 0        # the next sample to hand out

    def time_correction(self, timeout=FOREVER):
        return -OUTLET_CLOCK_AHEAD_S

    def pull_sample(self, timeout=FOREVER, sample=None):
        if self._first_s is None:
            self._first_s = local_clock()
        taken_s = self._first_s + self._next * SAMPLE_INTERVAL_S
        wait_s = taken_s + ARRIVAL_DELAY_S - local_clock()
        if wait_s > timeout:
            time.sleep(timeout)
            return None, None
        time.sleep(max(0.0, wait_s))
        self._next += 1
        elapsed_s = taken_s - self._first_s
        segment = segment_at(self._path, elapsed_s)
        return list(segment["sample"]), taken_s + OUTLET_CLOCK_AHEAD_S
