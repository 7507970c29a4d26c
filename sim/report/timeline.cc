#include "sim/report/timeline.h"

#include <fmt/format.h>

namespace hfsim {

std::string RanksLabel(const std::vector<uint32_t>& ranks) {
  if (ranks.size() == 1) return fmt::format("rank {}", ranks.front());
  bool consecutive = true;
  for (size_t i = 1; i < ranks.size() && consecutive; ++i) consecutive = ranks[i] == ranks[i - 1] + 1;
  if (consecutive) return fmt::format("ranks {}-{}", ranks.front(), ranks.back());
  std::string label = "ranks ";
  for (size_t i = 0; i < ranks.size() && i < 4; ++i) label += fmt::format("{}{}", i ? "," : "", ranks[i]);
  if (ranks.size() > 4) label += fmt::format(",... ({} ranks)", ranks.size());
  return label;
}

int TrackOrder(const std::string& track) {
  if (track == "compute") return 0;
  if (track == "communication") return 1;
  if (track.rfind("stream ", 0) == 0) return 100 + std::stoi(track.substr(7));
  if (track.rfind("dimension ", 0) == 0) return 1000 + std::stoi(track.substr(10));
  return 10000;
}

}  // namespace hfsim
