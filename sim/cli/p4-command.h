// `hfsim p4`: from a scenario's "aggregation" section, writes the Tofino P4 program, its control
// plane, the resource report and test vectors computed by the switch model (p4/; docs/p4.md).
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace hfsim {

struct P4Command {
  std::string scenario_path;
  std::string out_dir;
  uint64_t vector_values = 0;  ///< values per worker in the test vectors (0: the default)
  uint32_t pool_slots = 4;
  uint64_t seed = 1;

  void Register(CLI::App& app);
  /// Exit code: 0 written; 2 bad input (scenario, no aggregation section, a spec over a Tofino
  /// limit or beyond what the generator expresses, vector options); 1 files that could not be
  /// written.
  int Execute() const;
};

}  // namespace hfsim
