// Test vectors for the generated P4 program, computed by the C++ switch model: every packet the
// workers send into the switch (in order, with its ingress port) and, for each, the exact packets
// the switch must send out (with their egress ports). They come from running AggregationWorker
// state machines against SwitchAggregator in lock step, so the simulator and the vectors share one
// definition of the pipeline. One result is lost on its way to a worker (the worker times out and
// retransmits; the switch answers from its registers) and one update is duplicated (the switch
// drops the copy), so a replay exercises the shadow-copy recovery path too.
//
// Written as JSON (vectors.json, with every frame in hex and a description), as two pcap files
// (inputs and expected outputs, in order) and as a PTF test (ptf/test_aggregation.py) that
// replays vectors.json against the Tofino model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/aggregation/aggregation-packet.h"
#include "models/aggregation/aggregation-spec.h"
#include "models/compression/thc.h"

namespace hfsim {

struct TestVectorOptions {
  /// Values each worker aggregates (block-exponent specs add one priming round per slot).
  uint64_t values_per_worker = 0;  ///< 0: 4 x pool_slots x values_per_packet
  /// Slots each worker keeps in flight (at most the spec's aggregator_slots).
  uint32_t pool_slots = 4;
  /// Seed of the workers' synthetic gradients.
  uint64_t seed = 1;
  /// Lose the first result with values addressed to the last worker (it retransmits; the switch
  /// resends).
  bool inject_loss = true;
  /// Deliver one update of worker 0 twice (the switch drops the second copy).
  bool inject_duplicate = true;
};

struct OutputPacket {
  uint16_t egress_port = 0;
  AggregationPacket packet;
};

/// One packet into the switch and everything the switch sends because of it (possibly nothing).
struct TestVectorStep {
  uint16_t ingress_port = 0;
  AggregationPacket input;
  std::vector<OutputPacket> expected;
  /// Why this step is in the sequence: "", "duplicate" or "retransmission after lost result".
  std::string note;
};

struct TestVectors {
  AggregationSwitchSpec spec;
  TestVectorOptions options;
  std::vector<TestVectorStep> steps;
  /// The integer sums every worker ended with (identical for all workers), for a final check.
  std::vector<int32_t> summed_integers;
};

/// Value `index` of worker `worker`'s synthetic gradient: uniform in (-1, 1) times a per-block
/// magnitude from 2^-3 to 2^3 (so blocks get different exponents), from a portable generator
/// (splitmix64), so the vectors are the same bytes with any standard library.
float TestVectorGradient(uint64_t seed, uint32_t worker, uint64_t index, uint32_t values_per_packet);

/// THC specs: the encoder configuration every worker of the vectors uses (the spec's bits and
/// granularity, RHT blocks of min(4096, the largest power of two <= values), the options' seed);
/// worker w rounds with seed SplitMix64(options.seed + w).
ThcConfig TestVectorThcConfig(const AggregationSwitchSpec& spec, const TestVectorOptions& options);

/// Runs the workers and the switch model. Throws std::invalid_argument when the options do not
/// suit the spec (pool larger than the slots, more than 2^32 values).
TestVectors BuildTestVectors(const AggregationSwitchSpec& spec, const TestVectorOptions& options);

/// vectors.json: spec summary, options, and per step the ingress port, the frame in hex and a
/// description, and each expected output's egress port, frame and description.
nlohmann::json TestVectorsToJson(const TestVectors& vectors);
/// Reads vectors.json back (frames parsed with ParseAggregationPacket); throws
/// std::runtime_error naming the step on a malformed file.
TestVectors TestVectorsFromJson(const nlohmann::json& json, const AggregationSwitchSpec& spec);

/// A classic pcap file (microsecond timestamps, LINKTYPE_ETHERNET) of the given frames; packet i
/// gets timestamp i microseconds so the order survives any tool.
std::vector<uint8_t> WritePcap(const std::vector<std::vector<uint8_t>>& frames);
/// The frames of a pcap file written by WritePcap (or any classic little-/big-endian pcap with
/// Ethernet frames); throws std::runtime_error on a malformed file.
std::vector<std::vector<uint8_t>> ReadPcap(const std::vector<uint8_t>& bytes);

/// The PTF test (Python, for open-p4studio's ptf runner) that sends each step's input on its
/// port and verifies the expected frames on theirs, reading vectors.json next to it.
std::string GeneratePtfTest(const TestVectors& vectors, const std::string& program_name);

}  // namespace hfsim
