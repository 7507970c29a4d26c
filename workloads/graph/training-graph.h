// The training generator: one training iteration of a model, with tensor, data, context,
// expert and pipeline parallelism, as an execution graph. One generator for every layout:
// the data x tensor loop over dimension lists (LIBRA's) is the pipeline of one stage and one
// micro-batch with its ranks placed along the fabric's dimensions. Its seams, each in its own
// file:
//   - parallel-layout.h: the parallel axes, their order, the pipeline's stages and schedule;
//   - pipeline-rules.h: what a layout must keep to run (the loader refuses the same);
//   - rank-placement.h: which NPU runs each rank;
//   - training-communicators.h: the data, tensor and expert groups;
//   - pipeline-schedule.h: the chunks and each stage's order of forward and backward steps;
//   - stage-program.h: one rank class's program, step by step, with its gradients;
//   - ring-attention.h, parameter-gathers.h: context parallelism's blocks, ZeRO-3's gathers.
//
// Gradient accumulation without a pipeline is the pipeline of one stage and m micro-batches,
// with its ranks composed from the parallel axes: its gradients are reduced once, after (or,
// overlapped, during) the last micro-batch's backward, as every stage's are (stage-program.h).
//
// Ranks whose programs are the same share one (a rank class): without a pipeline or context
// every rank; with them one program per stage and context index, its T x D ranks sharing it
// (the i-th rank of one class talks to the i-th of the next stage's, or of its ring
// neighbour's: the rank with the same tensor and data indices). Where the fabric places a
// class's ranks unevenly (groups of different shapes, sends crossing different dimensions),
// RefineRankClasses tells them apart.
//
// Measured layer times and explicit activation collectives are per iteration: each
// micro-batch takes 1/m of them. A chunk passes on its last layer's whole output (no scatter
// over the tensor group; with context parallelism, the rank's share of the tokens). Gradient
// buckets (TrainingConfig::bucket_bytes) stay within a chunk.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "topologies/topology.h"
#include "workloads/graph/execution-graph.h"
#include "workloads/graph/parallel-layout.h"
#include "workloads/graph/rank-placement.h"
#include "workloads/layer.h"
#include "workloads/training-loop.h"

namespace hfsim {

/// One iteration of `model` on `topology`. `along_dimensions` given: ranks placed along those
/// dimension lists, `layout` then the default (one stage, one micro-batch, Megatron's order, no
/// placement); otherwise ranks composed from the parallel axes as `layout` says. `config` gives
/// the whole batch and the degrees. Returns the reason, as text naming what does not fit, when
/// the layout cannot run (pipeline-rules.h), or when its ranks sit so unevenly that the graph
/// would hold more than `max_nodes` nodes.
std::variant<ExecutionGraph, std::string> TrainingGraph(
    const Model& model, const TrainingConfig& config, const PipelineLayout& layout,
    const Topology& topology, const DimensionPlacement* along_dimensions = nullptr,
    uint64_t max_nodes = UINT64_MAX);

/// One collective over `dimensions` (in the order its stages visit them) on every NPU;
/// communicator 0 "all".
ExecutionGraph CollectiveGraph(CollectiveKind kind, uint64_t size_bytes, const Topology& topology,
                               const std::vector<uint32_t>& dimensions);

/// How many graphs the generators above have made in this process (TrainingGraph and
/// CollectiveGraph, successful or refused): tests hold a run to one.
uint64_t GeneratedGraphCount();

}  // namespace hfsim
