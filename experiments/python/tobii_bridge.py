"""Tobii to fovea: a Tobii Pro eye tracker's gaze, sent to fovea's gaze stream.

    ./fovea python experiments/python/tobii_bridge.py [--address tet-tcp://169.254.5.15]

fovea runs beside it with `gaze.source: stream` (docs/gaze.md, "Your eye tracker"), e.g.
`./fovea run configs/default.yaml --set gaze.source=stream`. Start them in either order.

What it does, with tobii_research (the Tobii Pro SDK, `pip install tobii-research`) calls only:
- takes the first eye tracker found (`find_all_eyetrackers`), or the one at --address;
- subscribes to its gaze data as dictionaries; the SDK calls back on its own thread, which
  only queues each sample: this script's main thread sends them, as fovea's sender wants one
  sending thread;
- sends the gaze point on the display area, in fractions of the screen from its top-left
  corner, y down (units "norm", Tobii's active display area coordinates): the average of the
  eyes whose gaze point is valid; no valid eye (a blink, a lost eye) is sent as an invalid
  sample, which makes fovea hold the last fixation, then fall back.

The tracker's display area (set in Tobii Pro Eye Tracker Manager) must be the screen fovea
draws on, full screen. Calibrate there too: this script only reads gaze.
Stop it with Ctrl-C, or give --seconds or --samples.
"""

import argparse
import math
import queue
import sys
import time

# The computer's clock that stamps Tobii's samples and fovea's may drift: measure the offset
# between them again this often.
RESYNC_S = 5.0
# How long the main thread waits for a sample before it looks at the clock and the limits.
POLL_S = 0.05


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="docs/gaze.md, \"Your eye tracker\", has the set-up.")
    parser.add_argument("--address", help="the eye tracker's address (tet-tcp://...); default: the first one found")
    parser.add_argument("--host", default="127.0.0.1", help="the machine fovea runs on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="fovea's gaze.port; 0 for its default, 50070")
    parser.add_argument("--seconds", type=float, help="stop after this long (default: until Ctrl-C)")
    parser.add_argument("--samples", type=int, help="stop after sending this many samples")
    return parser.parse_args(argv)


def gaze_norm(gaze):
    """The average valid gaze point of a gaze-data dictionary, (x, y) in display-area fractions, or None."""
    points = []
    for eye in ("left", "right"):
        x, y = gaze[f"{eye}_gaze_point_on_display_area"]
        # Validity is 1 for valid, 0 for invalid; an invalid eye's point is NaN.
        if gaze[f"{eye}_gaze_point_validity"] and math.isfinite(x) and math.isfinite(y):
            points.append((x, y))
    if not points:
        return None
    return (sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points))


def sync(sender, clock_s, stop_at_s):
    """Measures fovea's clock against `clock_s`; waits for fovea to start. False: time ran out."""
    said_waiting = False
    while time.monotonic() < stop_at_s:
        try:
            clock = sender.sync_clock(clock_s)
            print(f"tobii_bridge: fovea's clock is {clock.offset_s:+.6f} s from Tobii's system clock "
                  f"(round trip {clock.round_trip_s * 1000:.2f} ms)", file=sys.stderr)
            return True
        except RuntimeError:
            if not said_waiting:
                print(f"tobii_bridge: waiting for fovea at {sender.endpoint} (gaze.source: stream)", file=sys.stderr)
                said_waiting = True
    return False


def bridge(tr, sender, args):
    """Reads the tracker until the limits or Ctrl-C; returns the number of samples sent."""
    stop_at_s = time.monotonic() + args.seconds if args.seconds is not None else math.inf
    if args.address:
        tracker = tr.EyeTracker(args.address)
    else:
        found = tr.find_all_eyetrackers()
        if not found:
            raise RuntimeError("no Tobii eye tracker found (is it connected, and seen by Eye Tracker Manager?)")
        tracker = found[0]
    print(f"tobii_bridge: eye tracker {tracker.address}", file=sys.stderr)

    # The clock mapping: system_time_stamp is the sample's time on this computer's clock as
    # the SDK keeps it (microseconds; the SDK maps the tracker's own clock onto it, drift
    # included), and get_system_time_stamp() reads that clock now. So the offset is measured
    # from that clock to fovea's, and each sample's system_time_stamp maps onto fovea's
    # clock. device_time_stamp, the tracker's own clock, goes along as tracker_t for the record.
    def system_clock_s():
        return tr.get_system_time_stamp() / 1e6

    if not sync(sender, system_clock_s, stop_at_s):
        return 0
    synced_s = time.monotonic()

    samples = queue.Queue()
    on_gaze = samples.put  # the SDK's thread only queues
    tracker.subscribe_to(tr.EYETRACKER_GAZE_DATA, on_gaze, as_dictionary=True)
    try:
        sent = 0
        last_t_s = -math.inf
        while time.monotonic() < stop_at_s and (args.samples is None or sent < args.samples):
            if time.monotonic() - synced_s >= RESYNC_S:
                try:
                    sender.sync_clock(system_clock_s)
                except RuntimeError:
                    pass  # fovea stopped or restarted: keep the last offset, fovea drops what it cannot use
                synced_s = time.monotonic()
            try:
                gaze = samples.get(timeout=POLL_S)
            except queue.Empty:
                continue
            # A re-sync may move the offset back by a fraction of a millisecond; fovea drops a
            # sample earlier than the one before it, so the times are kept from going back.
            t_s = max(sender.fovea_time_of(gaze["system_time_stamp"] / 1e6), last_t_s)
            last_t_s = t_s
            tracker_t_s = gaze["device_time_stamp"] / 1e6
            point = gaze_norm(gaze)
            if point is None:
                sender.send(t_s, math.nan, math.nan, valid=False, tracker_t=tracker_t_s)
            else:
                sender.send(t_s, point[0], point[1], units="norm", tracker_t=tracker_t_s)
            sent += 1
        return sent
    finally:
        tracker.unsubscribe_from(tr.EYETRACKER_GAZE_DATA, on_gaze)


def main(argv=None):
    args = parse_args(argv)
    try:
        import tobii_research
    except ImportError:
        sys.exit("tobii_bridge: tobii_research is not installed (pip install tobii-research)")
    try:
        from fovea.gaze import StreamSender
    except ImportError:
        sys.exit("tobii_bridge: fovea's Python module is not on the path; run with ./fovea python")
    sender = StreamSender(host=args.host, port=args.port)
    try:
        bridge(tobii_research, sender, args)
    except KeyboardInterrupt:
        pass
    except RuntimeError as e:  # no tracker found
        sys.exit(f"tobii_bridge: {e}")
    print(f"tobii_bridge: stopped; {sender.sent} samples sent, {sender.unsent} unsent (no fovea listening)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
