#include "render/scene_renderer.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "core/stopwatch.hpp"
#include "render/gl_window.hpp"
#include "render/shader_program.hpp"
#include "render/voxel_mesh.hpp"

namespace fovea {
namespace {

constexpr const char* kVertexShader = R"(#version 330 core
layout(location = 0) in vec3 position_m;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec4 colour_srgb;
layout(location = 3) in vec4 model_0;
layout(location = 4) in vec4 model_1;
layout(location = 5) in vec4 model_2;
layout(location = 6) in vec4 model_3;
layout(location = 7) in vec4 tint;
uniform mat4 view_projection;
out vec3 world_normal;
out vec3 albedo;
void main() {
  mat4 model = mat4(model_0, model_1, model_2, model_3);
  gl_Position = view_projection * (model * vec4(position_m, 1.0));
  world_normal = mat3(model) * normal;  // a rotation: no inverse transpose needed
  vec3 linear = pow(colour_srgb.rgb, vec3(2.2));
  albedo = mix(linear, tint.rgb, tint.a);
}
)";

// Linear light is sent as the display's calibration says (psychophysics/display_calibration.hpp):
// linear^(1 / gamma), or with a measured table the 8-bit level whose thresholds (the linear
// values at which levels 1 to 255 begin, 255 x 1 texels, red, green and blue) lie below it,
// found by bisection: the level DisplayCalibration::level_for gives.
constexpr const char* kFragmentShader = R"(#version 330 core
in vec3 world_normal;
in vec3 albedo;
uniform vec3 towards_light;
uniform float display_gamma;
uniform bool display_table;
uniform sampler2D level_thresholds;
out vec4 colour;
float table_level(float linear, vec4 channel) {
  int low = 0;
  int high = 255;
  while (low < high) {
    int mid = (low + high + 1) / 2;
    if (dot(texelFetch(level_thresholds, ivec2(mid - 1, 0), 0), channel) < linear)
      low = mid;
    else
      high = mid - 1;
  }
  return float(low) / 255.0;
}
void main() {
  float lambert = max(dot(normalize(world_normal), towards_light), 0.0);
  vec3 linear = albedo * (0.35 + 0.65 * lambert);
  if (display_table)
    colour = vec4(table_level(linear.r, vec4(1.0, 0.0, 0.0, 0.0)), table_level(linear.g, vec4(0.0, 1.0, 0.0, 0.0)),
                  table_level(linear.b, vec4(0.0, 0.0, 1.0, 0.0)), 1.0);
  else
    colour = vec4(pow(linear, vec3(1.0 / display_gamma)), 1.0);
}
)";

/// Linear light in [0, 1] to the nominal encoding, kNominalDisplayGamma's: vertex colours are
/// kept so (VoxelModel's palette convention) and decoded by the vertex shader.
double srgb_encode(double linear) { return std::pow(std::clamp(linear, 0.0, 1.0), 1.0 / kNominalDisplayGamma); }

std::uint8_t srgb_byte(double linear) {
  return static_cast<std::uint8_t>(std::lround(srgb_encode(linear) * 255));
}

}  // namespace

std::uint32_t srgb_rgba(const Vec3& linear_rgb) {
  return std::uint32_t{srgb_byte(linear_rgb.x)} | (std::uint32_t{srgb_byte(linear_rgb.y)} << 8) |
         (std::uint32_t{srgb_byte(linear_rgb.z)} << 16) | (0xffu << 24);
}

SceneRenderer::SceneRenderer(std::span<const VoxelModel> models, std::span<const Entity> entities) {
  program_ = std::make_unique<ShaderProgram>("scene", kVertexShader, kFragmentShader);
  view_projection_uniform_ = program_->uniform("view_projection");
  light_uniform_ = program_->uniform("towards_light");
  gamma_uniform_ = program_->uniform("display_gamma");
  table_uniform_ = program_->uniform("display_table");
  thresholds_uniform_ = program_->uniform("level_thresholds");

  std::vector<std::uint32_t> colour(models.size(), srgb_rgba(Vec3(0.7)));
  std::vector<bool> coloured(models.size(), false);
  for (const Entity& e : entities)
    if (e.model < models.size() && !coloured[e.model]) {
      colour[e.model] = srgb_rgba(e.material.colour);
      coloured[e.model] = true;
    }

  glGenBuffers(1, &instance_buffer_);
  Stopwatch clock;
  meshes_.resize(models.size());
  mesh_generation_.assign(models.size(), 1);  // the models a world starts with are each slot's first
  for (std::size_t m = 0; m < models.size(); ++m) upload(m, models[m], colour[m]);
  upload_floor();
  mesh_ms_ = clock.elapsed_ms();
  check_gl("SceneRenderer: uploading the meshes");
}

void SceneRenderer::upload_floor() {
  // One face up, counter-clockwise seen from above; the colour comes from the tint.
  VoxelMesh quad;
  const float corners[4][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
  for (const auto& c : corners) quad.vertices.push_back({{c[0], 0.0f, c[1]}, {0.0f, 1.0f, 0.0f}, 0xffffffffu});
  quad.indices = {0, 1, 2, 0, 2, 3};
  upload_mesh(floor_, quad);
}

void SceneRenderer::upload(std::size_t m, const VoxelModel& model, std::uint32_t colour) {
  GpuMesh& gpu = meshes_[m];
  if (gpu.vertex_array != 0) {
    quads_ -= gpu.quads;
    unit_faces_ -= gpu.unit_faces;
    glDeleteVertexArrays(1, &gpu.vertex_array);
    glDeleteBuffers(1, &gpu.vertex_buffer);
    glDeleteBuffers(1, &gpu.index_buffer);
    gpu = GpuMesh{};
  }
  const VoxelMesh mesh = mesh_voxel_model(model, colour);
  gpu.quads = mesh.quads();
  gpu.unit_faces = exposed_face_count(model);
  quads_ += gpu.quads;
  unit_faces_ += gpu.unit_faces;
  upload_mesh(gpu, mesh);
}

void SceneRenderer::upload_mesh(GpuMesh& gpu, const VoxelMesh& mesh) {
  gpu.index_count = static_cast<GLsizei>(mesh.indices.size());
  glGenVertexArrays(1, &gpu.vertex_array);
  glGenBuffers(1, &gpu.vertex_buffer);
  glGenBuffers(1, &gpu.index_buffer);
  glBindVertexArray(gpu.vertex_array);
  glBindBuffer(GL_ARRAY_BUFFER, gpu.vertex_buffer);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(mesh.vertices.size() * sizeof(MeshVertex)), mesh.vertices.data(),
               GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, gpu.index_buffer);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(mesh.indices.size() * sizeof(std::uint32_t)),
               mesh.indices.data(), GL_STATIC_DRAW);
  const auto stride = static_cast<GLsizei>(sizeof(MeshVertex));
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(MeshVertex, position_m)));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(MeshVertex, normal)));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, reinterpret_cast<void*>(offsetof(MeshVertex, rgba)));
  // The instance attributes (3 to 7) point into instance_buffer_, per model at draw time.
  for (GLuint a = 3; a <= 7; ++a) {
    glEnableVertexAttribArray(a);
    glVertexAttribDivisor(a, 1);
  }
  glBindVertexArray(0);
}

void SceneRenderer::update_models(std::span<const VoxelModel> models, std::span<const Entity> prototypes,
                                  std::span<const std::uint32_t> generations) {
  if (meshes_.size() < models.size()) {
    meshes_.resize(models.size());
    mesh_generation_.resize(models.size(), 0);
  }
  Stopwatch clock;
  bool changed = false;
  for (std::size_t m = 0; m < models.size(); ++m) {
    if (mesh_generation_[m] == generations[m]) continue;
    upload(m, models[m], srgb_rgba(prototypes[m].material.colour));
    mesh_generation_[m] = generations[m];
    changed = true;
  }
  if (!changed) return;
  mesh_ms_ += clock.elapsed_ms();
  check_gl("SceneRenderer: uploading new meshes");
}

void SceneRenderer::set_calibration(const DisplayCalibration& calibration) {
  calibration_ = calibration;
  if (!calibration.has_table()) return;
  std::vector<float> thresholds(3 * (kDisplayLevels - 1));
  for (int level = 1; level < kDisplayLevels; ++level)
    for (int c = 0; c < 3; ++c)
      thresholds[static_cast<std::size_t>(3 * (level - 1) + c)] = static_cast<float>(calibration.level_threshold(level, c));
  if (thresholds_texture_ == 0) glGenTextures(1, &thresholds_texture_);
  glBindTexture(GL_TEXTURE_2D, thresholds_texture_);
  // Read by texelFetch: no filtering, and no mipmaps for the texture to be complete.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB32F, kDisplayLevels - 1, 1, 0, GL_RGB, GL_FLOAT, thresholds.data());
  glBindTexture(GL_TEXTURE_2D, 0);
  check_gl("SceneRenderer: the display's level thresholds");
}

SceneRenderer::~SceneRenderer() {
  if (thresholds_texture_ != 0) glDeleteTextures(1, &thresholds_texture_);
  meshes_.push_back(floor_);
  for (const GpuMesh& m : meshes_) {
    glDeleteVertexArrays(1, &m.vertex_array);
    glDeleteBuffers(1, &m.vertex_buffer);
    glDeleteBuffers(1, &m.index_buffer);
  }
  glDeleteBuffers(1, &instance_buffer_);
}

void SceneRenderer::draw(const View& view, const Aabb& world_box, const PictureViewport& viewport,
                         std::span<const Entity> entities, std::span<const EntityState> states,
                         std::span<const EntityTint> tints, const SceneStyle& style) {
  glViewport(viewport.x_px, viewport.y_px, viewport.width_px, viewport.height_px);
  if (style.clear) {
    glEnable(GL_SCISSOR_TEST);
    glScissor(viewport.x_px, viewport.y_px, viewport.width_px, viewport.height_px);
    glClearColor(static_cast<float>(calibration_.value_for(style.background.x, 0)),
                 static_cast<float>(calibration_.value_for(style.background.y, 1)),
                 static_cast<float>(calibration_.value_for(style.background.z, 2)), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
  }
  if (entities.empty() && !style.floor) return;

  // Instances of the live entities grouped by model (a counting sort: entity order inside a
  // model is kept).
  model_first_.assign(meshes_.size() + 1, 0);
  for (const Entity& e : entities)
    if (e.live) ++model_first_[e.model + 1];
  for (std::size_t m = 1; m < model_first_.size(); ++m) model_first_[m] += model_first_[m - 1];
  instances_.resize(model_first_.back());
  std::vector<std::uint32_t>& next = scratch_next_;
  next.assign(model_first_.begin(), model_first_.end() - 1);
  for (EntityId id = 0; id < entities.size(); ++id) {
    const Entity& e = entities[id];
    if (!e.live) continue;
    const EntityState& s = states[id];
    // world = position + R (p - centre of mass): translate(position) * R * translate(-com).
    const Mat3 rotation = glm::mat3_cast(s.orientation);
    const Vec3 translation = s.position_m - rotation * e.centre_of_mass_model_m;
    Instance& out = instances_[next[e.model]++];
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) out.model[c * 4 + r] = static_cast<float>(rotation[c][r]);
    out.model[3] = out.model[7] = out.model[11] = 0;
    out.model[12] = static_cast<float>(translation.x);
    out.model[13] = static_cast<float>(translation.y);
    out.model[14] = static_cast<float>(translation.z);
    out.model[15] = 1;
    const EntityTint t = tints.empty() ? EntityTint{} : tints[id];
    out.tint[0] = t.r;
    out.tint[1] = t.g;
    out.tint[2] = t.b;
    out.tint[3] = t.weight;
  }
  // The floor, last: the unit square scaled to the box's floor, tinted all over.
  const std::size_t floor_instance = instances_.size();
  if (style.floor) {
    Instance floor{};
    const Vec3 size = world_box.size_m();
    floor.model[0] = static_cast<float>(size.x);
    floor.model[5] = 1;
    floor.model[10] = static_cast<float>(size.z);
    floor.model[12] = static_cast<float>(world_box.min_m.x);
    floor.model[13] = static_cast<float>(world_box.min_m.y);
    floor.model[14] = static_cast<float>(world_box.min_m.z);
    floor.model[15] = 1;
    floor.tint[0] = static_cast<float>(style.floor_colour.x);
    floor.tint[1] = static_cast<float>(style.floor_colour.y);
    floor.tint[2] = static_cast<float>(style.floor_colour.z);
    floor.tint[3] = 1;
    instances_.push_back(floor);
  }
  glBindBuffer(GL_ARRAY_BUFFER, instance_buffer_);
  if (instances_.size() > instance_capacity_) {
    instance_capacity_ = std::max(instances_.size(), 2 * instance_capacity_);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(instance_capacity_ * sizeof(Instance)), nullptr, GL_STREAM_DRAW);
  }
  glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(instances_.size() * sizeof(Instance)), instances_.data());

  double near_m = 0, far_m = 0;
  depth_range(view, world_box, near_m, far_m);
  const glm::mat4 clip = view_projection(view, near_m, far_m);
  Vec3 towards_light = -style.light_direction;
  towards_light = glm::length(towards_light) > 0 ? glm::normalize(towards_light) : Vec3(0, 1, 0);

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  glFrontFace(GL_CCW);
  program_->use();
  glUniformMatrix4fv(view_projection_uniform_, 1, GL_FALSE, &clip[0][0]);
  glUniform3f(light_uniform_, static_cast<float>(towards_light.x), static_cast<float>(towards_light.y),
              static_cast<float>(towards_light.z));
  glUniform1f(gamma_uniform_, static_cast<float>(calibration_.gamma()));
  glUniform1i(table_uniform_, calibration_.has_table() ? 1 : 0);
  glUniform1i(thresholds_uniform_, 0);
  if (calibration_.has_table()) {
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, thresholds_texture_);
  }
  const auto stride = static_cast<GLsizei>(sizeof(Instance));
  const auto draw_instances = [&](const GpuMesh& mesh, std::size_t first, GLsizei count) {
    glBindVertexArray(mesh.vertex_array);
    // OpenGL 3.3 has no base instance: the instance attributes start at this run.
    const std::size_t base = first * sizeof(Instance);
    for (GLuint column = 0; column < 4; ++column)
      glVertexAttribPointer(3 + column, 4, GL_FLOAT, GL_FALSE, stride,
                            reinterpret_cast<void*>(base + offsetof(Instance, model) + column * 4 * sizeof(float)));
    glVertexAttribPointer(7, 4, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(base + offsetof(Instance, tint)));
    glDrawElementsInstanced(GL_TRIANGLES, mesh.index_count, GL_UNSIGNED_INT, nullptr, count);
  };
  for (std::size_t m = 0; m < meshes_.size(); ++m) {
    const GLsizei count = static_cast<GLsizei>(model_first_[m + 1] - model_first_[m]);
    if (count == 0 || meshes_[m].index_count == 0) continue;
    draw_instances(meshes_[m], model_first_[m], count);
  }
  if (style.floor) draw_instances(floor_, floor_instance, 1);
  glBindVertexArray(0);
  if (calibration_.has_table()) glBindTexture(GL_TEXTURE_2D, 0);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
}

}  // namespace fovea
