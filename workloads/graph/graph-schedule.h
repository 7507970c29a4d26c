// The order in which an execution graph's nodes can run, compiled once per graph so that an
// engine can time the graph many times (the optimiser: once per allocation, on a number type
// carrying a gradient) with nothing but max and + per node.
//
// Matched nodes (the members of one collective across rank classes, a send and its receive)
// start together, so they form one *unit*. A unit starts at the latest end among what its
// members wait for (their dependencies and their stream predecessor) and every member ends
// after the unit's duration, which the engine supplies. Units are kept in an order in which
// each comes after everything it waits for; a graph without one (ranks waiting on each other
// in a circle) is refused, naming a node that can never start.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "workloads/graph/execution-graph.h"
#include "workloads/graph/graph-check.h"
#include "workloads/time-number.h"

namespace hfsim {

class GraphSchedule {
 public:
  struct Unit {
    uint32_t rank_class = 0;  ///< the first member's class and program position
    uint32_t position = 0;
    uint32_t first_wait = 0, wait_count = 0;      ///< into Waits(): units this one waits for
    uint32_t first_member = 0, member_count = 1;  ///< see MemberOf
    /// Continues the step of the unit it waits for (GraphNode::continues_step, on a unit of
    /// one node waiting for one unit).
    bool continues_step = false;
  };
  struct Member {
    uint32_t rank_class;
    uint32_t position;
  };

  /// The graph must have passed CheckGraph. Returns the error when ranks wait on each other in
  /// a circle.
  static std::optional<GraphError> Build(const ExecutionGraph& graph, GraphSchedule& out);

  /// Units in an order that respects every wait.
  const std::vector<Unit>& Units() const { return m_units; }
  const std::vector<uint32_t>& Waits() const { return m_waits; }
  /// Member m (< member_count) of a unit; member 0 is (rank_class, position).
  Member MemberOf(const Unit& unit, uint32_t m) const {
    return unit.member_count == 1 ? Member{unit.rank_class, unit.position}
                                  : m_members[unit.first_member + m];
  }
  /// The unit of node `position` of class `rank_class`.
  uint32_t UnitOf(uint32_t rank_class, uint32_t position) const {
    const uint32_t vertex = m_class_offset[rank_class] + position;
    return m_in_program_order ? vertex : m_unit_of[vertex];
  }
  /// Units ending a stream of some class: the job ends when the last of them ends.
  const std::vector<uint32_t>& StreamEnds() const { return m_stream_ends; }
  /// The last unit on stream 0 (the main stream) of a class, or UINT32_MAX if it has none.
  uint32_t MainStreamEnd(uint32_t rank_class) const { return m_main_end[rank_class]; }

  /// Start and end of every unit, given each unit's duration. `Time` needs +, construction from
  /// double and TimeMax(Time, Time).
  template <typename Time, typename Duration>
  void Play(Duration&& duration_of_unit, std::vector<Time>& start, std::vector<Time>& end) const {
    // Every entry is written before it is read: resizing keeps a caller's reused buffers as
    // they are instead of clearing them first.
    start.resize(m_units.size());
    end.resize(m_units.size());
    // Per unit: when its step began, and the step's durations up to and including it. Kept per
    // thread: a report plays its graph once per evaluation, sweeps evaluate very often.
    thread_local std::vector<Time> step_start, step_sum;
    step_start.resize(m_units.size());
    step_sum.resize(m_units.size());
    for (uint32_t u = 0; u < m_units.size(); ++u) {
      const Unit& unit = m_units[u];
      if (unit.continues_step) {
        const uint32_t p = m_waits[unit.first_wait];
        start[u] = end[p];
        step_start[u] = step_start[p];
        step_sum[u] = step_sum[p] + duration_of_unit(u);
        end[u] = step_start[u] + step_sum[u];
        continue;
      }
      if (unit.wait_count > 0) {
        Time at = end[m_waits[unit.first_wait]];
        for (uint32_t w = 1; w < unit.wait_count; ++w) {
          at = TimeMax(at, end[m_waits[unit.first_wait + w]]);
        }
        start[u] = at;
      } else {
        start[u] = Time(0.0);
      }
      step_start[u] = start[u];
      step_sum[u] = duration_of_unit(u);
      end[u] = start[u] + step_sum[u];
    }
  }
  /// Only when the job ends: the same arithmetic as Play, without start times and into buffers
  /// kept per thread, for callers that play one graph many times (the optimiser).
  template <typename Time, typename Duration>
  Time PlayTotal(Duration&& duration_of_unit) const {
    thread_local std::vector<Time> end, step_start, step_sum;
    end.resize(m_units.size());
    step_start.resize(m_units.size());
    step_sum.resize(m_units.size());
    for (uint32_t u = 0; u < m_units.size(); ++u) {
      const Unit& unit = m_units[u];
      if (unit.continues_step) {
        const uint32_t p = m_waits[unit.first_wait];
        step_start[u] = step_start[p];
        step_sum[u] = step_sum[p] + duration_of_unit(u);
        end[u] = step_start[u] + step_sum[u];
        continue;
      }
      Time at(0.0);
      if (unit.wait_count > 0) {
        at = end[m_waits[unit.first_wait]];
        for (uint32_t w = 1; w < unit.wait_count; ++w) {
          at = TimeMax(at, end[m_waits[unit.first_wait + w]]);
        }
      }
      step_start[u] = at;
      step_sum[u] = duration_of_unit(u);
      end[u] = at + step_sum[u];
    }
    return Total(end);
  }

  /// When the last stream of any class ends.
  template <typename Time>
  Time Total(const std::vector<Time>& end) const {
    Time total(0.0);
    for (size_t i = 0; i < m_stream_ends.size(); ++i) {
      total = i == 0 ? end[m_stream_ends[i]] : TimeMax(total, end[m_stream_ends[i]]);
    }
    return total;
  }

 private:
  /// Nothing matched across programs (one class, no sends): every node is its own unit, in
  /// program order, and one pass builds everything. With `point_to_point` given, stops and
  /// sets it at the first send or receive (the caller then takes the general path).
  static std::optional<GraphError> BuildInProgramOrder(const ExecutionGraph& graph,
                                                       GraphSchedule& out,
                                                       bool* point_to_point = nullptr);

  std::vector<Unit> m_units;
  std::vector<uint32_t> m_waits;
  std::vector<Member> m_members;  ///< of units with several members only
  bool m_in_program_order = false;  ///< unit = vertex (m_unit_of unused)
  std::vector<uint32_t> m_class_offset;
  std::vector<uint32_t> m_unit_of;
  std::vector<uint32_t> m_stream_ends;
  std::vector<uint32_t> m_main_end;
};

}  // namespace hfsim
