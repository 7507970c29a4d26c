// The kernel-level compute model's hot functions, one thread: one GEMM estimate, a linear
// layer's three GEMMs, one fused and one unfused attention estimate, a block's elementwise
// bytes. They run once per distinct layer shape when a training graph is built, so these set
// the cost of pricing a model. Run: scripts/build compute_model_bench &&
// build/bench/compute_model_bench
#include <benchmark/benchmark.h>

#include "models/compute/compute-model.h"

namespace {

const hfsim::DeviceSpec& H100() { return *hfsim::FindDevice("H100-SXM"); }

void BM_GemmTimeNs(benchmark::State& state) {
  uint64_t m = 8192;
  for (auto _ : state) {
    benchmark::DoNotOptimize(hfsim::GemmTimeNs(H100(), hfsim::Precision::kBf16, m, 1280, 8192));
    m = m == 8192 ? 8193 : 8192;  // defeat caching of the call
  }
}
BENCHMARK(BM_GemmTimeNs);

void BM_LinearGemms(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        hfsim::EstimateLinearGemms(H100(), hfsim::Precision::kFp8, 8192, 8192, 7168));
  }
}
BENCHMARK(BM_LinearGemms);

hfsim::AttentionShape Llama70BAttention() {
  hfsim::AttentionShape s;
  s.batch = 1;
  s.heads = 8;
  s.kv_heads = 1;
  s.q_len = s.kv_len = 8192;
  s.head_dim = 128;
  s.causal = true;
  return s;
}

void BM_AttentionTimeNsFused(benchmark::State& state) {
  const hfsim::AttentionShape s = Llama70BAttention();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        hfsim::AttentionTimeNs(H100(), hfsim::Precision::kBf16, s, hfsim::Pass::kBackward));
  }
}
BENCHMARK(BM_AttentionTimeNsFused);

void BM_AttentionTimeNsUnfused(benchmark::State& state) {
  const hfsim::AttentionShape s = Llama70BAttention();
  for (auto _ : state) {
    benchmark::DoNotOptimize(hfsim::AttentionTimeNs(H100(), hfsim::Precision::kBf16, s,
                                                    hfsim::Pass::kBackward,
                                                    hfsim::AttentionImpl::kUnfused));
  }
}
BENCHMARK(BM_AttentionTimeNsUnfused);

void BM_BlockElementwiseBytes(benchmark::State& state) {
  hfsim::BlockDims dims;
  dims.hidden = 8192;
  dims.ffn = 28672;
  dims.kv_dim = 1024;
  for (auto _ : state) {
    benchmark::DoNotOptimize(hfsim::BlockElementwiseBytes(
        dims, hfsim::BlockParallel{8, true}, hfsim::Precision::kFp8, hfsim::Pass::kBackward));
  }
}
BENCHMARK(BM_BlockElementwiseBytes);

}  // namespace

BENCHMARK_MAIN();
