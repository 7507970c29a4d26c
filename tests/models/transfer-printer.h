// Lets GoogleTest print a Transfer readably ("0->1 [3,+1) reduce") when a comparison fails.
#pragma once

#include <ostream>

#include "models/schedule.h"

namespace hfsim {

inline void PrintTo(const Transfer& t, std::ostream* out) {
  *out << t.src << "->" << t.dst << " [" << t.first_block << ",+" << t.block_count << ")"
       << (t.reduce ? " reduce" : " store");
}

}  // namespace hfsim
