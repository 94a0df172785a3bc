#pragma once

#include <epoxy/gl.h>

#include <string>

namespace fovea {

/// A linked GLSL 3.30 program. Throws RenderError with the compiler's log, naming the
/// program, when a stage does not compile or the program does not link.
class ShaderProgram {
 public:
  /// Compiles and links the two GLSL stages; `name` is for error messages. Needs a current context.
  ShaderProgram(const char* name, const char* vertex_source, const char* fragment_source);
  ~ShaderProgram();
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;

  /// Makes it the program OpenGL draws with (glUseProgram).
  void use() const { glUseProgram(program_); }
  /// The location of a uniform the program must have (RenderError otherwise: a typo in a
  /// name would silently draw nothing).
  GLint uniform(const char* uniform_name) const;

 private:
  std::string name_;
  GLuint program_ = 0;
};

}  // namespace fovea
