// validate's predictions of one validation scenario by hand (nccl-tests' bus bandwidth, model
// TFLOP/s in the block's convention, tokens/s), and its rows as CSV, table, summary and plot.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/report/bus-bandwidth.h"
#include "sim/report/validation-plot.h"
#include "sim/report/validation-report.h"
#include "sim/analytical/validation-run.h"
#include "sim/scenario/scenario-parser.h"
#include "tests/gnuplot-test-util.h"
#include "tests/scenario/validation-scenarios.h"

namespace hfsim {
namespace {

using test::Collective;
using test::Training;

TEST(ValidationRun, CollectiveBusBandwidthByHand) {
  EXPECT_EQ(BusBandwidthFactor(CollectiveKind::kAllReduce, 8), 1.75);
  EXPECT_EQ(BusBandwidthFactor(CollectiveKind::kAllGather, 8), 0.875);
  EXPECT_EQ(BusBandwidthFactor(CollectiveKind::kReduceScatter, 4), 0.75);
  EXPECT_EQ(BusBandwidthFactor(CollectiveKind::kAllToAll, 2), 0.5);
  EXPECT_EQ(BusBandwidthGBps(CollectiveKind::kAllReduce, 8, 1'000'000'000, 17.5e6), 100.0);
  EXPECT_EQ(BusBandwidthGBps(CollectiveKind::kAllReduce, 8, 1'000'000'000, 0.0), 0.0);
  const std::vector<ValidationRow> rows =
      PredictValidation("ar", ParseScenario(Collective()).Value());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].quantity, "busbw_GBps");
  EXPECT_EQ(rows[0].measured, 80.0);
  EXPECT_DOUBLE_EQ(*rows[0].predicted, 100.0);
  EXPECT_DOUBLE_EQ(*rows[0].ErrorPercent(), 25.0);
  EXPECT_TRUE(rows[0].failure.empty());
}

// GPT-2 small at 1,024 tokens, 4 samples on 2 NPUs: 874,944,921,600 model FLOPs per sample in
// the whole-square convention (tests/workloads/model-flops-test.cc), 3,499,779,686,400 per
// iteration; TFLOP/s per GPU = that / T / 2 / 1e12 with T the predicted iteration; tokens/s per
// GPU = 4 x 1,024 / T / 2.
TEST(ValidationRun, TrainingPredictionsByHand) {
  const Scenario scenario = ParseScenario(Training()).Value();
  const std::vector<ValidationRow> rows = PredictValidation("train", scenario);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].quantity, "iteration_s");
  const double t = *rows[0].predicted;
  ASSERT_GT(t, 0.0);
  EXPECT_EQ(rows[1].quantity, "tokens_per_s_per_gpu");
  EXPECT_NEAR(*rows[1].predicted, 2048.0 / t, 1e-9 * 2048.0 / t);
  EXPECT_EQ(rows[2].quantity, "model_tflops_per_gpu");
  const double tflops = 3'499'779'686'400.0 / t / 2 / 1e12;
  EXPECT_NEAR(*rows[2].predicted, tflops, 1e-9 * tflops);
  EXPECT_NEAR(*rows[2].ErrorPercent(), (tflops - 20) / 20 * 100, 1e-7);
  EXPECT_EQ(rows[2].device, "100 TFLOP/s peak");
  // The scenario's own engine does not matter: validate prices on the analytical engine.
  Scenario flow = scenario;
  flow.engine = EngineKind::kFlow;
  EXPECT_EQ(*PredictValidation("train", flow)[0].predicted, t);
}

ValidationRow Row(std::string scenario, std::string quantity, double measured, double predicted,
                  std::string device) {
  ValidationRow row;
  row.scenario = std::move(scenario);
  row.quantity = std::move(quantity);
  row.measured = measured;
  row.predicted = predicted;
  row.device = std::move(device);
  return row;
}

std::vector<ValidationRow> SomeRows() {
  ValidationRow broken;
  broken.scenario = "broken";
  broken.failure = "broken.json: workload: missing";
  return {Row("a", "iteration_s", 10.0, 11.0, "H100"),
          Row("b,c", "busbw_GBps", 80.0, 100.0, "A100"),
          Row("d", "tokens_per_s_per_gpu", 1000.0, 980.0, "H100"), broken};
}

TEST(ValidationReport, CsvSummaryAndTable) {
  const std::vector<ValidationRow> rows = SomeRows();
  EXPECT_EQ(ValidationCsv(rows),
            "scenario,quantity,measured,predicted,error_percent\n"
            "a,iteration_s,10,11,10\n"
            "\"b,c\",busbw_GBps,80,100,25\n"
            "d,tokens_per_s_per_gpu,1000,980,-2\n"
            "broken,,,,\n");
  const ValidationSummary s = Summarise(rows);
  EXPECT_EQ(s.rows, 4u);
  EXPECT_EQ(s.predicted, 3u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_DOUBLE_EQ(s.mean_abs_error_percent, (10.0 + 25.0 + 2.0) / 3);
  EXPECT_EQ(s.within_5_percent, 1u);
  EXPECT_EQ(s.worst, 1u);
  const std::string table = ValidationTable(rows);
  EXPECT_NE(table.find("3 rows predicted: mean |error| 12.3 %, worst +25.0 % (b,c, busbw_GBps), "
                       "1 within 5 %"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("1 row failed:\n  broken: broken.json: workload: missing"),
            std::string::npos)
      << table;
}

TEST(ValidationPlot, DevicesAsSeriesLogAxesAndGnuplotDrawsIt) {
  const PlotSet set = ValidationPlot(SomeRows());
  ASSERT_EQ(set.plots.size(), 1u);
  const std::string& script = set.plots[0].script;
  EXPECT_EQ(set.plots[0].png_name, "validation.png");
  // One data block per device in order of appearance; failed rows are not drawn.
  const auto h100 = test::DataRows(script, "device0");
  ASSERT_EQ(h100.size(), 2u);
  EXPECT_EQ(h100[0][0], "a");
  EXPECT_EQ(h100[1][0], "d");
  ASSERT_EQ(test::DataRows(script, "device1").size(), 1u);
  EXPECT_TRUE(test::DataRows(script, "device2").empty());
  EXPECT_NE(script.find("set logscale x\n"), std::string::npos);
  EXPECT_NE(script.find("set logscale y\n"), std::string::npos);
  EXPECT_NE(script.find("title 'within 5 %'"), std::string::npos);
  EXPECT_NE(script.find("title 'y = x'"), std::string::npos);
  // The key shows each device as a filled circle in its colour (the series' own points vary
  // with the quantity, which the key cannot draw).
  EXPECT_NE(script.find("keyentry with points pointtype 7 pointsize 1.6 linecolor rgb '#4472c4' "
                        "title 'H100'"),
            std::string::npos);
  EXPECT_NE(script.find("$device0 using 3:4:5 with points pointtype variable pointsize 1.6 "
                        "linecolor rgb '#4472c4' notitle"),
            std::string::npos);
  // Both axes span every measured and predicted value (10 to 1,000), so y = x is the diagonal.
  const auto x = test::TickPositions(script, "x");
  ASSERT_FALSE(x.empty());
  EXPECT_EQ(x, test::TickPositions(script, "y"));
  EXPECT_LE(x.front(), 10.0);
  EXPECT_GE(x.back(), 1000.0);
  EXPECT_EQ(test::GnuplotMessages(script, "validation.png"), "");
  // Nothing predicted: no picture, and a note saying why.
  const PlotSet none = ValidationPlot({SomeRows().back()});
  EXPECT_TRUE(none.plots.empty());
  ASSERT_EQ(none.notes.size(), 1u);
  EXPECT_NE(none.notes[0].find("no row was predicted"), std::string::npos);
}

}  // namespace
}  // namespace hfsim
