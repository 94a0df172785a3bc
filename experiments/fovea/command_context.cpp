#include "fovea/command_context.hpp"

#include <CLI/CLI.hpp>

namespace fovea {

CLI::Option* add_set_option(CLI::App& command, std::vector<std::string>& sets, const std::string& help) {
  return command.add_option("--set", sets, help)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::vector<config::Override> set_overrides(const std::vector<std::string>& sets) {
  std::vector<config::Override> overrides;
  for (const std::string& s : sets) overrides.push_back(config::set_override(s));
  return overrides;
}

}  // namespace fovea
