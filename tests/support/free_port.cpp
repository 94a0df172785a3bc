#include "support/free_port.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>

namespace fovea::test {
namespace {

/// Binds a TCP socket on 127.0.0.1:`port` (0: the kernel chooses); the port bound, or -1.
/// The socket is closed again before returning.
int try_bind(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int bound = -1;
  socklen_t size = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0)
    bound = ntohs(address.sin_port);
  ::close(fd);
  return bound;
}

}  // namespace

int free_port_pair() {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int port = try_bind(0);
    if (port > 0 && port < 65535 && try_bind(port + 1) == port + 1) return port;
  }
  throw std::runtime_error("free_port_pair: no two free consecutive ports on 127.0.0.1 in 100 tries");
}

}  // namespace fovea::test
