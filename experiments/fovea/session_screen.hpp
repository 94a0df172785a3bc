#pragma once

// A person's side of a `fovea experiment` session, whatever its method: the spec's window,
// drawn frame after frame until the person presses a key that matters, and the keys they
// press (the keyboard, or the --synthetic-keys of a test or pilot).

#include <functional>
#include <string>
#include <vector>

#include <SDL.h>

#include "fovea/synthetic_keys.hpp"
#include "render/stimulus_display.hpp"

namespace fovea {

class SessionScreen {
 public:
  /// A key that matters: Space, one of the answer keys, or quit (Escape, the window closed).
  enum class Key { none, space, answer, quit };

  /// `answer_keys`: in order (yes, no; a 2IFC's first, second). `script`: the synthetic keys
  /// of a test or pilot, or null for a keyboard.
  SessionScreen(StimulusDisplay* display, std::vector<SDL_Keycode> answer_keys, SyntheticKeys* script);

  /// The events since the last call, on `screen`: the last key that matters, or quit at once.
  Key pump(Screen screen);
  /// Which answer key the last Key::answer was: its index in the answer keys.
  int answer_index() const { return answer_index_; }

  /// `text` until Space (`screen`: the instructions or a break); false when the person quits.
  bool wait_for_space(Screen screen, const std::string& text);
  /// `draw`, presented frame after frame for `seconds`; false when the person quits.
  bool for_seconds(Screen screen, double seconds, const std::function<void()>& draw);
  /// Waits for an answer key, `draw` presented each frame; a key pressed before the call does
  /// not answer. Returns the key's index, or -1 when the person quits; `reaction_time_ms`:
  /// from `shown_ms` (SDL's clock) to the key's event time.
  int wait_for_answer(std::uint64_t shown_ms, double& reaction_time_ms, const std::function<void()>& draw);

 protected:
  StimulusDisplay& display() { return *display_; }

 private:
  StimulusDisplay* display_;
  std::vector<SDL_Keycode> answer_keys_;
  SyntheticKeys* script_;
  int answer_index_ = -1;
  Uint64 last_key_ms_ = 0;  ///< SDL's event time of the last key pump() returned
};

}  // namespace fovea
