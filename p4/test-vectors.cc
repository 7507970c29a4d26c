#include "p4/test-vectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <memory>
#include <stdexcept>

#include "base/deterministic-rng.h"
#include "models/aggregation/aggregation-worker.h"
#include "models/aggregation/fixed-point.h"
#include "models/aggregation/switch-aggregator.h"
#include "models/aggregation/thc-worker-input.h"
#include "models/compression/thc.h"
#include "p4/port-plan.h"

namespace hfsim {

namespace {

constexpr uint64_t kMaxSteps = 1000000;
constexpr const char* kNoteDuplicate = "duplicate";
constexpr const char* kNoteRetransmission = "retransmission after lost result";
constexpr const char* kNoteCold = "cold key: forwarded unchanged to its server";

}  // namespace

float TestVectorGradient(uint64_t seed, uint32_t worker, uint64_t i, uint32_t values_per_packet) {
  const uint64_t bits = SplitMix64(seed ^ (uint64_t{worker} << 40) ^ SplitMix64(i));
  const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  const int exponent = static_cast<int>((i / values_per_packet) % 7) - 3;
  return static_cast<float>(std::ldexp(unit, exponent));
}

namespace {

std::vector<float> Tensor(uint64_t seed, uint32_t worker, uint64_t begin, uint64_t count,
                          uint32_t values_per_packet) {
  std::vector<float> values(count);
  for (uint64_t i = 0; i < count; ++i) {
    values[i] = TestVectorGradient(seed, worker, begin + i, values_per_packet);
  }
  return values;
}

std::string Hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

std::vector<uint8_t> FromHex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw std::runtime_error("odd number of hex digits");
  std::vector<uint8_t> bytes(hex.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    const std::string pair = hex.substr(2 * i, 2);
    if (pair.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      throw std::runtime_error("not a hex digit in \"" + pair + "\"");
    }
    bytes[i] = static_cast<uint8_t>(std::stoul(pair, nullptr, 16));
  }
  return bytes;
}

// Runs the workers and the switch in lock step. Packets to the switch wait in one FIFO, each
// becomes a step; the switch's outputs go to the workers (or to an emulated server) at once,
// and their answers join the FIFO. The clock advances 1 ns per step, so retransmission deadlines
// follow the order packets were sent.
class VectorRun {
 public:
  VectorRun(const AggregationSwitchSpec& spec, const TestVectorOptions& options)
      : m_spec(spec), m_options(options), m_switch(spec) {
    AggregationWorkerOptions worker_options;
    worker_options.pool_slots = options.pool_slots;
    for (uint32_t w = 0; w < spec.workers; ++w) {
      std::vector<float> tensor =
          Tensor(options.seed, w, 0, options.values_per_worker, spec.values_per_packet);
      if (spec.IsThc()) {
        m_workers.emplace_back(spec, w, ThcInput(w, tensor), worker_options);
      } else {
        m_workers.emplace_back(spec, w, std::move(tensor), worker_options);
      }
    }
    m_lose_pending = options.inject_loss;
    m_duplicate_pending = options.inject_duplicate;
  }

  TestVectors Run() {
    for (AggregationWorker& worker : m_workers) Enqueue(worker.Start(m_now), "");
    while (!AllDone()) {
      if (m_queue.empty()) RetransmitOverdue();
      while (!m_queue.empty()) {
        auto [packet, note] = std::move(m_queue.front());
        m_queue.pop_front();
        Step(packet, note);
        const AggregationHeader& h = packet.header;
        if (m_duplicate_pending && h.worker_id == 0 && h.num_values > 0 && note.empty()) {
          m_duplicate_pending = false;
          Step(packet, kNoteDuplicate);
        }
      }
    }
    AddColdKeySteps();
    m_vectors.spec = m_spec;
    m_vectors.options = m_options;
    m_vectors.summed_integers = m_workers.front().SummedIntegers();
    for (const AggregationWorker& worker : m_workers) {
      if (worker.SummedIntegers() != m_vectors.summed_integers) {
        throw std::logic_error("test vectors: the workers ended with different sums");
      }
    }
    return std::move(m_vectors);
  }

 private:
  // THC jobs: worker w's encoder on its gradient, with RHT blocks no longer than the gradient
  // (a power of two), so the vectors stay as short as the int32 ones.
  ThcWorkerInput ThcInput(uint32_t w, const std::vector<float>& tensor) {
    const ThcConfig config = TestVectorThcConfig(m_spec, m_options);
    m_thc.push_back(std::make_unique<ThcWorker>(config, tensor.size(), SplitMix64(m_options.seed + w)));
    const Eigen::VectorXd gradient =
        Eigen::Map<const Eigen::VectorXf>(tensor.data(), static_cast<Eigen::Index>(tensor.size()))
            .cast<double>();
    return MakeThcWorkerInput(*m_thc.back(), gradient);
  }

  bool AllDone() const {
    return std::all_of(m_workers.begin(), m_workers.end(),
                       [](const AggregationWorker& w) { return w.Done(); });
  }

  void Enqueue(std::vector<AggregationPacket> packets, const std::string& note) {
    for (AggregationPacket& p : packets) m_queue.emplace_back(std::move(p), note);
  }

  // The queue ran dry before every worker finished: a result was lost. Move the clock to the
  // earliest deadline and let the workers retransmit what is overdue.
  void RetransmitOverdue() {
    double earliest = 0.0;
    bool any = false;
    for (const AggregationWorker& worker : m_workers) {
      if (const auto next = worker.NextTimeoutNs(); next && (!any || *next < earliest)) {
        earliest = *next;
        any = true;
      }
    }
    if (!any) throw std::logic_error("test vectors: workers stuck with nothing outstanding");
    m_now = std::max(m_now, earliest);
    for (AggregationWorker& worker : m_workers) Enqueue(worker.OnTimeout(m_now), kNoteRetransmission);
  }

  void Step(const AggregationPacket& packet, const std::string& note) {
    if (m_vectors.steps.size() >= kMaxSteps) {
      throw std::logic_error("test vectors: the protocol did not finish");
    }
    m_now += 1.0;
    TestVectorStep step;
    step.ingress_port = PortPlan::PortOf(packet.source);
    step.input = packet;
    step.note = note;
    for (AggregationPacket& out : m_switch.Receive(packet)) {
      step.expected.push_back({PortPlan::PortOf(out.destination), out});
    }
    m_vectors.steps.push_back(step);
    for (const OutputPacket& out : step.expected) Deliver(out.packet);
  }

  void Deliver(const AggregationPacket& packet) {
    if (packet.destination.kind == EndpointKind::kServer) {
      ServerAnswers(packet);
      return;
    }
    ToWorker(packet);
  }

  void ToWorker(const AggregationPacket& packet) {
    const uint32_t w = packet.destination.index;
    // The first result with values for the last worker is lost (a priming result would do, but
    // losing a sum exercises the resend of real values).
    if (m_lose_pending && w == m_spec.workers - 1 && packet.header.num_values > 0) {
      m_lose_pending = false;  // this one never arrives
      return;
    }
    Enqueue(m_workers.at(w).OnPacket(packet, m_now), "");
  }

  // The emulated parameter server answers the workers directly: its replies are not steps, since
  // they do not enter the pipeline under test. A completed slot goes to every worker, a resent one
  // to the worker that asked.
  void ServerAnswers(const AggregationPacket& result) {
    if (result.header.type != AggregationMessage::kResult) return;  // cold keys: not awaited
    for (uint32_t w = 0; w < m_spec.workers; ++w) {
      if (result.header.worker_id != kAllWorkers && result.header.worker_id != w) continue;
      AggregationPacket reply = result;
      reply.source = result.destination;
      reply.destination = Endpoint::Worker(w);
      reply.header.worker_id = static_cast<uint8_t>(w);
      ToWorker(reply);
    }
  }

  // Parameter-server specs with cold keys: the workers' state machines only send hot blocks (the
  // cold range goes over the ordinary transport), so one update per worker for the first cold
  // block is added, which the switch must forward unchanged to the owning server.
  void AddColdKeySteps() {
    if (m_spec.mode != AggregationMode::kParameterServer || m_spec.hot_key_capacity_keys >= kAllKeysHot) {
      return;
    }
    const uint64_t k = m_spec.values_per_packet;
    const uint64_t first_cold = (m_spec.hot_key_capacity_keys + k - 1) / k * k;
    if (first_cold + k > kAllKeysHot) return;
    for (uint32_t w = 0; w < m_spec.workers; ++w) {
      const std::vector<float> block = Tensor(m_options.seed, w, first_cold, k, m_spec.values_per_packet);
      AggregationPacket p;
      p.source = Endpoint::Worker(w);
      p.destination = Endpoint::Switch();
      p.udp_port = m_spec.udp_port;
      AggregationHeader& h = p.header;
      h.type = AggregationMessage::kUpdate;
      h.worker_id = static_cast<uint8_t>(w);
      h.worker_bitmap = uint32_t{1} << w;
      h.num_values = static_cast<uint8_t>(k);
      h.key_offset = static_cast<uint32_t>(first_cold);
      const bool exponent = m_spec.scheme == FixedPointScheme::kBlockExponent;
      h.exponent = static_cast<int8_t>(exponent ? BlockExponent(block) : 0);
      p.values = QuantiseBlock(block, m_spec, h.exponent);
      Step(p, kNoteCold);
    }
  }

  AggregationSwitchSpec m_spec;
  TestVectorOptions m_options;
  SwitchAggregator m_switch;
  std::vector<std::unique_ptr<ThcWorker>> m_thc;  ///< THC jobs: each worker's encoder
  std::vector<AggregationWorker> m_workers;
  std::deque<std::pair<AggregationPacket, std::string>> m_queue;
  TestVectors m_vectors;
  double m_now = 0.0;
  bool m_lose_pending = false;
  bool m_duplicate_pending = false;
};

nlohmann::json PacketJson(const AggregationPacket& packet) {
  return {{"describe", Describe(packet)}, {"frame", Hex(SerializeAggregationPacket(packet))}};
}

AggregationPacket PacketFromJson(const nlohmann::json& json, const AggregationSwitchSpec& spec) {
  const std::vector<uint8_t> frame = FromHex(json.at("frame").get<std::string>());
  std::string error;
  auto packet = ParseAggregationPacket(frame, spec.values_per_packet, &error,
                                       spec.IsThc() ? spec.thc_bits : 0);
  if (!packet) throw std::runtime_error(error);
  return *packet;
}

}  // namespace

ThcConfig TestVectorThcConfig(const AggregationSwitchSpec& spec, const TestVectorOptions& options) {
  ThcConfig config;
  config.bits = spec.thc_bits;
  config.granularity = spec.thc_granularity;
  const uint64_t values = std::max<uint64_t>(1, options.values_per_worker);
  config.block = static_cast<uint32_t>(std::min<uint64_t>(4096, std::bit_floor(values)));
  config.seed = options.seed;
  return config;
}

TestVectors BuildTestVectors(const AggregationSwitchSpec& spec, const TestVectorOptions& options) {
  if (options.pool_slots == 0 || options.pool_slots > spec.aggregator_slots) {
    throw std::invalid_argument(fmt::format("pool of {} slots: accepted 1 to the spec's {} slots",
                                            options.pool_slots, spec.aggregator_slots));
  }
  TestVectorOptions resolved = options;
  if (resolved.values_per_worker == 0) {
    resolved.values_per_worker = uint64_t{4} * options.pool_slots * spec.values_per_packet;
  }
  if (resolved.values_per_worker > kAllKeysHot) {
    throw std::invalid_argument(
        fmt::format("{} values per worker: keys are 32-bit, so at most 2^32",
                    resolved.values_per_worker));
  }
  return VectorRun(spec, resolved).Run();
}

nlohmann::json TestVectorsToJson(const TestVectors& vectors) {
  const AggregationSwitchSpec& spec = vectors.spec;
  nlohmann::json steps = nlohmann::json::array();
  for (size_t i = 0; i < vectors.steps.size(); ++i) {
    const TestVectorStep& step = vectors.steps[i];
    nlohmann::json expected = nlohmann::json::array();
    for (const OutputPacket& out : step.expected) {
      nlohmann::json entry = PacketJson(out.packet);
      entry["egress_port"] = out.egress_port;
      expected.push_back(entry);
    }
    steps.push_back({{"step", i},
                     {"note", step.note},
                     {"ingress_port", step.ingress_port},
                     {"input", PacketJson(step.input)},
                     {"expected", expected}});
  }
  nlohmann::json spec_json = {{"mode", ToString(spec.mode)},
                              {"workers", spec.workers},
                              {"aggregator_slots", spec.aggregator_slots},
                              {"values_per_packet", spec.values_per_packet},
                              {"tofino_generation", static_cast<int>(spec.generation)},
                              {"udp_port", spec.udp_port},
                              {"shadow_copies", spec.shadow_copies}};
  if (spec.IsThc()) {
    spec_json["value_format"] = ToString(spec.value_format);
    spec_json["thc"] = {{"bits", spec.thc_bits}, {"granularity", spec.thc_granularity}};
  }
  return {{"format", "hfsim-p4-test-vectors"},
          {"version", 1},
          {"spec", spec_json},
          {"options",
           {{"values_per_worker", vectors.options.values_per_worker},
            {"pool_slots", vectors.options.pool_slots},
            {"seed", vectors.options.seed},
            {"inject_loss", vectors.options.inject_loss},
            {"inject_duplicate", vectors.options.inject_duplicate}}},
          {"steps", steps},
          {"summed_integers", vectors.summed_integers}};
}

TestVectors TestVectorsFromJson(const nlohmann::json& json, const AggregationSwitchSpec& spec) {
  TestVectors vectors;
  vectors.spec = spec;
  if (json.value("format", "") != "hfsim-p4-test-vectors") {
    throw std::runtime_error("not an hfsim test-vector file (\"format\")");
  }
  const auto& steps = json.at("steps");
  for (size_t i = 0; i < steps.size(); ++i) {
    try {
      const auto& s = steps[i];
      TestVectorStep step;
      step.note = s.at("note").get<std::string>();
      step.ingress_port = s.at("ingress_port").get<uint16_t>();
      step.input = PacketFromJson(s.at("input"), spec);
      for (const auto& e : s.at("expected")) {
        step.expected.push_back(
            {e.at("egress_port").get<uint16_t>(), PacketFromJson(e, spec)});
      }
      vectors.steps.push_back(std::move(step));
    } catch (const std::exception& error) {
      throw std::runtime_error(fmt::format("steps[{}]: {}", i, error.what()));
    }
  }
  const auto& options = json.at("options");
  vectors.options.values_per_worker = options.at("values_per_worker").get<uint64_t>();
  vectors.options.pool_slots = options.at("pool_slots").get<uint32_t>();
  vectors.options.seed = options.at("seed").get<uint64_t>();
  vectors.options.inject_loss = options.at("inject_loss").get<bool>();
  vectors.options.inject_duplicate = options.at("inject_duplicate").get<bool>();
  vectors.summed_integers = json.at("summed_integers").get<std::vector<int32_t>>();
  return vectors;
}

}  // namespace hfsim
