#include "sim/scenario/packet-section.h"

#include <fmt/format.h>

#include <set>
#include <utility>

#include "topologies/dimension-kinds.h"
#include "topologies/fabric-graph.h"
#include "topologies/ip-address-plan.h"  // header-only, no ns-3

namespace hfsim {

namespace {

constexpr double kMaxTimeNs = 1e15;  // 11.6 simulated days

}  // namespace

void ReadPacketSection(const JsonCursor* section, Scenario& scenario) {
  PacketSpec& spec = scenario.packet;
  if (section == nullptr) return;
  section->ExpectObject({"mtu_bytes", "header_bytes", "queue_bytes", "ecn_threshold_bytes",
                         "congestion_control", "ack_every_packets", "retransmit_timeout_ns",
                         "transport", "tcp_variant", "faults", "max_memory_GiB"});
  if (auto v = section->Find("max_memory_GiB")) {
    spec.max_memory_GiB = v->Number(0.01, 1e6, false);
    spec.max_memory_given = true;
  }
  if (auto v = section->Find("mtu_bytes"))
    spec.mtu_bytes = static_cast<uint32_t>(v->Integer(64, 65000));
  if (auto v = section->Find("header_bytes")) {
    // Must hold hfsim's own 30-byte header plus the 2-byte PPP framing ns-3 adds.
    spec.header_bytes = static_cast<uint32_t>(v->Integer(32, 512));
  }
  if (auto v = section->Find("queue_bytes")) spec.queue_bytes = v->Integer(1, kMaxPacketQueueBytes);
  if (auto v = section->Find("ecn_threshold_bytes"))
    spec.ecn_threshold_bytes = v->Integer(0, kMaxPacketQueueBytes);
  if (spec.queue_bytes < spec.mtu_bytes + spec.header_bytes) {
    const JsonCursor where =
        section->Find("queue_bytes") ? section->Child("queue_bytes") : *section;
    where.Fail(fmt::format(
        "a queue of {} bytes cannot hold one packet of {} + {} bytes; accepted: "
        "at least {}",
        spec.queue_bytes, spec.mtu_bytes, spec.header_bytes, spec.mtu_bytes + spec.header_bytes));
  }
  if (auto v = section->Find("congestion_control")) {
    spec.congestion_control = v->Choice(kCongestionControlNames);
  }
  if (auto v = section->Find("ack_every_packets"))
    spec.ack_every_packets = static_cast<uint32_t>(v->Integer(1, 1024));
  if (auto v = section->Find("retransmit_timeout_ns"))
    spec.retransmit_timeout_ns = v->Number(1000.0, 1e12, false);
  if (auto v = section->Find("transport")) {
    spec.transport = v->Choice(kTransportKindNames);
    if (spec.transport == TransportKind::kTcp) {
      // The IP fabric routes by static tables, one path per destination: no ECMP.
      for (size_t d = 0; d < scenario.dimensions.size(); ++d) {
        const DimensionKind kind = scenario.dimensions[d].kind;
        if (KindEntry(kind).ecmp) {
          v->Fail(fmt::format(
              "\"tcp\" routes by static IP tables, which have no ECMP for {} dimension {}; "
              "accepted with a {} dimension: \"rdma\"",
              ToString(kind), d, ToString(kind)));
        }
      }
      // The IP fabric numbers NPUs by coordinates and routes hop by hop under IP's 8-bit TTL.
      const IpAddressPlan plan(scenario.dimensions);
      if (!plan.Fits()) {
        v->Fail(
            fmt::format("\"tcp\" numbers NPUs by their coordinates in 10.0.0.0/8, and these "
                        "dimensions need {} bits; accepted: \"tcp\" on fabrics whose "
                        "ceil(log2(size)) summed over dimensions is at most {}, else \"rdma\"",
                        plan.TotalBits(), IpAddressPlan::kFieldBits));
      }
      const uint32_t hops = MaxRouteHops(scenario.dimensions);
      if (hops > 255) {
        v->Fail(
            fmt::format("\"tcp\" routes over IP, whose TTL allows 255 hops, and the longest "
                        "route here takes {}; accepted: \"tcp\" on fabrics with routes of "
                        "at most 255 hops, else \"rdma\"",
                        hops));
      }
    }
  }
  if (auto v = section->Find("tcp_variant")) {
    spec.tcp_variant = v->Choice(kTcpVariantNames);
  }
  if (auto faults = section->Find("faults")) {
    faults->ExpectObject({"link_loss", "link_down"});
    const uint64_t links = ComputeFabricGraphSize(scenario.dimensions).link_count;
    const std::string link_range = fmt::format(
        "a fabric link id from 0 to {} (see `hfsim topology "
        "-o DIR`, links.csv)",
        links - 1);
    if (auto list = faults->Find("link_loss")) {
      // The most specific entry applies (a link over its dimension over the whole fabric); two
      // entries for the same scope would leave it to their order, so they are refused.
      std::set<std::pair<int, uint64_t>> scopes;
      for (const JsonCursor& entry : list->Elements(0, 100000)) {
        entry.ExpectObject({"dimension", "link", "rate"});
        LinkLoss loss;
        if (auto d = entry.Find("dimension"))
          loss.dimension = static_cast<uint32_t>(d->Integer(0, scenario.dimensions.size() - 1));
        if (auto l = entry.Find("link")) loss.link = l->Integer(0, links - 1);
        if (loss.dimension && loss.link) entry.Fail("give \"dimension\" or \"link\", not both");
        loss.rate =
            entry.At("rate", "a loss probability per packet in [0, 1)").Number(0.0, 0.5, false);
        const std::pair<int, uint64_t> scope = loss.link ? std::pair{2, *loss.link}
                                               : loss.dimension
                                                   ? std::pair{1, uint64_t{*loss.dimension}}
                                                   : std::pair{0, uint64_t{0}};
        if (!scopes.insert(scope).second) {
          entry.Fail(
              fmt::format("sets the loss of {} a second time; accepted: one entry per link, "
                          "per dimension and for the whole fabric (the most specific applies)",
                          loss.link        ? fmt::format("link {}", *loss.link)
                          : loss.dimension ? fmt::format("dimension {}", *loss.dimension)
                                           : std::string("the whole fabric")));
        }
        spec.link_loss.push_back(loss);
      }
    }
    if (auto list = faults->Find("link_down")) {
      for (const JsonCursor& entry : list->Elements(0, 100000)) {
        entry.ExpectObject({"link", "from_ns", "until_ns"});
        LinkDown down;
        down.link = entry.At("link", link_range).Integer(0, links - 1);
        down.from_ns = entry.At("from_ns", "a time in ns").Number(0.0, kMaxTimeNs, false);
        const JsonCursor until =
            entry.At("until_ns", "a time in ns after from_ns (links come back)");
        down.until_ns = until.Number(0.0, kMaxTimeNs, false);
        if (down.until_ns <= down.from_ns) {
          until.Fail(
              fmt::format("got {}, not after from_ns {}; accepted: a later time (a link that "
                          "never comes back would stall dimension-order routing forever)",
                          down.until_ns, down.from_ns));
        }
        spec.link_down.push_back(down);
      }
    }
  }
}

nlohmann::json PacketSectionToJson(const PacketSpec& spec) {
  nlohmann::json loss = nlohmann::json::array();
  for (const LinkLoss& l : spec.link_loss) {
    nlohmann::json entry = {{"rate", l.rate}};
    if (l.dimension) entry["dimension"] = *l.dimension;
    if (l.link) entry["link"] = *l.link;
    loss.push_back(entry);
  }
  nlohmann::json down = nlohmann::json::array();
  for (const LinkDown& d : spec.link_down) {
    down.push_back({{"link", d.link}, {"from_ns", d.from_ns}, {"until_ns", d.until_ns}});
  }
  nlohmann::json out = {{"mtu_bytes", spec.mtu_bytes},
                        {"header_bytes", spec.header_bytes},
                        {"queue_bytes", spec.queue_bytes},
                        {"ecn_threshold_bytes", spec.ecn_threshold_bytes},
                        {"congestion_control", ToString(spec.congestion_control)},
                        {"ack_every_packets", spec.ack_every_packets},
                        {"retransmit_timeout_ns", spec.retransmit_timeout_ns},
                        {"transport", ToString(spec.transport)},
                        {"tcp_variant", ToString(spec.tcp_variant)},
                        {"faults", {{"link_loss", loss}, {"link_down", down}}}};
  if (spec.max_memory_given) out["max_memory_GiB"] = spec.max_memory_GiB;
  return out;
}

}  // namespace hfsim
