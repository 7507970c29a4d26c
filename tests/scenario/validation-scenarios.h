// Two validation scenarios whose predictions are worked out by hand, shared by the tests of the
// "validation" block and of validate's rows.
#pragma once

#include <nlohmann/json.hpp>

namespace hfsim::test {

// An all-reduce of 1e9 bytes over a Switch of 8 NPUs at 100 GB/s without latency: the ring
// moves 2 x 7/8 of the buffer, 17.5 ms; algorithm bandwidth 1e9 B / 17.5 ms = 57.14 GB/s, bus
// bandwidth x 2 x 7/8 = 100 GB/s, the link's rate (nccl-tests' definition).
inline nlohmann::json Collective() {
  return nlohmann::json::parse(R"({
    "name": "ar",
    "topology": {"dimensions": [{"kind": "Switch", "size": 8, "bandwidth_GBps": 100,
                                 "latency_ns": 0}]},
    "workload": {"collective": {"kind": "all_reduce", "size_bytes": 1000000000}},
    "validation": {"measured": {"busbw_GBps": 80, "size_bytes": 1000000000},
                   "source": "a test", "notes": "by hand"}
  })");
}

// Two NPUs training GPT-2 small (1,024 tokens) on 4 samples per iteration.
inline nlohmann::json Training() {
  return nlohmann::json::parse(R"({
    "name": "train",
    "topology": {"dimensions": [{"kind": "Switch", "size": 2, "bandwidth_GBps": 100,
                                 "latency_ns": 0}]},
    "npu": {"peak_TFLOPS": 100},
    "workload": {"training": {"model": "gpt2_small", "global_batch_samples": 4,
                              "parallelism": {"data": 2}}},
    "validation": {"measured": {"iteration_s": 1.5, "model_tflops_per_gpu": 20,
                                "tokens_per_s_per_gpu": 1000},
                   "source": "a test", "flop_convention": "megatron-full"}
  })");
}

}  // namespace hfsim::test
