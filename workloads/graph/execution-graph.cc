#include "workloads/graph/execution-graph.h"

#include <algorithm>

namespace hfsim {

std::vector<uint32_t> ClassOfRanks(const ExecutionGraph& graph) {
  std::vector<uint32_t> class_of(graph.rank_count, 0);
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    for (const uint32_t rank : graph.classes[c].ranks) class_of[rank] = c;
  }
  return class_of;
}

PeerResolver::PeerResolver(const ExecutionGraph& graph)
    : m_graph(&graph), m_place(graph.rank_count, Place{0, 0}) {
  for (uint32_t c = 0; c < graph.classes.size(); ++c) {
    const auto& ranks = graph.classes[c].ranks;
    for (uint32_t i = 0; i < ranks.size(); ++i) {
      if (ranks[i] < graph.rank_count) m_place[ranks[i]] = Place{c, i};
    }
  }
}

GroupIndex::GroupIndex(const ExecutionGraph& graph, uint32_t communicator)
    : m_graph(&graph), m_comm(&graph.communicators[communicator]) {
  if (m_comm->DimensionAligned()) {
    uint64_t stride = 1;
    for (const uint32_t size : graph.dimension_sizes) {
      m_stride.push_back(stride);
      stride *= size;
    }
    return;
  }
  m_group_of_rank.assign(graph.rank_count, kNoGroup);
  for (uint32_t g = 0; g < m_comm->groups.size(); ++g) {
    for (const uint32_t rank : m_comm->groups[g]) {
      if (rank < graph.rank_count) m_group_of_rank[rank] = g;
    }
  }
}

uint32_t GroupIndex::GroupOf(uint32_t rank) const {
  if (!m_comm->DimensionAligned()) return m_group_of_rank[rank];
  // The rank with its coordinates along the group's dimensions zeroed names the group.
  uint64_t base = rank;
  for (const uint32_t d : m_comm->dimensions) {
    base -= (rank / m_stride[d]) % m_graph->dimension_sizes[d] * m_stride[d];
  }
  return static_cast<uint32_t>(base);
}

std::vector<uint32_t> GroupIndex::Members(uint32_t rank) const {
  if (!m_comm->DimensionAligned()) return m_comm->groups[m_group_of_rank[rank]];
  std::vector<uint32_t> members{GroupOf(rank)};
  for (const uint32_t d : m_comm->dimensions) {
    const size_t count = members.size();
    for (uint32_t i = 1; i < m_graph->dimension_sizes[d]; ++i) {
      for (size_t m = 0; m < count; ++m) {
        members.push_back(static_cast<uint32_t>(members[m] + i * m_stride[d]));
      }
    }
  }
  std::sort(members.begin(), members.end());
  return members;
}

}  // namespace hfsim
