// Every zoo model against its per-layer reference table (tests/workloads/data/<name>_layers.csv):
// same rows in the same order, same parameter counts and, for CNNs, the same MACs and shapes.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "workloads/model-zoo.h"

namespace hfsim {
namespace {

using CsvRow = std::map<std::string, std::string>;

std::vector<std::string> SplitComma(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream stream(line);
  std::string cell;
  while (std::getline(stream, cell, ',')) cells.push_back(cell);
  return cells;
}

// The tables are plain (no quoting; layer names contain '+' and '(' but no commas) and end their
// lines with CRLF, which getline leaves a '\r' of.
bool ReadLine(std::ifstream& file, std::string& line) {
  if (!std::getline(file, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

std::vector<CsvRow> ReadCsv(const std::string& path) {
  std::ifstream file(path);
  EXPECT_TRUE(file.is_open()) << path;
  std::string line;
  ReadLine(file, line);
  const std::vector<std::string> header = SplitComma(line);
  std::vector<CsvRow> rows;
  while (ReadLine(file, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = SplitComma(line);
    EXPECT_EQ(cells.size(), header.size()) << path << ": " << line;
    CsvRow row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

uint64_t Number(const CsvRow& row, const std::string& column) {
  return std::stoull(row.at(column));
}

std::string CsvPath(const std::string& model) {
  return std::string(HFSIM_SOURCE_DIR) + "/tests/workloads/data/" + model + "_layers.csv";
}

class ZooCsvTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooCsvTest, RowsMatchNamesAndParams) {
  const std::vector<CsvRow> rows = ReadCsv(CsvPath(GetParam()));
  const std::optional<Model> model = BuildZooModel(GetParam());
  ASSERT_TRUE(model.has_value());
  ASSERT_EQ(model->layers.size(), rows.size());
  ASSERT_FALSE(rows.empty());
  const std::string params_column = rows[0].count("total_params") ? "total_params" : "params";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Layer& layer = model->layers[i];
    EXPECT_EQ(layer.name, rows[i].at("layer")) << "row " << i;
    EXPECT_EQ(layer.params, Number(rows[i], params_column)) << layer.name;
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, ZooCsvTest,
                         ::testing::Values("resnet50", "vgg16", "bert_base", "bert_large",
                                           "gpt2_small", "gpt2_medium", "gpt2_large", "gpt2_xl",
                                           "gpt3_175b"));

class CnnCsvTest : public ::testing::TestWithParam<std::string> {};

// The CNN tables also give MACs and the output resolution. Output channels are not a column, but
// they follow from the bias/BN column: a bias has one parameter per channel, a BatchNorm two.
TEST_P(CnnCsvTest, MacsAndOutputShapesMatch) {
  const bool batch_norm = GetParam() == "resnet50";
  const std::vector<CsvRow> rows = ReadCsv(CsvPath(GetParam()));
  const std::optional<Model> model = BuildZooModel(GetParam());
  ASSERT_TRUE(model.has_value());
  ASSERT_EQ(model->layers.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Layer& layer = model->layers[i];
    const CsvRow& row = rows[i];
    // The table itself must be consistent before it can judge the model.
    ASSERT_EQ(Number(row, "weight_params") + Number(row, "bias_or_bn_params"),
              Number(row, "total_params"))
        << row.at("layer");
    EXPECT_EQ(layer.forward_flops_per_sample,
              2.0 * static_cast<double>(Number(row, "fwd_MACs_per_sample")))
        << layer.name;
    const bool is_fc = layer.name.rfind("fc", 0) == 0;
    const uint64_t per_channel = (batch_norm && !is_fc) ? 2 : 1;
    const uint64_t channels = Number(row, "bias_or_bn_params") / per_channel;
    const uint64_t hw = Number(row, "out_hw");
    EXPECT_EQ(layer.output_elements_per_sample, channels * hw * hw) << layer.name;
    EXPECT_EQ(layer.tensor_parallel_all_reduces, 0u) << layer.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Cnns, CnnCsvTest, ::testing::Values("resnet50", "vgg16"));

}  // namespace
}  // namespace hfsim
