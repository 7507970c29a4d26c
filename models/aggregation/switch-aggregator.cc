#include "models/aggregation/switch-aggregator.h"

#include <algorithm>
#include <stdexcept>

#include "models/aggregation/fixed-point.h"
#include "models/compression/thc.h"

namespace hfsim {

SwitchAggregator::SwitchAggregator(const AggregationSwitchSpec& spec) : m_spec(spec) {
  if (spec.workers == 0 || spec.workers > 32 || spec.aggregator_slots == 0 ||
      spec.values_per_packet == 0) {
    throw std::invalid_argument("SwitchAggregator: needs 1..32 workers, slots and values");
  }
  if (spec.IsThc()) {
    for (uint32_t level : DefaultThcTable(spec.thc_bits, spec.thc_granularity)) {
      m_thc_table.push_back(static_cast<int32_t>(level));
    }
  }
  SlotRegisters empty;
  empty.values.assign(spec.values_per_packet, 0);
  m_registers.assign(size_t{spec.SlotSets()} * spec.aggregator_slots, empty);
}

const SlotRegisters& SwitchAggregator::Registers(uint32_t set, uint32_t slot) const {
  return m_registers.at(size_t{set} * m_spec.aggregator_slots + slot);
}

bool SwitchAggregator::IsWellFormedUpdate(const AggregationPacket& p) const {
  const AggregationHeader& h = p.header;
  return h.type == AggregationMessage::kUpdate && p.udp_port == m_spec.udp_port &&
         p.destination == Endpoint::Switch() && p.source == Endpoint::Worker(h.worker_id) &&
         h.slot < m_spec.aggregator_slots && h.slot_set < m_spec.SlotSets() &&
         h.worker_id < m_spec.workers && h.worker_bitmap == (uint32_t{1} << h.worker_id) &&
         h.num_values <= m_spec.values_per_packet && p.values.size() == m_spec.values_per_packet &&
         p.thc_bits == (m_spec.IsThc() ? m_spec.thc_bits : 0) &&
         (!m_spec.IsThc() ||
          std::all_of(p.values.begin(), p.values.end(), [this](int32_t index) {
            return index >= 0 && static_cast<size_t>(index) < m_thc_table.size();
          }));
}

AggregationPacket SwitchAggregator::MakeResult(const AggregationPacket& update,
                                               const SlotRegisters& slot) const {
  AggregationPacket result = update;
  result.source = Endpoint::Switch();
  result.header.type = AggregationMessage::kResult;
  result.header.retransmission = false;
  // With a fixed scale the exponent means nothing and the P4 program keeps no exponent
  // register: a result carries the exponent field of the packet that produced it.
  if (m_spec.HasExponentRegister()) result.header.exponent = slot.max_exponent;
  result.header.worker_bitmap = slot.bitmap;
  result.values = slot.values;
  return result;
}

std::vector<AggregationPacket> SwitchAggregator::Receive(const AggregationPacket& packet) {
  std::vector<AggregationPacket> out;
  if (!IsWellFormedUpdate(packet)) {
    ++m_counters.rejected;
    return out;
  }
  const AggregationHeader& h = packet.header;
  const bool server_mode = m_spec.mode == AggregationMode::kParameterServer;
  const Endpoint owner = Endpoint::Server(m_spec.OwnerShard(h.key_offset));
  if (server_mode && !m_spec.IsHotKey(h.key_offset)) {
    AggregationPacket forwarded = packet;
    forwarded.destination = owner;
    out.push_back(std::move(forwarded));
    ++m_counters.cold_forwarded;
    m_counters.packets_out += out.size();
    return out;
  }
  const uint32_t bit = h.worker_bitmap;
  SlotRegisters& slot = m_registers[size_t{h.slot_set} * m_spec.aggregator_slots + h.slot];
  const bool duplicate = (slot.bitmap & bit) != 0;
  // Shadow copies: the worker has the other set's result, since it moved on to this set, so its
  // bit there is cleared. The P4 program does this on every packet, duplicates included (a no-op
  // for them when packets are not reordered), and so does the model, to match it bit for bit.
  slot.bitmap |= bit;
  if (m_spec.shadow_copies) {
    const uint32_t other = 1 - h.slot_set;
    m_registers[size_t{other} * m_spec.aggregator_slots + h.slot].bitmap &= ~bit;
  }

  if (duplicate) {
    if (slot.count != 0) {
      ++m_counters.duplicates_dropped;
      return out;
    }
    // The worker retransmitted because its result was lost: the registers still hold it.
    AggregationPacket answer = MakeResult(packet, slot);
    answer.header.retransmission = true;
    answer.header.worker_id = h.worker_id;
    answer.destination = server_mode ? owner : Endpoint::Worker(h.worker_id);
    out.push_back(std::move(answer));
    ++m_counters.results_resent;
    m_counters.packets_out += out.size();
    return out;
  }

  if (m_spec.IsThc()) {
    // Table lookup, then lane adds: the first packet of a round writes, later ones add.
    for (size_t i = 0; i < slot.values.size(); ++i) {
      const int32_t level = m_thc_table[static_cast<size_t>(packet.values[i])];
      slot.values[i] = slot.count == 0 ? level : slot.values[i] + level;
    }
    slot.max_exponent = slot.count == 0 ? h.exponent : std::max(slot.max_exponent, h.exponent);
  } else if (slot.count == 0) {
    slot.values = packet.values;
    slot.max_exponent = h.exponent;
  } else {
    for (size_t i = 0; i < slot.values.size(); ++i) {
      slot.values[i] = AddInt32(slot.values[i], packet.values[i], m_spec.overflow);
    }
    slot.max_exponent = std::max(slot.max_exponent, h.exponent);
  }
  slot.count = (slot.count + 1) % m_spec.workers;
  ++m_counters.updates_aggregated;
  if (slot.count != 0) return out;

  ++m_counters.slots_completed;
  const AggregationPacket result = MakeResult(packet, slot);
  if (server_mode) {
    AggregationPacket forwarded = result;
    forwarded.destination = owner;
    forwarded.header.worker_id = kAllWorkers;
    out.push_back(std::move(forwarded));
  } else {
    // Multicast: the P4 program replicates to the job's group; egress addresses each copy.
    for (uint32_t w = 0; w < m_spec.workers; ++w) {
      AggregationPacket copy = result;
      copy.destination = Endpoint::Worker(w);
      copy.header.worker_id = static_cast<uint8_t>(w);
      out.push_back(std::move(copy));
    }
  }
  if (!m_spec.shadow_copies) slot.bitmap = 0;
  m_counters.packets_out += out.size();
  return out;
}

}  // namespace hfsim
