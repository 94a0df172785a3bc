#!/usr/bin/python3
"""Is it the gaze? The gaze study of issue 41 (results/studies/gaze/README.md).

    /usr/bin/python3 results/studies/gaze/gaze.py run STUDY [--seeds 101-110] [--jobs 2]
    /usr/bin/python3 results/studies/gaze/gaze.py analyse [STUDY] [--seeds 101-110] [--figures]

`run` runs fovea into STUDY/runs/ and reduces each run to rows of STUDY/same_frames.csv and
STUDY/closed_loop.csv (a run already in them is not run again: a killed study resumes). The
run folders can be deleted once reduced. `analyse` reads only those two tables, from the study
folder it is given (default: this script's, results/studies/gaze), prints the README's
tables and, with --figures, draws STUDY/figures/. A small study to try it on: `run /tmp/g
--seeds 1 --protocols same --trackers lat0,lat50`, then `analyse /tmp/g --seeds 1`.

Two protocols, each on packed rocks, the pile and the rockfall, at 5 % and 20 % of full
resolution's sphere tests:
- same frames: the world driven at full resolution, the same bytes whoever is evaluated; on
  every frame each scheduler (round robin, the default hybrid, the oracle) is evaluated with
  each gaze input (tracked, landing, blind) at fraction budgets, under one simulated tracker
  per run (latency 0-100 ms at 1000 Hz, or a real tracker's documented figures);
- closed loop: each arm drives its own world at a work budget (a share of the scene's
  calibrated full-resolution tests, results/studies/realtime/calibration.json).
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "experiments", "plots"))
sys.path.insert(0, os.path.join(ROOT, "experiments", "tools"))
from study_figures import mean_and_half_width, student_t_quantile  # noqa: E402  (found through the paths just set)
from bounded_read import csv_rows, read_bounded  # noqa: E402

MAX_CSV_BYTES = 512 << 20
MAX_TABLE_BYTES = 64 << 20
RUN_TIMEOUT_S = 3600
SHARES = (0.05, 0.2)
EQUIVALENCE_MARGIN = 1.1

# The viewer, the truth and the visibility test every run has; the default scheduler's
# settings named in full, so that the study keeps its meaning if the defaults change.
COMMON = ["ground_truth=true", "gaze.source=scripted", "gaze.scripted.targets=entities", "metrics.visibility=occlusion",
          "schedule.hybrid_levels=1", "schedule.priorities=refined", "schedule.aging=true",
          "schedule.fast_priorities=false", "threads=1"]
SCENES = {
    "packed": {"config": "configs/studies/packed500.yaml", "frames": 500, "warmup": 300},
    "pile": {"config": "configs/examples/pile.yaml", "frames": 450, "warmup": 250},
    "rockfall": {"config": "configs/demos/rockfall.yaml", "frames": 1500, "warmup": 500},
}
# The simulated trackers (docs/gaze.md, "A tracker's latency"): a latency grid at 1000 Hz
# without noise, and two trackers' documented figures.
TRACKERS = {
    "lat0": {"latency_ms": 0, "rate_hz": 1000, "noise_deg": 0},
    "lat10": {"latency_ms": 10, "rate_hz": 1000, "noise_deg": 0},
    "lat25": {"latency_ms": 25, "rate_hz": 1000, "noise_deg": 0},
    "lat50": {"latency_ms": 50, "rate_hz": 1000, "noise_deg": 0},
    "lat100": {"latency_ms": 100, "rate_hz": 1000, "noise_deg": 0},
    "eyelink1000": {"latency_ms": 2, "rate_hz": 1000, "noise_deg": 0.01},
    "pupil_core": {"latency_ms": 12, "rate_hz": 200, "noise_deg": 0.08},
}
LATENCY_GRID = ("lat0", "lat10", "lat25", "lat50", "lat100")
SCHEDULERS = ("round_robin", "hybrid", "oracle")
GAZE_INPUTS = ("tracked", "landing", "blind")
# Closed loop: each arm drives its own world. (scheduler, gaze input, tracker)
CLOSED_LOOP = {
    "round_robin": ("round_robin", "tracked", "lat0"),
    "hybrid_blind": ("hybrid", "blind", "lat0"),
    "hybrid_lat0": ("hybrid", "tracked", "lat0"),
    "hybrid_lat50": ("hybrid", "tracked", "lat50"),
    "hybrid_landing_lat50": ("hybrid", "landing", "lat50"),
    "oracle_lat0": ("oracle", "tracked", "lat0"),
}
ARM_METRICS = ("p_true_visible", "p_true", "p_episodes_true", "episodes_ended", "interrupted", "sphere_tests")
SAME_COLUMNS = ("scene", "seed", "tracker", "scheduler", "gaze", "share", "frames") + ARM_METRICS + (
    "gaze_error_deg", "landing_error_deg", "saccade_share")
LOOP_COLUMNS = ("scene", "seed", "arm", "share", "budget_tests", "frames", "p_true_visible", "p_episodes_true",
                "episodes_ended", "collisions", "deepest_contact_mean_m", "deepest_contact_max_m",
                "energy_change_jps", "kinetic_energy_j")


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def mean(values):
    values = [v for v in values if not math.isnan(v)]
    return math.fsum(values) / len(values) if values else math.nan


def seeds_of(text):
    seeds = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        seeds += list(range(int(lo), int(hi or lo) + 1))
    return seeds


def screen_deg(x1, y1, x2, y2):
    """The visual angle between two points of the default screen (1920 x 1080 px, 53.1 x 29.9 cm at
    57 cm), which all three scenes use."""
    def ray(x, y):
        return ((x - 960) * 53.1 / 1920, (y - 540) * 29.9 / 1080, 57.0)
    a, b = ray(x1, y1), ray(x2, y2)
    cross = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    return math.degrees(math.atan2(math.sqrt(sum(c * c for c in cross)), sum(p * q for p, q in zip(a, b))))


def tracker_sets(tracker):
    t = TRACKERS[tracker]
    return [f"gaze.latency_ms={t['latency_ms']}", f"gaze.rate_hz={t['rate_hz']}", f"gaze.noise_deg={t['noise_deg']}"]


def fovea_run(binary, scene, seed, sets, out):
    s = SCENES[scene]
    command = [binary, "run", os.path.join(ROOT, s["config"]), "--headless", "-q", "--out", out,
               "--frames", str(s["frames"])]
    for item in ["seed=" + str(seed), "metrics.warmup_frames=" + str(s["warmup"])] + COMMON + sets:
        command += ["--set", item]
    subprocess.run(command, check=True, timeout=RUN_TIMEOUT_S, stdout=subprocess.DEVNULL)


def gaze_errors(frames, warmup):
    """Mean visual angle from the eye to the tracked point, and to the landing point, and the share
    of frames in which the tracked samples showed a saccade."""
    rows = [r for r in frames if number(r["frame"]) >= warmup]
    tracked = mean([screen_deg(number(r["gaze_x_px"]), number(r["gaze_y_px"]), number(r["gaze_tracked_x_px"]),
                               number(r["gaze_tracked_y_px"])) for r in rows])
    landing = mean([screen_deg(number(r["gaze_x_px"]), number(r["gaze_y_px"]), number(r["gaze_landing_x_px"]),
                               number(r["gaze_landing_y_px"])) for r in rows])
    return tracked, landing, mean([number(r["gaze_saccade"]) for r in rows])


def same_frames_run(binary, study, scene, seed, tracker):
    out = os.path.join(study, "runs", f"same-{scene}-{seed}-{tracker}")
    budgets = ", ".join(f"{{mode: fraction, fraction: {s}}}" for s in SHARES)
    sets = ["schedule.kind=round_robin", "budget.mode=unlimited", f"evaluate.schedulers=[{', '.join(SCHEDULERS)}]",
            f"evaluate.gaze=[{', '.join(GAZE_INPUTS)}]", f"evaluate.budgets=[{budgets}]"] + tracker_sets(tracker)
    fovea_run(binary, scene, seed, sets, out)
    warmup = SCENES[scene]["warmup"]
    errors = gaze_errors(csv_rows(os.path.join(out, "frames.csv"), MAX_CSV_BYTES, "gaze.py"), warmup)
    arms = {}
    for r in csv_rows(os.path.join(out, "evaluation.csv"), MAX_CSV_BYTES, "gaze.py"):
        if number(r["frame"]) < warmup or r["tree"] != "run":
            continue
        arms.setdefault((r["scheduler"], r["gaze"], float(r["budget"])), []).append(r)
    rows = []
    for (scheduler, gaze, share), frames in sorted(arms.items()):
        row = {"scene": scene, "seed": seed, "tracker": tracker, "scheduler": scheduler, "gaze": gaze, "share": share,
               "frames": len(frames)}
        for m in ARM_METRICS:
            row[m] = mean([number(f[m]) for f in frames])
        row["gaze_error_deg"], row["landing_error_deg"], row["saccade_share"] = errors
        rows.append(row)
    return out, rows


def total_energy_slope(rows):
    """J per second: the least-squares slope of kinetic plus potential energy over the rows."""
    ts = [number(r["sim_time_s"]) for r in rows]
    es = [number(r["kinetic_energy_j"]) + number(r["potential_energy_j"]) for r in rows]
    tm, em = mean(ts), mean(es)
    den = math.fsum((t - tm) ** 2 for t in ts)
    return math.fsum((t - tm) * (e - em) for t, e in zip(ts, es)) / den if den > 0 else math.nan


def closed_loop_run(binary, study, scene, seed, arm, share, full_tests):
    scheduler, gaze, tracker = CLOSED_LOOP[arm]
    out = os.path.join(study, "runs", f"loop-{scene}-{seed}-{arm}-{share}")
    tests = int(round(share * full_tests))
    sets = [f"schedule.kind={scheduler}", f"schedule.gaze={gaze}", "budget.mode=work", f"budget.tests={tests}"]
    fovea_run(binary, scene, seed, sets + tracker_sets(tracker), out)
    frames = [r for r in csv_rows(os.path.join(out, "frames.csv"), MAX_CSV_BYTES, "gaze.py")
              if number(r["frame"]) >= SCENES[scene]["warmup"]]
    row = {"scene": scene, "seed": seed, "arm": arm, "share": share, "budget_tests": tests, "frames": len(frames)}
    for m in ("p_true_visible", "p_episodes_true", "episodes_ended", "collisions", "kinetic_energy_j"):
        row[m] = mean([number(r[m]) for r in frames])
    depths = [number(r["deepest_contact_m"]) for r in frames]
    row["deepest_contact_mean_m"] = mean(depths)
    row["deepest_contact_max_m"] = max(depths) if depths else math.nan
    row["energy_change_jps"] = total_energy_slope(frames)
    return out, [row]


def read_table(path):
    if not os.path.exists(path):
        return []
    return csv_rows(path, MAX_TABLE_BYTES, "gaze.py")


def append_rows(path, columns, rows):
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        if new:
            w.writeheader()
        for r in rows:
            w.writerow({c: (repr(r[c]) if isinstance(r[c], float) else r[c]) for c in columns})


def run(args):
    study = os.path.abspath(args.study)
    os.makedirs(os.path.join(study, "runs"), exist_ok=True)
    binary = os.path.abspath(args.fovea)
    if not os.path.isfile(args.calibration):
        sys.exit(f"gaze.py: {args.calibration}: missing; results/studies/realtime/realtime.py run writes it "
                 "(each scene's full-resolution tests, for the closed loop's work budgets)")
    calibration = json.loads(read_bounded(args.calibration, 1 << 16))
    same_path, loop_path = os.path.join(study, "same_frames.csv"), os.path.join(study, "closed_loop.csv")
    done_same = {(r["scene"], r["seed"], r["tracker"]) for r in read_table(same_path)}
    done_loop = {(r["scene"], r["seed"], r["arm"], r["share"]) for r in read_table(loop_path)}
    jobs = []
    trackers = args.trackers.split(",") if args.trackers else list(TRACKERS)
    for seed in seeds_of(args.seeds):
        for scene in SCENES:
            if "same" in args.protocols:
                for tracker in trackers:
                    if (scene, str(seed), tracker) not in done_same:
                        jobs.append(("same", same_path, SAME_COLUMNS, same_frames_run, (binary, study, scene, seed, tracker)))
            if "loop" in args.protocols:
                for arm in CLOSED_LOOP:
                    for share in SHARES:
                        if (scene, str(seed), arm, repr(share)) not in done_loop:
                            jobs.append(("loop", loop_path, LOOP_COLUMNS, closed_loop_run,
                                         (binary, study, scene, seed, arm, share,
                                          calibration[scene]["full_resolution_tests"])))
    print(f"gaze.py: {len(jobs)} runs to do ({args.jobs} at a time)", file=sys.stderr)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(job[3], *job[4]): job for job in jobs}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            job = futures[future]
            out, rows = future.result()
            append_rows(job[1], job[2], rows)
            if not args.keep_runs:
                shutil.rmtree(out, ignore_errors=True)
            elapsed = time.monotonic() - started
            print(f"gaze.py: {done}/{len(jobs)} done, {elapsed / 60:.1f} min, about "
                  f"{elapsed / done * (len(jobs) - done) / 60:.1f} min left ({os.path.basename(out)})", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the study's missing runs into STUDY")
    r.add_argument("study", help="the study folder (made if missing)")
    r.add_argument("--seeds", default="101-110", help="seeds, as 101-110 or 101,105")
    r.add_argument("--jobs", type=int, default=2, help="runs at a time (work budgets: the bytes do not depend on it)")
    r.add_argument("--fovea", default=os.path.join(ROOT, "build", "bin", "fovea"), help="the fovea binary")
    r.add_argument("--protocols", default="same,loop", help="same, loop or both")
    r.add_argument("--trackers", default="", help="same frames' trackers (default: all)")
    r.add_argument("--keep-runs", action="store_true", help="keep each run's folder once reduced")
    r.add_argument("--calibration", default=os.path.join(ROOT, "results", "studies", "realtime", "calibration.json"),
                   help="each scene's full_resolution_tests (default: the realtime study's calibration.json)")
    a = sub.add_parser("analyse", help="print the tables from STUDY's two CSVs")
    a.add_argument("study", nargs="?", default=HERE, help="the study folder (default: this script's, "
                                                          "results/studies/gaze)")
    a.add_argument("--seeds", default="101-110", help="the seeds the tables use")
    a.add_argument("--figures", action="store_true", help="also draw STUDY/figures/*.png")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
    else:
        analyse(args)


def log_interval(logs, level=0.95):
    """exp of the mean of `logs` and of its t-interval at `level` (two-sided)."""
    n = len(logs)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    m = math.fsum(logs) / n
    if n == 1:
        return math.exp(m), math.nan, math.nan, 1
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in logs) / (n - 1))
    h = student_t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return math.exp(m), math.exp(m - h), math.exp(m + h), n


def ratio_cell(num, den, seeds, metric):
    """Geometric mean over seeds of num/den with its 95 % interval; seeds where either is 0 are
    left out and counted."""
    logs = [math.log(num[s][metric] / den[s][metric]) for s in seeds
            if s in num and s in den and num[s][metric] > 0 and den[s][metric] > 0]
    g, lo, hi, n = log_interval(logs)
    if n == 0:
        return "n/a"
    left = len([s for s in seeds if s in num and s in den]) - n
    return f"{g:.2f} [{lo:.2f}, {hi:.2f}]" + (f" ({left} zero)" if left else "")


def equivalent(num, den, seeds, metric):
    """Whether num/den lies within [1/1.1, 1.1] by two one-sided tests at 5 %: the 90 % interval
    inside the margin."""
    logs = [math.log(num[s][metric] / den[s][metric]) for s in seeds
            if s in num and s in den and num[s][metric] > 0 and den[s][metric] > 0]
    _, lo, hi, n = log_interval(logs, 0.90)
    return n >= 2 and lo > 1 / EQUIVALENCE_MARGIN and hi < EQUIVALENCE_MARGIN


def mean_interval_text(values):
    if len(values) < 2:
        return "n/a"
    m, h = mean_and_half_width(values)
    return f"{m:.2f} [{m - h:.2f}, {m + h:.2f}]"


def by_seed(rows, **where):
    """{seed: row} of the rows matching every key of `where`, numbers made floats."""
    out = {}
    for r in rows:
        if all(str(r[k]) == str(v) for k, v in where.items()):
            out[int(r["seed"])] = {k: number(v) for k, v in r.items() if k not in ("scene", "tracker", "scheduler",
                                                                                  "gaze", "arm")}
    return out


def table(title, header, rows):
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")


def headline_table(rows, seeds):
    """The claims of the README's first lines, for any seeds (the held-out check runs only the
    trackers it needs: lat0, lat50, pupil_core)."""
    out = []
    for scheduler in ("hybrid", "oracle"):
        for scene in SCENES:
            for share in SHARES:
                def arm(gaze, tracker):
                    return by_seed(rows, scene=scene, scheduler=scheduler, gaze=gaze, share=repr(share), tracker=tracker)
                rr = by_seed(rows, scene=scene, scheduler="round_robin", gaze="tracked", share=repr(share), tracker="lat0")
                blind = arm("blind", "lat0")
                out.append([scheduler, scene, f"{share:.0%}", ratio_cell(blind, rr, seeds, "p_true_visible"),
                            ratio_cell(arm("tracked", "lat0"), blind, seeds, "p_true_visible"),
                            ratio_cell(arm("tracked", "lat50"), blind, seeds, "p_true_visible"),
                            ratio_cell(arm("landing", "lat50"), arm("tracked", "lat50"), seeds, "p_true_visible"),
                            ratio_cell(arm("tracked", "pupil_core"), blind, seeds, "p_true_visible"),
                            ratio_cell(arm("tracked", "lat0"), blind, seeds, "p_episodes_true")])
    table("**The headline ratios** (visible P a frame but the last column, episodes noticed a frame; geometric means "
          "over seeds, 95 % t-intervals)",
          ["scheduler", "scene", "budget", "blind / RR", "gaze 0 ms / blind", "gaze 50 ms / blind",
           "landing / tracked, 50 ms", "Pupil Core / blind", "episodes: gaze 0 ms / blind"], out)


def same_frames_tables(rows, seeds, metric, label):
    for scheduler in ("hybrid", "oracle"):
        out = []
        for scene in SCENES:
            for share in SHARES:
                rr = by_seed(rows, scene=scene, scheduler="round_robin", gaze="tracked", share=repr(share), tracker="lat0")
                blind = by_seed(rows, scene=scene, scheduler=scheduler, gaze="blind", share=repr(share), tracker="lat0")
                cells = [scene, f"{share:.0%}", ratio_cell(blind, rr, seeds, metric)]
                for tracker in LATENCY_GRID:
                    gaze = by_seed(rows, scene=scene, scheduler=scheduler, gaze="tracked", share=repr(share), tracker=tracker)
                    cell = ratio_cell(gaze, blind, seeds, metric)
                    if equivalent(gaze, blind, seeds, metric):
                        cell += " ="
                    cells.append(cell)
                out.append(cells)
        table(f"**{label}, {scheduler}: with gaze over gaze-blind** (geometric mean over seeds of the per-seed ratio, "
              "95 % t-interval; `=`: equivalent within 10 %, two one-sided tests at 5 %). The first column is the "
              "blind arm over round robin.",
              ["scene", "budget", "blind / RR"] + [f"gaze {TRACKERS[t]['latency_ms']} ms / blind" for t in LATENCY_GRID], out)


def share_of_gain_table(rows, seeds, metric, label):
    out = []
    for scheduler in ("hybrid", "oracle"):
        for scene in SCENES:
            for share in SHARES:
                rr = by_seed(rows, scene=scene, scheduler="round_robin", gaze="tracked", share=repr(share), tracker="lat0")
                blind = by_seed(rows, scene=scene, scheduler=scheduler, gaze="blind", share=repr(share), tracker="lat0")
                cells = [scheduler, scene, f"{share:.0%}"]
                for tracker in ("lat0", "lat50"):
                    gaze = by_seed(rows, scene=scene, scheduler=scheduler, gaze="tracked", share=repr(share), tracker=tracker)
                    shares = [(blind[s][metric] - gaze[s][metric]) / (rr[s][metric] - gaze[s][metric]) for s in seeds
                              if s in rr and s in blind and s in gaze and rr[s][metric] - gaze[s][metric] > 0]
                    cells.append(mean_interval_text(shares))
                out.append(cells)
    table(f"**{label}: the share of the gain over round robin that gaze buys**, (blind - gaze) / (RR - gaze) per seed, "
          "mean and 95 % t-interval (seeds where the scheduler with gaze does not beat round robin left out)",
          ["scheduler", "scene", "budget", "latency 0 ms", "latency 50 ms"], out)


def landing_table(rows, seeds, metric, label):
    out = []
    for scheduler in ("hybrid", "oracle"):
        for scene in SCENES:
            for share in SHARES:
                cells = [scheduler, scene, f"{share:.0%}"]
                at0 = by_seed(rows, scene=scene, scheduler=scheduler, gaze="tracked", share=repr(share), tracker="lat0")
                for tracker in ("lat25", "lat50", "lat100"):
                    tracked = by_seed(rows, scene=scene, scheduler=scheduler, gaze="tracked", share=repr(share), tracker=tracker)
                    landing = by_seed(rows, scene=scene, scheduler=scheduler, gaze="landing", share=repr(share), tracker=tracker)
                    cells.append(ratio_cell(tracked, at0, seeds, metric))
                    cells.append(ratio_cell(landing, tracked, seeds, metric))
                out.append(cells)
    table(f"**{label}: what latency costs and what landing-point prediction recovers**: tracked at the latency over "
          "tracked at 0 ms, then landing over tracked at the same latency (geometric means, 95 % t-intervals)",
          ["scheduler", "scene", "budget", "25 ms / 0", "landing / tracked, 25 ms", "50 ms / 0",
           "landing / tracked, 50 ms", "100 ms / 0", "landing / tracked, 100 ms"], out)


def tracker_table(rows, seeds, metric, label):
    out = []
    for scene in SCENES:
        for share in SHARES:
            blind = by_seed(rows, scene=scene, scheduler="hybrid", gaze="blind", share=repr(share), tracker="lat0")
            at0 = by_seed(rows, scene=scene, scheduler="hybrid", gaze="tracked", share=repr(share), tracker="lat0")
            cells = [scene, f"{share:.0%}"]
            for tracker in ("eyelink1000", "pupil_core"):
                gaze = by_seed(rows, scene=scene, scheduler="hybrid", gaze="tracked", share=repr(share), tracker=tracker)
                landing = by_seed(rows, scene=scene, scheduler="hybrid", gaze="landing", share=repr(share), tracker=tracker)
                cells += [ratio_cell(gaze, blind, seeds, metric), ratio_cell(gaze, at0, seeds, metric),
                          ratio_cell(landing, gaze, seeds, metric)]
            out.append(cells)
    table(f"**{label}, the default hybrid with two trackers' documented figures**: EyeLink 1000 (1000 Hz, 2 ms, "
          "0.01 deg) and Pupil Core (200 Hz, 12 ms, 0.08 deg)",
          ["scene", "budget", "EyeLink / blind", "EyeLink / ideal", "EyeLink landing / tracked",
           "Pupil / blind", "Pupil / ideal", "Pupil landing / tracked"], out)


def gaze_error_table(rows, seeds):
    out = []
    for scene in SCENES:
        cells = [scene]
        for tracker in LATENCY_GRID[1:] + ("eyelink1000", "pupil_core"):
            r = [x for x in rows if x["scene"] == scene and x["tracker"] == tracker and int(x["seed"]) in seeds
                 and x["scheduler"] == "hybrid" and x["gaze"] == "tracked" and x["share"] == repr(SHARES[0])]
            e = mean([number(x["gaze_error_deg"]) for x in r])
            l_ = mean([number(x["landing_error_deg"]) for x in r])
            sacc = mean([number(x["saccade_share"]) for x in r])
            cells.append(f"{e:.2f} / {l_:.2f} ({sacc:.0%})")
        out.append(cells)
    table("**How far from the eye the scheduler looked**: mean visual angle from the eye to the tracked point / to "
          "the landing input, degrees (share of frames with a saccade seen in the tracked samples), steady state",
          ["scene"] + [t for t in LATENCY_GRID[1:] + ("eyelink1000", "pupil_core")], out)


def closed_loop_tables(rows, seeds):
    def spread(values, fmt):
        values = sorted(v for v in values if not math.isnan(v))
        if not values:
            return "n/a"
        return f"{fmt(values[len(values) // 2])} [{fmt(values[0])}, {fmt(values[-1])}]"
    for scene in SCENES:
        out = []
        for share in SHARES:
            rr = by_seed(rows, scene=scene, arm="round_robin", share=repr(share))
            for arm in CLOSED_LOOP:
                r = by_seed(rows, scene=scene, arm=arm, share=repr(share))
                got = [r[s] for s in seeds if s in r]
                out.append([f"{share:.0%}", arm,
                            spread([x["p_true_visible"] for x in got], lambda v: f"{v:.3g}"),
                            ratio_cell(r, rr, seeds, "p_true_visible"),
                            spread([x["p_episodes_true"] for x in got], lambda v: f"{v:.3g}"),
                            ratio_cell(r, rr, seeds, "p_episodes_true"),
                            spread([x["deepest_contact_mean_m"] for x in got], lambda v: f"{v * 100:.1f}"),
                            spread([x["deepest_contact_max_m"] for x in got], lambda v: f"{v * 100:.0f}"),
                            spread([x["energy_change_jps"] for x in got], lambda v: f"{v:.3g}"),
                            spread([x["collisions"] for x in got], lambda v: f"{v:.0f}")])
        table(f"**Closed loop, {scene}: each arm drives its own world** (median [min, max] over seeds; ratios to round "
              "robin as geometric means with 95 % t-intervals)",
              ["budget", "arm", "visible P", "/ RR", "episodes noticed a frame", "/ RR", "deepest contact, mean, cm",
               "deepest contact, max, cm", "energy change, J/s", "collisions"], out)


def draw_figures(rows, seeds, folder):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FormatStrFormatter
    os.makedirs(folder, exist_ok=True)
    latencies = [TRACKERS[t]["latency_ms"] for t in LATENCY_GRID]
    fig, axes = plt.subplots(len(SHARES), len(SCENES), figsize=(11, 6.5), sharex=True, squeeze=False)
    for i, share in enumerate(SHARES):
        for j, scene in enumerate(SCENES):
            ax = axes[i][j]
            for scheduler, colour in (("hybrid", "tab:blue"), ("oracle", "tab:green")):
                blind = by_seed(rows, scene=scene, scheduler=scheduler, gaze="blind", share=repr(share), tracker="lat0")
                for gaze, style in (("tracked", "-"), ("landing", "--")):
                    g, lo, hi = [], [], []
                    for tracker in LATENCY_GRID:
                        arm = by_seed(rows, scene=scene, scheduler=scheduler, gaze=gaze, share=repr(share), tracker=tracker)
                        logs = [math.log(arm[s]["p_true_visible"] / blind[s]["p_true_visible"]) for s in seeds
                                if s in arm and s in blind and arm[s]["p_true_visible"] > 0 and blind[s]["p_true_visible"] > 0]
                        m, a, b, _ = log_interval(logs)
                        g.append(m), lo.append(a), hi.append(b)
                    ax.plot(latencies, g, style, color=colour, marker="o", markersize=3,
                            label=f"{'default hybrid' if scheduler == 'hybrid' else 'oracle'}, {gaze}")
                    ax.fill_between(latencies, lo, hi, color=colour, alpha=0.12 if gaze == "tracked" else 0.06)
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.axhspan(1 / EQUIVALENCE_MARGIN, EQUIVALENCE_MARGIN, color="grey", alpha=0.15)
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FormatStrFormatter("%.2g"))
            ax.yaxis.set_minor_formatter(FormatStrFormatter("%.2g"))
            ax.tick_params(axis="y", which="minor", labelsize=7)
            ax.set_title(f"{scene}, {share:.0%} of full resolution", fontsize=9)
            if i == len(SHARES) - 1:
                ax.set_xlabel("tracker latency (ms)")
            if j == 0:
                ax.set_ylabel("visible P, with gaze / gaze-blind")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"What gaze buys at each tracker latency: below 1, gaze helps (seeds {seeds[0]}-{seeds[-1]}; "
                 "band: within 10 %)", fontsize=10)
    fig.tight_layout()
    path = os.path.join(folder, "gaze_vs_blind.png")
    fig.savefig(path, dpi=150)
    print(f"gaze.py: wrote {path}", file=sys.stderr)


def analyse(args):
    study = os.path.abspath(args.study)
    seeds = seeds_of(args.seeds)
    same_path, loop_path = os.path.join(study, "same_frames.csv"), os.path.join(study, "closed_loop.csv")
    if not os.path.exists(same_path) and not os.path.exists(loop_path):
        sys.exit(f"gaze.py: {same_path} and {loop_path}: missing; `gaze.py run {args.study}` writes them")
    every = read_table(same_path) + read_table(loop_path)
    same = [r for r in read_table(same_path) if int(r["seed"]) in seeds]
    loop = [r for r in read_table(loop_path) if int(r["seed"]) in seeds]
    if not same and not loop:
        held = sorted({int(r["seed"]) for r in every})
        sys.exit(f"gaze.py: {study}: no run of seeds {args.seeds} (it holds seeds "
                 f"{', '.join(map(str, held)) or 'none'}); --seeds chooses them")
    print(f"Seeds {seeds[0]}-{seeds[-1]}: {len({(r['scene'], r['seed'], r['tracker']) for r in same})} same-frames runs, "
          f"{len(loop)} closed-loop runs.")
    if same:
        headline_table(same, seeds)
        same_frames_tables(same, seeds, "p_true_visible", "Visible P a frame")
        same_frames_tables(same, seeds, "p_episodes_true", "Episodes noticed a frame")
        same_frames_tables(same, seeds, "p_true", "All P a frame, visible or not")
        share_of_gain_table(same, seeds, "p_true_visible", "Visible P a frame")
        landing_table(same, seeds, "p_true_visible", "Visible P a frame")
        landing_table(same, seeds, "p_episodes_true", "Episodes noticed a frame")
        tracker_table(same, seeds, "p_true_visible", "Visible P a frame")
        gaze_error_table(same, seeds)
    if loop:
        closed_loop_tables(loop, seeds)
    if args.figures and same:
        draw_figures(same, seeds, os.path.join(study, "figures"))


if __name__ == "__main__":
    main()
