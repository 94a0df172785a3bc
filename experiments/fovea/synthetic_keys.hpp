#pragma once

// --synthetic-keys (docs/psychophysics.md, "Testing a session"): a person's session with the
// keyboard replaced by a script, shared by the sessions of every method.

#include <deque>
#include <string>

#include <SDL.h>

namespace fovea {

/// The screens of a person's session, as --synthetic-keys names them.
enum class Screen {
  none,          ///< no key is awaited (the answer screen's first frame drops earlier keys)
  instructions,  ///< the instructions, until Space
  pause,         ///< a break, until Space ("break")
  blank,         ///< the cross alone before a stimulus
  stimulus,      ///< the stimulus: keys are not answers
  answer,        ///< the cross after the stimulus, until yes or no
};

/// --synthetic-keys: keys pushed into SDL's event queue, each when the session waits on its
/// screen, so a whole session runs through the same event path as a person's keyboard
/// (docs/psychophysics.md, "Testing a session"). SDL_PushEvent stamps each with SDL's clock.
class SyntheticKeys {
 public:
  struct Key {
    Screen screen;
    std::string screen_name, key_name;
    SDL_Keycode key;
  };
  /// Throws std::invalid_argument naming the entry at fault.
  explicit SyntheticKeys(const std::string& script);
  /// Pushes the next key when the session waits on its screen.
  void offer(Screen screen);
  std::size_t left() const { return keys_.size(); }
  std::string next() const { return keys_.empty() ? "" : keys_.front().screen_name + ":" + keys_.front().key_name; }

 private:
  std::deque<Key> keys_;
};

}  // namespace fovea
