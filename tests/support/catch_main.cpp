#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

int main(int argc, char** argv) {
  // The tests run as on a server, whatever machine runs them: `fovea run` started by a test
  // must not open windows on a developer's desktop (it draws when a display is present), and
  // the rendering tests ask for offscreen drawing themselves.
  unsetenv("DISPLAY");
  unsetenv("WAYLAND_DISPLAY");
  unsetenv("SDL_VIDEODRIVER");
  return Catch::Session().run(argc, argv);
}
