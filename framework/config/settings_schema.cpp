#include "config/settings_schema.hpp"

namespace fovea::config {
namespace {

// Ranges keep every quantity well inside double precision: a micrometre-sized model of the
// lightest material still has a representable inertia (about 1e-36 kg m^2), a kilometre one
// of the densest no overflow, and speeds cannot carry entities to infinity in any run.

void model_keys(Section<ModelSettings>& s) {
  s.choice("shape", &ModelSettings::shape, kModelShapes,
           "built-in voxel model generator, or file for a MagicaVoxel .vox model (model.file)");
  s.number("size_m", &ModelSettings::size_m, between(1e-6, 1e6), "length of the model's longest side, metres");
  s.number("resolution_voxels", &ModelSettings::resolution_voxels, between(1, 256), "voxels along the longest side");
  s.vec3("aspect", &ModelSettings::aspect, between(1e-3, 1e3), "stretch of the shape's own proportions along x, y, z");
  s.number("variants", &ModelSettings::variants, between(1, 1024),
           "distinct seeded rock shapes in the group, used in turn (other shapes have one)");
  s.path("file", &ModelSettings::file, "MagicaVoxel .vox file of the model, with shape: file");
  s.number("file_model", &ModelSettings::file_model, between(0, 1023),
           "which model of a .vox file holding several, 0 for the first");
}

void sphere_tree_keys(Section<SphereTreeSettings>& s) {
  s.choice("builder", &SphereTreeSettings::builder, kSphereTreeBuilders,
           "octree (004's octree tree), medial (spheres on the medial axis) or tightest (both built, the tighter "
           "kept per model); docs/spheretree.md");
  s.number("levels", &SphereTreeSettings::levels, between(0, 16), "levels of spheres below the root");
  s.boolean("remove_hidden", &SphereTreeSettings::remove_hidden,
            "cover only the surface voxels: remove nodes hidden on all six sides, as 004 does (docs/spheretree.md: what "
            "it costs)");
  s.choice("fit", &SphereTreeSettings::fit, kSphereFits,
           "octree spheres: cell (004's, around the occupied box of the node's cell) or voxels (the smallest around "
           "the voxels the node must cover)");
  s.number("branching", &SphereTreeSettings::branching, between(2, 8), "most children per node of a medial tree");
  s.path("file", &SphereTreeSettings::file,
         "a Sphere-Tree Construction Toolkit .sph file to use instead of building a tree");
  s.boolean("inflate", &SphereTreeSettings::inflate,
            "with file: grow the file's spheres until they cover the model's voxels, instead of refusing a tree "
            "that misses some");
  s.boolean("on_demand", &SphereTreeSettings::on_demand,
            "build the octree tree's branches only when a collision first needs them (001), not all at the start");
  s.number("evict_after_frames", &SphereTreeSettings::evict_after_frames, between(1, 1000000000),
           "with on_demand: frames a branch may go unused before it is dropped");
}

void material_keys(Section<MaterialSettings>& s) {
  s.number("density_kgpm3", &MaterialSettings::density_kgpm3, between(1e-3, 1e6), "density, kilograms per cubic metre");
  s.number("restitution", &MaterialSettings::restitution, between(0, 1), "coefficient of restitution: 1 elastic, 0 dead");
  s.number("friction", &MaterialSettings::friction, between(0, 100), "Coulomb friction coefficient");
  s.vec3("colour", &MaterialSettings::colour, between(0, 1), "linear RGB, each in [0, 1]");
}

void group_keys(Section<EntityGroupSettings>& s) {
  s.name("name", &EntityGroupSettings::name, "group name, used in messages and records");
  s.number("count", &EntityGroupSettings::count, between(0, 10'000'000), "number of entities in the group");
  s.section("model", &EntityGroupSettings::model, keys_of(model_keys), "the voxel model of the group's entities");
  s.section("material", &EntityGroupSettings::material, keys_of(material_keys), "physical material and colour");
  s.section("sphere_tree", &EntityGroupSettings::sphere_tree, keys_of(sphere_tree_keys),
            "how the group's sphere trees are made (004 section 3.3)");
  s.choice("placement", &EntityGroupSettings::placement, kPlacements,
           "initial positions: random (no overlaps), packed (a lattice in the box's min corner), floor (one entity centred on the box's floor: scenery) or demo (placed by the demo)");
  s.choice("bounds", &EntityGroupSettings::bounds, kBoundsKinds,
           "broad-phase box: fixed (a cube that holds the entity at any orientation), dynamic (the "
           "tight box at its current orientation, every frame) or auto (dynamic when the model is "
           "at least twice as long as it is thin)");
  s.number("speed_mps", &EntityGroupSettings::speed_mps, between(0, 1e6),
           "initial speed, metres per second, random direction");
  s.number("spin_radps", &EntityGroupSettings::spin_radps, between(0, 1e6),
           "initial angular speed, radians per second, random axis");
  s.boolean("static", &EntityGroupSettings::is_static, "static entities never move and have infinite mass");
}

void world_keys(Section<WorldSettings>& s) {
  s.vec3("box_size_m", &WorldSettings::box_size_m, between(1e-6, 1e9), "size of the world box, metres; it spans [0, size]");
  s.moved("gravity_mps2", "response.gravity_mps2");
  s.number("time_step_s", &WorldSettings::time_step_s, {0, 1, true, false}, "fixed simulation time step, seconds");
  s.list("entities", &WorldSettings::entities, keys_of(group_keys), "entity groups", kMaxEntityGroups,
         "the groups of entities, placed in order");
}

void schedule_keys(Section<ScheduleSettings>& s) {
  s.choice("kind", &ScheduleSettings::kind, kSchedulerKinds,
           "the order collisions are refined in (004 section 3.4.3; docs/narrowphase.md)");
  s.number("queues", &ScheduleSettings::queues, between(1, 64), "K, the number of priority queues (priority_queues)");
  s.numbers("band_edges", &ScheduleSettings::band_edges, between(0, 1), kMaxBandEdges,
            "K - 1 priorities f(e, g), strictly decreasing: queue 0 takes collisions at or above the first");
  s.number("hybrid_levels", &ScheduleSettings::hybrid_levels, between(0, 64),
           "levels of the descent every collision gets in round robin before hybrid turns to priorities");
  s.choice("priorities", &ScheduleSettings::priorities, kPriorityGaps,
           "the gap a start-of-frame priority is taken from: roots (004: the entities' centres) or refined "
           "(also last frame's deepest sphere pair of a persistent pair)");
  s.boolean("fast_priorities", &ScheduleSettings::fast_priorities,
            "order by a cheap placement (no atan2; the gap across the line of sight at the centre's depth); the "
            "records' placements are made exactly after the run, outside the budget (docs/narrowphase.md)");
  s.boolean("aging", &ScheduleSettings::aging,
            "a pair left unresolved frame after frame is ordered by its episode's chance of being noticed, "
            "1 - (1 - f) prod(1 - f before), not by f (docs/narrowphase.md)");
  s.choice("gaze", &ScheduleSettings::gaze, kSchedulerGazes,
           "the fixation priorities are placed from: tracked (the tracker's newest sample), landing (a saccade's "
           "predicted landing point) or blind (none: f(0, g), the gaze-blind control); docs/gaze.md");
}

void narrowphase_keys(Section<NarrowPhaseSettings>& s) {
  s.boolean("coherence", &NarrowPhaseSettings::coherence,
            "a pair colliding last frame re-tests the sphere pairs down to last frame's leaf pair first "
            "(coherence across frames; same outcomes, fewer tests)");
  s.boolean("prune_to_overlap", &NarrowPhaseSettings::prune_to_overlap,
            "skip spheres whose leaves cannot reach the overlap of the boxes around the two trees' leaf spheres (Smith and Kitamura; "
            "same outcomes, fewer tests)");
}

void budget_keys(Section<BudgetSettings>& s) {
  s.choice("mode", &BudgetSettings::mode, kBudgetModes,
           "wall: stop on the clock after ms; work: stop after tests sphere tests (reproducible to the byte); "
           "unlimited: full resolution; fraction: that share of the frame's full-resolution tests (evaluate.budgets only)");
  s.number("ms", &BudgetSettings::ms, between(0, 1e6), "wall budget of the narrow phase per frame, milliseconds");
  s.number("tests", &BudgetSettings::tests, between(0, 1e15), "work budget per frame, sphere-sphere tests");
  s.number("fraction", &BudgetSettings::fraction, between(0, 1),
           "fraction budget: the share of the sphere tests full resolution needs this frame");
}

void metrics_keys(Section<MetricsSettings>& s) {
  s.choice("visibility", &MetricsSettings::visibility, kVisibilityKinds,
           "occlusion: the *_visible columns count a gap only where the eye sees it past the other entities "
           "(docs/metrics.md)");
  s.number("min_f", &MetricsSettings::min_f, between(0, 1),
           "suprathreshold P (p_*_supra) counts only collisions with f at least this");
  s.number("warmup_frames", &MetricsSettings::warmup_frames, between(0, 1e12),
           "frames left out of summary.json's statistics and a study's: the start-up transient");
}

void evaluated_trees_keys(Section<EvaluatedTreeSettings>& s) {
  s.choice("builder", &EvaluatedTreeSettings::builder, kSphereTreeBuilders,
           "the builder of every model's tree in this set (sphere_tree.builder)");
  s.choice("fit", &EvaluatedTreeSettings::fit, kSphereFits, "octree spheres in this set (sphere_tree.fit)");
}

void evaluation_keys(Section<EvaluationSettings>& s) {
  s.choices("schedulers", &EvaluationSettings::schedulers, kSchedulerKinds,
            "schedulers run on the side every frame on the same collisions, poses and budget: evaluation.csv "
            "(docs/evaluation.md)");
  s.list("budgets", &EvaluationSettings::budgets, keys_of(budget_keys), "budgets", kMaxEvaluatedBudgets,
         "budgets each evaluated scheduler runs under, crossed with them; none: the run's budget");
  s.choices("gaze", &EvaluationSettings::gaze, kSchedulerGazes,
            "the gaze inputs each evaluated scheduler runs with (schedule.gaze's), crossed with the schedulers and "
            "budgets; none: the run's schedule.gaze");
  s.list("trees", &EvaluationSettings::trees, keys_of(evaluated_trees_keys), "tree sets", kMaxEvaluatedTreeSets,
         "other sphere trees every evaluated scheduler and budget also runs on, on the same poses and collisions; "
         "none: the run's own trees only");
}

}  // namespace

Section<PerceptionModelSettings> perception_model_schema(bool with_file) {
  Section<PerceptionModelSettings> s;
  if (with_file)
    s.path("file", &PerceptionModelSettings::file,
           "a perception-model YAML file (the keys below) whose values replace these; \"\" for none");
  s.choice("function", &PerceptionModelSettings::function, kPsychometricFunctions,
           "the sigmoid F of f(e, g) (docs/perception.md)");
  s.number("threshold_deg", &PerceptionModelSettings::threshold_deg, between(1e-6, 180),
           "T0: the gap, degrees, noticed at F = 0.5 at the fixation point");
  s.number("eccentricity_scale_deg", &PerceptionModelSettings::eccentricity_scale_deg, between(1e-6, 180),
           "E2: the eccentricity, degrees, at which the threshold has doubled");
  s.number("width", &PerceptionModelSettings::width, between(1e-3, 100),
           "the gap range over which F rises from 0.05 to 0.95, as a fraction of the threshold");
  s.number("guess_rate", &PerceptionModelSettings::guess_rate, between(0, 0.5), "gamma: f at a gap of zero");
  s.number("lapse_rate", &PerceptionModelSettings::lapse_rate, between(0, 0.5), "lambda: 1 - lambda is f for a huge gap");
  return s;
}

namespace {

void camera_keys(Section<CameraSettings>& s) {
  s.boolean("frame_box", &CameraSettings::frame_box,
            "look at the world box's centre from its +z side, the whole box in view (position_m and target_m unused)");
  s.vec3("position_m", &CameraSettings::position_m, between(-1e9, 1e9), "camera position, metres (frame_box: false)");
  s.vec3("target_m", &CameraSettings::target_m, between(-1e9, 1e9), "point the camera looks at, metres (frame_box: false)");
  s.vec3("up", &CameraSettings::up, between(-1e9, 1e9), "the camera's up direction, world space");
  s.number("vertical_fov_deg", &CameraSettings::vertical_fov_deg, {0, 179, false, false},
           "vertical field of view, degrees; 0: the angle the screen subtends at the viewing distance");
}

void screen_keys(Section<ScreenSettings>& s) {
  s.number("width_px", &ScreenSettings::width_px, between(1, 65536), "screen width, pixels");
  s.number("height_px", &ScreenSettings::height_px, between(1, 65536), "screen height, pixels");
  s.number("width_cm", &ScreenSettings::width_cm, between(0.1, 1e4), "visible screen width, centimetres");
  s.number("height_cm", &ScreenSettings::height_cm, between(0.1, 1e4), "visible screen height, centimetres");
  s.number("viewing_distance_cm", &ScreenSettings::viewing_distance_cm, between(1, 1e5),
           "eye to screen centre, centimetres, along the screen's normal");
}

void view_keys(Section<ViewSettings>& s) {
  s.section("camera", &ViewSettings::camera, keys_of(camera_keys), "the synthetic camera (004 section 3.1)");
  s.section("screen", &ViewSettings::screen, keys_of(screen_keys), "the physical screen: pixels to degrees of visual angle");
}

void perception_keys(Section<PerceptionSettings>& s) {
  s.section("model", &PerceptionSettings::model, perception_model_schema(true),
            "f(e, g), the probability of noticing a gap g at eccentricity e (004 section 3.4.2)");
  s.section("view", &PerceptionSettings::view, keys_of(view_keys), "camera and screen: world to pixels to degrees");
}

void scripted_gaze_keys(Section<ScriptedGazeSettings>& s) {
  s.number("fixation_mean_ms", &ScriptedGazeSettings::fixation_mean_ms, between(1, 1e6), "mean fixation duration, ms");
  s.number("fixation_sd_ms", &ScriptedGazeSettings::fixation_sd_ms, between(0, 1e6),
           "standard deviation of fixation durations (log-normal), ms");
  s.number("margin", &ScriptedGazeSettings::margin, {0, 0.5, false, true},
           "fraction of the screen's width and height kept clear of fixations at each edge");
  s.choice("targets", &ScriptedGazeSettings::targets, kScriptedTargets,
           "where saccades go: screen (uniform inside the margins), entities (an entity's centre on the screen, "
           "chosen in proportion to its speed there) or collisions (one of the last step's collisions on the "
           "screen); docs/gaze.md");
}

void gaze_fallback_keys(Section<GazeFallbackSettings>& s) {
  s.number("hold_ms", &GazeFallbackSettings::hold_ms, between(0, 1e6),
           "hold the last valid fixation this long after its time stamp, ms");
  s.choice("then", &GazeFallbackSettings::then, kGazeFallbacks,
           "after the hold: the screen's centre, or the mouse (needs a window)");
}

void gaze_keys(Section<GazeSettings>& s) {
  s.choice("source", &GazeSettings::source, kGazeSources,
           "where the fixation point comes from: fixed (x_px, y_px), mouse (the pointer in the window), "
           "scripted (seeded fixations and saccades), replay (file), pupil (Pupil Capture), gazepoint "
           "(Gazepoint Control), stream (any tracker through a sender program: the EyeLink, Tobii and LSL "
           "bridges in experiments/python/) or external (samples a program pushes through fovea's Python module, "
           "World.set_gaze: no fovea command can run it); docs/gaze.md");
  s.number("x_px", &GazeSettings::x_px, between(0, 65536), "fixed fixation point, pixels from the screen's left edge");
  s.number("y_px", &GazeSettings::y_px, between(0, 65536), "fixed fixation point, pixels from the screen's top edge");
  s.section("scripted", &GazeSettings::scripted, keys_of(scripted_gaze_keys), "the scripted viewer (docs/gaze.md)");
  s.path("file", &GazeSettings::file, "replay: the gaze CSV to play back (t_s, x_px, y_px[, valid]; a run's gaze.csv)");
  s.text("host", &GazeSettings::host,
         "pupil, gazepoint: the tracker's host; only it is contacted. stream: the address fovea listens on "
         "(127.0.0.1: senders on this machine only)");
  s.number("port", &GazeSettings::port, between(0, 65535),
           "pupil, gazepoint: the tracker's port; 0 for its default (Pupil Remote 50020, Gazepoint 4242). "
           "stream: the samples port, 0 for 50070; the clock answers on the next port");
  s.text("surface", &GazeSettings::surface, "pupil: the surface defined on the screen in Pupil Capture's Surface Tracker");
  s.choice("topic", &GazeSettings::topic, kPupilTopics,
           "pupil: surface (gaze mapped onto the surface) or gaze (the world image taken as the screen)");
  s.number("min_confidence", &GazeSettings::min_confidence, between(0, 1),
           "pupil, stream: samples below this confidence are not used");
  s.number("max_age_ms", &GazeSettings::max_age_ms, between(0, 1e6),
           "a sample older than this is not a current fixation (a stalled tracker): the fallback takes over, ms");
  s.section("fallback", &GazeSettings::fallback, keys_of(gaze_fallback_keys),
            "what a frame uses when the source has no valid, current sample");
  s.number("latency_ms", &GazeSettings::latency_ms, between(0, 1000),
           "a simulated tracker: the scheduler sees each sample this long after the eye was there, ms (fixed, "
           "scripted and replay sources; the meter measures with the eye); docs/gaze.md");
  s.number("rate_hz", &GazeSettings::rate_hz, between(0, 2000),
           "a simulated tracker: it samples the eye this often; 0: once a frame, at the frame's time");
  s.number("noise_deg", &GazeSettings::noise_deg, between(0, 10),
           "a simulated tracker: Gaussian noise on each sample, standard deviation per axis, degrees");
}

void walls_keys(Section<WallSettings>& s) {
  s.number("restitution", &WallSettings::restitution, between(0, 1),
           "the walls' restitution; a contact bounces by the larger of the wall's and the entity's");
  s.number("friction", &WallSettings::friction, between(0, 100),
           "the walls' Coulomb coefficient; a contact's is the geometric mean of the wall's and the entity's");
}

void response_keys(Section<ResponseSettings>& s) {
  s.boolean("entity_contacts", &ResponseSettings::entity_contacts,
            "respond to collisions between entities; false lets them pass through each other (detection-only "
            "studies), the walls still hold them");
  s.vec3("gravity_mps2", &ResponseSettings::gravity_mps2, between(-1e6, 1e6),
         "gravity, metres per second squared; [0, 0, 0] is off");
  s.number("restitution", &ResponseSettings::restitution, between(0, 1),
           "restitution of every group's material that does not set material.restitution");
  s.number("friction", &ResponseSettings::friction, between(0, 100),
           "Coulomb friction of every group's material that does not set material.friction");
  s.section("walls", &ResponseSettings::walls, keys_of(walls_keys), "the material of the world box's six walls");
  s.choice("solver", &ResponseSettings::solver, kImpulseSolvers,
           "how the passes go over the contacts: gauss_seidel (each point sees the ones before it) or jacobi "
           "(every point of a pass from the same velocities); both apply the frame's impulses together");
  s.number("iterations", &ResponseSettings::iterations, between(1, 1000),
           "passes over the frame's contacts (docs/response.md, Iterations)");
  s.number("correction_fraction", &ResponseSettings::correction_fraction, between(0, 1),
           "share of each overlap beyond slop_m removed per frame by moving bodies apart (no velocity change)");
  s.number("slop_m", &ResponseSettings::slop_m, between(0, 1e6), "overlap left alone, metres");
  s.number("rest_speed_mps", &ResponseSettings::rest_speed_mps, between(0, 1e6),
           "contacts approaching slower than this do not bounce (raised to 2 |g| dt if that is larger), "
           "metres per second");
  s.number("max_pairs_per_collision", &ResponseSettings::max_pairs_per_collision, between(1, 1e6),
           "most leaf sphere pairs taken from one resolved collision for its contact");
}

void record_keys(Section<RecordSettings>& s) {
  s.boolean("collisions", &RecordSettings::collisions, "write collisions.csv: one row per collision per frame");
  s.boolean("gaze", &RecordSettings::gaze, "write gaze.csv: the fixation each frame used, replayable (docs/gaze.md)");
}

void overlays_keys(Section<OverlaySettings>& s) {
  s.boolean("fixation", &OverlaySettings::fixation, "the fixation point and the eccentricity rings");
  s.numbers("rings_deg", &OverlaySettings::rings_deg, between(0.01, 180), kMaxOverlayRings,
            "eccentricity rings about the fixation point, degrees of visual angle");
  s.boolean("collisions", &OverlaySettings::collisions,
            "tint the entities of active collisions by outcome (docs/render.md, Overlays)");
  s.boolean("gaps", &OverlaySettings::gaps, "a line across the gap of each collision accepted unresolved");
  s.boolean("sphere_tree", &OverlaySettings::sphere_tree, "the sphere tree of one entity at one depth");
  s.number("sphere_tree_entity", &OverlaySettings::sphere_tree_entity, between(0, 1e9),
           "the entity whose sphere tree is drawn (its index; a click picks another)");
  s.number("sphere_tree_level", &OverlaySettings::sphere_tree_level, between(0, 16), "the depth drawn, 0 for the root");
  s.boolean("frame_graph", &OverlaySettings::frame_graph, "a graph of recent frame times");
}

void render_keys(Section<RenderSettings>& s) {
  s.number("width_px", &RenderSettings::width_px, between(16, 16384), "window or offscreen picture width, pixels");
  s.number("height_px", &RenderSettings::height_px, between(16, 16384), "window or offscreen picture height, pixels");
  s.boolean("vsync", &RenderSettings::vsync, "wait for the display's refresh before showing a frame");
  s.number("target_fps", &RenderSettings::target_fps, between(0, 10000),
           "frames shown per second; 0 for one per time step, real time (docs/render.md, Frame pacing)");
  s.boolean("stimulus", &RenderSettings::stimulus, "a clean stimulus: no overlays, no panel");
  s.boolean("panel", &RenderSettings::panel, "the control panel (not drawn in stimulus mode)");
  s.choice("camera_mode", &RenderSettings::camera_mode, kCameraModes,
           "orbit (drag to turn about the target, wheel to zoom) or fly (drag to look, W A S D Q E to move)");
  s.number("fly_speed_mps", &RenderSettings::fly_speed_mps, between(0, 1e6),
           "the fly camera's speed, metres per second; 0 for half the world box's largest side a second");
  s.vec3("background", &RenderSettings::background, between(0, 1), "background colour, RGB in [0, 1]");
  s.vec3("light_direction", &RenderSettings::light_direction, between(-1e3, 1e3),
         "direction the light travels, world axes (any length but zero)");
  s.boolean("floor", &RenderSettings::floor, "draw the world box's floor as ground");
  s.section("overlays", &RenderSettings::overlays, keys_of(overlays_keys), "what is drawn over the scene");
}

void waypoint_keys(Section<Waypoint>& s) {
  s.number("x_m", &Waypoint::x_m, between(-1e6, 1e6), "world x of the point, metres");
  s.number("z_m", &Waypoint::z_m, between(-1e6, 1e6), "world z of the point, metres");
}

void player_keys(Section<PlayerSettings>& s) {
  s.number("height_m", &PlayerSettings::height_m, between(0.1, 10), "the capsule from feet to top, metres");
  s.number("radius_m", &PlayerSettings::radius_m, between(0.01, 5), "the capsule's radius, metres");
  s.number("eye_height_m", &PlayerSettings::eye_height_m, between(0, 10), "the camera above the feet, metres");
  s.number("walk_speed_mps", &PlayerSettings::walk_speed_mps, between(0, 100), "the scripted walk's speed, metres per second");
  s.list("path", &PlayerSettings::path, keys_of(waypoint_keys), "waypoints", kMaxWaypoints,
         "the scripted walk's points, walked there and back; empty: along the ravine's middle");
  s.boolean("scripted", &PlayerSettings::scripted,
            "in a window too, walk the path (false: stand under the fly camera, W A S D and mouse look)");
  s.number("look_up_deg", &PlayerSettings::look_up_deg, between(-89, 89), "the scripted camera's pitch above the walk, degrees");
}

void rockfall_keys(Section<RockfallSettings>& s) {
  s.name("ravine_group", &RockfallSettings::ravine_group, "the entity group of the ravine (one static entity, placement: floor)");
  s.name("rock_group", &RockfallSettings::rock_group, "the entity group whose model, material and tree make the rocks");
  s.number("release_interval_s", &RockfallSettings::release_interval_s, {0, 1e6, true, false}, "seconds between releases");
  s.number("max_rocks", &RockfallSettings::max_rocks, between(1, 100000), "rocks and fragments alive at once, never exceeded");
  s.number("min_scale", &RockfallSettings::min_scale, {0, 1, true, false},
           "each rock shape is the group's model scaled by a seeded factor in [min_scale, 1]");
  s.number("release_width_fraction", &RockfallSettings::release_width_fraction, between(0, 1),
           "rocks appear over this fraction of the ravine's width (x)");
  s.number("release_length_fraction", &RockfallSettings::release_length_fraction, between(0, 1),
           "and of its length (z)");
  s.number("release_height_m", &RockfallSettings::release_height_m, between(0, 1e4), "above the ravine's top, metres");
  s.number("release_speed_mps", &RockfallSettings::release_speed_mps, between(0, 1e3), "initial downward speed, metres per second");
  s.number("release_spin_radps", &RockfallSettings::release_spin_radps, between(0, 1e3), "initial spin, radians per second");
  s.number("break_impulse_ns", &RockfallSettings::break_impulse_ns, between(0, 1e12),
           "a rock whose contacts' normal impulses in one frame sum above this breaks, newton seconds");
  s.number("min_fragment_voxels", &RockfallSettings::min_fragment_voxels, between(1, 1e9),
           "pieces with fewer voxels are debris, removed");
  s.number("separation_speed_mps", &RockfallSettings::separation_speed_mps, between(0, 1e3),
           "pieces on either side of the cut part at twice this, metres per second");
  s.number("max_breaks", &RockfallSettings::max_breaks, between(0, 100), "generations of breaking: 0 never breaks");
  s.number("rest_speed_mps", &RockfallSettings::rest_speed_mps, between(0, 1e3),
           "slower than this (centre plus rim) counts as resting, metres per second");
  s.number("rest_time_s", &RockfallSettings::rest_time_s, between(0, 1e6), "resting this long retires a rock, seconds");
  s.section("player", &RockfallSettings::player, keys_of(player_keys), "the player walking the ravine");
}

void crowd_keys(Section<CrowdSettings>& s) {
  s.name("group", &CrowdSettings::group, "the entity group of the walkers (placement: demo)");
  s.number("streams", &CrowdSettings::streams, between(1, 4), "streams crossing the plaza: from -x, +x, -z, +z in that order");
  s.number("spacing_m", &CrowdSettings::spacing_m, {0, 1e3, true, false}, "between neighbours in a starting block, metres");
  s.number("margin_m", &CrowdSettings::margin_m, between(0, 1e3), "between the blocks and the walls, metres");
  s.number("preferred_speed_mps", &CrowdSettings::preferred_speed_mps, between(0, 100), "mean walking speed, metres per second");
  s.number("speed_spread", &CrowdSettings::speed_spread, between(0, 1), "each walker's speed differs from the mean by up to this fraction");
  s.number("max_acceleration_mps2", &CrowdSettings::max_acceleration_mps2, between(0, 1e3), "metres per second squared");
  s.number("arrive_radius_m", &CrowdSettings::arrive_radius_m, between(0, 1e3), "walkers slow down inside it and count as arrived");
}

void demo_keys(Section<DemoSettings>& s) {
  s.choice("kind", &DemoSettings::kind, kDemoKinds, "the demo the run plays (docs/demos.md): none, rockfall or crowd");
  s.section("rockfall", &DemoSettings::rockfall, keys_of(rockfall_keys), "the rockfall: rocks, breaking, the player");
  s.section("crowd", &DemoSettings::crowd, keys_of(crowd_keys), "the crowd: walkers crossing a plaza");
}

void scene_stimulus_keys(Section<SceneStimulusSettings>& s) {
  s.number("voxels", &SceneStimulusSettings::voxels, between(2, 128), "voxels along each rock's side");
  s.number("rock_variants", &SceneStimulusSettings::rock_variants, between(1, 64), "seeded rock shapes the entities take in turn");
  s.number("depth_cm", &SceneStimulusSettings::depth_cm, between(0, 100000),
           "eye to the target pair's plane, centimetres; 0: the viewing distance (the rocks at the screen)");
  s.number("depth_spread", &SceneStimulusSettings::depth_spread, between(1, 10),
           "distractors between depth / spread and depth * spread, seeded");
  s.number("tumble_degps", &SceneStimulusSettings::tumble_degps, between(0, 10000), "the distractors' spin, degrees per second");
  s.vec3("light_direction", &SceneStimulusSettings::light_direction, between(-1e3, 1e3),
         "the direction the light travels, the eye's axes (x right, y up, z towards the viewer); any length but zero");
  s.number("msaa_samples", &SceneStimulusSettings::msaa_samples, between(1, 16), "multisample anti-aliasing samples; 1 for none");
}

void stimulus_keys(Section<StimulusSettings>& s) {
  s.number("entities", &StimulusSettings::entities, between(2, 1000), "entities moving in view, the target pair included");
  s.number("entity_size_deg", &StimulusSettings::entity_size_deg, {0, 90, true, false}, "each entity's diameter, degrees of visual angle");
  s.number("speed_degps", &StimulusSettings::speed_degps, between(0, 1000), "each entity's speed on the screen, degrees per second");
  s.number("duration_s", &StimulusSettings::duration_s, {0, 600, true, false}, "presentation time, seconds");
  s.number("collision_time_s", &StimulusSettings::collision_time_s, {0, 600, true, false},
           "when the target pair meets, seconds from the start (before duration_s)");
  s.boolean("fixation_cross", &StimulusSettings::fixation_cross, "draw the fixation cross");
  s.number("fixation_size_deg", &StimulusSettings::fixation_size_deg, {0, 90, true, false}, "the cross's arms, end to end, degrees");
  s.vec3("colour", &StimulusSettings::colour, between(0, 1), "the entities' colour, linear RGB in [0, 1]");
  s.vec3("background", &StimulusSettings::background, between(0, 1), "the background, linear RGB in [0, 1]");
  s.choice("kind", &StimulusSettings::kind, kStimulusKinds,
           "discs (flat, in the screen's plane) or scene (voxel rocks in depth, lit, drawn by fovea's renderer)");
  s.choice("directions", &StimulusSettings::directions, kStimulusDirections,
           "the target's direction from fixation: any (uniform) or horizontal (left or right: the screen's widest extent)");
  s.section("scene", &StimulusSettings::scene, keys_of(scene_stimulus_keys), "the rocks, light and anti-aliasing of kind: scene");
}

void constant_stimuli_keys(Section<ConstantStimuliSettings>& s) {
  s.numbers("gaps_deg", &ConstantStimuliSettings::gaps_deg, {0, 180, true, false}, kMaxSpecGaps,
            "the gaps, degrees of visual angle");
  s.numbers("eccentricities_deg", &ConstantStimuliSettings::eccentricities_deg, between(0, 90), kMaxSpecEccentricities,
            "the eccentricities from fixation, degrees");
  s.number("repetitions", &ConstantStimuliSettings::repetitions, between(1, 100000), "trials of each gap x eccentricity");
  s.number("catch_trials_per_block", &ConstantStimuliSettings::catch_trials_per_block, between(0, 100000),
           "trials with no gap in each block, at the eccentricities in turn");
  s.number("blocks", &ConstantStimuliSettings::blocks, between(1, 10000), "blocks, each shuffled on its own");
}

/// A staircase's rules as a spec writes them, beside the eccentricities and start values; the
/// intensity is the gap, so the range's keys say so.
void staircase_rules_keys(Section<StaircaseSettings>& s) {
  s.number("n_up", &StaircaseSettings::n_up, between(1, 100), "misses in a row that make the gap larger");
  s.number("n_down", &StaircaseSettings::n_down, between(1, 100), "hits in a row that make it smaller (1-up-3-down tracks 79.4 %)");
  s.numbers("step_sizes", &StaircaseSettings::step_sizes, {0, 1e6, true, false}, kMaxSpecStepSizes,
            "step sizes in step_type's units, the next one after each reversal, the last kept");
  s.choice("step_type", &StaircaseSettings::step_type, kStepTypes,
           "linear (degrees), log (log10 units) or db (decibels), as PsychoPy's StairHandler");
  s.number("n_trials", &StaircaseSettings::n_trials, between(1, 100000), "trials per staircase, at least");
  s.number("n_reversals", &StaircaseSettings::n_reversals, between(0, 10000), "reversals per staircase, at least");
  s.number("min_gap_deg", &StaircaseSettings::min_value, {0, 180, true, false},
           "the smallest gap a staircase may show, below max_gap_deg");
  s.number("max_gap_deg", &StaircaseSettings::max_value, {0, 180, true, false}, "the largest");
}

void staircase_design_keys(Section<InterleavedStaircaseSettings>& s) {
  s.numbers("eccentricities_deg", &InterleavedStaircaseSettings::eccentricities_deg, between(0, 90), kMaxSpecEccentricities,
            "one staircase at each, degrees from fixation");
  s.numbers("start_values_deg", &InterleavedStaircaseSettings::start_values_deg, {0, 180, true, false},
            kMaxSpecEccentricities,
            "each staircase's first gap: one value for all, or one per eccentricity");
  s.flattened(&InterleavedStaircaseSettings::rules, keys_of(staircase_rules_keys));
}

/// A psi's grids as a spec writes them, beside the eccentricities and trial counts
/// (psychophysics/psi.hpp).
void psi_grid_keys(Section<PsiSettings>& s) {
  s.choice("function", &PsiSettings::function, kPsychometricFunctions,
           "the sigmoid F the psi assumes, as perception.model.function (fit with the same)");
  s.number("guess_rate", &PsiSettings::guess_rate, {0, 1, false, true}, "gamma assumed: the rate of yes with no gap");
  s.number("min_gap_deg", &PsiSettings::min_gap_deg, {0, 180, true, false}, "the smallest gap a trial may show, degrees");
  s.number("max_gap_deg", &PsiSettings::max_gap_deg, {0, 180, true, false}, "the largest");
  s.number("gap_points", &PsiSettings::gap_points, between(1, 1000), "gaps on a log grid from min_gap_deg to max_gap_deg");
  s.number("min_threshold_deg", &PsiSettings::min_threshold_deg, {0, 180, true, false},
           "the threshold grid's smallest, degrees (the prior is flat in log threshold)");
  s.number("max_threshold_deg", &PsiSettings::max_threshold_deg, {0, 180, true, false}, "its largest");
  s.number("threshold_points", &PsiSettings::threshold_points, between(1, 1000), "thresholds on a log grid");
  s.number("min_width", &PsiSettings::min_width, {0, 1000, true, false},
           "the width grid's smallest (5 %-to-95 % rise, in thresholds; the prior is flat in log width)");
  s.number("max_width", &PsiSettings::max_width, {0, 1000, true, false}, "its largest");
  s.number("width_points", &PsiSettings::width_points, between(1, 1000), "widths on a log grid");
  s.number("min_lapse_rate", &PsiSettings::min_lapse_rate, {0, 1, false, true}, "the lapse grid's smallest (flat prior)");
  s.number("max_lapse_rate", &PsiSettings::max_lapse_rate, {0, 1, false, true}, "its largest");
  s.number("lapse_points", &PsiSettings::lapse_points, between(1, 1000), "lapse rates on a linear grid");
  s.boolean("marginal", &PsiSettings::marginal,
            "psi-marginal: choose gaps for threshold and width, the lapse a nuisance (false: for all three)");
}

void psi_design_keys(Section<InterleavedPsiSettings>& s) {
  s.numbers("eccentricities_deg", &InterleavedPsiSettings::eccentricities_deg, between(0, 90), kMaxSpecEccentricities,
            "one psi procedure at each, degrees from fixation");
  s.number("n_trials", &InterleavedPsiSettings::n_trials, between(1, 100000), "trials each procedure chooses the gap of");
  s.number("catch_trials", &InterleavedPsiSettings::catch_trials, between(0, 100000),
           "trials with no gap at each eccentricity, spread evenly (at most n_trials)");
  s.flattened(&InterleavedPsiSettings::grid, keys_of(psi_grid_keys));
}

void task_keys(Section<TaskSettings>& s) {
  s.choice("kind", &TaskSettings::kind, kTaskKinds,
           "yes_no (one animation: did you see a gap?) or 2ifc (two animations, the gap in one: which?)");
  s.text("yes_key", &TaskSettings::yes_key, "the key for yes, as SDL names keys (y, Left, Space)");
  s.text("no_key", &TaskSettings::no_key, "the key for no");
  s.text("first_key", &TaskSettings::first_key, "2ifc: the key for the first animation, as SDL names keys");
  s.text("second_key", &TaskSettings::second_key, "2ifc: the key for the second animation");
  s.number("interstimulus_interval_s", &TaskSettings::interstimulus_interval_s, between(0, 60),
           "2ifc: the blank, cross alone, between a trial's two animations, seconds");
  s.text("instructions", &TaskSettings::instructions, "shown before the first trial and after each break");
  s.number("break_every", &TaskSettings::break_every, between(0, 1e6), "trials between breaks; 0 for none");
  s.number("inter_trial_interval_s", &TaskSettings::inter_trial_interval_s, between(0, 600),
           "blank time between a response and the next trial, seconds");
}

void clip_scene_keys(Section<ClipScene>& s) {
  s.name("name", &ClipScene::name, "the scene's name in the records");
  s.path("file", &ClipScene::file, "the world config (configs/*.yaml), relative to the spec");
}

void clip_comparison_keys(Section<ClipComparisonSettings>& s) {
  s.list("scenes", &ClipComparisonSettings::scenes, keys_of(clip_scene_keys), "scenes (name, file)", kMaxClipScenes,
         "the scenes, each a world config; every trial's clips start from its seed and warm-up");
  s.choices("schedulers", &ClipComparisonSettings::schedulers, kSchedulerKinds, "the schedulers tested");
  s.numbers("budgets_tests", &ClipComparisonSettings::budgets_tests, between(1, 1e15), kMaxClipBudgets,
            "the budgets tested, sphere tests per frame (work budgets: the clips are deterministic)");
  s.choice("reference", &ClipComparisonSettings::reference, kClipReferences,
           "what the test clip is compared against: full (every collision resolved) or scheduler (reference_scheduler at the same budget)");
  s.choice("reference_scheduler", &ClipComparisonSettings::reference_scheduler, kSchedulerKinds,
           "the reference's scheduler, with reference: scheduler");
  s.number("clip_s", &ClipComparisonSettings::clip_s, {0, 60, true, false}, "each clip's length, seconds of the scene's time");
  s.number("warmup_frames", &ClipComparisonSettings::warmup_frames, between(0, 1e6),
           "frames stepped at full resolution before each clip, not shown");
  s.number("repetitions", &ClipComparisonSettings::repetitions, between(1, 10000),
           "trials of each scene x scheduler x budget, each from its own world seed");
  s.number("blocks", &ClipComparisonSettings::blocks, between(1, 10000), "blocks, each shuffled on its own");
  s.choice("task", &ClipComparisonSettings::task, kClipTasks,
           "2ifc (two clips, which looked wrong?) or yes_no (one clip, did you see an error?, answered with task.yes_key and no_key)");
  s.text("first_key", &ClipComparisonSettings::first_key, "2ifc: the key for the first clip, as SDL names keys");
  s.text("second_key", &ClipComparisonSettings::second_key, "2ifc: the key for the second clip");
}

void display_keys(Section<DisplaySettings>& s) {
  s.number("refresh_hz", &DisplaySettings::refresh_hz, {0, 1000, true, false},
           "the display's refresh rate, Hz: a person's session is refused on a display reporting another (or none) "
           "unless development_run");
  s.boolean("development_run", &DisplaySettings::development_run,
            "a pilot or test, not data: a person's session may run without vsync or at another refresh rate");
  s.number("index", &DisplaySettings::index, between(0, 63),
           "SDL's index of the monitor a person's window opens on, full screen: 0 the primary (session.log names "
           "each; an index SDL does not see is refused)");
  s.optional_number("gamma", &DisplaySettings::gamma, between(0.5, 5),
                    "the monitor's measured gamma: a stimulus's linear value L is sent as L^(1/gamma); ~ and no "
                    "lut_file: 2.2 assumed");
  s.path("lut_file", &DisplaySettings::lut_file,
         "a measured lookup table used instead of gamma: CSV of level,luminance or level,r,g,b (docs/psychophysics.md, "
         "The display); \"\" for none");
}

}  // namespace

const Section<ExperimentSettings>& experiment_schema() {
  static const Section<ExperimentSettings> schema = [] {
    Section<ExperimentSettings> s;
    s.name("name", &ExperimentSettings::name, "experiment name: sessions go to results/experiments/<name>/<participant>/");
    s.number("seed", &ExperimentSettings::seed, between(0, 9007199254740992.0), "seed of the design's order and the stimuli");
    s.section("screen", &ExperimentSettings::screen, keys_of(screen_keys), "the physical screen: every size in degrees comes from it");
    s.section("stimulus", &ExperimentSettings::stimulus, keys_of(stimulus_keys), "what a trial shows");
    s.choice("method", &ExperimentSettings::method, kDesignMethods,
             "constant_stimuli (a gap x eccentricity grid), staircase or psi (adaptive, interleaved, one per eccentricity), or clip_comparison (scenes under schedulers at budgets)");
    s.section("constant_stimuli", &ExperimentSettings::constant_stimuli, keys_of(constant_stimuli_keys),
              "the grid, with method: constant_stimuli");
    s.section("staircase", &ExperimentSettings::staircase, keys_of(staircase_design_keys), "the staircases, with method: staircase");
    s.section("psi", &ExperimentSettings::psi, keys_of(psi_design_keys), "the psi procedures, with method: psi");
    s.section("task", &ExperimentSettings::task, keys_of(task_keys), "the yes/no task");
    s.section("clip_comparison", &ExperimentSettings::clip_comparison, keys_of(clip_comparison_keys),
              "the clips, with method: clip_comparison (docs/psychophysics.md, Clip comparison)");
    s.section("display", &ExperimentSettings::display, keys_of(display_keys),
              "the display a person watches: which monitor, its gamma or lookup table, its refresh rate, and "
              "whether this is a development run");
    s.section("gaze", &ExperimentSettings::gaze, keys_of(gaze_keys),
              "where the viewer looks; a tracker (pupil, gazepoint) makes trials gaze-contingent");
    s.number("fixation_radius_deg", &ExperimentSettings::fixation_radius_deg, {0, 90, true, false},
             "with a tracker: a trial whose fixation leaves this radius around the cross is aborted and requeued");
    return s;
  }();
  return schema;
}

const Section<Settings>& settings_schema() {
  static const Section<Settings> schema = [] {
    Section<Settings> s;
    s.name("name", &Settings::name, "run name: results go to results/<name>-<UTC time>/");
    // Seeds are kept within 2^53 so they survive any tool that reads numbers as doubles.
    s.number("seed", &Settings::seed, between(0, 9007199254740992.0), "seed of every random choice");
    s.number("frames", &Settings::frames, between(0, 1e12), "frames to run");
    // Keys of AnimationSettings (a base of Settings) name their type explicitly.
    s.section<WorldSettings>("world", &Settings::world, keys_of(world_keys), "the world: box, time step, entities");
    s.section<ScheduleSettings>("schedule", &Settings::schedule, keys_of(schedule_keys),
                                "how the active collisions are scheduled (004 section 3.4.3)");
    s.section<BudgetSettings>("budget", &Settings::budget, keys_of(budget_keys),
                              "when collision processing stops each frame (004 section 3.4)");
    s.choice<InterruptPolicy>("interrupt_policy", &Settings::interrupt_policy, kInterruptPolicies,
                              "collisions unresolved at the budget: repulse (treat as real) or interpenetrate (drop)");
    s.section<NarrowPhaseSettings>("narrowphase", &Settings::narrowphase, keys_of(narrowphase_keys),
                                   "descents that save tests and find what 004's finds (docs/narrowphase.md)");
    s.number<int>("threads", &Settings::threads, between(0, 256),
             "threads for the frame's phases, 0: the machine's cores; results do not depend on it (docs/scale.md)");
    s.boolean("ground_truth", &Settings::ground_truth,
              "run the exact voxel test on every collision for the true metrics (slow; docs/metrics.md)");
    s.section<MetricsSettings>("metrics", &Settings::metrics, keys_of(metrics_keys),
                               "visibility, suprathreshold P and the warm-up (docs/metrics.md)");
    s.section<EvaluationSettings>("evaluate", &Settings::evaluate, keys_of(evaluation_keys),
                                  "the counterfactual evaluation of schedulers (docs/evaluation.md)");
    s.section<PerceptionSettings>("perception", &Settings::perception, keys_of(perception_keys),
                                  "the perception model and the view (004 section 3.4.2)");
    s.section<GazeSettings>("gaze", &Settings::gaze, keys_of(gaze_keys), "where the viewer looks");
    s.section<ResponseSettings>("response", &Settings::response, keys_of(response_keys),
                                "the collision response: gravity, materials, the impulse solver (004 section 3.5)");
    s.section("record", &Settings::record, keys_of(record_keys), "optional records of a run");
    s.section("render", &Settings::render, keys_of(render_keys),
              "the window, its overlays and panel, offscreen pictures (docs/render.md)");
    s.section("demo", &Settings::demo, keys_of(demo_keys), "the rockfall or crowd demo (docs/demos.md)");
    return s;
  }();
  return schema;
}

}  // namespace fovea::config
