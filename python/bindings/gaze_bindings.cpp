// fovea.gaze.StreamSender: the sender's half of fovea's gaze stream (trackers/stream_sender.hpp;
// docs/gaze.md, "Your eye tracker"), which the EyeLink, Tobii and LSL bridges in
// experiments/python/ send with. A clock request releases the GIL while it waits, so a
// tracker's callback thread and the script's own threads go on meanwhile.

#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "trackers/stream_sender.hpp"

namespace py = pybind11;

namespace fovea::python {
namespace {

/// The bound class: the sender and its latest clock synchronisation. Threads: send() and
/// the properties run with the GIL held, which orders them; a clock request releases the GIL
/// while it waits on the network (a tracker's callback thread goes on sending), so the clock's
/// socket has a mutex of its own, and `sync` is written back with the GIL held again.
struct PySender {
  PySender(const std::string& host, int port, double request_timeout_s) : sender(host, port, request_timeout_s) {}
  StreamSender sender;
  std::mutex clock_mutex;  ///< one clock request at a time: ZeroMQ sockets are not thread-safe
  std::optional<StreamClockSync> sync;
};

StreamUnits units_of(const std::string& units) {
  if (units == "px") return StreamUnits::px;
  if (units == "norm") return StreamUnits::norm;
  throw py::value_error("units must be \"px\" or \"norm\", not \"" + units.substr(0, 40) + "\"");
}

}  // namespace

void bind_gaze(py::module_& m) {
  py::class_<StreamClockSync>(m, "StreamClockSync",
                              "One clock synchronisation: fovea's clock minus the sender's local clock.")
      .def_readonly("offset_s", &StreamClockSync::offset_s, "add to a local time to get fovea's time (s)")
      .def_readonly("round_trip_s", &StreamClockSync::round_trip_s,
                    "the shortest round trip measured; the offset is off by at most half of it (s)")
      .def_readonly("answered", &StreamClockSync::answered, "clock requests fovea answered")
      .def("__repr__", [](const StreamClockSync& s) {
        return "StreamClockSync(offset_s=" + std::to_string(s.offset_s) + ", round_trip_s=" +
               std::to_string(s.round_trip_s) + ", answered=" + std::to_string(s.answered) + ")";
      });

  py::class_<PySender>(m, "StreamSender", R"(Sends gaze samples to fovea's gaze stream (gaze.source: stream; docs/gaze.md).

    sender = fovea.gaze.StreamSender(host="127.0.0.1", port=0)   # 0: fovea's default, 50070
    sender.sync_clock(my_tracker_clock)      # offset from your clock to fovea's
    sender.send(sender.fovea_time_of(sample_time), x, y, tracker_t=sample_time)

fovea may start before or after the sender, and restart: the sender reconnects by itself.
send() never waits; a sample that cannot be queued (no fovea listening) is dropped and counted
in `unsent`. One thread sends.)")
      .def(py::init<const std::string&, int, double>(), py::arg("host") = "127.0.0.1", py::arg("port") = 0,
           py::arg("request_timeout_s") = 0.5,
           "Connects in the background to fovea's samples port and its clock at port + 1. ValueError for an "
           "empty host, a port outside 0..65534 or a timeout outside (0, 60].")
      .def(
          "fovea_time",
          [](PySender& s) {
            py::gil_scoped_release release;
            const std::lock_guard lock(s.clock_mutex);
            return s.sender.fovea_time_s();
          },
          "fovea's clock now, by one request (s); NaN when fovea does not answer within the timeout.")
      .def(
          "sync_clock",
          [](PySender& s, const std::function<double()>& clock, int rounds) {
            StreamClockSync sync;
            {
              // The clock is Python's: pybind11 takes the GIL for each call of it.
              py::gil_scoped_release release;
              const std::lock_guard lock(s.clock_mutex);
              sync = s.sender.sync_clock(clock, rounds);
            }
            s.sync = sync;  // with the GIL, as fovea_time_of and offset_s read it
            return sync;
          },
          py::arg("clock"), py::arg("rounds") = 10,
          R"(Measures fovea's clock against `clock` (a callable giving the local clock in seconds:
pylsl.local_clock, time.monotonic, a tracker's time in seconds) over `rounds` requests, keeping
the shortest round trip. Returns a StreamClockSync and keeps it for fovea_time_of. RuntimeError
when fovea answered none. Call it again now and then (every few seconds) to follow drift.)")
      .def_property_readonly(
          "offset_s", [](const PySender& s) { return s.sync ? s.sync->offset_s : std::numeric_limits<double>::quiet_NaN(); },
          "the latest sync_clock's offset, fovea minus local (s); NaN before the first")
      .def(
          "fovea_time_of",
          [](const PySender& s, double local_t) {
            if (!s.sync) throw py::value_error("fovea_time_of needs a clock: call sync_clock first");
            return local_t + s.sync->offset_s;
          },
          py::arg("local_t"), "A time on the clock sync_clock measured, as fovea's time (s).")
      .def(
          "send",
          [](PySender& s, double t, double x, double y, const std::string& units, bool valid, double confidence,
             std::optional<double> tracker_t) {
            StreamMessage message;
            message.time_s = t;
            message.x = x;
            message.y = y;
            message.units = units_of(units);
            message.valid = valid;
            message.confidence = confidence;
            message.tracker_time_s = tracker_t.value_or(std::numeric_limits<double>::quiet_NaN());
            // Never waits: kept under the GIL, which orders it with the other sends and the counters.
            return s.sender.send(message);
          },
          py::arg("t"), py::arg("x"), py::arg("y"), py::kw_only(), py::arg("units") = "px", py::arg("valid") = true,
          py::arg("confidence") = 1.0, py::arg("tracker_t") = py::none(),
          R"(Sends one sample: `t` on fovea's clock (fovea_time_of), the point in pixels from the
screen's top-left corner (units="px") or fractions of the screen (units="norm"), y down.
valid=False for a blink or a lost eye (x, y may then be NaN); confidence in [0, 1]; tracker_t
the tracker's own time stamp, kept in fovea's gaze.csv. True when queued, False when dropped.
fovea checks every sample and drops the malformed ones itself.)")
      .def_property_readonly("sent", [](const PySender& s) { return s.sender.sent(); }, "samples queued so far")
      .def_property_readonly("unsent", [](const PySender& s) { return s.sender.unsent(); },
                             "samples dropped because no fovea was listening or its queue was full")
      .def_property_readonly("endpoint", [](const PySender& s) { return s.sender.samples_endpoint(); },
                             "the samples endpoint, tcp://host:port");
}

}  // namespace fovea::python
