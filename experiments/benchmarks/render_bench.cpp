// Rendering benchmark (docs/render.md reads it): frames per second of the whole drawn frame
// loop, and the share of each frame spent simulating (Animation::step) against drawing
// (scene, overlays, panel, finished with glFinish so the GPU's or Mesa's work is counted),
// at 2,000 and 10,000 entities, in a window-sized offscreen picture (1280x720 by default).
//
// The scene is the default one (configs/default.yaml: 3/4 balls, 1/4 rocks) with the box
// grown so the density stays that of the default 200 entities in 10 m. On a machine with no
// GPU it measures Mesa's software renderer (llvmpipe), which is what CI and servers draw with.
//
//   ./fovea bench render [--entities 2000,10000] [--frames 150] [--width 1280] [--height 720]
//                        [--panel] [--out FILE.csv]

#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "benchmarks/bench_stats.hpp"
#include "config/config.hpp"
#include "core/stopwatch.hpp"
#include "render/viewer.hpp"

using namespace fovea;

namespace {

struct Result {
  int entities = 0;
  int frames = 0;
  double wall_s = 0;
  std::vector<double> step_ms, draw_ms, frame_ms;
  std::int64_t quads = 0, unit_faces = 0;
  double mesh_ms = 0;
  std::string renderer;
};

Result measure(int entities, int frames, const RenderSettings& render) {
  const double scale = std::cbrt(entities / 200.0);
  const int balls = entities * 3 / 4;
  std::vector<config::Override> overrides = {
      config::set_override("world.box_size_m=[" + std::to_string(10 * scale) + "," + std::to_string(10 * scale) + "," +
                           std::to_string(10 * scale) + "]"),
      config::set_override("world.entities[0].count=" + std::to_string(balls)),
      config::set_override("world.entities[1].count=" + std::to_string(entities - balls))};
  const config::LoadedConfig loaded = config::load_config_file(FOVEA_SOURCE_DIR "/configs/default.yaml", overrides);
  Viewer viewer(render, DisplayMode::offscreen, loaded.settings.perception.view.screen, "bench");
  Animation world(static_cast<const AnimationSettings&>(loaded.settings), 1);
  viewer.attach(world);
  Result r;
  r.entities = entities;
  r.frames = frames;
  r.quads = viewer.scene()->quads();
  r.unit_faces = viewer.scene()->unit_faces();
  r.mesh_ms = viewer.scene()->mesh_ms();
  r.renderer = viewer.window().description();
  Stopwatch wall;
  for (int f = 0; f < frames; ++f) {
    Stopwatch frame;
    Stopwatch clock;
    world.step();
    r.step_ms.push_back(clock.elapsed_ms());
    clock.restart();
    viewer.draw(world, 1, "bench");
    glFinish();  // the drawing itself, not only its submission
    r.draw_ms.push_back(clock.elapsed_ms());
    viewer.present();
    r.frame_ms.push_back(frame.elapsed_ms());
  }
  r.wall_s = wall.elapsed_ms() / 1000;
  return r;
}

double sum(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fovea render benchmark: frames per second drawn offscreen, and the share simulating vs drawing"};
  std::vector<int> counts{2000, 10000};
  int frames = 150;
  RenderSettings render;
  render.panel = false;
  bool panel = false;
  std::string out;
  app.add_option("--entities", counts, "entity counts to measure")->delimiter(',');
  app.add_option("--frames", frames, "frames per count (after the world is built)")->check(CLI::Range(1, 1000000));
  app.add_option("--width", render.width_px, "picture width, pixels")->check(CLI::Range(16, 16384));
  app.add_option("--height", render.height_px, "picture height, pixels")->check(CLI::Range(16, 16384));
  app.add_flag("--panel", panel, "draw the control panel too");
  app.add_option("--out", out, "also write the table as CSV here");
  CLI11_PARSE(app, argc, argv);
  render.panel = panel;

  std::printf("%8s %7s %9s %11s %11s %11s %8s %8s %9s\n", "entities", "frames", "frames/s", "step_ms_med",
              "draw_ms_med", "frame_ms_p99", "sim_%", "draw_%", "quads");
  std::ofstream csv;
  if (!out.empty()) {
    csv.open(out);
    csv << "entities,frames,width_px,height_px,frames_per_s,step_ms_median,draw_ms_median,frame_ms_median,frame_ms_p99,"
           "simulate_share,draw_share,quads,unit_faces,mesh_ms,renderer\n";
  }
  for (const int n : counts) {
    const Result r = measure(n, frames, render);
    const double total = sum(r.frame_ms);
    const double sim_share = sum(r.step_ms) / total, draw_share = sum(r.draw_ms) / total;
    std::printf("%8d %7d %9.1f %11.2f %11.2f %11.2f %8.1f %8.1f %9lld\n", n, frames, frames / r.wall_s,
                bench::quantile(r.step_ms, 0.5), bench::quantile(r.draw_ms, 0.5), bench::quantile(r.frame_ms, 0.99),
                100 * sim_share, 100 * draw_share, static_cast<long long>(r.quads));
    if (csv)
      csv << n << ',' << frames << ',' << render.width_px << ',' << render.height_px << ',' << frames / r.wall_s << ','
          << bench::quantile(r.step_ms, 0.5) << ',' << bench::quantile(r.draw_ms, 0.5) << ','
          << bench::quantile(r.frame_ms, 0.5) << ',' << bench::quantile(r.frame_ms, 0.99) << ',' << sim_share << ','
          << draw_share << ',' << r.quads << ',' << r.unit_faces << ',' << r.mesh_ms << ",\"" << r.renderer << "\"\n";
    std::printf("         (%s; meshes: %lld quads from %lld voxel faces, built in %.1f ms)\n", r.renderer.c_str(),
                static_cast<long long>(r.quads), static_cast<long long>(r.unit_faces), r.mesh_ms);
  }
  std::printf("simulate share + draw share < 100%%: the rest is presenting the frame and the loop.\n");
  return 0;
}
