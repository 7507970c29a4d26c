#include "workloads/operation-shape.h"

namespace hfsim {

std::string_view ToString(OperationKind kind) {
  switch (kind) {
    case OperationKind::kUnknown:
      return "unknown";
    case OperationKind::kLinear:
      return "linear";
    case OperationKind::kAttention:
      return "attention";
    case OperationKind::kElementwise:
      return "elementwise";
    case OperationKind::kEmbedding:
      return "embedding";
    case OperationKind::kLmHead:
      return "lm_head";
    case OperationKind::kRouter:
      return "router";
    case OperationKind::kExpertLinear:
      return "expert_linear";
  }
  return "unknown";
}

std::string_view ToString(TensorSplit split) {
  switch (split) {
    case TensorSplit::kReplicated:
      return "replicated";
    case TensorSplit::kColumn:
      return "column";
    case TensorSplit::kRow:
      return "row";
  }
  return "replicated";
}

}  // namespace hfsim
