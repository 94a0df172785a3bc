#include "render/shader_program.hpp"

#include <vector>

#include "render/gl_window.hpp"

namespace fovea {
namespace {

std::string info_log(GLuint object, bool is_program) {
  GLint length = 0;
  if (is_program) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
  else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
  std::vector<char> text(static_cast<std::size_t>(std::max(length, 1)));
  if (is_program) glGetProgramInfoLog(object, length, nullptr, text.data());
  else glGetShaderInfoLog(object, length, nullptr, text.data());
  return std::string(text.data());
}

GLuint compile(const std::string& name, GLenum stage, const char* source) {
  const GLuint shader = glCreateShader(stage);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    const std::string log = info_log(shader, false);
    glDeleteShader(shader);
    throw RenderError("the " + name + (stage == GL_VERTEX_SHADER ? " vertex" : " fragment") +
                      " shader does not compile: " + log);
  }
  return shader;
}

}  // namespace

ShaderProgram::ShaderProgram(const char* name, const char* vertex_source, const char* fragment_source) : name_(name) {
  const GLuint vertex = compile(name_, GL_VERTEX_SHADER, vertex_source);
  GLuint fragment = 0;
  try {
    fragment = compile(name_, GL_FRAGMENT_SHADER, fragment_source);
  } catch (...) {
    glDeleteShader(vertex);
    throw;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vertex);
  glAttachShader(program_, fragment);
  glLinkProgram(program_);
  glDeleteShader(vertex);  // flagged; freed with the program
  glDeleteShader(fragment);
  GLint ok = GL_FALSE;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    const std::string log = info_log(program_, true);
    glDeleteProgram(program_);
    throw RenderError("the " + name_ + " shaders do not link: " + log);
  }
}

ShaderProgram::~ShaderProgram() { glDeleteProgram(program_); }

GLint ShaderProgram::uniform(const char* uniform_name) const {
  const GLint location = glGetUniformLocation(program_, uniform_name);
  if (location < 0) throw RenderError("the " + name_ + " shaders have no uniform " + uniform_name);
  return location;
}

}  // namespace fovea
