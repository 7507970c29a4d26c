#include "sim/scenario/learning-section.h"

#include <filesystem>

#include <fmt/format.h>

namespace hfsim {

namespace {

constexpr uint64_t kMaxSamples = 1u << 20;
constexpr uint64_t kMaxFeatures = 1024;
constexpr uint64_t kMaxClasses = 64;
constexpr uint64_t kMaxHidden = 1024;
// Fashion-MNIST's files hold 60,000 training and 10,000 test images.
constexpr uint64_t kFashionTrain = 60000;
constexpr uint64_t kFashionTest = 10000;

}  // namespace

LearningTaskSpec ReadLearningTask(const JsonCursor& t, uint64_t seed) {
  LearningTaskSpec task;
  if (auto kind = t.Find("kind")) task.kind = kind->Choice(kTaskKindNames);
  if (task.kind == TaskKind::kSynthetic) {
    t.ExpectObject({"kind", "train_samples", "test_samples", "features", "classes", "separation"});
    SyntheticTaskSpec& s = task.synthetic;
    if (auto p = t.Find("train_samples")) s.train_samples = static_cast<uint32_t>(p->Integer(1, kMaxSamples));
    if (auto p = t.Find("test_samples")) s.test_samples = static_cast<uint32_t>(p->Integer(1, kMaxSamples));
    if (auto p = t.Find("features")) s.features = static_cast<uint32_t>(p->Integer(1, kMaxFeatures));
    if (auto p = t.Find("classes")) s.classes = static_cast<uint32_t>(p->Integer(2, kMaxClasses));
    if (auto p = t.Find("separation")) s.separation = p->Number(0.0, 1e3, true);
  } else {
    t.ExpectObject({"kind", "train_samples", "test_samples", "directory"});
    IdxTaskSpec& f = task.fashion_mnist;
    if (auto p = t.Find("train_samples")) f.train_samples = static_cast<uint32_t>(p->Integer(1, kFashionTrain));
    if (auto p = t.Find("test_samples")) f.test_samples = static_cast<uint32_t>(p->Integer(1, kFashionTest));
    if (auto p = t.Find("directory")) f.directory = p->String();
    for (const char* file : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                             "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}) {
      const std::filesystem::path path = std::filesystem::path(f.directory) / file;
      std::error_code error;  // a name too long or unreadable is "not there", never a throw
      if (!std::filesystem::is_regular_file(path, error)) {
        const JsonCursor where = t.Has("directory") ? t.Child("directory") : t.Child("kind");
        where.Fail(fmt::format("{} does not exist; accepted: a directory holding Fashion-MNIST's "
                               "four IDX files (Debian's package dataset-fashion-mnist installs "
                               "them in /usr/share/datasets/fashion-mnist)",
                               path.string()));
      }
    }
    // Their headers too, so that a wrong or short file is refused here rather than in a run.
    if (const std::string problem = CheckFashionMnistFiles(f); !problem.empty()) {
      (t.Has("directory") ? t.Child("directory") : t).Fail(problem);
    }
  }
  task.SetSeed(seed);
  return task;
}

LearningRate ReadLearningRate(const JsonCursor& l) {
  l.ExpectObject({"schedule", "initial", "factor", "every_steps", "gamma", "total_steps"});
  LearningRate lr;
  if (auto p = l.Find("schedule")) lr.schedule = p->Choice(kLearningRateScheduleNames);
  if (auto p = l.Find("initial")) lr.initial = p->Number(0.0, 100.0, true);
  if (auto p = l.Find("factor")) lr.factor = p->Number(0.0, 1.0, true);
  if (auto p = l.Find("every_steps")) lr.every = static_cast<uint32_t>(p->Integer(1, kMaxLearningSteps));
  if (auto p = l.Find("gamma")) lr.gamma = p->Number(0.0, 1.0, true);
  if (auto p = l.Find("total_steps")) lr.total = static_cast<uint32_t>(p->Integer(1, kMaxLearningSteps));
  return lr;
}

ClassifierSpec ReadClassifier(const std::optional<JsonCursor>& c, const LearningTaskSpec& task) {
  ClassifierSpec spec;
  spec.features = task.Features();
  spec.classes = task.Classes();
  if (!c) return spec;
  c->ExpectObject({"kind", "hidden"});
  if (auto p = c->Find("kind")) spec.kind = p->Choice(kClassifierKindNames);
  if (auto p = c->Find("hidden")) spec.hidden = static_cast<uint32_t>(p->Integer(1, kMaxHidden));
  return spec;
}

void CheckTrainSamples(const JsonCursor& section, const LearningTaskSpec& task, uint64_t workers) {
  if (task.TrainSamples() >= workers) return;
  const auto t = section.Find("task");
  const JsonCursor where = t && t->Has("train_samples") ? t->Child("train_samples") : section;
  where.Fail(fmt::format("{} training samples cannot be shared among {} workers (each needs at "
                         "least one); accepted: at least {}",
                         task.TrainSamples(), workers, workers));
}

void CheckLearningWork(const JsonCursor& where, uint64_t steps, uint64_t workers, uint64_t batch,
                       const ClassifierSpec& classifier) {
  const double work = static_cast<double>(steps) * static_cast<double>(workers) *
                      static_cast<double>(batch) *
                      static_cast<double>(Classifier(classifier).ParameterCount());
  if (work > kMaxLearningWork) {
    where.Fail(fmt::format("steps x workers x batch x classifier parameters = {:.3g}, more than "
                           "the {:.3g} one run may train in-process; accepted: fewer steps, "
                           "workers, a smaller batch or classifier",
                           work, kMaxLearningWork));
  }
}

nlohmann::json LearningTaskToJson(const LearningTaskSpec& task) {
  if (task.kind == TaskKind::kFashionMnist) {
    const IdxTaskSpec& f = task.fashion_mnist;
    return {{"kind", ToString(task.kind)},
            {"train_samples", f.train_samples},
            {"test_samples", f.test_samples},
            {"directory", f.directory}};
  }
  const SyntheticTaskSpec& s = task.synthetic;
  return {{"kind", ToString(task.kind)},
          {"train_samples", s.train_samples},
          {"test_samples", s.test_samples},
          {"features", s.features},
          {"classes", s.classes},
          {"separation", s.separation}};
}

nlohmann::json LearningRateToJson(const LearningRate& lr) {
  return {{"schedule", ToString(lr.schedule)},
          {"initial", lr.initial},
          {"factor", lr.factor},
          {"every_steps", lr.every},
          {"gamma", lr.gamma},
          {"total_steps", lr.total}};
}

nlohmann::json ClassifierToJson(const ClassifierSpec& classifier) {
  return {{"kind", ToString(classifier.kind)}, {"hidden", classifier.hidden}};
}

}  // namespace hfsim
