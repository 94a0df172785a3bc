"""EyeLink to fovea: an SR Research EyeLink's gaze, sent to fovea's gaze stream.

    ./fovea python experiments/python/eyelink_bridge.py --tracker 100.1.1.1 --screen-px 1920 1080

fovea runs beside it with `gaze.source: stream` (docs/gaze.md, "Your eye tracker"), e.g.
`./fovea run configs/default.yaml --set gaze.source=stream`. Start them in either order.

What it does, with pylink (SR Research's EyeLink Developers Kit) calls only:
- connects to the Host PC (`pylink.EyeLink(address)`), tells it the display's size in pixels
  (`screen_pixel_coords`, which must be the size the participant was calibrated at and the
  size of fovea's screen) and asks for gaze over the link;
- starts recording and polls the newest sample (`getNewestSample`), about 2000 times a second;
- sends the gaze in pixels (from the screen's top-left, y down, as EyeLink gives it) of the
  eye chosen with --eye; with both, the average of the eyes that have data, so a sample with
  one eye lost still counts; no eye with data (a blink, a lost pupil: MISSING_DATA) is sent
  as an invalid sample, which makes fovea hold the last fixation, then fall back.

Calibrate with your usual display software first: this script only reads gaze.
Stop it with Ctrl-C, or give --seconds or --samples.
"""

import argparse
import math
import sys
import time

# A tracker's clock and the computer's drift apart by up to 0.2 ms a second: measure the
# offset to fovea's clock again this often.
RESYNC_S = 5.0
# Nothing new from the tracker: wait this long before asking again (EyeLink samples at
# 250 to 2000 Hz, so this adds at most half a millisecond).
IDLE_S = 0.0005


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="docs/gaze.md, \"Your eye tracker\", has the set-up.")
    parser.add_argument("--tracker", default="100.1.1.1", help="the EyeLink Host PC's address (default 100.1.1.1)")
    parser.add_argument("--screen-px", nargs=2, type=int, default=[1920, 1080], metavar=("WIDTH", "HEIGHT"),
                        help="the display's size in pixels, fovea's screen size (default 1920 1080)")
    parser.add_argument("--eye", choices=["left", "right", "both"], default="both",
                        help="whose gaze to send; both: the average of the eyes with data (default)")
    parser.add_argument("--host", default="127.0.0.1", help="the machine fovea runs on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="fovea's gaze.port; 0 for its default, 50070")
    parser.add_argument("--seconds", type=float, help="stop after this long (default: until Ctrl-C)")
    parser.add_argument("--samples", type=int, help="stop after sending this many samples")
    args = parser.parse_args(argv)
    if min(args.screen_px) < 1:
        parser.error("--screen-px must be two positive sizes")
    return args


def gaze_px(sample, eye, missing):
    """The sample's gaze (x_px, y_px) for `eye`, or None when no chosen eye has data."""
    points = []
    if eye in ("left", "both") and sample.isLeftSample():
        points.append(sample.getLeftEye().getGaze())
    if eye in ("right", "both") and sample.isRightSample():
        points.append(sample.getRightEye().getGaze())
    # EyeLink marks a coordinate it has no value for (a blink, a lost pupil) with MISSING_DATA.
    points = [(x, y) for x, y in points if x != missing and y != missing]
    if not points:
        return None
    return (sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points))


def sync(sender, tracker_clock_s, stop_at_s):
    """Measures fovea's clock against the tracker's; waits for fovea to start. False: time ran out."""
    said_waiting = False
    while time.monotonic() < stop_at_s:
        try:
            clock = sender.sync_clock(tracker_clock_s)
            print(f"eyelink_bridge: fovea's clock is {clock.offset_s:+.6f} s from the tracker's "
                  f"(round trip {clock.round_trip_s * 1000:.2f} ms)", file=sys.stderr)
            return True
        except RuntimeError:
            if not said_waiting:
                print(f"eyelink_bridge: waiting for fovea at {sender.endpoint} (gaze.source: stream)", file=sys.stderr)
                said_waiting = True
    return False


def bridge(pylink, sender, args):
    """Reads the tracker until the limits or Ctrl-C; returns the number of samples sent."""
    start_s = time.monotonic()
    stop_at_s = start_s + args.seconds if args.seconds is not None else math.inf
    tracker = pylink.EyeLink(args.tracker)
    recording = False
    try:
        # The tracker takes settings in offline (idle) mode.
        tracker.setOfflineMode()
        width_px, height_px = args.screen_px
        # The display's corners, left top right bottom: gaze comes back in these pixels.
        tracker.sendCommand(f"screen_pixel_coords = 0 0 {width_px - 1} {height_px - 1}")
        tracker.sendCommand("link_sample_data = LEFT,RIGHT,GAZE,GAZERES,AREA,STATUS")

        # The clock mapping: a sample's time (getTime) is the tracker's clock in ms, and
        # trackerTime() is the display computer's running estimate of that clock, read
        # without a request over the link. So the offset is measured straight from the
        # tracker's clock to fovea's, and each sample's own time stamp maps onto fovea's
        # clock: no guess of the link's delay is needed, and the delay shows as the sample's
        # age in fovea.
        def tracker_clock_s():
            return tracker.trackerTime() / 1000.0

        if not sync(sender, tracker_clock_s, stop_at_s):
            return 0
        synced_s = time.monotonic()

        # Samples and events to the tracker's file and over the link.
        if tracker.startRecording(1, 1, 1, 1) != 0:
            raise RuntimeError("the tracker did not start recording")
        recording = True
        sent = 0
        last_sample_ms = None
        last_t_s = -math.inf
        while time.monotonic() < stop_at_s and (args.samples is None or sent < args.samples):
            if time.monotonic() - synced_s >= RESYNC_S:
                try:
                    sender.sync_clock(tracker_clock_s)
                except RuntimeError:
                    pass  # fovea stopped or restarted: keep the last offset, fovea drops what it cannot use
                synced_s = time.monotonic()
            sample = tracker.getNewestSample()
            # getNewestSample gives the newest sample again until a newer one arrives.
            if sample is None or sample.getTime() == last_sample_ms:
                time.sleep(IDLE_S)
                continue
            last_sample_ms = sample.getTime()
            # A re-sync may move the offset back by a fraction of a millisecond; fovea drops a
            # sample earlier than the one before it, so the times are kept from going back.
            t_s = max(sender.fovea_time_of(last_sample_ms / 1000.0), last_t_s)
            last_t_s = t_s
            point = gaze_px(sample, args.eye, pylink.MISSING_DATA)
            if point is None:
                sender.send(t_s, math.nan, math.nan, valid=False, tracker_t=last_sample_ms / 1000.0)
            else:
                sender.send(t_s, point[0], point[1], units="px", tracker_t=last_sample_ms / 1000.0)
            sent += 1
        return sent
    finally:
        if recording:
            tracker.stopRecording()
        tracker.close()


def main(argv=None):
    args = parse_args(argv)
    try:
        import pylink
    except ImportError:
        sys.exit("eyelink_bridge: pylink is not installed; it comes with SR Research's EyeLink Developers Kit")
    try:
        from fovea.gaze import StreamSender
    except ImportError:
        sys.exit("eyelink_bridge: fovea's Python module is not on the path; run with ./fovea python")
    sender = StreamSender(host=args.host, port=args.port)
    try:
        bridge(pylink, sender, args)
    except KeyboardInterrupt:
        pass
    except RuntimeError as e:  # pylink's errors: no Host PC at that address, a refused command
        sys.exit(f"eyelink_bridge: {e}")
    print(f"eyelink_bridge: stopped; {sender.sent} samples sent, {sender.unsent} unsent (no fovea listening)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
