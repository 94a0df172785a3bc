#pragma once

#include <string>

namespace fovea {

/// The ZeroMQ TCP endpoint of `host`:`port`, "tcp://127.0.0.1:50070": an IPv6 literal (a host
/// with ':') in brackets, which ZeroMQ needs, as the socket then needs ZMQ_IPV6 (is_ipv6_host).
inline bool is_ipv6_host(const std::string& host) { return host.find(':') != std::string::npos; }

/// "tcp://host:port", an IPv6 literal bracketed.
inline std::string tcp_endpoint(const std::string& host, int port) {
  return "tcp://" + (is_ipv6_host(host) ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace fovea
