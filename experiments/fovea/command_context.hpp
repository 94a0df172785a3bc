#pragma once

// What main.cpp hands each command when the command registers itself on the command line:
// every command file has a register_<name>_command(CLI::App&, CommandContext&) that adds its
// subcommand, its options and the callback that runs it, so main.cpp only lists them.

#include <string>
#include <vector>

#include "config/config.hpp"
#include "fovea/exit_status.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace fovea {

/// Shared by main.cpp and the commands it registers.
struct CommandContext {
  std::vector<std::string> command_line;  ///< argv as typed: for manifest.json, sweep.json, the fits' JSON
  int exit_status = kExitBadInput;        ///< set by the callback of the command that ran
};

/// Adds the repeatable `--set KEY=VALUE` to `command`, each value kept in `sets` in order.
CLI::Option* add_set_option(CLI::App& command, std::vector<std::string>& sets, const std::string& help);

/// `--set` values as overrides, in order; each is checked when the config is loaded.
std::vector<config::Override> set_overrides(const std::vector<std::string>& sets);

}  // namespace fovea
