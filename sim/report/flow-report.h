// What only the flow engine reports: per-link bytes and the most flows that shared each link,
// the work its rate solver did, and conservation. Part of Report. A fluid model has no packets,
// queues or loss, so this is a smaller sibling of PacketReport, not a copy of it.
#pragma once

#include <cstdint>
#include <vector>

namespace hfsim {

struct FlowLinkReport {
  uint64_t link = 0;    ///< fabric link id (hfsim topology -o DIR: links.csv)
  uint64_t source = 0;  ///< vertex ids: NPUs first, then switches
  uint64_t target = 0;
  uint32_t dimension = 0;
  uint64_t bytes = 0;        ///< payload bytes carried (flows have no headers)
  double utilisation = 0.0;  ///< bytes / (link bandwidth x simulated time)
  uint32_t peak_flows = 0;   ///< the most flows draining on the link at once
};

struct FlowReport {
  uint64_t events = 0;               ///< events the flow clock ran
  uint64_t rate_solves = 0;          ///< max-min solves (each over the flows a change reached)
  uint64_t largest_solve_flows = 0;  ///< the most flows one solve re-rated
  double simulated_ns = 0.0;         ///< when the last message arrived
  double wall_seconds = 0.0;         ///< host time; printed, never written to files
  uint64_t peak_memory_bytes = 0;    ///< the process's peak resident memory; printed only
  // Conservation: every message started arrives, every byte sent is delivered.
  uint64_t messages_sent = 0;
  uint64_t messages_delivered = 0;
  uint64_t bytes_sent = 0;
  uint64_t bytes_delivered = 0;
  std::vector<FlowLinkReport> links;
};

}  // namespace hfsim
