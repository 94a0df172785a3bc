// fovea: the command-line entry point. Parses the command line with CLI11 and hands plain
// options to the commands in run_command.cpp, tree_command.cpp and fit_command.cpp.

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <map>
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

  fovea::RunOptions run_options;
  for (int i = 0; i < argc; ++i) run_options.command_line.emplace_back(argv[i]);
  CLI::App* run = app.add_subcommand(
      "run", "Run a scene and write results/<name>-<UTC time>/; in a window when a display is present (docs/render.md)");
  std::string config_path;
  std::string frames;  // checked by the config, as `frames`
  std::string out;
  run->add_option("config", config_path, "YAML config (default: the built-in configs/default.yaml)");
  CLI::Option* frames_option =
      run->add_option("--frames", frames, "frames to run, overriding the config's `frames` (same checks)");
  run->add_option("--out", out, "write the results here instead (a new or empty folder)");
  std::vector<std::string> run_sets;
  run->add_option("--set", run_sets, "override a config key, e.g. --set world.entities[0].count=500 (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  run->add_flag("--quiet,-q", run_options.quiet, "no progress line and no closing summary on stderr");
  run->add_flag("--explain-frame", run_options.explain_frame,
                "print the stages a frame of this config runs, in order (what each reads and writes, its time "
                "column, its threads), and run nothing");
  bool headless = false, offscreen = false;
  CLI::Option* headless_flag =
      run->add_flag("--headless", headless, "draw nothing (the default when no display is present)");
  run->add_flag("--offscreen", offscreen,
                "draw into an offscreen context, no display needed (Mesa's EGL): the same pictures as a window")
      ->excludes(headless_flag);
  std::string capture_dir;
  CLI::Option* capture_option = run->add_option("--capture", capture_dir,
                  "write a PNG of every drawn frame (see --capture-every) into this folder, frame_000000.png ...; "
                  "draws offscreen when there is no display");
  run->add_option("--capture-every", run_options.capture_every, "with --capture: every N-th frame only (default 1)")
      ->needs(capture_option)
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));

  CLI::App* validate = app.add_subcommand("validate", "Check a config; print nothing and exit 0 when it is valid");
  std::string validate_path;
  std::vector<std::string> validate_sets;
  validate->add_option("config", validate_path, "YAML config to check")->required();
  validate->add_option("--set", validate_sets, "override a config key before checking (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  CLI::App* keys = app.add_subcommand("keys", "List every config key with its type, default and meaning");
  bool experiment_keys = false;
  keys->add_flag("--experiment", experiment_keys, "the keys of an experiment spec instead (docs/psychophysics.md)");

  fovea::TreeOptions tree_options;
  CLI::App* tree = app.add_subcommand(
      "tree", "Build a model's sphere tree; print per depth its spheres and tightness, and the build time");
  tree->add_option("model", tree_options.model,
                   "a built-in shape (ball, box, rock, l_shape, humanoid), a .vox file, or a config (.yaml) "
                   "with --group and --variant")
      ->required();
  tree->add_option("--group", tree_options.group, "with a config: the entity group, from 0 (default 0)")
      ->check(CLI::NonNegativeNumber);
  tree->add_option("--variant", tree_options.variant, "with a config: the group's model variant, from 0 (default 0)")
      ->check(CLI::NonNegativeNumber);
  tree->add_option("--builder", tree_options.builder,
                   "octree (004's), medial (spheres on the medial axis) or tightest (both, the tighter kept) "
                   "(default octree)")
      ->check(CLI::IsMember({"octree", "medial", "tightest"}));
  tree->add_option("--levels", tree_options.levels, "levels of spheres below the root (default 4)")
      ->check(CLI::Range(0, 16));
  tree->add_option("--fit", tree_options.fit,
                   "octree spheres: cell (004's, around the occupied box of each cell) or voxels (the smallest "
                   "around the voxels each node covers) (default cell)")
      ->check(CLI::IsMember({"cell", "voxels"}));
  tree->add_option("--branching", tree_options.branching, "most children per node of a medial tree, 2 to 8 (default 8)")
      ->check(CLI::Range(2, 8));
  tree->add_option("--resolution", tree_options.resolution_voxels, "voxels along the longest side, built-in shapes (default 32)")
      ->check(CLI::Range(1, 256));
  tree->add_option("--size", tree_options.size_m, "length of the longest side in metres (default 1)")
      ->check(CLI::Range(1e-6, 1e6));
  tree->add_option("--seed", tree_options.seed, "seed of a rock's shape (default 1)")->check(CLI::NonNegativeNumber);
  tree->add_option("--model-index", tree_options.model_index, "which model of a .vox file holding several (default 0)")
      ->check(CLI::NonNegativeNumber);
  tree->add_flag("--keep-hidden", tree_options.keep_hidden,
                 "keep nodes hidden on all six sides (004 removes them; a config says it per group)");
  tree->add_option("--export-obj", tree_options.export_obj, "write the model's surface as a Wavefront .obj");
  tree->add_option("--export-sph", tree_options.export_sph, "write the tree as a Sphere-Tree Construction Toolkit .sph");
  tree->add_option("--export-vox", tree_options.export_vox, "write the model as a MagicaVoxel .vox");
  tree->add_flag("--csv", tree_options.csv, "print the per-depth table as CSV only");

  fovea::ExperimentOptions experiment_options;
  CLI::App* experiment = app.add_subcommand(
      "experiment", "Run or resume a participant's session of a psychophysics experiment (docs/psychophysics.md)");
  experiment->add_option("spec", experiment_options.spec_path, "the experiment spec, configs/experiments/*.yaml")->required();
  experiment->add_option("--participant", experiment_options.participant,
                         "the participant's id (letters, digits, - _ .): their folder and every trials.csv row")
      ->required();
  experiment->add_flag("--resume", experiment_options.resume,
                       "continue the participant's session at the next trial, with the same randomisation");
  std::string experiment_out;
  experiment->add_option("--out", experiment_out,
                         "the participant's folder (default results/experiments/<name>/<participant>/)");
  std::string observer;
  experiment->add_option("--observer", observer,
                         "a perception-model YAML (configs/perception/default.yaml): a simulated observer answers "
                         "each trial with its f(e, g), so the session runs without a person or a display; without "
                         "it a person watches the window and answers with the task's keys");
  experiment->add_option("--observer-pace-ms", experiment_options.observer_pace_ms,
                         "with --observer: each trial takes this long, as a person's would (default 0)")
      ->check(CLI::Range(0.0, 600000.0));
  std::string experiment_capture;
  experiment->add_option("--capture", experiment_capture,
                         "with --observer: draw each trial offscreen at its collision into this folder, trial_NNNNNN.png");
  std::string synthetic_keys;
  experiment->add_option("--synthetic-keys", synthetic_keys,
                         "a person's session drawn offscreen, its keys pushed into SDL's event queue from this script "
                         "when the session waits on each screen: comma-separated SCREEN:KEY, SCREEN one of "
                         "instructions, break, blank, stimulus, answer (e.g. instructions:Space,answer:y,answer:Escape); "
                         "for tests and pilots, with display.development_run: true");
  std::vector<std::string> experiment_sets;
  experiment->add_option("--set", experiment_sets, "override a spec key, e.g. --set constant_stimuli.repetitions=5 (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  experiment->add_flag("--quiet,-q", experiment_options.quiet, "no progress line and no closing summary on stderr");
  fovea::FitOptions fit_options;
  fit_options.command_line = run_options.command_line;
  CLI::App* fit = app.add_subcommand(
      "fit", "Fit the perception model f(e, g) to experiments' trials.csv, per participant and pooled; "
             "write the model file, the fits and plots");
  fit->add_option("trials", fit_options.trials_files, "trials.csv files (one or more; sessions of one or more participants)")
      ->required();
  fit->add_option("-o,--output", fit_options.model_path,
                  "the model file to write (the pooled fit, as perception.model.file reads it); "
                  "<stem>_fit.json and <stem>_conditions.csv go beside it")
      ->required();
  std::string fit_function = "logistic";
  fit->add_option("--function", fit_function, "the sigmoid F: logistic or weibull (default logistic)")
      ->check(CLI::IsMember({"logistic", "weibull"}));
  fit->add_option("--bootstrap", fit_options.bootstrap_samples,
                  "parametric-bootstrap refits per fit, for the intervals and the deviance p (default 200; 0: none)")
      ->check(CLI::Range(0, 100000));
  fit->add_option("--seed", fit_options.seed, "seed of the bootstrap (default 1)")->check(CLI::NonNegativeNumber);
  CLI::Option* max_lapse = fit->add_option("--max-lapse", fit_options.max_lapse_rate,
                                           "upper bound of the lapse rate lambda (default 0.06)")
                               ->check(CLI::Range(0.0, 0.5));
  bool no_lapse = false;
  fit->add_flag("--no-lapse", no_lapse, "hold the lapse rate at 0 (3 free parameters)")->excludes(max_lapse);
  const std::map<std::string, fovea::GuessRateMethod> guess_methods = {
      {"fitted", fovea::GuessRateMethod::fitted}, {"catch_trials", fovea::GuessRateMethod::catch_trials}};
  const std::map<std::string, fovea::IntervalMethod> interval_methods = {
      {"percentile", fovea::IntervalMethod::percentile},
      {"bias_corrected", fovea::IntervalMethod::bias_corrected},
      {"basic", fovea::IntervalMethod::basic}};
  const char* const guess_help =
      "the guess rate: fitted (with the others, by maximum likelihood; can be 0) or catch_trials ((yes + 0.5) / (n + "
      "1) of the catch trials, held fixed) (default fitted)";
  const char* const interval_help =
      "the bootstrap interval: percentile, bias_corrected or basic (reflected on the log for T0, E2 and width; "
      "percentile for the rates) (default basic)";
  fit->add_option("--guess", fit_options.guess_rate, guess_help)->transform(CLI::CheckedTransformer(guess_methods).description(""))->type_name("fitted|catch_trials");
  fit->add_option("--interval", fit_options.interval, interval_help)
      ->transform(CLI::CheckedTransformer(interval_methods).description(""))->type_name("percentile|bias_corrected|basic");
  const std::map<std::string, fovea::BiasCorrection> bias_corrections = {
      {"none", fovea::BiasCorrection::none}, {"mean", fovea::BiasCorrection::mean}, {"median", fovea::BiasCorrection::median}};
  const char* const bias_help =
      "correct the estimates' small-sample bias from the bootstrap: none (maximum likelihood), mean, or median "
      "(median-unbiased, the bias-corrected interval's centre) (default median)";
  fit->add_option("--bias-correction", fit_options.bias_correction, bias_help)
      ->transform(CLI::CheckedTransformer(bias_corrections).description(""))->type_name("none|mean|median");
  std::string plots_dir;
  CLI::Option* plots_option =
      fit->add_option("--plots", plots_dir, "write the PNG plots into this folder (default: beside the model file)");
  bool no_plots = false;
  fit->add_flag("--no-plots", no_plots, "draw no plots")->excludes(plots_option);

  fovea::CalibrateOptions calibrate_options;
  calibrate_options.command_line = run_options.command_line;
  CLI::App* calibrate = app.add_subcommand(
      "calibrate", "Calibrate `fovea fit` on an experiment's design: simulated participants answer as a known model, "
                   "are fitted as fovea fit fits, and the estimates' bias and the intervals' coverage are reported "
                   "(docs/psychophysics.md#calibration)");
  calibrate->add_option("spec", calibrate_options.spec_path, "the experiment spec, configs/experiments/*.yaml")->required();
  calibrate->add_option("--observer", calibrate_options.observer, "the true perception model every participant answers with")
      ->required();
  calibrate->add_option("--participants", calibrate_options.participants, "simulated participants (default 200)")
      ->check(CLI::Range(1, 1000000));
  calibrate->add_option("--threads", calibrate_options.threads, "threads, the participants spread over them "
                                                                "(default 0: the machine's cores); the results do not depend on it")
      ->check(CLI::Range(0, 1024));
  calibrate->add_option("--seed", calibrate_options.seed,
                        "seed of the participants' designs, answers and bootstraps (default 1)")
      ->check(CLI::NonNegativeNumber);
  std::vector<std::string> calibrate_sets;
  calibrate->add_option("--set", calibrate_sets,
                        "override a spec key, e.g. --set constant_stimuli.repetitions=10 (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  calibrate->add_option("-o,--out", calibrate_options.out,
                        "the folder for calibration.csv, calibration_summary.csv and calibration.json "
                        "(default results/calibration/<name>/)");
  std::string calibrate_function = "logistic";
  calibrate->add_option("--function", calibrate_function, "the sigmoid F fitted: logistic or weibull (default logistic)")
      ->check(CLI::IsMember({"logistic", "weibull"}));
  calibrate->add_option("--bootstrap", calibrate_options.fit.bootstrap_samples,
                        "bootstrap refits per participant's fit, as fovea fit --bootstrap (default 200; 0: no intervals)")
      ->check(CLI::Range(0, 100000));
  CLI::Option* calibrate_max_lapse = calibrate->add_option("--max-lapse", calibrate_options.fit.max_lapse_rate,
                                                           "upper bound of the fitted lapse rate (default 0.06)")
                                         ->check(CLI::Range(0.0, 0.5));
  bool calibrate_no_lapse = false;
  calibrate->add_flag("--no-lapse", calibrate_no_lapse, "fit with the lapse rate held at 0")->excludes(calibrate_max_lapse);
  calibrate->add_option("--guess", calibrate_options.fit.guess_rate, guess_help)
      ->transform(CLI::CheckedTransformer(guess_methods).description(""))->type_name("fitted|catch_trials");
  calibrate->add_option("--interval", calibrate_options.fit.interval, interval_help)
      ->transform(CLI::CheckedTransformer(interval_methods).description(""))->type_name("percentile|bias_corrected|basic");
  calibrate->add_option("--bias-correction", calibrate_options.fit.bias_correction, bias_help)
      ->transform(CLI::CheckedTransformer(bias_corrections).description(""))->type_name("none|mean|median");
  calibrate->add_flag("--quiet,-q", calibrate_options.quiet, "no progress line");

  fovea::SweepOptions sweep_options;
  sweep_options.command_line = run_options.command_line;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run a study: a base config with factors crossed into runs, run in parallel; one tidy table "
               "(table.csv) and the study's figures (docs/studies.md)");
  sweep->require_subcommand(0, 1);
  sweep->add_option("study", sweep_options.study_path, "the study file, e.g. configs/studies/schedulers.yaml");
  std::string sweep_out;
  sweep->add_option("--out", sweep_out,
                    "the sweep's folder (default results/studies/<name>/, or .../shard-<i>-of-<n>/ for a shard); "
                    "run the same command again to resume it");
  sweep->add_option("--jobs,-j", sweep_options.jobs,
                    "runs at a time (default: SLURM_CPUS_PER_TASK under Slurm, else the machine's cores); "
                    "runs under a wall-clock budget always run alone")
      ->check(CLI::Range(1, 4096));
  std::string sweep_shard;
  sweep->add_option("--shard", sweep_shard,
                    "run only the runs i, i+n, i+2n, ... (i from 0); default: Slurm's SLURM_ARRAY_TASK_ID of "
                    "SLURM_ARRAY_TASK_COUNT when set, else every run");
  std::vector<std::string> sweep_sets;
  sweep->add_option("--set", sweep_sets, "override a config key in every run, e.g. --set frames=20 (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  bool sweep_no_figures = false;
  sweep->add_flag("--no-figures", sweep_no_figures, "write the table only");
  sweep->add_flag("--quiet,-q", sweep_options.quiet, "no progress and no closing summary on stderr");
  fovea::SweepMergeOptions merge_options;
  merge_options.command_line = run_options.command_line;
  CLI::App* merge = sweep->add_subcommand(
      "merge", "Join the tables of a study's shards (their --out folders) into one, as an unsharded sweep writes it");
  merge->add_option("folders", merge_options.folders, "the shards' folders")->required();
  std::string merge_out;
  merge->add_option("--out", merge_out, "where to write table.csv, sweep.json and figures/ (default results/studies/<name>/)");
  bool merge_no_figures = false;
  merge->add_flag("--no-figures", merge_no_figures, "write the table only");
  merge->add_flag("--quiet,-q", merge_options.quiet, "no closing summary on stderr");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : fovea::kExitBadInput;
  }

  if (run->parsed()) {
    if (!config_path.empty()) run_options.config_path = config_path;
    for (const auto& s : run_sets) run_options.overrides.push_back(fovea::config::set_override(s));
    // --frames N is `--set frames=N` under its own name: the config's checks and messages.
    if (frames_option->count() > 0) run_options.overrides.push_back({"frames=" + frames, "--frames " + (frames.empty() ? "''" : frames)});
    if (!out.empty()) run_options.out = out;
    if (headless) run_options.display = fovea::DisplayChoice::headless;
    if (offscreen) run_options.display = fovea::DisplayChoice::offscreen;
    if (!capture_dir.empty()) run_options.capture_dir = capture_dir;
    return fovea::run_command(run_options);
  }
  if (validate->parsed()) {
    std::vector<fovea::config::Override> overrides;
    for (const auto& s : validate_sets) overrides.push_back(fovea::config::set_override(s));
    return fovea::validate_command(validate_path, overrides);
  }
  if (keys->parsed()) return fovea::keys_command(experiment_keys);
  if (experiment->parsed()) {
    for (const auto& s : experiment_sets) experiment_options.overrides.push_back(fovea::config::set_override(s));
    if (!experiment_out.empty()) experiment_options.out = experiment_out;
    if (!observer.empty()) experiment_options.observer = observer;
    if (!experiment_capture.empty()) experiment_options.capture_dir = experiment_capture;
    if (!synthetic_keys.empty()) experiment_options.synthetic_keys = synthetic_keys;
    return fovea::experiment_command(experiment_options);
  }
  if (tree->parsed()) {
    for (const char* option : {"--builder", "--levels", "--fit", "--branching", "--resolution", "--size", "--seed",
                               "--model-index", "--keep-hidden"})
      tree_options.model_options_given = tree_options.model_options_given || tree->count(option) > 0;
    return fovea::tree_command(tree_options);
  }
  if (merge->parsed()) {
    if (!merge_out.empty()) merge_options.out = merge_out;
    merge_options.figures = !merge_no_figures;
    return fovea::sweep_merge_command(merge_options);
  }
  if (sweep->parsed()) {
    if (sweep_options.study_path.empty()) {
      std::cerr << "fovea sweep: give a study file (fovea sweep STUDY.yaml), or `fovea sweep merge DIR...`\n";
      return fovea::kExitBadInput;
    }
    for (const auto& s : sweep_sets) sweep_options.overrides.push_back(fovea::config::set_override(s));
    if (!sweep_out.empty()) sweep_options.out = sweep_out;
    if (!sweep_shard.empty()) sweep_options.shard = sweep_shard;
    sweep_options.figures = !sweep_no_figures;
    return fovea::sweep_command(sweep_options);
  }
  if (calibrate->parsed()) {
    for (const auto& s : calibrate_sets) calibrate_options.overrides.push_back(fovea::config::set_override(s));
    calibrate_options.fit.function =
        calibrate_function == "weibull" ? fovea::PsychometricFunction::weibull : fovea::PsychometricFunction::logistic;
    calibrate_options.fit.fit_lapse = !calibrate_no_lapse;
    return fovea::calibrate_command(calibrate_options);
  }
  if (fit->parsed()) {
    fit_options.function = fit_function == "weibull" ? fovea::PsychometricFunction::weibull : fovea::PsychometricFunction::logistic;
    fit_options.fit_lapse = !no_lapse;
    if (!plots_dir.empty()) fit_options.plots_dir = plots_dir;
    fit_options.plots = !no_plots;
    return fovea::fit_command(fit_options);
  }
  return fovea::kExitBadInput;
}

}  // namespace

// Each command reports its own errors, by file, line and key. What none foresaw still ends
// in one line and a non-zero exit, never in std::terminate's "terminate called ..." and an
// abort: out of memory (a huge allocation a reader let through) and anything else.
int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "fovea: out of memory; nothing more was done (a file larger than memory, or an absurd size in one?)\n";
  } catch (const std::exception& e) {
    std::cerr << "fovea: " << e.what() << "\n";
  }
  return fovea::kExitFailure;
}
