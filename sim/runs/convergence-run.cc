#include "sim/runs/convergence-run.h"

#include "models/learning/compressed-sgd.h"

namespace hfsim {

void AddConvergence(const Scenario& scenario, Report& report) {
  if (!scenario.convergence) return;
  const ConvergenceSpec& c = *scenario.convergence;
  CompressedSgdSpec spec;
  spec.workers = scenario.parameter_server.Workers();
  spec.steps = c.max_steps;
  spec.batch = c.batch;
  spec.learning_rate = c.learning_rate;
  spec.classifier = c.classifier;
  spec.compression = scenario.communication.compression;
  spec.eval_every = c.eval_every;
  spec.seed = scenario.seed;
  // Seeded by the scenario's seed as it is now (hfsim run --seed reseeds the task too).
  LearningTaskSpec task = c.task;
  task.SetSeed(scenario.seed);
  const std::vector<Evaluation> evaluations = RunCompressedSgd(spec, MakeLearningTask(task));

  ConvergenceReport r;
  r.scheme = ToString(spec.compression.scheme);
  r.task = ToString(c.task.kind);
  r.classifier = ToString(c.classifier.kind);
  r.workers = spec.workers;
  r.steps = spec.steps;
  r.iteration_ns = report.iteration.total_ns;
  r.target_accuracy = c.target_accuracy;
  for (const Evaluation& e : evaluations) {
    const ConvergenceRow row{e.step, e.mean_model_accuracy, e.step * r.iteration_ns};
    r.evaluations.push_back(row);
    if (!r.reached_target && e.mean_model_accuracy >= c.target_accuracy) r.reached_target = row;
  }
  r.final_accuracy = evaluations.back().mean_model_accuracy;
  report.convergence = std::move(r);
}

}  // namespace hfsim
