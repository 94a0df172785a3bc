#pragma once

#include <epoxy/gl.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "perception/view.hpp"
#include "psychophysics/display_calibration.hpp"
#include "render/camera.hpp"
#include "render/voxel_mesh.hpp"
#include "world/entity.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

class ShaderProgram;

/// A colour over an entity's own, linear RGB, and how much of it (0: none, 1: only it).
struct EntityTint {
  /// r, g, b: linear RGB, 0 to 1; weight: fraction 0 to 1 mixed over the entity's colour.
  float r = 0, g = 0, b = 0, weight = 0;
};

/// How the scene is lit and cleared.
struct SceneStyle {
  Vec3 background{0.1, 0.11, 0.13};        ///< linear RGB
  Vec3 light_direction{-0.4, -1.0, -0.6};  ///< the direction the light travels
  bool floor = false;                      ///< the world box's floor drawn as ground
  Vec3 floor_colour{0.1, 0.1, 0.09};       ///< linear RGB
  /// false: draw over what the framebuffer holds (its depth cleared by the caller), as a
  /// stimulus does over its fixation cross.
  bool clear = true;
};

/// Draws the voxel entities: one mesh per model, made once (render/voxel_mesh.hpp), drawn
/// instanced with each entity's pose; flat faces lit by one directional light plus ambient.
/// Colours are per voxel (the model's .vox palette) or the entity's material colour.
/// Shading is done in linear light and sent as the display's calibration says
/// (set_calibration): by default, kNominalDisplayGamma's power, close to sRGB.
class SceneRenderer {
 public:
  /// Meshes every model; `entities` give each model its material colour (the first entity
  /// using it: models are not shared across groups).
  SceneRenderer(std::span<const VoxelModel> models, std::span<const Entity> entities);
  ~SceneRenderer();
  SceneRenderer(const SceneRenderer&) = delete;
  SceneRenderer& operator=(const SceneRenderer&) = delete;

  /// Meshes the model slots that are new or hold a new model since the last call (a world's
  /// models added at run time: ModelLibrary::generations()), each in its prototype's colour.
  void update_models(std::span<const VoxelModel> models, std::span<const Entity> prototypes,
                     std::span<const std::uint32_t> generations);
  /// How linear light is sent to the framebuffer from now on, the clear colour's too: a
  /// gamma, or a measured table's 8-bit levels (a psychophysics display's, display.gamma or
  /// display.lut_file). Until called, none measured: kNominalDisplayGamma. Needs the context.
  void set_calibration(const DisplayCalibration& calibration);
  /// Clears the picture's viewport and draws every live entity as `view` sees it. `tints` is empty
  /// or has one entry per entity.
  void draw(const View& view, const Aabb& world_box, const PictureViewport& viewport, std::span<const Entity> entities,
            std::span<const EntityState> states, std::span<const EntityTint> tints, const SceneStyle& style);

  /// Faces (merged quads) of all meshes, and their unmerged count: the mesher's saving.
  std::int64_t quads() const { return quads_; }
  /// Exposed unit voxel faces of all meshes before merging (exposed_face_count).
  std::int64_t unit_faces() const { return unit_faces_; }
  /// Wall time meshing all models took, ms.
  double mesh_ms() const { return mesh_ms_; }

 private:
  struct GpuMesh {
    GLuint vertex_array = 0;
    GLuint vertex_buffer = 0;
    GLuint index_buffer = 0;
    GLsizei index_count = 0;
    std::int64_t quads = 0;       ///< for quads() and unit_faces() when a mesh is replaced
    std::int64_t unit_faces = 0;
  };
  /// (Re)meshes slot `m`.
  void upload(std::size_t m, const VoxelModel& model, std::uint32_t colour);
  /// Sends a mesh's vertices and indices to the GPU into `gpu`'s new buffers.
  void upload_mesh(GpuMesh& gpu, const VoxelMesh& mesh);
  void upload_floor();
  /// What each entity sends to the GPU per frame: its model matrix and tint, 80 bytes.
  struct Instance {
    float model[16];
    float tint[4];
  };
  std::vector<GpuMesh> meshes_;            // by ModelId
  GpuMesh floor_;                          // a unit square at y = 0, scaled to the box's floor
  std::vector<std::uint32_t> mesh_generation_;  // by ModelId: the model generation meshed
  std::unique_ptr<ShaderProgram> program_;
  GLint view_projection_uniform_ = -1;
  GLint light_uniform_ = -1;
  GLint gamma_uniform_ = -1;
  GLint table_uniform_ = -1;
  GLint thresholds_uniform_ = -1;
  DisplayCalibration calibration_;   // how linear light is sent
  GLuint thresholds_texture_ = 0;    // a table's level thresholds, 255 x 1 RGB32F (0 until one is set)
  GLuint instance_buffer_ = 0;
  std::size_t instance_capacity_ = 0;
  std::vector<Instance> instances_;        // this frame's, grouped by model
  std::vector<std::uint32_t> model_first_; // by ModelId: first instance, then one past the last
  std::vector<std::uint32_t> scratch_next_;
  std::int64_t quads_ = 0;
  std::int64_t unit_faces_ = 0;
  double mesh_ms_ = 0;
};

/// Linear RGB in [0, 1] to 8-bit sRGB, red in the low byte, alpha 255 (VoxelModel's palette
/// convention).
std::uint32_t srgb_rgba(const Vec3& linear_rgb);

}  // namespace fovea
