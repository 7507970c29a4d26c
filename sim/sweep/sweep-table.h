// The results of a sweep by point number, and their CSV form: one row per point,
//
//   point, <one column per swept parameter>, B0_GBps .. B{D-1}_GBps, total_GBps, time_ns,
//   cost_usd, time_x_cost_ns_usd
//
// Rows are rendered from (point, time) alone (the plan knows the rest), so a streamed file, a
// resumed file and the rows other MPI ranks send all give byte-identical final CSVs. Numbers
// are printed in their shortest exact form, so reading a row back gives the same double.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/sweep-plan.h"

namespace hfsim {

class SweepTable {
 public:
  explicit SweepTable(const SweepPlan& plan);

  std::string Header() const;  ///< with the trailing newline
  void Record(uint64_t point, double time_ns);
  bool Done(uint64_t point) const { return m_done[point] != 0; }
  const std::vector<uint8_t>& DoneFlags() const { return m_done; }
  uint64_t DoneCount() const { return m_done_count; }
  double TimeNs(uint64_t point) const { return m_time_ns[point]; }
  /// Network cost of the point's allocation in $; absent when the fabric cannot be priced.
  std::optional<double> CostUsd(uint64_t point);
  /// The bandwidths of the point's allocation (valid until the next call).
  const std::vector<double>& Bandwidths(uint64_t point);

  /// Appends the CSV row of a recorded point, newline included.
  void AppendRow(uint64_t point, std::string& out);
  /// Header and every recorded row in point order.
  std::string Csv();

  /// Reads rows of a CSV this plan wrote (a streamed .part file or a finished sweep.csv) and
  /// records them. A last line without its newline (the writer was killed mid-row) is
  /// ignored, and so is a header cut short (valid_bytes 0: start the file afresh). The number
  /// of bytes that hold whole rows, or an error naming `name` and the line.
  struct Loaded {
    uint64_t rows = 0;
    uint64_t valid_bytes = 0;
  };
  std::optional<std::string> Load(const std::string& text, const std::string& name, Loaded& loaded);

 private:
  const SweepPlan* m_plan;
  AllocationWalker m_walker;
  std::vector<double> m_time_ns;
  std::vector<uint8_t> m_done;
  uint64_t m_done_count = 0;
};

}  // namespace hfsim
