// fovea: the command-line entry point. Lists the commands; each one's file registers its
// options with CLI11 and the callback that runs it (register_run_command and its kind).

#include <CLI/CLI.hpp>

#include <csignal>
#include <exception>
#include <iostream>
#include <new>

#include "core/build_info.hpp"
#include "fovea/calibrate_command.hpp"
#include "fovea/experiment_command.hpp"
#include "fovea/fit_command.hpp"
#include "fovea/run_command.hpp"
#include "fovea/sweep_command.hpp"
#include "fovea/tree_command.hpp"

namespace {

int run_main(int argc, char** argv) {
  CLI::App app{"fovea: perceptually scheduled real-time collision handling for animation research.\n"
               "Runs voxel worlds from YAML configs and writes a results folder per run."};
  app.set_version_flag("--version", fovea::build_info().version + " (" + fovea::build_info().git_commit + ")");
  app.require_subcommand(1);
  app.footer("Examples:\n"
             "  fovea run                             the built-in default scene, results in results/\n"
             "  fovea run configs/default.yaml --frames 200 --set world.entities[0].count=500\n"
             "  fovea run --offscreen --frames 300 --capture pictures/   PNG frames, no display needed\n"
             "  fovea validate my_study.yaml          check a config; silent when it is valid\n"
             "  fovea keys                            every config key, its type and default\n"
             "  fovea tree rock --resolution 32       a model's sphere tree: spheres and tightness per depth\n"
             "  fovea experiment configs/experiments/gap_eccentricity.yaml --participant P01 --observer configs/perception/default.yaml\n"
             "                                        a psychophysics session, here with a simulated observer\n"
             "  fovea fit trials.csv -o model.yaml    fit f(e, g) to an experiment's trials, with plots\n"
             "  fovea calibrate configs/experiments/gap_eccentricity.yaml --observer configs/perception/default.yaml\n"
             "                                        the fit's bias and interval coverage over simulated participants\n"
             "  fovea sweep configs/studies/schedulers.yaml --jobs 2\n"
             "                                        a study: runs crossed from factors, one table, figures\n"
             "Documentation: docs/ (config keys: docs/config.md, results: docs/results.md).");

  fovea::CommandContext context;
  for (int i = 0; i < argc; ++i) context.command_line.emplace_back(argv[i]);
  // In the order `fovea --help` lists them; each command file adds its own options.
  fovea::register_run_command(app, context);
  fovea::register_validate_command(app, context);
  fovea::register_keys_command(app, context);
  fovea::register_tree_command(app, context);
  fovea::register_experiment_command(app, context);
  fovea::register_fit_command(app, context);
  fovea::register_calibrate_command(app, context);
  fovea::register_sweep_command(app, context);

  // The command that was given runs inside parse(), from its callback.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : fovea::kExitBadInput;
  }

  return context.exit_status;
}

}  // namespace

// Each command reports its own errors, by file, line and key. What none foresaw still ends
// in one line and a non-zero exit, never in std::terminate's "terminate called ..." and an
// abort: out of memory (a huge allocation a reader let through) and anything else.
int main(int argc, char** argv) {
  // A write past a file size limit (`ulimit -f`) would kill fovea by SIGXFSZ with nothing said,
  // a record cut mid-row and its manifest left "running". Ignored, such a write fails with
  // EFBIG, which the writers report as they report a full disk (ENOSPC): the file named, the
  // system's reason, the manifest "failed" (docs/formats.md). Its children (a sweep's runs)
  // start with it ignored too.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return run_main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "fovea: out of memory; nothing more was done (a file larger than memory, or an absurd size in one?)\n";
  } catch (const std::exception& e) {
    std::cerr << "fovea: " << e.what() << "\n";
  }
  return fovea::kExitFailure;
}
