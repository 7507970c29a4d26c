// The order in which an execution graph's nodes can run, compiled once per graph so that an
// engine can time the graph many times (the optimiser: once per allocation, on a number type
// carrying a gradient) with nothing but max and + per node.
//
// Matched nodes (the members of one collective across rank classes, a send and its receive)
// start together, so they form one *unit* (with eager sends, ExecutionGraph::eager_sends, a
// receive is a unit of its own that waits for its send's unit). A unit starts at the latest end among what its
// members wait for (their dependencies and their stream predecessor) and every member ends
// after the unit's duration, which the engine supplies. Units are kept in an order in which
// each comes after everything it waits for; a graph without one (ranks waiting on each other
// in a circle) is refused, naming a node that can never start.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "workloads/graph/execution-graph.h"
#include "workloads/graph/graph-check.h"
#include "workloads/time-number.h"

namespace hfsim {

class GraphSchedule {
 public:
  struct Member {
    uint32_t rank_class;
    uint32_t position;
  };

  /// The graph must have passed CheckGraph. Returns the error when ranks wait on each other in
  /// a circle.
  static std::optional<GraphError> Build(const ExecutionGraph& graph, GraphSchedule& out);

  /// Units are numbered in an order that respects every wait. Each is kept as a few flat arrays
  /// rather than a struct: a graph is compiled once per evaluation and played as often, so the
  /// bytes written per node are most of what building costs.
  uint32_t UnitCount() const { return static_cast<uint32_t>(m_wait_start.size()) - 1; }
  /// The units unit `u` waits for: [first, last).
  const uint32_t* WaitsBegin(uint32_t u) const { return m_waits.data() + m_wait_start[u]; }
  const uint32_t* WaitsEnd(uint32_t u) const { return m_waits.data() + m_wait_start[u + 1]; }
  /// Unit `u` continues the step of the one unit it waits for (GraphNode::continues_step, on a
  /// unit of one node waiting for one unit): the step's durations are summed first.
  bool ContinuesStep(uint32_t u) const { return m_continues_step[u] != 0; }
  uint32_t MemberCount(uint32_t u) const {
    return m_in_program_order ? 1 : m_member_start[u + 1] - m_member_start[u];
  }
  /// Member m (< MemberCount) of unit u; member 0 leads (the earliest node, in class order).
  Member MemberOf(uint32_t u, uint32_t m = 0) const {
    if (!m_in_program_order) return m_members[m_member_start[u] + m];
    if (m_class_offset.size() == 2) return Member{0, u};
    const uint32_t c = ClassOfVertex(u);
    return Member{c, u - m_class_offset[c]};
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
    Walk<Time>(duration_of_unit, &start, end);
  }
  /// The same with end times only.
  template <typename Time, typename Duration>
  void PlayEnds(Duration&& duration_of_unit, std::vector<Time>& end) const {
    Walk<Time>(duration_of_unit, nullptr, end);
  }
  /// Only when the job ends: the same arithmetic as Play, without start times and into buffers
  /// kept per thread, for callers that play one graph many times (the optimiser).
  template <typename Time, typename Duration>
  Time PlayTotal(Duration&& duration_of_unit) const {
    thread_local std::vector<Time> end;
    Walk<Time>(duration_of_unit, nullptr, end);
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
  // Plays every unit in order: a unit starts at the latest end among what it waits for (at 0
  // when it waits for nothing); one that continues a step adds its duration to the step's sum
  // first. Every entry is written before it is read, so buffers are resized, not cleared.
  template <typename Time, typename Duration>
  void Walk(Duration&& duration_of_unit, std::vector<Time>* start, std::vector<Time>& end) const {
    const uint32_t units = UnitCount();
    if (start) start->resize(units);
    end.resize(units);
    // Per unit: when its step began, and the step's durations up to and including it. Kept per
    // thread: a report plays its graph once per evaluation, sweeps evaluate very often.
    thread_local std::vector<Time> step_start, step_sum;
    step_start.resize(units);
    step_sum.resize(units);
    if constexpr (std::is_floating_point_v<Time>) {
      // Most units wait for the unit just before: its figures are also kept in locals, so the
      // chain from one end to the next does not pass through a store and a reload per unit.
      Time last_end(0.0), last_step_start(0.0), last_step_sum(0.0);
      for (uint32_t u = 0; u < units; ++u) {
        const uint32_t* wait = WaitsBegin(u);
        const uint32_t* const wait_end = WaitsEnd(u);
        auto end_of = [&](uint32_t w) -> const Time& { return w + 1 == u ? last_end : end[w]; };
        if (m_continues_step[u]) {
          const uint32_t p = *wait;
          const bool just_before = p + 1 == u;
          if (start) (*start)[u] = end_of(p);
          Time sum = (just_before ? last_step_sum : step_sum[p]) + duration_of_unit(u);
          if (!just_before) last_step_start = step_start[p];
          last_step_sum = sum;
        } else {
          Time at(0.0);
          if (wait != wait_end) {
            at = end_of(*wait);
            while (++wait != wait_end) at = TimeMax(at, end_of(*wait));
          }
          if (start) (*start)[u] = at;
          last_step_start = at;
          last_step_sum = duration_of_unit(u);
        }
        last_end = last_step_start + last_step_sum;
        step_start[u] = last_step_start;
        step_sum[u] = last_step_sum;
        end[u] = last_end;
      }
    } else {
      // A number carrying a gradient is too wide for registers: copying it into locals would
      // only add work, so it is read from and written to the arrays once each.
      for (uint32_t u = 0; u < units; ++u) {
        const uint32_t* wait = WaitsBegin(u);
        const uint32_t* const wait_end = WaitsEnd(u);
        if (m_continues_step[u]) {
          const uint32_t p = *wait;
          if (start) (*start)[u] = end[p];
          step_start[u] = step_start[p];
          step_sum[u] = step_sum[p] + duration_of_unit(u);
        } else {
          Time at(0.0);
          if (wait != wait_end) {
            at = end[*wait];
            while (++wait != wait_end) at = TimeMax(at, end[*wait]);
          }
          if (start) (*start)[u] = at;
          step_start[u] = at;
          step_sum[u] = duration_of_unit(u);
        }
        end[u] = step_start[u] + step_sum[u];
      }
    }
  }

  /// Nothing matched across programs (one class, no sends): every node is its own unit, in
  /// program order, and one pass builds everything. With `point_to_point` given, stops and
  /// sets it at the first send or receive (the caller then takes the general path).
  static std::optional<GraphError> BuildInProgramOrder(const ExecutionGraph& graph,
                                                       GraphSchedule& out,
                                                       bool* point_to_point = nullptr);
  uint32_t ClassOfVertex(uint32_t vertex) const;

  std::vector<uint32_t> m_wait_start{0};  ///< per unit, into m_waits; one more at the end
  std::vector<uint32_t> m_waits;
  std::vector<uint8_t> m_continues_step;  ///< per unit
  bool m_in_program_order = false;  ///< unit = vertex; members, m_unit_of unused
  std::vector<uint32_t> m_member_start;  ///< per unit, into m_members; one more at the end
  std::vector<Member> m_members;
  std::vector<uint32_t> m_class_offset;  ///< first vertex of each class; one more at the end
  std::vector<uint32_t> m_unit_of;
  std::vector<uint32_t> m_stream_ends;
  std::vector<uint32_t> m_main_end;
};

}  // namespace hfsim
