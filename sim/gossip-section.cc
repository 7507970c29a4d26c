#include "sim/gossip-section.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "workloads/model-zoo.h"

namespace hfsim {

namespace {

// Bounds that keep one run to seconds: the learning runs in-process, step by step.
constexpr uint64_t kMaxWorkers = 1024;
constexpr uint64_t kMaxSteps = 100000;
constexpr uint64_t kMaxSamples = 1u << 20;
constexpr uint64_t kMaxFeatures = 1024;
constexpr uint64_t kMaxClasses = 64;
constexpr uint64_t kMaxHidden = 1024;
constexpr uint64_t kMaxModelBytes = uint64_t{1} << 40;
// Work per run: steps x workers x batch x parameters (about 2^33 multiply-adds: tens of seconds).
constexpr double kMaxWork = 8.6e9;

const std::vector<std::string_view> kRules = {"pull", "push_sum", "gosgd", "elastic"};
const std::vector<std::string_view> kTriggers = {"fixed", "random", "adaptive"};
const std::vector<std::string_view> kPolicies = {"constant", "lr_proportional", "decaying"};
const std::vector<std::string_view> kSchedules = {"constant", "step", "exponential", "cosine"};
const std::vector<std::string_view> kClassifiers = {"logistic", "mlp"};

ExchangeTrigger ReadTrigger(const JsonCursor& t) {
  t.ExpectObject({"kind", "period_steps", "probability", "threshold", "policy", "decay"});
  ExchangeTrigger trigger;
  trigger.kind = static_cast<TriggerKind>(t.At("kind", "\"fixed\", \"random\" or \"adaptive\"").Choice(kTriggers));
  if (auto p = t.Find("period_steps")) trigger.period = static_cast<uint32_t>(p->Integer(1, kMaxSteps));
  if (auto p = t.Find("probability")) trigger.probability = p->Number(0.0, 1.0, true);
  if (auto p = t.Find("threshold")) trigger.threshold = p->Number(0.0, 1e6, true);
  if (auto p = t.Find("policy")) trigger.policy = static_cast<ThresholdPolicy>(p->Choice(kPolicies));
  if (auto p = t.Find("decay")) trigger.decay = p->Number(0.0, 1.0, true);
  return trigger;
}

LearningRate ReadLearningRate(const JsonCursor& l) {
  l.ExpectObject({"schedule", "initial", "factor", "every_steps", "gamma", "total_steps"});
  LearningRate lr;
  if (auto p = l.Find("schedule")) lr.schedule = static_cast<LearningRateSchedule>(p->Choice(kSchedules));
  if (auto p = l.Find("initial")) lr.initial = p->Number(0.0, 100.0, true);
  if (auto p = l.Find("factor")) lr.factor = p->Number(0.0, 1.0, true);
  if (auto p = l.Find("every_steps")) lr.every = static_cast<uint32_t>(p->Integer(1, kMaxSteps));
  if (auto p = l.Find("gamma")) lr.gamma = p->Number(0.0, 1.0, true);
  if (auto p = l.Find("total_steps")) lr.total = static_cast<uint32_t>(p->Integer(1, kMaxSteps));
  return lr;
}

SyntheticTaskSpec ReadTask(const JsonCursor& t, uint64_t seed) {
  t.ExpectObject({"train_samples", "test_samples", "features", "classes", "separation"});
  SyntheticTaskSpec task;
  task.seed = seed;
  if (auto p = t.Find("train_samples")) task.train_samples = static_cast<uint32_t>(p->Integer(1, kMaxSamples));
  if (auto p = t.Find("test_samples")) task.test_samples = static_cast<uint32_t>(p->Integer(1, kMaxSamples));
  if (auto p = t.Find("features")) task.features = static_cast<uint32_t>(p->Integer(1, kMaxFeatures));
  if (auto p = t.Find("classes")) task.classes = static_cast<uint32_t>(p->Integer(2, kMaxClasses));
  if (auto p = t.Find("separation")) task.separation = p->Number(0.0, 1e3, true);
  return task;
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
  spec.rule = static_cast<GossipRule>(
      section.At("rule", "\"pull\", \"push_sum\", \"gosgd\" or \"elastic\"").Choice(kRules));
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
  if (auto p = section.Find("task")) g.task = ReadTask(*p, scenario.seed);
  g.task.seed = scenario.seed;
  spec.classifier.features = g.task.features;
  spec.classifier.classes = g.task.classes;
  if (auto c = section.Find("classifier")) {
    c->ExpectObject({"kind", "hidden"});
    if (auto p = c->Find("kind")) spec.classifier.kind = static_cast<ClassifierKind>(p->Choice(kClassifiers));
    if (auto p = c->Find("hidden")) spec.classifier.hidden = static_cast<uint32_t>(p->Integer(1, kMaxHidden));
  }
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
  const double work = static_cast<double>(spec.steps) * spec.workers * spec.batch *
                      static_cast<double>(Classifier(spec.classifier).ParameterCount());
  if (work > kMaxWork) {
    section.Fail(fmt::format("steps x workers x batch x classifier parameters = {:.3g}, more than "
                             "the {:.3g} one run may train in-process; accepted: fewer steps, "
                             "workers, a smaller batch or classifier",
                             work, kMaxWork));
  }
  return g;
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
  static constexpr std::string_view kScheduleNames[] = {"constant", "step", "exponential", "cosine"};
  const LearningRate& lr = s.learning_rate;
  nlohmann::json out = {
      {"workers", g.worker_npus},
      {"rule", ToString(s.rule)},
      {"trigger", trigger},
      {"steps", s.steps},
      {"batch", s.batch},
      {"learning_rate",
       {{"schedule", kScheduleNames[static_cast<int>(lr.schedule)]},
        {"initial", lr.initial},
        {"factor", lr.factor},
        {"every_steps", lr.every},
        {"gamma", lr.gamma},
        {"total_steps", lr.total}}},
      {"classifier", {{"kind", ToString(s.classifier.kind)}, {"hidden", s.classifier.hidden}}},
      {"task",
       {{"train_samples", g.task.train_samples},
        {"test_samples", g.task.test_samples},
        {"features", g.task.features},
        {"classes", g.task.classes},
        {"separation", g.task.separation}}},
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
