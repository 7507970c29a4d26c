#pragma once

namespace hfsim {

/// Written into every report so results can be traced to the code that produced them.
inline constexpr const char* kHfsimVersion = "0.1.0";

}  // namespace hfsim
