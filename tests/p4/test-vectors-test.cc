// The test vectors of the P4 backend: they must be exactly what the switch model does (replayed
// through a fresh SwitchAggregator from their JSON and pcap forms, byte for byte), every key must
// be aggregated exactly once despite the injected loss and duplicate, and the workers' final sums
// must equal sums computed here independently of the protocol.
#include <cmath>
#include <limits>
#include <map>

#include <gtest/gtest.h>

#include "base/deterministic-rng.h"
#include "models/aggregation/fixed-point.h"
#include "models/aggregation/switch-aggregator.h"
#include "models/compression/thc.h"
#include "p4/port-plan.h"
#include "p4/test-vectors.h"

namespace hfsim {
namespace {

struct Case {
  std::string name;
  AggregationSwitchSpec spec;
  TestVectorOptions options;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  {
    Case c{"switchml_tofino1", {}, {}};  // defaults: 8 workers, 64 values, block exponents
    cases.push_back(c);
  }
  {
    Case c{"fixed_scale_saturate_odd_tail", {}, {}};
    c.spec.workers = 3;
    c.spec.values_per_packet = 8;
    c.spec.aggregator_slots = 16;
    c.spec.scheme = FixedPointScheme::kFixedScale;
    c.spec.overflow = OverflowBehaviour::kSaturate;
    c.spec.value_bits = 31;
    c.options.pool_slots = 3;
    c.options.values_per_worker = 101;  // a partial last block
    cases.push_back(c);
  }
  {
    Case c{"parameter_server_cold_keys", {}, {}};
    c.spec.mode = AggregationMode::kParameterServer;
    c.spec.workers = 4;
    c.spec.values_per_packet = 16;
    c.spec.server_shards = 2;
    c.spec.hot_key_capacity_keys = 200;  // 13 hot blocks, the 13th partly hot
    c.options.values_per_worker = 512;
    cases.push_back(c);
  }
  {
    Case c{"thc_tofino1", {}, {}};  // THC indices summed in 8-bit lanes
    c.spec.value_format = ValueFormat::kThc;
    c.spec.values_per_packet = 32;
    c.options.values_per_worker = 256;
    cases.push_back(c);
  }
  {
    Case c{"tofino2_32_workers", {}, {}};
    c.spec.generation = TofinoGeneration::kTofino2;
    c.spec.workers = 32;
    c.spec.values_per_packet = 32;
    c.options.pool_slots = 2;
    cases.push_back(c);
  }
  return cases;
}

class Vectors : public ::testing::TestWithParam<Case> {};

TEST_P(Vectors, ReplayedFromJsonThroughAFreshSwitchGiveTheSameFramesByteForByte) {
  const Case& c = GetParam();
  const TestVectors built = BuildTestVectors(c.spec, c.options);
  const std::string text = TestVectorsToJson(built).dump(2);
  const TestVectors vectors = TestVectorsFromJson(nlohmann::json::parse(text), c.spec);
  ASSERT_EQ(vectors.steps.size(), built.steps.size());
  SwitchAggregator model(c.spec);
  for (size_t i = 0; i < vectors.steps.size(); ++i) {
    const TestVectorStep& step = vectors.steps[i];
    SCOPED_TRACE("step " + std::to_string(i) + ": " + Describe(step.input));
    EXPECT_EQ(step.ingress_port, PortPlan::PortOf(step.input.source));
    const auto outputs = model.Receive(step.input);
    ASSERT_EQ(outputs.size(), step.expected.size());
    for (size_t j = 0; j < outputs.size(); ++j) {
      EXPECT_EQ(SerializeAggregationPacket(outputs[j]),
                SerializeAggregationPacket(step.expected[j].packet));
      EXPECT_EQ(step.expected[j].egress_port, PortPlan::PortOf(outputs[j].destination));
    }
  }
  EXPECT_EQ(model.Counters().rejected, 0u);
  EXPECT_EQ(vectors.summed_integers, built.summed_integers);
}

TEST_P(Vectors, PcapFilesHoldTheSameFramesInOrder) {
  const Case& c = GetParam();
  const TestVectors vectors = BuildTestVectors(c.spec, c.options);
  std::vector<std::vector<uint8_t>> inputs, outputs;
  for (const TestVectorStep& step : vectors.steps) {
    inputs.push_back(SerializeAggregationPacket(step.input));
    for (const OutputPacket& out : step.expected) {
      outputs.push_back(SerializeAggregationPacket(out.packet));
    }
  }
  EXPECT_EQ(ReadPcap(WritePcap(inputs)), inputs);
  EXPECT_EQ(ReadPcap(WritePcap(outputs)), outputs);
  // Every frame parses back as a packet of this job.
  for (const auto& frame : outputs) {
    std::string error;
    EXPECT_TRUE(ParseAggregationPacket(frame, c.spec.values_per_packet, &error,
                                       c.spec.IsThc() ? c.spec.thc_bits : 0))
        << error;
  }
}

// Independent truth: per hot block, the exponent all workers agree on (block exponents: the
// largest frexp exponent over the workers' values), each value quantised by the formula and
// summed in int64 (the sums must fit int32 for block exponents; fixed scale saturates).
std::vector<int32_t> IndependentSums(const Case& c, const std::vector<std::vector<float>>& tensors,
                                     uint64_t aggregated) {
  const uint32_t k = c.spec.values_per_packet;
  std::vector<int32_t> sums(aggregated);
  for (uint64_t begin = 0; begin < aggregated; begin += k) {
    const uint64_t end = std::min<uint64_t>(begin + k, aggregated);
    int exponent = kMinBlockExponent;
    for (const auto& t : tensors) {
      for (uint64_t i = begin; i < end; ++i) {
        if (t[i] != 0.0f) exponent = std::max(exponent, std::ilogb(t[i]) + 1);
      }
    }
    const double scale = QuantisationScale(c.spec, exponent);
    const int64_t limit = QuantisationLimit(c.spec);
    for (uint64_t i = begin; i < end; ++i) {
      int64_t sum = 0;
      for (const auto& t : tensors) {
        const double q = std::clamp(std::round(double{t[i]} * scale), double(-limit), double(limit));
        sum += static_cast<int64_t>(q);
      }
      if (c.spec.overflow == OverflowBehaviour::kSaturate) {
        sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
      }
      EXPECT_LE(std::llabs(sum), int64_t{INT32_MAX}) << "block exponents must not overflow";
      sums[i] = static_cast<int32_t>(sum);
    }
  }
  return sums;
}

// THC: every worker's encoder on its gradient at the largest norm exponent, and the software
// aggregator's integer sums of their indices (compression/thc.h, not the switch model).
std::vector<int32_t> IndependentThcSums(const Case& c, const TestVectorOptions& options,
                                        const std::vector<std::vector<float>>& tensors) {
  const ThcConfig config = TestVectorThcConfig(c.spec, options);
  std::vector<ThcWorker> encoders;
  int agreed = std::numeric_limits<int>::min();
  for (uint32_t w = 0; w < c.spec.workers; ++w) {
    encoders.emplace_back(config, tensors[w].size(), SplitMix64(options.seed + w));
    Eigen::VectorXd gradient(static_cast<Eigen::Index>(tensors[w].size()));
    for (size_t i = 0; i < tensors[w].size(); ++i) gradient(static_cast<Eigen::Index>(i)) = tensors[w][i];
    int exponent = 0;
    std::frexp(encoders.back().Prepare(gradient), &exponent);
    agreed = std::max(agreed, exponent);
  }
  std::vector<std::vector<uint8_t>> packed;
  for (ThcWorker& encoder : encoders) packed.push_back(encoder.Encode(std::ldexp(1.0, agreed)));
  const std::vector<uint32_t> sums = AggregateThc(packed, config, encoders[0].PaddedLength());
  return std::vector<int32_t>(sums.begin(), sums.end());
}

TEST_P(Vectors, EveryKeyIsAggregatedExactlyOnceDespiteTheLossAndTheDuplicate) {
  const Case& c = GetParam();
  const TestVectors vectors = BuildTestVectors(c.spec, c.options);
  const uint32_t k = c.spec.values_per_packet;
  const uint64_t values = vectors.options.values_per_worker;
  uint64_t aggregated = values;
  if (c.spec.mode == AggregationMode::kParameterServer) {
    aggregated = std::min(values, (c.spec.hot_key_capacity_keys + k - 1) / k * k);
  }
  // Completed results (not resends) per key: exactly one per block with values; priming rounds
  // carry none.
  std::map<uint32_t, int> completions;
  size_t duplicates = 0, retransmissions = 0, cold = 0, resends = 0;
  for (const TestVectorStep& step : vectors.steps) {
    duplicates += step.note == "duplicate";
    retransmissions += step.note == "retransmission after lost result";
    for (const OutputPacket& out : step.expected) {
      const AggregationHeader& h = out.packet.header;
      if (h.type == AggregationMessage::kUpdate) {
        ++cold;
        EXPECT_EQ(out.packet.destination, Endpoint::Server(c.spec.OwnerShard(h.key_offset)));
        EXPECT_GE(h.key_offset, c.spec.hot_key_capacity_keys);
        continue;
      }
      if (h.retransmission) {
        ++resends;
        continue;
      }
      // A multicast sends one copy per worker: count each result once, at worker 0's copy (or
      // the one copy to a server).
      if (h.num_values > 0 && (h.worker_id == 0 || h.worker_id == kAllWorkers)) {
        ++completions[h.key_offset];
      }
    }
  }
  const uint64_t blocks = (aggregated + k - 1) / k;
  ASSERT_EQ(completions.size(), blocks);
  for (const auto& [key, count] : completions) {
    EXPECT_EQ(key % k, 0u);
    EXPECT_EQ(count, 1) << "key " << key;
  }
  EXPECT_EQ(duplicates, 1u);
  EXPECT_EQ(retransmissions, 1u);
  EXPECT_EQ(resends, 1u);
  EXPECT_EQ(cold, c.spec.mode == AggregationMode::kParameterServer ? c.spec.workers : 0u);

  // Each worker's contribution counted once: the sum of the first update each worker sent for
  // each key (retransmissions and the duplicate repeat it) is what the switch must have summed.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<int32_t>> first_update;  // (worker, key)
  for (const TestVectorStep& step : vectors.steps) {
    const AggregationHeader& h = step.input.header;
    if (h.num_values == 0 || h.key_offset >= aggregated) continue;
    first_update.try_emplace({h.worker_id, h.key_offset}, step.input.values);
  }
  // THC updates carry indices: the switch adds their table integers.
  const std::vector<uint32_t> table =
      c.spec.IsThc() ? DefaultThcTable(c.spec.thc_bits, c.spec.thc_granularity)
                     : std::vector<uint32_t>{};
  std::vector<int64_t> wide(aggregated, 0);
  for (const auto& [id, q] : first_update) {
    for (uint32_t i = 0; i < k && id.second + i < aggregated; ++i) {
      wide[id.second + i] +=
          c.spec.IsThc() ? int64_t{table[static_cast<size_t>(q[i])]} : int64_t{q[i]};
    }
  }
  ASSERT_EQ(vectors.summed_integers.size(), aggregated);
  for (uint64_t i = 0; i < aggregated; ++i) {
    int64_t expected = wide[i];
    if (c.spec.overflow == OverflowBehaviour::kSaturate) {
      expected = std::clamp<int64_t>(expected, INT32_MIN, INT32_MAX);
    }
    ASSERT_EQ(vectors.summed_integers[i], expected) << "value " << i;
  }

  // And against independent truth: the workers' gradients quantised here from the formula
  // (THC: encoded here at the largest norm exponent and summed by the software aggregator).
  std::vector<std::vector<float>> tensors(c.spec.workers, std::vector<float>(aggregated));
  for (uint32_t w = 0; w < c.spec.workers; ++w) {
    for (uint64_t i = 0; i < aggregated; ++i) {
      tensors[w][i] = TestVectorGradient(vectors.options.seed, w, i, k);
    }
  }
  if (c.spec.IsThc()) {
    EXPECT_EQ(vectors.summed_integers, IndependentThcSums(c, vectors.options, tensors));
  } else {
    EXPECT_EQ(vectors.summed_integers, IndependentSums(c, tensors, aggregated));
  }
}

TEST_P(Vectors, WithoutFaultsNothingIsDuplicatedOrResent) {
  Case c = GetParam();
  c.options.inject_loss = false;
  c.options.inject_duplicate = false;
  const TestVectors vectors = BuildTestVectors(c.spec, c.options);
  for (const TestVectorStep& step : vectors.steps) {
    EXPECT_TRUE(step.note.empty() || step.note.rfind("cold key", 0) == 0) << step.note;
    for (const OutputPacket& out : step.expected) EXPECT_FALSE(out.packet.header.retransmission);
  }
  // The same sums as with the faults: recovery changes nothing.
  EXPECT_EQ(vectors.summed_integers, BuildTestVectors(c.spec, GetParam().options).summed_integers);
}

TEST_P(Vectors, AreDeterministicAndDependOnTheSeed) {
  const Case& c = GetParam();
  const std::string a = TestVectorsToJson(BuildTestVectors(c.spec, c.options)).dump();
  EXPECT_EQ(a, TestVectorsToJson(BuildTestVectors(c.spec, c.options)).dump());
  TestVectorOptions other = c.options;
  other.seed += 1;
  EXPECT_NE(a, TestVectorsToJson(BuildTestVectors(c.spec, other)).dump());
}

INSTANTIATE_TEST_SUITE_P(Specs, Vectors, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

// The sums against quantisation done here from the formula, for the block-exponent case where
// the agreed exponent is known from the result frames (the switch's max-exponent register).
TEST(VectorsSums, BlockExponentSumsMatchTheFormulaAppliedToTheAnnouncedExponents) {
  AggregationSwitchSpec spec;
  spec.workers = 4;
  spec.values_per_packet = 16;
  TestVectorOptions options;
  options.values_per_worker = 16 * 10;
  const TestVectors vectors = BuildTestVectors(spec, options);
  // Every completed result with values carries the agreed exponent of its block; its sums divided
  // by the scale must be within the stated error bound of the sum of the decoded-scale inputs.
  for (const TestVectorStep& step : vectors.steps) {
    for (const OutputPacket& out : step.expected) {
      const AggregationHeader& h = out.packet.header;
      if (h.type != AggregationMessage::kResult || h.num_values == 0) continue;
      const double scale = QuantisationScale(spec, h.exponent);
      for (uint32_t i = 0; i < h.num_values; ++i) {
        EXPECT_EQ(out.packet.values[i], vectors.summed_integers[h.key_offset + i]);
        // Inputs are in (-8, 8): the decoded sum of 4 workers is below 32 in magnitude.
        EXPECT_LT(std::abs(Dequantise(out.packet.values[i], scale)), 32.0);
      }
    }
  }
}

TEST(VectorsOptions, RefusePoolsTheSpecCannotHold) {
  AggregationSwitchSpec spec;
  spec.aggregator_slots = 8;
  TestVectorOptions options;
  options.pool_slots = 0;
  EXPECT_THROW(BuildTestVectors(spec, options), std::invalid_argument);
  options.pool_slots = 9;
  EXPECT_THROW(BuildTestVectors(spec, options), std::invalid_argument);
  options.pool_slots = 8;
  EXPECT_NO_THROW(BuildTestVectors(spec, options));
}

TEST(Pcap, GlobalHeaderIsClassicLittleEndianEthernet) {
  const auto bytes = WritePcap({{1, 2, 3}});
  ASSERT_EQ(bytes.size(), 24u + 16u + 3u);
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 4),
            (std::vector<uint8_t>{0xd4, 0xc3, 0xb2, 0xa1}));
  EXPECT_EQ(bytes[4], 2);   // version 2.4
  EXPECT_EQ(bytes[6], 4);
  EXPECT_EQ(bytes[20], 1);  // LINKTYPE_ETHERNET
  EXPECT_EQ(bytes[24 + 8], 3);  // captured length
}

TEST(Pcap, RefusesTruncatedAndForeignFiles) {
  auto bytes = WritePcap({{1, 2, 3, 4}, {5, 6}});
  auto truncated = bytes;
  truncated.pop_back();
  EXPECT_THROW(ReadPcap(truncated), std::runtime_error);
  auto header_cut = std::vector<uint8_t>(bytes.begin(), bytes.begin() + 30);
  EXPECT_THROW(ReadPcap(header_cut), std::runtime_error);
  auto foreign = bytes;
  foreign[0] = 0x0a;  // pcapng's block type, not the classic magic
  EXPECT_THROW(ReadPcap(foreign), std::runtime_error);
  auto huge = bytes;
  huge[24 + 8] = 0xff;  // a record longer than the snapshot length
  huge[24 + 9] = 0xff;
  huge[24 + 10] = 0xff;
  EXPECT_THROW(ReadPcap(huge), std::runtime_error);
  // Big-endian files (written by other tools) read the same.
  std::vector<uint8_t> big = {0xa1, 0xb2, 0xc3, 0xd4, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0,
                              0,    0,    0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
                              0,    0,    0,    2,    0, 0, 0, 2, 7, 8};
  EXPECT_EQ(ReadPcap(big), (std::vector<std::vector<uint8_t>>{{7, 8}}));
}

TEST(PtfScript, ReplaysVectorsJsonAndIsDeterministic) {
  AggregationSwitchSpec spec;
  spec.workers = 2;
  const TestVectors vectors = BuildTestVectors(spec, {});
  const std::string script = GeneratePtfTest(vectors, "aggregation");
  EXPECT_EQ(script, GeneratePtfTest(vectors, "aggregation"));
  for (const char* needle : {"send_packet", "verify_packet", "verify_no_other_packets",
                             "vectors.json", "run_p4_tests.sh -p aggregation", "class "}) {
    EXPECT_NE(script.find(needle), std::string::npos) << needle;
  }
}

TEST(VectorsJson, MalformedStepIsNamed) {
  AggregationSwitchSpec spec;
  spec.workers = 2;
  nlohmann::json json = TestVectorsToJson(BuildTestVectors(spec, {}));
  json["steps"][3]["input"]["frame"] = "00zz";
  try {
    TestVectorsFromJson(json, spec);
    FAIL() << "accepted a malformed frame";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("steps[3]"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace hfsim
