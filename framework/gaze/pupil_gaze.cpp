#include "gaze/pupil_gaze.hpp"
