// The processes of one sweep: just this one, or the ranks of an `mpirun -np N hfsim sweep`
// (Open MPI). MPI is initialised only when mpirun started us (OMPI_COMM_WORLD_SIZE is set), so
// a plain `hfsim sweep` never touches it. Rank 0 writes every file; the other ranks evaluate
// their shard and send (point, time) pairs to rank 0, which streams them into the same CSV a
// single process would write.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/sweep/sweep-runner.h"

namespace hfsim {

class SweepCluster {
 public:
  SweepCluster();
  ~SweepCluster();
  SweepCluster(const SweepCluster&) = delete;
  SweepCluster& operator=(const SweepCluster&) = delete;

  bool Distributed() const { return m_size > 1; }
  bool Root() const { return m_rank == 0; }
  uint32_t Rank() const { return m_rank; }
  uint32_t Size() const { return m_size; }
  /// Ranks on this machine (so each uses its share of the cores).
  uint32_t LocalSize() const { return m_local_size; }

  /// Rank 0's value of `value` on every rank (e.g. whether the sweep can start).
  int Broadcast(int value);
  /// Rank 0's bytes on every rank; `bytes` must already have the same size everywhere.
  void Broadcast(std::vector<uint8_t>& bytes);

  /// Other ranks: send results to rank 0; then Finished() once.
  void Send(std::span<const PointResult> results);
  void Finished();
  /// Rank 0: hands every result that has arrived to `deliver`; true once every other rank has
  /// said Finished().
  bool Receive(const DeliverResults& deliver);

 private:
  bool m_mpi = false;
  uint32_t m_rank = 0;
  uint32_t m_size = 1;
  uint32_t m_local_size = 1;
  uint32_t m_finished = 0;
};

}  // namespace hfsim
