// What the P4 generator's parts share (p4-program.cc writes the constants, headers, parser,
// deparsers and egress; p4-ingress.cc the ingress control): the text being written, what a spec
// asks of the program, and the names the program and its control plane agree on. Internal to p4/.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>

#include "models/aggregation/aggregation-spec.h"
#include "p4/p4-program.h"

namespace hfsim::p4_writer {

// Appends formatted lines; keeps the generator readable as a sequence of P4 fragments.
class Text {
 public:
  template <typename... Args>
  void Line(fmt::format_string<Args...> format, Args&&... args) {
    m_text += fmt::format(format, std::forward<Args>(args)...);
    m_text += '\n';
  }
  void Blank() { m_text += '\n'; }
  std::string Take() { return std::move(m_text); }

 private:
  std::string m_text;
};

inline bool IsTofino1(const AggregationSwitchSpec& spec) {
  return spec.generation == TofinoGeneration::kTofino1;
}
inline bool IsServerMode(const AggregationSwitchSpec& spec) {
  return spec.mode == AggregationMode::kParameterServer;
}
// Parameter-server mode checks the key against the hot-key capacity unless every key is hot.
inline bool ChecksHotKeys(const AggregationSwitchSpec& spec) {
  return IsServerMode(spec) && spec.hot_key_capacity_keys < kAllKeysHot;
}
// Register words one pass adds: K int32 values, or K / 4 words of four THC lanes.
inline uint32_t Words(const AggregationSwitchSpec& spec) { return spec.RegisterWords(); }
inline uint32_t Pairs(const AggregationSwitchSpec& spec) { return Words(spec) / 2; }

inline std::string ValueField(uint32_t i) { return fmt::format("v{:02}", i); }
inline std::string PairRegister(uint32_t pair) { return fmt::format("values_{:02}", pair); }

/// The ingress control: checks, registers, the aggregation, the harvest pass and the routing
/// (p4-ingress.cc).
void WriteIngress(Text& t, const AggregationSwitchSpec& spec);

}  // namespace hfsim::p4_writer
