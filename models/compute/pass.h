// Which half of a training step a kernel belongs to: the forward pass, or the backward pass
// (input and weight gradients).
#pragma once

#include <cstdint>
#include <string_view>

namespace hfsim {

enum class Pass : uint8_t { kForward, kBackward };

/// "forward", "backward".
inline std::string_view ToString(Pass pass) {
  return pass == Pass::kForward ? "forward" : "backward";
}

}  // namespace hfsim
