#include "workloads/layer.h"

namespace hfsim {

uint64_t Model::TotalParams() const {
  uint64_t total = 0;
  for (const Layer& layer : layers) total += layer.params;
  return total;
}

double Model::TotalForwardFlopsPerSample() const {
  double total = 0.0;
  for (const Layer& layer : layers) total += layer.forward_flops_per_sample;
  return total;
}

}  // namespace hfsim
