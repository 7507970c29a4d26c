// One rank's Chakra nodes -> the nodes of an hfsim graph program (workload.graph JSON), and the
// communicators their collectives name. Each Chakra node type's meaning, stream and size
// convention is decided here (docs/chakra.md §2-§4); which ranks share a program is
// chakra-import's business.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/expected.h"
#include "sim/import/chakra/chakra-import.h"
#include "sim/import/chakra/et-file.h"
#include "sim/import/chakra/et-groups.h"

namespace hfsim {

class EtConverter {
 public:
  EtConverter(const ChakraInputs& inputs, const std::vector<uint32_t>& sizes, EtGroups groups);

  /// One rank's program as graph nodes, in ascending id order (the order in which ASTRA-sim
  /// issues ready nodes).
  Expected<nlohmann::json> Program(const EtFile& file, uint32_t rank);

  /// What can differ between ranks whose programs are otherwise equal, checked for `rank`:
  /// each send's and receive's own end is the rank, its other end a rank of the fabric, and
  /// each group a collective names holds the rank. `peers`: the other ends, in id order.
  std::optional<UserError> CheckRank(const EtFile& file, uint32_t rank,
                                     std::vector<uint32_t>& peers) const;

  const EtGroups& Groups() const { return m_groups; }
  /// The prefix of the custom implementation of `node`'s collective, or nullptr.
  const std::string* CustomOf(const EtNode& node) const;

  /// The communicators the converted programs used ({"name", "groups"} each).
  nlohmann::json Communicators() const;

 private:
  std::string Unique(const std::optional<std::string>& recorded, const std::string& fallback);
  std::string FamilyName(size_t family) const;
  Expected<std::pair<std::string, uint64_t>> CommunicatorOf(const EtFile& file, const EtNode& node,
                                                            uint32_t rank);
  Expected<nlohmann::json> Node(const EtFile& file, const EtNode& node, uint32_t rank,
                                uint32_t& next_recv_stream);
  Expected<nlohmann::json> Convert(const EtFile& file, const EtNode& node, uint32_t rank,
                                   uint32_t& next_recv_stream);
  /// `node`, a collective run as a custom implementation: a start on the communication stream,
  /// the implementation's nodes for this rank's place in the group, and an end that keeps the
  /// node's id. Fresh ids come from `next_id`.
  Expected<std::vector<nlohmann::json>> ExpandCustom(const EtFile& file, const EtNode& node,
                                                     uint32_t rank, uint64_t& next_id,
                                                     uint32_t& next_stream);
  /// The custom implementation's file for group position `position` (read once).
  Expected<const EtFile*> CustomFile(const std::string& prefix, uint32_t position);
  /// The dependencies of `node` as the program lists them (data_deps, and ctrl_deps unless
  /// legacy), repeated collectives' copies resolved to their node.
  std::vector<uint64_t> DependenciesOf(const EtNode& node) const;

  const ChakraInputs& m_inputs;
  std::vector<uint32_t> m_sizes;
  uint64_t m_ranks = 1;
  EtGroups m_groups;
  /// By mask of dimensions and the name hfsim's exporter recorded ("" in other traces): two of
  /// hfsim's communicators over the same dimensions stay two, as they were written.
  std::map<std::pair<uint32_t, std::string>, std::string> m_dimension_communicators;
  std::set<size_t> m_family_used;
  std::map<size_t, std::string> m_family_names;
  std::set<std::string> m_names;                   // every communicator's name so far
  std::unordered_map<uint64_t, uint64_t> m_alias;  // a repeated collective's copies -> its node
  std::map<std::pair<std::string, uint32_t>, EtFile> m_custom_files;  // by (prefix, position)
  uint64_t m_expanded_nodes = 0;  ///< nodes custom implementations have added, in all programs
};

}  // namespace hfsim
