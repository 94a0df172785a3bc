#include "fovea/session_screen.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/stopwatch.hpp"

namespace fovea {

SessionScreen::SessionScreen(StimulusDisplay* display, std::vector<SDL_Keycode> answer_keys, SyntheticKeys* script)
    : display_(display), answer_keys_(std::move(answer_keys)), script_(script) {}

SessionScreen::Key SessionScreen::pump(Screen screen) {
  if (script_ != nullptr) script_->offer(screen);
  Key key = Key::none;
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    if (e.type == SDL_QUIT) return Key::quit;
    if (e.type != SDL_KEYDOWN || e.key.repeat) continue;
    const SDL_Keycode k = e.key.keysym.sym;
    if (k == SDLK_ESCAPE) return Key::quit;
    const auto answer = std::find(answer_keys_.begin(), answer_keys_.end(), k);
    if (answer != answer_keys_.end()) {
      key = Key::answer;
      answer_index_ = static_cast<int>(answer - answer_keys_.begin());
    } else if (k == SDLK_SPACE) {
      key = Key::space;
    } else {
      continue;
    }
    last_key_ms_ = e.key.timestamp;
  }
  return key;
}

bool SessionScreen::wait_for_space(Screen screen, const std::string& text) {
  while (true) {
    display_->draw_message(text);
    display_->present();
    const Key key = pump(screen);
    if (key == Key::quit) return false;
    if (key == Key::space) return true;
  }
}

bool SessionScreen::for_seconds(Screen screen, double seconds, const std::function<void()>& draw) {
  const auto from = std::chrono::steady_clock::now();
  while (seconds_since(from) < seconds) {
    draw();
    display_->present();
    if (pump(screen) == Key::quit) return false;
  }
  return true;
}

int SessionScreen::wait_for_answer(std::uint64_t shown_ms, double& reaction_time_ms,
                                   const std::function<void()>& draw) {
  // What was pressed before now does not answer; Escape or closing the window still quits.
  if (pump(Screen::none) == Key::quit) return -1;
  while (true) {
    draw();
    display_->present();
    const Key key = pump(Screen::answer);
    if (key == Key::quit) return -1;
    if (key == Key::answer) {
      reaction_time_ms = static_cast<double>(last_key_ms_ >= shown_ms ? last_key_ms_ - shown_ms : 0);
      return answer_index_;
    }
  }
}

}  // namespace fovea
