"""fovea.gaze: send an eye tracker's samples to fovea (docs/gaze.md, "Your eye tracker").

A run, a disc session or a clip session with `gaze: {source: stream}` listens for samples on
port 50070 (gaze.port) and answers clock requests on the next port. A bridge reads its
tracker's SDK and sends:

    from fovea.gaze import StreamSender
    sender = StreamSender()                       # 127.0.0.1, port 50070
    sender.sync_clock(tracker_clock_s)            # offset from the tracker's clock to fovea's
    sender.send(sender.fovea_time_of(t), x_px, y_px, tracker_t=t)

experiments/python/ has bridges for EyeLink (pylink), Tobii (tobii_research) and any Lab
Streaming Layer outlet (pylsl).
"""

from ._fovea import StreamClockSync, StreamSender  # noqa: F401  (the module's public names)
