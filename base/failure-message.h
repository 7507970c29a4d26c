// How a command names a failure it did not foresee: the exception's own words, except for
// std::bad_alloc, whose what() ("std::bad_alloc") tells a user nothing.
#pragma once

#include <exception>
#include <new>
#include <string>

namespace hfsim {

inline std::string FailureMessage(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) {
    return "out of memory (the run needs more than this machine or its limits give; "
           "docs/bad-input.md lists the size limits and docs/packet-engine.md §6 the packet "
           "engine's estimate)";
  }
  return error.what();
}

}  // namespace hfsim
