"""The scripted gaze path the fake SDKs play (a fake for tests, not an SDK): FOVEA_FAKE_GAZE
holds a JSON list of segments, each lasting "s" seconds, the last held for ever; each fake
reads its own fields ("sample", "left", "right", ...) from the segment in force."""

import json
import os


def segment_at(path, elapsed_s):
    """The segment of `path` in force `elapsed_s` seconds after the path started."""
    for segment in path:
        if elapsed_s < segment["s"]:
            return segment
        elapsed_s -= segment["s"]
    return path[-1]


def scripted_path(default):
    """The path FOVEA_FAKE_GAZE holds, or `default` when it is not set."""
    return json.loads(os.environ["FOVEA_FAKE_GAZE"]) if "FOVEA_FAKE_GAZE" in os.environ else default
