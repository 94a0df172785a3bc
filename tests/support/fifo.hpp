#pragma once

// FIFOs for the tests of readers that must never wait on one (issue 42): a reader given a
// FIFO with no writer, or a path swapped to one between a check and an open, blocked for ever.
// The guard here turns such a regression into a failed test instead of a hung one.

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace fovea::test {

/// Makes a FIFO at `path` (mkfifo, mode 0644); REQUIREs that it was made.
void make_fifo(const std::filesystem::path& path);

/// Runs `read` on a thread of its own and waits at most `limit` for it to return. Its result:
/// the what() of the exception it threw, or "accepted" when it returned. nullopt when it was
/// still waiting at the limit: it is then released, so the test fails rather than hangs, by
/// opening the FIFO at `fifo` for writing and for reading, without blocking, again and again
/// until `read` has returned (a reader waiting in open() wakes when a writer opens, a writer
/// when a reader does).
std::optional<std::string> returns_within(const std::function<void()>& read, const std::filesystem::path& fifo,
                                          std::chrono::milliseconds limit = std::chrono::seconds(10));

}  // namespace fovea::test
