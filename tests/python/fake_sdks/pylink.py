"""A FAKE of SR Research's pylink, for fovea's tests only (tests/python/test_gaze_bridges.py).

The real pylink comes with SR Research's EyeLink Developers Kit (https://www.sr-research.com/support/,
"EyeLink Developers Kit"); its reference is the "Pylink API" user guide installed with it. It
is no Debian package, so the tests run experiments/python/eyelink_bridge.py against this file,
put first on the path. It has only the calls the bridge makes, behaving as that guide says:

    EyeLink(address); setOfflineMode(); sendCommand(text); startRecording(1, 1, 1, 1) -> 0;
    trackerTime() -> the tracker's clock, ms; getNewestSample() -> Sample or None;
    Sample.getTime() (ms), isLeftSample(), isRightSample(), getLeftEye() / getRightEye()
    .getGaze() -> (x, y) pixels, MISSING_DATA where the eye has no data; stopRecording(); close()

The gaze path is scripted: FOVEA_FAKE_GAZE holds JSON segments [{"s": seconds, "left": [x, y]
or null, "right": [x, y] or null}, ...] from the start of recording (an eye left out is not
recorded; null is missing data, a blink); the last segment lasts for ever. The tracker's clock
is far from the computer's (TRACKER_CLOCK_OFFSET_MS), samples come at 500 Hz and reach the
computer LINK_DELAY_MS after they were taken. Each call is said on stderr ("fake pylink: ...").
"""

import math
import sys
import time

from fake_gaze_path import scripted_path, segment_at

MISSING_DATA = -32768
# The tracker's clock, ms: the computer's monotonic clock plus this (the Host PC started earlier).
TRACKER_CLOCK_OFFSET_MS = 7_654_321.0
SAMPLE_INTERVAL_MS = 2.0
LINK_DELAY_MS = 3.0
DEFAULT_PATH = [
    {"s": 0.6, "left": [100, 200], "right": [120, 220]},
    {"s": 0.5, "left": None, "right": None},
    {"s": 1.0, "left": None, "right": [500, 400]},
]


def _say(text):
    print(f"fake pylink: {text}", file=sys.stderr, flush=True)


def _tracker_ms():
    return time.monotonic() * 1000.0 + TRACKER_CLOCK_OFFSET_MS


def _path():
    return scripted_path(DEFAULT_PATH)


class _EyeData:
    def __init__(self, point):
        self._point = point

    def getGaze(self):
        return (MISSING_DATA, MISSING_DATA) if self._point is None else (float(self._point[0]), float(self._point[1]))


class Sample:
    def __init__(self, time_ms, segment):
        self._time_ms = time_ms
        self._segment = segment

    def getTime(self):
        return self._time_ms

    def isLeftSample(self):
        return "left" in self._segment

    def isRightSample(self):
        return "right" in self._segment

    def getLeftEye(self):
        return _EyeData(self._segment["left"])

    def getRightEye(self):
        return _EyeData(self._segment["right"])


class EyeLink:
    def __init__(self, address="100.1.1.1"):
        _say(f"EyeLink({address})")
        self._path = _path()
        self._started_ms = None

    def setOfflineMode(self):
        _say("setOfflineMode")

    def sendCommand(self, text):
        _say(f"sendCommand {text}")
        return 0

    def startRecording(self, file_samples, file_events, link_samples, link_events):
        _say(f"startRecording({file_samples}, {file_events}, {link_samples}, {link_events})")
        self._started_ms = _tracker_ms()
        return 0

    def stopRecording(self):
        _say("stopRecording")
        self._started_ms = None

    def close(self):
        _say("close")

    def trackerTime(self):
        # Whole milliseconds, as the tracker's clock counts.
        return int(_tracker_ms())

    def getNewestSample(self):
        if self._started_ms is None:
            return None
        # The newest sample that has crossed the link: taken on the 500 Hz grid, LINK_DELAY_MS ago.
        taken_ms = math.floor((_tracker_ms() - LINK_DELAY_MS) / SAMPLE_INTERVAL_MS) * SAMPLE_INTERVAL_MS
        if taken_ms < self._started_ms:
            return None
        elapsed_s = (taken_ms - self._started_ms) / 1000.0
        segment = segment_at(self._path, elapsed_s)
        return Sample(taken_ms, segment)
