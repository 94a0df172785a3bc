#include "fovea/synthetic_keys.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/format.hpp"

namespace fovea {

SyntheticKeys::SyntheticKeys(const std::string& script) {
  std::size_t from = 0;
  while (from <= script.size()) {
    const std::size_t comma = std::min(script.find(',', from), script.size());
    const std::string entry = script.substr(from, comma - from);
    from = comma + 1;
    const std::size_t colon = entry.find(':');
    if (colon == std::string::npos)
      throw std::invalid_argument("\"" + excerpt(entry) + "\": expected SCREEN:KEY, e.g. answer:y");
    Key k{Screen::none, entry.substr(0, colon), entry.substr(colon + 1), SDLK_UNKNOWN};
    static const std::map<std::string, Screen> screens{{"instructions", Screen::instructions},
                                                      {"break", Screen::pause},
                                                      {"blank", Screen::blank},
                                                      {"stimulus", Screen::stimulus},
                                                      {"answer", Screen::answer}};
    const auto screen = screens.find(k.screen_name);
    if (screen == screens.end())
      throw std::invalid_argument("\"" + excerpt(entry) +
                                  "\": the screen is one of instructions, break, blank, stimulus, answer");
    k.screen = screen->second;
    k.key = SDL_GetKeyFromName(k.key_name.c_str());
    if (k.key == SDLK_UNKNOWN)
      throw std::invalid_argument("\"" + excerpt(entry) + "\": " + excerpt(k.key_name) +
                                  " is not a key name SDL knows");
    keys_.push_back(k);
  }
}

void SyntheticKeys::offer(Screen screen) {
  if (keys_.empty() || keys_.front().screen != screen) return;
  SDL_Event e{};
  e.type = SDL_KEYDOWN;
  e.key.state = SDL_PRESSED;
  e.key.keysym.sym = keys_.front().key;
  e.key.keysym.scancode = SDL_GetScancodeFromKey(keys_.front().key);
  if (SDL_PushEvent(&e) < 0) throw std::runtime_error(std::string("--synthetic-keys: SDL_PushEvent: ") + SDL_GetError());
  keys_.pop_front();
}

}  // namespace fovea
