// Decentralised SGD with gossip (S3; sources: docs/learning.md): W workers each train a Classifier
// on their shard and, when their exchange trigger fires, mix models with a random peer (or with a
// centre). The learning is real, so an adaptive trigger sees how much each model really changes;
// the traffic is counted in the bytes of the *simulated* model (e.g. ResNet-50's), because the
// small classifier stands in for it (docs/learning.md explains this coupling).
//
// Rules (what one exchange of worker i with peer j does):
//   pull      i fetches j's model: x_i <- (x_i + x_j) / 2. One message j -> i. Only i changes, so
//             the mean model is not conserved (as in the pull variant of gossip SGD).
//   push_sum  i halves its pair (x_i, w_i) and pushes one half: x_j += x_i/2, w_j += w_i/2. The
//             model a worker uses is x_i / w_i; sum x and sum w (= 1) are conserved. One message.
//             A local SGD step moves x_i / w_i by -lr * gradient.
//   gosgd     GoSGD: i halves its weight a_i and pushes (theta_i, a_i):
//             theta_j <- (a_j theta_j + a_i theta_i) / (a_i + a_j), a_j <- a_j + a_i; the
//             weighted sum of models and the sum of weights are conserved. One message.
//   elastic   EASGD with a centre on a server: x_i <- x_i - alpha (x_i - c), c <- c + alpha (x_i
//             - c); sum x_i + c is conserved. Two messages (i -> server, server -> i).
// Triggers (when worker i exchanges, checked after each local step):
//   fixed     every `period` steps
//   random    with probability p per step (GoSGD's original rule)
//   adaptive  when ||x_i - x_i,last|| / ||x_i,last|| >= threshold(t), x_i,last being i's model
//             after the last exchange it took part in (sent or received), so only local training
//             counts as change; threshold(t) is a named policy: constant, proportional to
//             the learning rate (threshold0 lr(t) / lr(0)), or decaying (threshold0 decay^t). The
//             S3 paper's exact rule is not public; these are the rules hfsim offers.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

#include "base/name-table.h"
#include "models/learning/classifier.h"
#include "models/learning/learning-rate.h"
#include "models/learning/synthetic-data.h"

namespace hfsim {

enum class GossipRule { kPull, kPushSum, kGoSgd, kElastic };
enum class TriggerKind { kFixedPeriod, kRandom, kAdaptive };
enum class ThresholdPolicy { kConstant, kLearningRateProportional, kDecaying };

/// Scenario spellings (workload.gossip.rule, .trigger.kind, .trigger.policy).
inline constexpr NameTable<GossipRule, 4> kGossipRuleNames = {{
    {GossipRule::kPull, "pull"},
    {GossipRule::kPushSum, "push_sum"},
    {GossipRule::kGoSgd, "gosgd"},
    {GossipRule::kElastic, "elastic"},
}};
inline constexpr NameTable<TriggerKind, 3> kTriggerKindNames = {{
    {TriggerKind::kFixedPeriod, "fixed"},
    {TriggerKind::kRandom, "random"},
    {TriggerKind::kAdaptive, "adaptive"},
}};
inline constexpr NameTable<ThresholdPolicy, 3> kThresholdPolicyNames = {{
    {ThresholdPolicy::kConstant, "constant"},
    {ThresholdPolicy::kLearningRateProportional, "lr_proportional"},
    {ThresholdPolicy::kDecaying, "decaying"},
}};
inline std::string_view ToString(GossipRule rule) { return NameIn(kGossipRuleNames, rule); }
inline std::string_view ToString(TriggerKind trigger) {
  return NameIn(kTriggerKindNames, trigger);
}
inline std::string_view ToString(ThresholdPolicy policy) {
  return NameIn(kThresholdPolicyNames, policy);
}

struct ExchangeTrigger {
  TriggerKind kind = TriggerKind::kFixedPeriod;
  uint32_t period = 10;       ///< fixed
  double probability = 0.1;   ///< random
  double threshold = 0.05;    ///< adaptive: relative change that fires at step 0
  ThresholdPolicy policy = ThresholdPolicy::kConstant;
  double decay = 0.999;       ///< adaptive, decaying: threshold multiplier per step

  double ThresholdAt(uint64_t step, const LearningRate& lr) const;
};

struct GossipSpec {
  GossipRule rule = GossipRule::kPushSum;
  ExchangeTrigger trigger;
  uint32_t workers = 8;
  uint32_t steps = 500;
  uint32_t batch = 32;
  LearningRate learning_rate;
  ClassifierSpec classifier;
  double elastic_alpha = 0.1;  ///< elastic: the moving rate alpha
  /// Bytes one model exchange carries on the network: the simulated model's, not the classifier's.
  uint64_t model_bytes = 0;
  uint32_t eval_every = 50;  ///< steps between accuracy evaluations (and after the last step)
  uint64_t seed = 1;
};

/// One message of an exchange. Node W is the elastic centre's server.
struct ExchangeMessage {
  uint32_t step = 0;
  uint32_t from = 0;
  uint32_t to = 0;
  uint64_t bytes = 0;
};

struct Evaluation {
  uint32_t step = 0;         ///< steps completed
  double mean_model_accuracy = 0.0;  ///< the average of the workers' models, on the test split
  double worker_accuracy = 0.0;      ///< the workers' own models, averaged
};

struct GossipTrace {
  std::vector<ExchangeMessage> messages;
  std::vector<Evaluation> evaluations;
  std::vector<uint32_t> exchanges_per_worker;
  uint64_t total_bytes = 0;
  /// Push-sum / GoSGD: the sum of the mixing weights after the last step (1 when conserved).
  double final_weight_sum = 1.0;
};

/// One worker's side of the mixing: its parameters and its mixing weight (push-sum w_i, GoSGD
/// alpha_i; unused by pull and elastic).
struct MixingState {
  Eigen::VectorXd x;
  double weight = 1.0;
};

/// One exchange of `me` with `peer` by a peer-to-peer rule (pull, push_sum, gosgd), exactly as
/// described above; RunGossip calls it, and tests check what it conserves.
void MixWithPeer(GossipRule rule, MixingState& me, MixingState& peer);
/// One elastic-averaging exchange of `me` with the centre.
void MixWithCentre(double alpha, MixingState& me, Eigen::VectorXd& centre);

/// Runs the training. Throws std::invalid_argument on a spec it cannot run (fewer than 2
/// workers, zero steps or batch, classifier not matching the task).
GossipTrace RunGossip(const GossipSpec& spec, const SyntheticTask& task);

/// Where each step's messages start in trace.messages (RunGossip lists them in step order):
/// step s's messages are [starts[s], starts[s + 1]), so there are `steps` + 1 entries. Throws
/// std::invalid_argument on a message out of step order or at or after step `steps`.
std::vector<size_t> StepMessageStarts(const GossipTrace& trace, uint32_t steps);

/// The first evaluation whose mean-model accuracy reaches `target`, or nullptr.
const Evaluation* FirstReaching(const GossipTrace& trace, double target);

}  // namespace hfsim
