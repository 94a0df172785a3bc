"""LSL to fovea: a Lab Streaming Layer gaze stream, sent to fovea's gaze stream.

    ./fovea python experiments/python/lsl_bridge.py --type Gaze --x-channel 0 --y-channel 1 --units px

fovea runs beside it with `gaze.source: stream` (docs/gaze.md, "Your eye tracker"), e.g.
`./fovea run configs/default.yaml --set gaze.source=stream`. Start them in either order.

Any tracker whose software has an LSL outlet (many do, or a relay does) works through this,
with pylsl (`pip install pylsl`) calls only:
- finds the stream by type (default "Gaze") or by --name (`resolve_byprop`) and opens it;
- pulls each sample and sends the two channels --x-channel and --y-channel as the point, in
  pixels from the screen's top-left corner (--units px) or fractions of the screen
  (--units norm), y down; --y-up for an outlet whose y grows upwards (norm only). A sample
  whose x or y is not a number (NaN, as outlets mark a blink or a lost eye) is sent as an
  invalid sample, which makes fovea hold the last fixation, then fall back.

Look at the outlet's channel list (its documentation, or LabRecorder) for the channels and
units. Stop it with Ctrl-C, or give --seconds or --samples.
"""

import argparse
import math
import sys
import time

# The outlet's clock and this computer's drift apart: ask LSL for the offset between them,
# and measure fovea's, again this often.
RESYNC_S = 5.0
# The longest a pull waits for a sample before the loop looks at the clock and the limits;
# a sample that arrives ends the wait at once.
PULL_TIMEOUT_S = 0.05
# The first time correction takes LSL a few milliseconds; an outlet that does not answer in
# this long is gone.
CORRECTION_TIMEOUT_S = 5.0


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="docs/gaze.md, \"Your eye tracker\", has the set-up.")
    parser.add_argument("--type", default="Gaze", help="the stream's type to look for (default Gaze)")
    parser.add_argument("--name", help="look for the stream by this name instead of by type")
    parser.add_argument("--x-channel", type=int, default=0, help="the channel with x (default 0)")
    parser.add_argument("--y-channel", type=int, default=1, help="the channel with y (default 1)")
    parser.add_argument("--units", choices=["px", "norm"], default="px",
                        help="px: pixels from the screen's top-left (default); norm: fractions of the screen")
    parser.add_argument("--y-up", action="store_true", help="the outlet's y grows upwards (norm only): use 1 - y")
    parser.add_argument("--resolve-timeout", type=float, default=10.0,
                        help="how long to look for the stream, seconds (default 10)")
    parser.add_argument("--host", default="127.0.0.1", help="the machine fovea runs on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="fovea's gaze.port; 0 for its default, 50070")
    parser.add_argument("--seconds", type=float, help="stop after this long (default: until Ctrl-C)")
    parser.add_argument("--samples", type=int, help="stop after sending this many samples")
    args = parser.parse_args(argv)
    if args.y_up and args.units != "norm":
        parser.error("--y-up needs --units norm (flipping pixels needs the outlet's screen height)")
    if min(args.x_channel, args.y_channel) < 0:
        parser.error("channels are numbered from 0")
    return args


def sync(sender, clock_s, stop_at_s):
    """Measures fovea's clock against `clock_s`; waits for fovea to start. False: time ran out."""
    said_waiting = False
    while time.monotonic() < stop_at_s:
        try:
            clock = sender.sync_clock(clock_s)
            print(f"lsl_bridge: fovea's clock is {clock.offset_s:+.6f} s from LSL's local clock "
                  f"(round trip {clock.round_trip_s * 1000:.2f} ms)", file=sys.stderr)
            return True
        except RuntimeError:
            if not said_waiting:
                print(f"lsl_bridge: waiting for fovea at {sender.endpoint} (gaze.source: stream)", file=sys.stderr)
                said_waiting = True
    return False


def bridge(pylsl, sender, args):
    """Reads the stream until the limits or Ctrl-C; returns the number of samples sent."""
    stop_at_s = time.monotonic() + args.seconds if args.seconds is not None else math.inf
    prop, value = ("name", args.name) if args.name else ("type", args.type)
    found = pylsl.resolve_byprop(prop, value, timeout=args.resolve_timeout)
    if not found:
        raise RuntimeError(f"no LSL stream with {prop} {value!r} found in {args.resolve_timeout:g} s")
    info = found[0]
    if max(args.x_channel, args.y_channel) >= info.channel_count():
        raise RuntimeError(f"stream {info.name()!r} has {info.channel_count()} channels, "
                           f"no channel {max(args.x_channel, args.y_channel)}")
    inlet = pylsl.StreamInlet(info)
    print(f"lsl_bridge: stream {info.name()!r} ({info.type()}, {info.channel_count()} channels)", file=sys.stderr)

    # The clock mapping: a sample's time stamp is on the outlet machine's LSL clock;
    # adding the inlet's time_correction() puts it on this computer's LSL clock,
    # pylsl.local_clock(). The offset is measured from local_clock to fovea's clock, so each
    # sample's corrected time stamp maps onto fovea's clock. The raw stamp goes along as
    # tracker_t for the record.
    if not sync(sender, pylsl.local_clock, stop_at_s):
        return 0
    correction_s = inlet.time_correction(timeout=CORRECTION_TIMEOUT_S)
    synced_s = time.monotonic()

    sent = 0
    last_t_s = -math.inf
    while time.monotonic() < stop_at_s and (args.samples is None or sent < args.samples):
        if time.monotonic() - synced_s >= RESYNC_S:
            # Instant after the first: LSL keeps it up to date in the background.
            correction_s = inlet.time_correction(timeout=CORRECTION_TIMEOUT_S)
            try:
                sender.sync_clock(pylsl.local_clock)
            except RuntimeError:
                pass  # fovea stopped or restarted: keep the last offset, fovea drops what it cannot use
            synced_s = time.monotonic()
        sample, stamp_s = inlet.pull_sample(timeout=PULL_TIMEOUT_S)
        if sample is None:
            continue
        # A re-sync may move the offset back by a fraction of a millisecond; fovea drops a
        # sample earlier than the one before it, so the times are kept from going back.
        t_s = max(sender.fovea_time_of(stamp_s + correction_s), last_t_s)
        last_t_s = t_s
        x, y = float(sample[args.x_channel]), float(sample[args.y_channel])
        if args.y_up:
            y = 1.0 - y
        if math.isfinite(x) and math.isfinite(y):
            sender.send(t_s, x, y, units=args.units, tracker_t=stamp_s)
        else:
            sender.send(t_s, math.nan, math.nan, valid=False, tracker_t=stamp_s)
        sent += 1
    return sent


def main(argv=None):
    args = parse_args(argv)
    try:
        import pylsl
    except ImportError:
        sys.exit("lsl_bridge: pylsl is not installed (pip install pylsl)")
    try:
        from fovea.gaze import StreamSender
    except ImportError:
        sys.exit("lsl_bridge: fovea's Python module is not on the path; run with ./fovea python")
    sender = StreamSender(host=args.host, port=args.port)
    try:
        bridge(pylsl, sender, args)
    except KeyboardInterrupt:
        pass
    except RuntimeError as e:  # no stream, too few channels; pylsl's lost-stream errors are RuntimeErrors too
        sys.exit(f"lsl_bridge: {e}")
    print(f"lsl_bridge: stopped; {sender.sent} samples sent, {sender.unsent} unsent (no fovea listening)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
