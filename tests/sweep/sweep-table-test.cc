// SweepTable's CSV: rows hand-checked against the point numbering and the cost formula; Load
// reads back every time to the bit, in any row order; a cut-off last line is skipped and
// valid_bytes points at it; another sweep's header and corrupt rows are refused by line.
#include "sim/sweep/sweep-table.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "tests/sweep/sweep-test-util.h"

namespace hfsim {
namespace {

using nlohmann::json;

uint64_t Bits(double value) { return std::bit_cast<uint64_t>(value); }

/// A 2-D sweep of 2 x 3 allocations x 2 names (one needing CSV quotes) x 2 whole dimension
/// objects (JSON text with commas and quotes) = 24 points, priced at 3 and 5 $ per GB/s.
json QuotedSweep() {
  const json dims = test::Dims(test::Dim("Ring", 4, 50, 100), test::Dim("Ring", 2, 25, 500));
  return {{"name", "table"},
          {"topology", {{"dimensions", dims}}},
          {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 4096}}}}},
          {"cost", {{"dimensions", {{{"link_usd_per_GBps", 3}}, {{"link_usd_per_GBps", 5}}}}}},
          {"sweep",
           {{"bandwidth_GBps", {{"grid", {{10, 20.5}, {1, 2, 3}}}}},
            {"parameters",
             {{{"path", "name"}, {"values", {"a,b \"q\"", "plain"}}},
              {{"path", "topology.dimensions[0]"},
               {"values", {test::Dim("Ring", 4, 50, 100), test::Dim("Ring", 4, 50, 7)}}}}}}}};
}

/// Times that print in every shape: integers, long fractions, exponents, the smallest double.
std::vector<double> AwkwardTimes(size_t count) {
  std::vector<double> times = {
      1.0 / 3.0,      0.1 + 0.2, 1e300, 5e-324, 123456789.0, 1e-7, std::nextafter(1000.0, 2000.0),
      4.0 / 7.0 * 1e9};
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> any(1.0, 1e12);
  while (times.size() < count) times.push_back(any(random));
  times.resize(count);
  return times;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

double ParseDouble(const std::string& text) {
  double value = std::numeric_limits<double>::quiet_NaN();
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

TEST(SweepTable, RowsHoldThePointItsAllocationTimeAndCost) {
  const auto plan = test::PlanOrFail(QuotedSweep());
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->PointCount(), 24u);
  SweepTable table(*plan);
  EXPECT_EQ(table.Header(),
            "point,name,topology.dimensions[0],B0_GBps,B1_GBps,total_GBps,time_ns,cost_usd,"
            "time_x_cost_ns_usd\n");
  // Point 17 = combination 2 (name "plain", latency 100), allocation 5 = (20.5, 3).
  table.Record(17, 2500.25);
  std::string row;
  table.AppendRow(17, row);
  const double cost = 8.0 * (3.0 * 20.5 + 5.0 * 3.0);  // 8 NPUs
  EXPECT_EQ(row,
            fmt::format("17,plain,\"{{\"\"bandwidth_GBps\"\":50.0,\"\"kind\"\":\"\"Ring\"\","
                        "\"\"latency_ns\"\":100.0,\"\"size\"\":4}}\",20.5,3,23.5,2500.25,{},{}\n",
                        cost, 2500.25 * cost));
  // Point 0: the quoted name (CSV doubles the quote characters).
  table.Record(0, 1.5);
  row.clear();
  table.AppendRow(0, row);
  EXPECT_EQ(row.rfind("0,\"a,b \"\"q\"\"\",\"{", 0), 0u) << row;
  EXPECT_EQ(*table.CostUsd(0), 8.0 * (3.0 * 10 + 5.0 * 1));
  EXPECT_EQ(table.Bandwidths(17), (std::vector<double>{20.5, 3}));
  EXPECT_EQ(table.DoneCount(), 2u);
  EXPECT_TRUE(table.Done(0));
  EXPECT_FALSE(table.Done(1));
  EXPECT_EQ(table.Csv(), table.Header() + row +
                             fmt::format("17,plain,\"{{\"\"bandwidth_GBps\"\":50.0,\"\"kind\"\":"
                                         "\"\"Ring\"\",\"\"latency_ns\"\":100.0,"
                                         "\"\"size\"\":4}}\",20.5,3,23.5,2500.25,{},{}\n",
                                         cost, 2500.25 * cost));
}

TEST(SweepTable, LoadRoundTripsEveryTimeToTheBit) {
  const auto plan = test::PlanOrFail(QuotedSweep());
  ASSERT_TRUE(plan);
  const std::vector<double> times = AwkwardTimes(plan->PointCount());
  SweepTable written(*plan);
  for (uint64_t p = 0; p < plan->PointCount(); ++p) {
    if (p % 5 != 4) written.Record(p, times[p]);
  }
  const std::string csv = written.Csv();
  ASSERT_EQ(Lines(csv).size(), 1 + written.DoneCount());

  SweepTable read(*plan);
  SweepTable::Loaded loaded;
  ASSERT_EQ(read.Load(csv, "sweep.csv", loaded), std::nullopt);
  EXPECT_EQ(loaded.rows, written.DoneCount());
  EXPECT_EQ(loaded.valid_bytes, csv.size());
  EXPECT_EQ(read.DoneCount(), written.DoneCount());
  for (uint64_t p = 0; p < plan->PointCount(); ++p) {
    ASSERT_EQ(read.Done(p), p % 5 != 4) << "point " << p;
    if (read.Done(p)) {
      ASSERT_EQ(Bits(read.TimeNs(p)), Bits(times[p])) << "point " << p;
    }
  }
  EXPECT_EQ(read.Csv(), csv);

  // Rows in any order (as workers finish) load to the same table.
  std::vector<std::string> lines = Lines(csv);
  std::string scrambled = lines[0] + "\n";
  std::mt19937 random(11);
  std::shuffle(lines.begin() + 1, lines.end(), random);
  for (size_t i = 1; i < lines.size(); ++i) scrambled += lines[i] + "\n";
  SweepTable shuffled(*plan);
  ASSERT_EQ(shuffled.Load(scrambled, "sweep.csv.part", loaded), std::nullopt);
  EXPECT_EQ(shuffled.Csv(), csv);
}

TEST(SweepTable, CutOffLastLineIsIgnored) {
  const auto plan = test::PlanOrFail(QuotedSweep());
  ASSERT_TRUE(plan);
  SweepTable written(*plan);
  for (uint64_t p = 0; p < 10; ++p) written.Record(p, 1000.0 + p);
  const std::string whole = written.Csv();
  std::string row;
  written.Record(10, 77.0);
  written.AppendRow(10, row);
  // Cut anywhere inside the row, even right before its newline.
  for (size_t cut : {size_t{1}, size_t{3}, row.size() / 2, row.size() - 1}) {
    SweepTable read(*plan);
    SweepTable::Loaded loaded;
    ASSERT_EQ(read.Load(whole + row.substr(0, cut), "sweep.csv.part", loaded), std::nullopt);
    EXPECT_EQ(loaded.rows, 10u);
    EXPECT_EQ(loaded.valid_bytes, whole.size()) << "cut at " << cut;
    EXPECT_FALSE(read.Done(10));
    EXPECT_EQ(read.Csv(), whole);
  }
  // Only the header.
  SweepTable empty(*plan);
  SweepTable::Loaded loaded;
  ASSERT_EQ(empty.Load(written.Header(), "p", loaded), std::nullopt);
  EXPECT_EQ(loaded.rows, 0u);
  EXPECT_EQ(loaded.valid_bytes, written.Header().size());
}

TEST(SweepTable, AnotherSweepsHeaderIsRefused) {
  const auto plan = test::PlanOrFail(QuotedSweep());
  ASSERT_TRUE(plan);
  json other = QuotedSweep();
  other["sweep"]["parameters"].erase(1);  // one parameter column fewer
  const auto other_plan = test::PlanOrFail(other);
  ASSERT_TRUE(other_plan);
  SweepTable theirs(*other_plan);
  theirs.Record(0, 5.0);
  SweepTable mine(*plan);
  SweepTable::Loaded loaded;
  const auto error = mine.Load(theirs.Csv(), "out/sweep.csv.part", loaded);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("out/sweep.csv.part"), std::string::npos) << *error;
  EXPECT_NE(error->find("header is not this sweep's"), std::string::npos) << *error;
  EXPECT_NE(error->find(mine.Header().substr(0, mine.Header().size() - 1)), std::string::npos)
      << *error;
  EXPECT_EQ(mine.DoneCount(), 0u);
  EXPECT_TRUE(mine.Load("point,B0_GBps\n", "x", loaded).has_value());
}

TEST(SweepTable, HeaderCutShortHoldsNoRows) {
  // A writer killed before its first flush leaves an empty file, or part of the header.
  const auto plan = test::PlanOrFail(QuotedSweep());
  ASSERT_TRUE(plan);
  SweepTable table(*plan);
  const std::string header = table.Header();
  for (size_t cut : {size_t{0}, size_t{5}, header.size() - 1}) {
    SweepTable::Loaded loaded{7, 7};
    ASSERT_EQ(table.Load(header.substr(0, cut), "sweep.csv.part", loaded), std::nullopt)
        << "cut at " << cut;
    EXPECT_EQ(loaded.rows, 0u);
    EXPECT_EQ(loaded.valid_bytes, 0u);
    EXPECT_EQ(table.DoneCount(), 0u);
  }
}

TEST(SweepTable, CorruptRowNamesItsLine) {
  const auto plan = test::PlanOrFail(QuotedSweep());
  ASSERT_TRUE(plan);
  SweepTable written(*plan);
  for (uint64_t p = 0; p < 6; ++p) written.Record(p, 100.0 * (p + 1));
  const std::vector<std::string> lines = Lines(written.Csv());
  ASSERT_EQ(lines.size(), 7u);
  const auto with_line_4 = [&](const std::string& replacement) {
    std::string text;
    for (size_t i = 0; i < lines.size(); ++i) text += (i == 3 ? replacement : lines[i]) + "\n";
    return text;
  };
  // The third row is line 4 of the file.
  const std::string row = lines[3];
  const size_t time_at = row.rfind(',', row.rfind(',', row.rfind(',') - 1) - 1) + 1;
  for (const std::string& bad :
       {std::string("garbage"), std::string(""), "99" + row.substr(row.find(',')), "x" + row,
        row.substr(0, time_at) + "fast" + row.substr(row.find(',', time_at)),
        row.substr(0, time_at) + "inf" + row.substr(row.find(',', time_at)),
        std::string("3,1,2")}) {
    SweepTable read(*plan);
    SweepTable::Loaded loaded;
    const auto error = read.Load(with_line_4(bad), "sweep.csv.part", loaded);
    ASSERT_TRUE(error.has_value()) << "accepted \"" << bad << "\"";
    EXPECT_NE(error->find("sweep.csv.part: line 4: "), std::string::npos) << *error;
    EXPECT_NE(error->find(bad.substr(0, 40)), std::string::npos) << *error;
  }
  // The time column parses as written (a sanity check of time_at).
  EXPECT_EQ(ParseDouble(row.substr(time_at, row.find(',', time_at) - time_at)), 300.0);
}

TEST(SweepTable, UnpricedFabricLeavesTheCostCellsEmpty) {
  // 4-D: the innermost dimension takes the default class "chiplet", which has no switch price.
  const json dims = test::Dims(test::Dim("Switch", 2, 50, 100), test::Dim("Ring", 2, 50, 100),
                               test::Dim("Ring", 2, 50, 100), test::Dim("Ring", 2, 50, 100));
  const json document = {
      {"topology", {{"dimensions", dims}}},
      {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 4096}}}}},
      {"sweep", {{"bandwidth_GBps", {{"list", {{1, 2, 3, 4}, {5, 6, 7, 8}}}}}}}};
  const auto plan = test::PlanOrFail(document);
  ASSERT_TRUE(plan);
  ASSERT_FALSE(plan->Combinations()[0].cost.has_value());
  SweepTable table(*plan);
  table.Record(1, 0.125);
  EXPECT_FALSE(table.CostUsd(1).has_value());
  EXPECT_EQ(table.Csv(), table.Header() + "1,5,6,7,8,26,0.125,,\n");
  SweepTable read(*plan);
  SweepTable::Loaded loaded;
  ASSERT_EQ(read.Load(table.Csv(), "x", loaded), std::nullopt);
  EXPECT_EQ(read.TimeNs(1), 0.125);
}

}  // namespace
}  // namespace hfsim
