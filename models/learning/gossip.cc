#include "models/learning/gossip.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "base/deterministic-rng.h"

namespace hfsim {

namespace {

struct WorkerState {
  Dataset shard;
  MixingState mix;       ///< parameters (push-sum: the numerator) and mixing weight
  Eigen::VectorXd last;  ///< the model after the last exchange (adaptive trigger)
  uint32_t exchanges = 0;
};

class GossipRun {
 public:
  GossipRun(const GossipSpec& spec, const SyntheticTask& task)
      : m_spec(spec), m_task(task), m_model(spec.classifier), m_rng(spec.seed) {
    const Eigen::VectorXd initial = m_model.Initial(SplitMix64(spec.seed));
    const double weight = spec.rule == GossipRule::kGoSgd ? 1.0 / spec.workers : 1.0;
    for (uint32_t w = 0; w < spec.workers; ++w) {
      m_workers.push_back({WorkerShard(task.train, w, spec.workers), {initial, weight}, initial, 0});
    }
    m_centre = initial;
  }

  GossipTrace Run() {
    Eigen::VectorXd gradient;
    std::vector<uint32_t> rows(m_spec.batch);
    for (uint32_t step = 0; step < m_spec.steps; ++step) {
      const double lr = m_spec.learning_rate.At(step);
      for (WorkerState& worker : m_workers) {
        for (uint32_t& r : rows) r = static_cast<uint32_t>(m_rng.Below(worker.shard.Samples()));
        m_model.LossAndGradient(ModelOf(worker), worker.shard, rows, &gradient);
        // Push-sum steps the de-biased model x / w by lr * gradient (so x moves by w times
        // that); otherwise a worker left with a small weight would take huge effective steps.
        const double scale = m_spec.rule == GossipRule::kPushSum ? worker.mix.weight : 1.0;
        worker.mix.x -= lr * scale * gradient;
      }
      for (uint32_t i = 0; i < m_spec.workers; ++i) {
        if (Fires(m_workers[i], step)) Exchange(i, step);
      }
      if ((step + 1) % m_spec.eval_every == 0 || step + 1 == m_spec.steps) Evaluate(step + 1);
    }
    for (const WorkerState& worker : m_workers) m_trace.exchanges_per_worker.push_back(worker.exchanges);
    double weights = 0.0;
    for (const WorkerState& worker : m_workers) weights += worker.mix.weight;
    m_trace.final_weight_sum =
        m_spec.rule == GossipRule::kPushSum ? weights / m_spec.workers : weights;
    return std::move(m_trace);
  }

 private:
  // The model a worker trains and is judged by: x / w for push-sum, x otherwise.
  Eigen::VectorXd ModelOf(const WorkerState& worker) const {
    return m_spec.rule == GossipRule::kPushSum ? Eigen::VectorXd(worker.mix.x / worker.mix.weight)
                                               : worker.mix.x;
  }

  bool Fires(WorkerState& worker, uint32_t step) {
    const ExchangeTrigger& t = m_spec.trigger;
    switch (t.kind) {
      case TriggerKind::kFixedPeriod:
        return (step + 1) % t.period == 0;
      case TriggerKind::kRandom:
        return m_rng.Uniform01() < t.probability;
      case TriggerKind::kAdaptive: {
        const double base = std::max(worker.last.norm(), 1e-12);
        return (ModelOf(worker) - worker.last).norm() / base >=
               t.ThresholdAt(step, m_spec.learning_rate);
      }
    }
    return false;
  }

  void Send(uint32_t step, uint32_t from, uint32_t to) {
    m_trace.messages.push_back({step, from, to, m_spec.model_bytes});
    m_trace.total_bytes += m_spec.model_bytes;
  }

  void Exchange(uint32_t i, uint32_t step) {
    WorkerState& me = m_workers[i];
    ++me.exchanges;
    if (m_spec.rule == GossipRule::kElastic) {
      MixWithCentre(m_spec.elastic_alpha, me.mix, m_centre);
      Send(step, i, m_spec.workers);
      Send(step, m_spec.workers, i);
    } else {
      uint32_t j = static_cast<uint32_t>(m_rng.Below(m_spec.workers - 1));
      if (j >= i) ++j;
      MixWithPeer(m_spec.rule, me.mix, m_workers[j].mix);
      // The adaptive trigger measures what local training changed, so what the peer received
      // counts as its new reference too.
      m_workers[j].last = ModelOf(m_workers[j]);
      // Pull moves the peer's model to i; push-sum and GoSGD push i's half to the peer.
      if (m_spec.rule == GossipRule::kPull) {
        Send(step, j, i);
      } else {
        Send(step, i, j);
      }
    }
    me.last = ModelOf(me);
  }

  // The average the rule conserves: sum x / sum w (push-sum), the alpha-weighted mean (GoSGD),
  // the plain mean otherwise.
  Eigen::VectorXd MeanModel() const {
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(m_workers.front().mix.x.size());
    double weights = 0.0;
    for (const WorkerState& w : m_workers) {
      const bool weighted = m_spec.rule == GossipRule::kGoSgd;
      sum += weighted ? Eigen::VectorXd(w.mix.weight * w.mix.x) : w.mix.x;
      weights += m_spec.rule == GossipRule::kPull || m_spec.rule == GossipRule::kElastic
                     ? 1.0
                     : w.mix.weight;
    }
    return sum / weights;
  }

  void Evaluate(uint32_t steps_done) {
    Evaluation e;
    e.step = steps_done;
    e.mean_model_accuracy = m_model.Accuracy(MeanModel(), m_task.test);
    for (const WorkerState& w : m_workers) e.worker_accuracy += m_model.Accuracy(ModelOf(w), m_task.test);
    e.worker_accuracy /= m_spec.workers;
    m_trace.evaluations.push_back(e);
  }

  const GossipSpec& m_spec;
  const SyntheticTask& m_task;
  Classifier m_model;
  DeterministicRng m_rng;
  std::vector<WorkerState> m_workers;
  Eigen::VectorXd m_centre;
  GossipTrace m_trace;
};

}  // namespace

void MixWithPeer(GossipRule rule, MixingState& me, MixingState& peer) {
  switch (rule) {
    case GossipRule::kPull:
      me.x = (me.x + peer.x) / 2.0;
      return;
    case GossipRule::kPushSum:
      me.x /= 2.0;
      me.weight /= 2.0;
      peer.x += me.x;
      peer.weight += me.weight;
      return;
    case GossipRule::kGoSgd:
      me.weight /= 2.0;
      peer.x = (peer.weight * peer.x + me.weight * me.x) / (peer.weight + me.weight);
      peer.weight += me.weight;
      return;
    case GossipRule::kElastic:
      break;
  }
  throw std::invalid_argument("MixWithPeer: elastic averaging mixes with the centre");
}

void MixWithCentre(double alpha, MixingState& me, Eigen::VectorXd& centre) {
  const Eigen::VectorXd d = me.x - centre;
  me.x -= alpha * d;
  centre += alpha * d;
}

double ExchangeTrigger::ThresholdAt(uint64_t step, const LearningRate& lr) const {
  switch (policy) {
    case ThresholdPolicy::kConstant:
      return threshold;
    case ThresholdPolicy::kLearningRateProportional:
      return threshold * lr.At(step) / lr.At(0);
    case ThresholdPolicy::kDecaying:
      return threshold * std::pow(decay, static_cast<double>(step));
  }
  return threshold;
}

GossipTrace RunGossip(const GossipSpec& spec, const SyntheticTask& task) {
  if (spec.workers < 2 || spec.steps == 0 || spec.batch == 0 || spec.eval_every == 0) {
    throw std::invalid_argument("gossip: needs at least 2 workers, steps, a batch and eval_every");
  }
  if (spec.classifier.features != task.train.features.cols() ||
      spec.classifier.classes != task.train.classes) {
    throw std::invalid_argument("gossip: the classifier does not match the task's features/classes");
  }
  if (spec.trigger.kind == TriggerKind::kFixedPeriod && spec.trigger.period == 0) {
    throw std::invalid_argument("gossip: a fixed trigger needs a period of at least 1 step");
  }
  if (task.train.Samples() < spec.workers) {
    throw std::invalid_argument("gossip: every worker needs a training sample");
  }
  return GossipRun(spec, task).Run();
}

std::vector<size_t> StepMessageStarts(const GossipTrace& trace, uint32_t steps) {
  std::vector<size_t> starts(size_t{steps} + 1, trace.messages.size());
  for (size_t i = trace.messages.size(); i-- > 0;) {
    const uint32_t step = trace.messages[i].step;
    if (step >= steps) throw std::invalid_argument("gossip trace: a message after the last step");
    if (i + 1 < trace.messages.size() && trace.messages[i + 1].step < step) {
      throw std::invalid_argument("gossip trace: messages out of step order");
    }
    starts[step] = i;
  }
  // A step without messages starts where the next step's messages do.
  for (uint32_t s = steps; s-- > 0;) starts[s] = std::min(starts[s], starts[s + 1]);
  return starts;
}

const Evaluation* FirstReaching(const GossipTrace& trace, double target) {
  for (const Evaluation& e : trace.evaluations) {
    if (e.mean_model_accuracy >= target) return &e;
  }
  return nullptr;
}

}  // namespace hfsim
