// Prints the study figure kinds and keys study_settings accepts (figure_kinds()), in the
// form `python3 experiments/plots/study_figures.py --keys` prints the plotting script's, for
// tests/plots/figure_keys.sh to compare the two.

#include <iostream>

#include "study/study_settings.hpp"

int main() {
  for (const fovea::FigureKind& kind : fovea::figure_kinds()) {
    std::cout << kind.name << " keys";
    for (const std::string& key : kind.keys) std::cout << ' ' << key;
    std::cout << '\n' << kind.name << " required";
    for (const std::string& key : kind.required) std::cout << ' ' << key;
    std::cout << '\n';
  }
  return 0;
}
