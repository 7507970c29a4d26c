#include "sim/report/timeline.h"

#include <fmt/format.h>

#include "models/collective.h"

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
  if (track.rfind("host ", 0) == 0) return 200 + std::stoi(track.substr(5));
  if (track.rfind("stream ", 0) == 0) return 100 + std::stoi(track.substr(7));
  if (track.rfind("dimension ", 0) == 0) return 1000 + std::stoi(track.substr(10));
  return 10000;
}

bool DescribeNode(const ExecutionGraph& graph, uint32_t rank_class, const GraphNode& node,
                  TimelineSpan& span) {
  span.rank_class = rank_class;
  span.phase = ToString(node.phase);
  const std::string layer = node.layer == kNoLayer ? "" : graph.layers[node.layer] + " ";
  switch (node.kind) {
    case GraphNodeKind::kCompute:
      if (node.duration_ns == 0.0) return false;
      // Compute beside stream 0 is host work (docs/graph.md §4), a track per stream.
      span.track = node.stream == 0 ? "compute" : fmt::format("host {}", node.stream);
      span.category = "compute";
      span.name = layer + std::string(ToString(node.phase));
      return true;
    case GraphNodeKind::kCollective:
      span.category = "collective";
      span.name = layer + std::string(ToString(node.collective)) +
                  (node.count > 1 ? fmt::format(" x{}", node.count) : "");
      span.bytes = static_cast<double>(node.size_bytes) * node.count;
      span.group = graph.communicators[node.communicator].name;
      break;
    case GraphNodeKind::kSend:
    case GraphNodeKind::kRecv:
      span.category = std::string(ToString(node.kind));
      span.name = layer + fmt::format("{} {} rank {}", ToString(node.kind),
                                      node.kind == GraphNodeKind::kSend ? "to" : "from", node.peer);
      span.bytes = static_cast<double>(node.size_bytes);
      span.group = fmt::format("rank {}", node.peer);
      break;
  }
  span.track = node.stream == 0 ? "communication" : fmt::format("stream {}", node.stream);
  return true;
}

}  // namespace hfsim
