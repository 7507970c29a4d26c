#include "sim/report/trace-json.h"

#include <map>

#include <fmt/format.h>

namespace hfsim {

namespace {

}  // namespace

nlohmann::json TraceJson(const Timeline& timeline) {
  nlohmann::json events = nlohmann::json::array();
  std::map<std::pair<uint32_t, std::string>, int> threads;
  for (uint32_t c = 0; c < timeline.classes.size(); ++c) {
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", c}, {"tid", 0},
                      {"args", {{"name", RanksLabel(timeline.classes[c].ranks)}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", c}, {"tid", 0},
                      {"args", {{"sort_index", c}}}});
  }
  for (const TimelineSpan& span : timeline.spans) {
    const auto key = std::make_pair(span.rank_class, span.track);
    if (threads.count(key) == 0) {
      const int tid = TrackOrder(span.track);
      threads[key] = tid;
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", span.rank_class},
                        {"tid", tid}, {"args", {{"name", span.track}}}});
      events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", span.rank_class},
                        {"tid", tid}, {"args", {{"sort_index", tid}}}});
    }
  }
  for (const TimelineSpan& span : timeline.spans) {
    nlohmann::json args = {{"phase", span.phase}};
    if (span.bytes > 0) args["bytes"] = span.bytes;
    if (!span.group.empty()) args["group"] = span.group;
    args["duration_ns"] = span.duration_ns;
    events.push_back({{"ph", "X"},
                      {"name", span.name},
                      {"cat", span.category},
                      {"pid", span.rank_class},
                      {"tid", threads.at({span.rank_class, span.track})},
                      {"ts", span.start_ns / 1000.0},
                      {"dur", span.duration_ns / 1000.0},
                      {"args", std::move(args)}});
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"generator", "hfsim"}, {"iteration_ns", timeline.total_ns}}}};
}

}  // namespace hfsim
