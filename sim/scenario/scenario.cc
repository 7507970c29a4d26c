#include "sim/scenario/scenario.h"

namespace hfsim {

std::string_view ToString(CongestionControl control) {
  return control == CongestionControl::kNone ? "none" : "dcqcn";
}

std::string_view ToString(TransportKind transport) {
  return transport == TransportKind::kRdma ? "rdma" : "tcp";
}

std::string_view ToString(TcpVariant variant) {
  return variant == TcpVariant::kNewReno ? "new_reno" : "cubic";
}

std::string_view ToString(OverlapMode overlap) {
  return overlap == OverlapMode::kNone ? "none" : "backward";
}

std::string_view ToString(MultiDimScheme scheme) {
  return scheme == MultiDimScheme::kHierarchical ? "hierarchical" : "naive";
}

}  // namespace hfsim
