"""A FAKE of Tobii's tobii_research, for fovea's tests only (tests/python/test_gaze_bridges.py).

The real tobii_research is the Tobii Pro SDK for Python (`pip install tobii-research`;
reference at https://developer.tobiipro.com/python.html). It is no Debian package and needs a
tracker, so the tests run experiments/python/tobii_bridge.py against this file, put first on
the path. It has only the calls the bridge makes, behaving as that reference says:

    find_all_eyetrackers() -> tuple of EyeTracker; EyeTracker(address) (.address);
    subscribe_to(EYETRACKER_GAZE_DATA, callback, as_dictionary=True): the callback gets one
    dict per sample, on the SDK's own thread; unsubscribe_from(EYETRACKER_GAZE_DATA, callback);
    get_system_time_stamp() -> the computer's clock as the SDK keeps it, microseconds

A gaze dict has the real keys: left_/right_gaze_point_on_display_area (x, y), top-left origin,
y down, 0..1 on the display area; left_/right_gaze_point_validity (1 valid, 0 invalid, with a
NaN point); system_time_stamp and device_time_stamp, microseconds.

The gaze path is scripted: FOVEA_FAKE_GAZE holds JSON segments [{"s": seconds, "left": [x, y]
or null, "right": [x, y] or null}, ...] from the subscription (null: that eye invalid); the
last segment lasts for ever. The SDK's system clock and the tracker's device clock are both
far from the computer's monotonic clock (the offsets below); samples come at 120 Hz, delivered
DELIVERY_DELAY_US after they were taken. FOVEA_FAKE_TOBII_TRACKERS=0 finds no tracker.
"""

import math
import os
import threading
import time

from fake_gaze_path import scripted_path, segment_at

EYETRACKER_GAZE_DATA = "eyetracker_gaze_data"
SYSTEM_CLOCK_OFFSET_US = 300_000_000      # the SDK's system clock: monotonic + 300 s
DEVICE_CLOCK_OFFSET_US = -42_000_000      # the tracker's own clock: monotonic - 42 s
SAMPLE_INTERVAL_S = 1.0 / 120.0
DELIVERY_DELAY_US = 4000
DEFAULT_PATH = [
    {"s": 0.6, "left": [0.25, 0.5], "right": [0.35, 0.5]},
    {"s": 0.5, "left": None, "right": None},
    {"s": 1.0, "left": [0.75, 0.25], "right": None},
]


def _monotonic_us():
    return int(time.monotonic() * 1e6)


def get_system_time_stamp():
    return _monotonic_us() + SYSTEM_CLOCK_OFFSET_US


def find_all_eyetrackers():
    if os.environ.get("FOVEA_FAKE_TOBII_TRACKERS") == "0":
        return ()
    return (EyeTracker("tet-tcp://169.254.5.15"),)


def _eye(prefix, point):
    valid = point is not None
    x, y = (float(point[0]), float(point[1])) if valid else (math.nan, math.nan)
    nan3 = (math.nan, math.nan, math.nan)
    return {
        f"{prefix}_gaze_point_on_display_area": (x, y),
        f"{prefix}_gaze_point_in_user_coordinate_system": nan3,
        f"{prefix}_gaze_point_validity": int(valid),
        f"{prefix}_pupil_diameter": 3.0 if valid else math.nan,
        f"{prefix}_pupil_validity": int(valid),
        f"{prefix}_gaze_origin_in_user_coordinate_system": nan3,
        f"{prefix}_gaze_origin_in_trackbox_coordinate_system": nan3,
        f"{prefix}_gaze_origin_validity": int(valid),
    }


class EyeTracker:
    def __init__(self, address):
        self.address = address
        self.model = "Fake Tobii"
        self._path = scripted_path(DEFAULT_PATH)
        self._stop = threading.Event()
        self._thread = None

    def subscribe_to(self, subscription_type, callback, as_dictionary=False):
        if subscription_type != EYETRACKER_GAZE_DATA or not as_dictionary:
            raise NotImplementedError("the fake has gaze data as dictionaries only")
        self._stop.clear()
        self._thread = threading.Thread(target=self._deliver, args=(callback,), daemon=True)
        self._thread.start()

    def unsubscribe_from(self, subscription_type, callback=None):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _deliver(self, callback):
        start_us = _monotonic_us()
        k = 0
        while not self._stop.wait(max(0.0, start_us / 1e6 + k * SAMPLE_INTERVAL_S - time.monotonic())):
            taken_us = _monotonic_us() - DELIVERY_DELAY_US
            elapsed_s = (taken_us - start_us) / 1e6
            segment = segment_at(self._path, elapsed_s)
            gaze = dict(_eye("left", segment["left"]), **_eye("right", segment["right"]))
            gaze["system_time_stamp"] = taken_us + SYSTEM_CLOCK_OFFSET_US
            gaze["device_time_stamp"] = taken_us + DEVICE_CLOCK_OFFSET_US
            callback(gaze)
            k += 1
