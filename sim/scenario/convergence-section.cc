#include "sim/scenario/convergence-section.h"

#include "sim/scenario/learning-section.h"

namespace hfsim {

ConvergenceSpec ReadConvergenceSection(const JsonCursor& section, const Scenario& scenario) {
  section.ExpectObject({"task", "classifier", "learning_rate", "batch", "max_steps",
                        "eval_every_steps", "target_accuracy"});
  const ParameterServerWorkload& ps = scenario.parameter_server;
  if (ps.kind != PsModelKind::kDense) {
    section.Fail("trains data-parallel SGD on a dense model's gradients; accepted: a \"dense\" "
                 "parameter_server workload, or leave it out");
  }
  ConvergenceSpec c;
  if (auto p = section.Find("task")) c.task = ReadLearningTask(*p, scenario.seed);
  c.task.SetSeed(scenario.seed);
  c.classifier = ReadClassifier(section.Find("classifier"), c.task);
  if (auto p = section.Find("learning_rate")) c.learning_rate = ReadLearningRate(*p);
  if (auto p = section.Find("batch")) c.batch = static_cast<uint32_t>(p->Integer(1, 4096));
  if (auto p = section.Find("max_steps")) c.max_steps = static_cast<uint32_t>(p->Integer(1, kMaxLearningSteps));
  if (auto p = section.Find("eval_every_steps")) {
    c.eval_every = static_cast<uint32_t>(p->Integer(1, kMaxLearningSteps));
  }
  if (auto p = section.Find("target_accuracy")) c.target_accuracy = p->Number(0.0, 1.0, true);
  CheckTrainSamples(section, c.task, ps.Workers());
  CheckLearningWork(section, c.max_steps, ps.Workers(), c.batch, c.classifier);
  return c;
}

nlohmann::json ConvergenceToJson(const ConvergenceSpec& c) {
  return {{"task", LearningTaskToJson(c.task)},
          {"classifier", ClassifierToJson(c.classifier)},
          {"learning_rate", LearningRateToJson(c.learning_rate)},
          {"batch", c.batch},
          {"max_steps", c.max_steps},
          {"eval_every_steps", c.eval_every},
          {"target_accuracy", c.target_accuracy}};
}

}  // namespace hfsim
