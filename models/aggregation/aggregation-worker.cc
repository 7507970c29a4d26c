#include "models/aggregation/aggregation-worker.h"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "models/aggregation/fixed-point.h"

namespace hfsim {

AggregationTraffic ComputeAggregationTraffic(const AggregationSwitchSpec& spec, uint64_t values,
                                             uint32_t pool_slots) {
  const uint64_t k = spec.values_per_packet;
  AggregationTraffic t;
  t.aggregated_values = values;
  if (spec.mode == AggregationMode::kParameterServer) {
    const uint64_t hot_blocks = (spec.hot_key_capacity_keys + k - 1) / k;
    t.aggregated_values = std::min(values, hot_blocks * k);
  }
  t.blocks = (t.aggregated_values + k - 1) / k;
  const uint64_t pool =
      pool_slots == 0 ? spec.aggregator_slots : std::min(pool_slots, spec.aggregator_slots);
  t.slots_used = std::min(pool, t.blocks);
  t.packets_per_worker = t.blocks + (spec.HasExponentRegister() ? t.slots_used : 0);
  t.frame_bytes = kFrameHeaderBytes + spec.ResultValueBytes();
  t.wire_bytes_per_worker = t.packets_per_worker * t.frame_bytes;
  t.update_frame_bytes = kFrameHeaderBytes + spec.UpdateValueBytes();
  t.update_wire_bytes_per_worker = t.packets_per_worker * t.update_frame_bytes;
  return t;
}

AggregationWorker::AggregationWorker(const AggregationSwitchSpec& spec, uint32_t worker_id,
                                     std::vector<float> tensor, AggregationWorkerOptions options)
    : m_spec(spec), m_worker(worker_id), m_tensor(std::move(tensor)), m_options(options) {
  if (worker_id >= spec.workers || m_tensor.size() > kAllKeysHot || spec.IsThc()) {
    throw std::invalid_argument(
        "AggregationWorker: worker id or tensor size out of range, or a THC job's spec");
  }
  // A block is hot when its first key is: the switch checks the key of the packet.
  m_aggregated_values = ComputeAggregationTraffic(spec, m_tensor.size()).aggregated_values;
  Setup();
  m_result.assign(m_aggregated_values, 0.0);
}

AggregationWorker::AggregationWorker(const AggregationSwitchSpec& spec, uint32_t worker_id,
                                     ThcWorkerInput input, AggregationWorkerOptions options)
    : m_spec(spec), m_worker(worker_id), m_thc(std::move(input)), m_options(options) {
  if (worker_id >= spec.workers || m_thc.coordinates > kAllKeysHot || !spec.IsThc() ||
      spec.mode != AggregationMode::kAllReduce || !m_thc.encode) {
    throw std::invalid_argument(
        "AggregationWorker: a THC worker needs an all-reduce THC spec, an encoder, a worker id "
        "below the workers and at most 2^32 coordinates");
  }
  m_aggregated_values = m_thc.coordinates;
  Setup();
}

void AggregationWorker::Setup() {
  m_priming = m_spec.HasExponentRegister();
  m_pool = m_options.pool_slots == 0 ? m_spec.aggregator_slots
                                     : std::min(m_options.pool_slots, m_spec.aggregator_slots);
  const uint64_t blocks = Blocks();
  const uint32_t active = static_cast<uint32_t>(std::min<uint64_t>(m_pool, blocks));
  m_slots.resize(active);
  for (uint32_t s = 0; s < active; ++s) {
    m_slots[s].rounds = (blocks - s + m_pool - 1) / m_pool + (m_priming ? 1 : 0);
  }
  m_slots_left = active;
  m_block_exponent.assign(blocks, 0);
  m_sums.assign(m_aggregated_values, 0);
}

uint64_t AggregationWorker::Blocks() const {
  return (m_aggregated_values + m_spec.values_per_packet - 1) / m_spec.values_per_packet;
}

std::optional<uint64_t> AggregationWorker::CarriedBlock(uint32_t slot, uint64_t round) const {
  if (m_priming) {
    if (round == 0) return std::nullopt;
    return slot + (round - 1) * m_pool;
  }
  return slot + round * m_pool;
}

int32_t AggregationWorker::LocalExponent(uint64_t block) const {
  if (m_spec.IsThc()) return m_thc.norm_exponent;  // one scale for the whole vector
  const uint64_t k = m_spec.values_per_packet;
  const uint64_t begin = block * k;
  const uint64_t end = std::min(begin + k, m_aggregated_values);
  return BlockExponent(std::span(m_tensor).subspan(begin, end - begin));
}

AggregationPacket AggregationWorker::BuildPacket(uint32_t slot, uint64_t round) const {
  const uint64_t k = m_spec.values_per_packet;
  AggregationPacket p;
  p.source = Endpoint::Worker(m_worker);
  p.destination = Endpoint::Switch();
  p.udp_port = m_spec.udp_port;
  AggregationHeader& h = p.header;
  h.type = AggregationMessage::kUpdate;
  h.slot_set = m_spec.shadow_copies ? static_cast<uint8_t>(round % 2) : 0;
  h.worker_id = static_cast<uint8_t>(m_worker);
  h.worker_bitmap = uint32_t{1} << m_worker;
  h.slot = static_cast<uint16_t>(slot);
  const std::optional<uint64_t> block = CarriedBlock(slot, round);
  if (block) {
    const uint64_t begin = *block * k;
    const uint64_t end = std::min(begin + k, m_aggregated_values);
    if (m_spec.IsThc()) {
      // Index 0 pads the last block: its lanes add table[0] = 0.
      p.values.assign(k, 0);
      for (uint64_t i = begin; i < end; ++i) p.values[i - begin] = static_cast<int32_t>(m_indices[i]);
    } else {
      const int32_t exponent = m_priming ? m_block_exponent[*block] : 0;
      p.values = QuantiseBlock(std::span(m_tensor).subspan(begin, end - begin), m_spec, exponent);
    }
    h.num_values = static_cast<uint8_t>(end - begin);
    h.key_offset = static_cast<uint32_t>(begin);
  } else {
    p.values.assign(k, 0);
    h.num_values = 0;
    h.key_offset = static_cast<uint32_t>(uint64_t{slot} * k);
  }
  if (m_spec.IsThc()) p.thc_bits = static_cast<uint8_t>(m_spec.thc_bits);
  if (m_priming) {
    // Announce the exponent of the block this slot carries next.
    const uint64_t next = block ? *block + m_pool : slot;
    h.exponent = static_cast<int8_t>(next < Blocks() ? LocalExponent(next) : kMinBlockExponent);
  }
  return p;
}

void AggregationWorker::Send(SlotState& state, AggregationPacket packet, double now_ns,
                             std::vector<AggregationPacket>& out) {
  state.outstanding = std::move(packet);
  state.deadline_ns = now_ns + m_options.retransmit_timeout_ns;
  out.push_back(state.outstanding);
  ++m_counters.packets_sent;
}

std::vector<AggregationPacket> AggregationWorker::Start(double now_ns) {
  std::vector<AggregationPacket> out;
  for (uint32_t s = 0; s < m_slots.size(); ++s) Send(m_slots[s], BuildPacket(s, 0), now_ns, out);
  return out;
}

std::vector<AggregationPacket> AggregationWorker::OnPacket(const AggregationPacket& packet,
                                                           double now_ns) {
  std::vector<AggregationPacket> out;
  const AggregationHeader& h = packet.header;
  const bool ours = h.type == AggregationMessage::kResult && packet.udp_port == m_spec.udp_port &&
                    packet.destination == Endpoint::Worker(m_worker) && h.slot < m_slots.size() &&
                    packet.values.size() == m_spec.values_per_packet &&
                    packet.thc_bits == (m_spec.IsThc() ? m_spec.thc_bits : 0);
  if (!ours || m_slots[h.slot].done) {
    ++m_counters.stale_results;
    return out;
  }
  SlotState& state = m_slots[h.slot];
  const AggregationHeader& sent = state.outstanding.header;
  if (h.slot_set != sent.slot_set || h.key_offset != sent.key_offset ||
      h.num_values != sent.num_values) {
    ++m_counters.stale_results;
    return out;
  }
  ++m_counters.results_accepted;
  const std::optional<uint64_t> block = CarriedBlock(h.slot, state.round);
  if (m_spec.IsThc() && !m_agreed_norm) {
    // The first priming result: every worker announced its norm exponent on every slot, so
    // this is the largest, the one all of them encode with.
    m_agreed_norm = h.exponent;
    m_indices = m_thc.encode(h.exponent);
    if (m_indices.size() != m_aggregated_values) {
      throw std::logic_error("AggregationWorker: the THC encoder returned the wrong count");
    }
  }
  if (block && m_spec.IsThc()) {
    const uint64_t begin = *block * m_spec.values_per_packet;
    for (uint32_t i = 0; i < h.num_values; ++i) m_sums[begin + i] = packet.values[i];
  } else if (block) {
    const uint64_t begin = *block * m_spec.values_per_packet;
    const double scale = QuantisationScale(m_spec, m_priming ? m_block_exponent[*block] : 0);
    for (uint32_t i = 0; i < h.num_values; ++i) {
      m_sums[begin + i] = packet.values[i];
      m_result[begin + i] = Dequantise(packet.values[i], scale);
    }
  }
  if (m_priming) {
    const uint64_t next = block ? *block + m_pool : h.slot;
    if (next < Blocks()) m_block_exponent[next] = h.exponent;
  }
  ++state.round;
  if (state.round == state.rounds) {
    state.done = true;
    --m_slots_left;
    return out;
  }
  Send(state, BuildPacket(h.slot, state.round), now_ns, out);
  return out;
}

std::vector<AggregationPacket> AggregationWorker::OnTimeout(double now_ns) {
  std::vector<AggregationPacket> out;
  for (SlotState& state : m_slots) {
    if (state.done || state.deadline_ns > now_ns) continue;
    AggregationPacket again = state.outstanding;
    again.header.retransmission = true;
    Send(state, std::move(again), now_ns, out);
    ++m_counters.retransmissions;
  }
  return out;
}

std::optional<double> AggregationWorker::NextTimeoutNs() const {
  std::optional<double> next;
  for (const SlotState& state : m_slots) {
    if (!state.done && (!next || state.deadline_ns < *next)) next = state.deadline_ns;
  }
  return next;
}

}  // namespace hfsim
