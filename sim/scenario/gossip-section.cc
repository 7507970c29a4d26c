#include "sim/scenario/gossip-section.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/scenario/learning-section.h"
#include "workloads/model-zoo.h"

namespace hfsim {

namespace {

constexpr uint64_t kMaxWorkers = 1024;
constexpr uint64_t kMaxSteps = kMaxLearningSteps;
constexpr uint64_t kMaxModelBytes = uint64_t{1} << 40;

ExchangeTrigger ReadTrigger(const JsonCursor& t) {
  t.ExpectObject({"kind", "period_steps", "probability", "threshold", "policy", "decay"});
  ExchangeTrigger trigger;
  trigger.kind = t.At("kind", QuotedAlternatives(kTriggerKindNames)).Choice(kTriggerKindNames);
  if (auto p = t.Find("period_steps")) trigger.period = static_cast<uint32_t>(p->Integer(1, kMaxSteps));
  if (auto p = t.Find("probability")) trigger.probability = p->Number(0.0, 1.0, true);
  if (auto p = t.Find("threshold")) trigger.threshold = p->Number(0.0, 1e6, true);
  if (auto p = t.Find("policy")) trigger.policy = p->Choice(kThresholdPolicyNames);
  if (auto p = t.Find("decay")) trigger.decay = p->Number(0.0, 1.0, true);
  return trigger;
}

}  // namespace

GossipWorkload ReadGossipSection(const JsonCursor& section, const Scenario& scenario) {
  section.ExpectObject({"workers", "server", "rule", "trigger", "steps", "batch", "learning_rate",
                        "classifier", "task", "model", "model_bytes", "step_compute_ns",
                        "target_accuracy", "eval_every_steps", "elastic_alpha"});
  uint64_t npus = 1;
  for (const Dimension& dim : scenario.dimensions) npus *= dim.size;
  GossipWorkload g;
  const JsonCursor workers = section.At("workers", "an array of at least 2 distinct NPU ids");
  std::vector<bool> seen(npus, false);
  for (const JsonCursor& entry : workers.Elements(2, std::min(npus, kMaxWorkers))) {
    const auto npu = static_cast<uint32_t>(entry.Integer(0, npus - 1));
    if (seen[npu]) entry.Fail(fmt::format("NPU {} is listed twice; accepted: distinct NPU ids", npu));
    seen[npu] = true;
    g.worker_npus.push_back(npu);
  }
  GossipSpec& spec = g.spec;
  spec.workers = static_cast<uint32_t>(g.worker_npus.size());
  spec.seed = scenario.seed;
  spec.rule = section.At("rule", QuotedAlternatives(kGossipRuleNames)).Choice(kGossipRuleNames);
  if (spec.rule == GossipRule::kElastic) {
    g.server_npu = static_cast<uint32_t>(
        section.At("server", "the NPU id holding the elastic centre").Integer(0, npus - 1));
  } else if (section.Has("server")) {
    section.Child("server").Fail("only the \"elastic\" rule has a centre on a server; accepted: leave it out");
  }
  if (auto t = section.Find("trigger")) spec.trigger = ReadTrigger(*t);
  if (auto p = section.Find("steps")) spec.steps = static_cast<uint32_t>(p->Integer(1, kMaxSteps));
  if (auto p = section.Find("batch")) spec.batch = static_cast<uint32_t>(p->Integer(1, 4096));
  if (auto p = section.Find("learning_rate")) spec.learning_rate = ReadLearningRate(*p);
  if (auto p = section.Find("task")) g.task = ReadLearningTask(*p, scenario.seed);
  g.task.SetSeed(scenario.seed);
  spec.classifier = ReadClassifier(section.Find("classifier"), g.task);
  if (section.Has("model") == section.Has("model_bytes")) {
    section.Fail(fmt::format("give exactly one of \"model\" (a zoo name: {}; exchanges carry its "
                             "fp32 parameters) or \"model_bytes\"",
                             fmt::join(ModelZooNames(), ", ")));
  }
  if (auto m = section.Find("model")) {
    g.model_name = m->String();
    const auto zoo = BuildZooModel(g.model_name);
    if (!zoo) m->Fail(fmt::format("unknown model; accepted: {}", fmt::join(ModelZooNames(), ", ")));
    spec.model_bytes = 4 * zoo->TotalParams();
  } else {
    spec.model_bytes = section.Child("model_bytes").Integer(1, kMaxModelBytes);
  }
  g.step_compute_ns = section.At("step_compute_ns", "the time of one local SGD step, ns")
                          .Number(0.0, 1e15, false);
  if (auto p = section.Find("target_accuracy")) g.target_accuracy = p->Number(0.0, 1.0, true);
  if (auto p = section.Find("eval_every_steps")) spec.eval_every = static_cast<uint32_t>(p->Integer(1, kMaxSteps));
  if (auto p = section.Find("elastic_alpha")) spec.elastic_alpha = p->Number(0.0, 1.0, true);
  CheckTrainSamples(section, g.task, spec.workers);
  CheckLearningWork(section, spec.steps, spec.workers, spec.batch, spec.classifier);
  return g;
}

std::optional<UserError> GossipPacketRefusal(const Scenario& scenario) {
  if (scenario.workload_kind != WorkloadKind::kGossip || scenario.engine != EngineKind::kPacket) {
    return std::nullopt;
  }
  const GossipSpec& spec = scenario.gossip.spec;
  const double messages_per_exchange = spec.rule == GossipRule::kElastic ? 2.0 : 1.0;
  const double worst = static_cast<double>(spec.steps) * spec.workers * messages_per_exchange *
                       static_cast<double>(spec.model_bytes);
  if (worst <= kMaxGossipPacketBytes) return std::nullopt;
  return UserError{
      "workload.gossip",
      fmt::format("with the packet engine, steps x workers x messages per exchange x model bytes "
                  "= {:.3g} B may cross the fabric, more than the {:.3g} B (2 TiB) one packet run "
                  "may simulate; accepted: fewer steps or workers, smaller model_bytes, or "
                  "\"engine\": \"analytical\"",
                  worst, kMaxGossipPacketBytes)};
}

nlohmann::json GossipSectionToJson(const GossipWorkload& g) {
  const GossipSpec& s = g.spec;
  nlohmann::json trigger = {{"kind", ToString(s.trigger.kind)}};
  switch (s.trigger.kind) {
    case TriggerKind::kFixedPeriod:
      trigger["period_steps"] = s.trigger.period;
      break;
    case TriggerKind::kRandom:
      trigger["probability"] = s.trigger.probability;
      break;
    case TriggerKind::kAdaptive:
      trigger["threshold"] = s.trigger.threshold;
      trigger["policy"] = ToString(s.trigger.policy);
      trigger["decay"] = s.trigger.decay;
      break;
  }
  nlohmann::json out = {
      {"workers", g.worker_npus},
      {"rule", ToString(s.rule)},
      {"trigger", trigger},
      {"steps", s.steps},
      {"batch", s.batch},
      {"learning_rate", LearningRateToJson(s.learning_rate)},
      {"classifier", ClassifierToJson(s.classifier)},
      {"task", LearningTaskToJson(g.task)},
      {"step_compute_ns", g.step_compute_ns},
      {"target_accuracy", g.target_accuracy},
      {"eval_every_steps", s.eval_every},
      {"elastic_alpha", s.elastic_alpha}};
  if (s.rule == GossipRule::kElastic) out["server"] = g.server_npu;
  if (g.model_name.empty()) {
    out["model_bytes"] = s.model_bytes;
  } else {
    out["model"] = g.model_name;
  }
  return {{"gossip", out}};
}

}  // namespace hfsim
