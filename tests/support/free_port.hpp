#pragma once

namespace fovea::test {

/// A TCP port on 127.0.0.1 that nothing listens on now, with the port after it free too (a
/// gaze stream's clock; trackers/stream_gaze.hpp): the kernel's choice of an ephemeral port,
/// checked by binding both. Another process may take them before the caller binds them; the
/// tests accept that small race, as every test that listens must. Throws when none is found
/// in 100 tries.
int free_port_pair();

}  // namespace fovea::test
