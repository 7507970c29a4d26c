#include "sim/packet/point-to-point-links.h"

#include <ns3/data-rate.h>
#include <ns3/drop-tail-queue.h>
#include <ns3/mac48-address.h>
#include <ns3/point-to-point-channel.h>

#include <stdexcept>
#include <string>
#include <unordered_map>

namespace hfsim {

std::vector<LinkId> BuildPointToPointLinks(
    const FabricGraph& graph, const PointToPointLinkOptions& options,
    std::vector<ns3::Ptr<ns3::Node>>& nodes,
    std::vector<ns3::Ptr<ns3::PointToPointNetDevice>>& devices,
    const std::function<void(LinkId, const ns3::Ptr<ns3::PointToPointNetDevice>&)>& finish) {
  const uint64_t links = graph.LinkCount();
  auto wired = [&](const FabricLink& link) { return !options.wired || options.wired(link); };
  // Each link and its reverse share one duplex channel.
  std::unordered_map<uint64_t, LinkId> by_endpoints;
  by_endpoints.reserve(links);
  auto key = [&](VertexId a, VertexId b) { return uint64_t{a} * graph.NodeCount() + b; };
  for (LinkId l = 0; l < links; ++l) {
    if (wired(graph.Link(l))) by_endpoints.emplace(key(graph.Link(l).source, graph.Link(l).target), l);
  }
  auto make_device = [&](LinkId id, const ns3::Ptr<ns3::PointToPointChannel>& channel) {
    const FabricLink& own = graph.Link(id);
    if (!nodes[own.source]) nodes[own.source] = ns3::CreateObject<ns3::Node>();
    auto device = ns3::CreateObject<ns3::PointToPointNetDevice>();
    device->SetAddress(ns3::Mac48Address::Allocate());
    device->SetDataRate(ns3::DataRate(static_cast<uint64_t>(own.bandwidth_Bpns * 8e9 + 0.5)));
    device->SetMtu(65535);
    auto queue = ns3::CreateObject<ns3::DropTailQueue<ns3::Packet>>();
    queue->SetMaxSize(ns3::QueueSize(ns3::QueueSizeUnit::BYTES, options.queue_bytes));
    device->SetQueue(queue);
    nodes[own.source]->AddDevice(device);  // before any IP interface: IPv4 hooks into the node
    device->Attach(channel);
    devices[id] = device;
    finish(id, device);
  };
  std::vector<LinkId> peer(links, kNoPeerLink);
  for (LinkId l = 0; l < links; ++l) {
    const FabricLink& link = graph.Link(l);
    if (!wired(link) || devices[l]) continue;
    const auto reverse = by_endpoints.find(key(link.target, link.source));
    if (reverse == by_endpoints.end() && options.require_reverse) {
      throw std::logic_error("BuildPointToPointLinks: fabric link " + std::to_string(l) +
                             " has no reverse link");
    }
    auto channel = ns3::CreateObject<ns3::PointToPointChannel>();
    channel->SetAttribute(
        "Delay",
        ns3::TimeValue(ns3::PicoSeconds(static_cast<int64_t>(link.latency_ns * 1e3 + 0.5))));
    make_device(l, channel);
    if (reverse != by_endpoints.end()) {
      make_device(reverse->second, channel);
      peer[l] = reverse->second;
      peer[reverse->second] = l;
    }
  }
  return peer;
}

}  // namespace hfsim
