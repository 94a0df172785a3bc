#include "gaze/gazepoint_gaze.hpp"
