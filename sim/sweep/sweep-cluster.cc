#include "sim/sweep/sweep-cluster.h"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace hfsim {

namespace {

constexpr int kResultsTag = 1;
constexpr int kFinishedTag = 2;

}  // namespace

SweepCluster::SweepCluster() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return;
  int provided = 0;
  // Worker threads never call MPI; only the thread that owns the cluster does.
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  m_mpi = true;
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  m_rank = static_cast<uint32_t>(rank);
  m_size = static_cast<uint32_t>(size);
  if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) {
    m_local_size = static_cast<uint32_t>(std::max(1, std::atoi(local)));
  }
}

SweepCluster::~SweepCluster() {
  if (m_mpi) MPI_Finalize();
}

int SweepCluster::Broadcast(int value) {
  if (m_mpi) MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

void SweepCluster::Broadcast(std::vector<uint8_t>& bytes) {
  if (!m_mpi) return;
  // In pieces: MPI counts are ints.
  constexpr size_t kPiece = size_t{1} << 30;
  for (size_t at = 0; at < bytes.size(); at += kPiece) {
    const int count = static_cast<int>(std::min(kPiece, bytes.size() - at));
    MPI_Bcast(bytes.data() + at, count, MPI_BYTE, 0, MPI_COMM_WORLD);
  }
}

void SweepCluster::Send(std::span<const PointResult> results) {
  if (!m_mpi || results.empty()) return;
  MPI_Send(results.data(), static_cast<int>(results.size_bytes()), MPI_BYTE, 0, kResultsTag,
           MPI_COMM_WORLD);
}

void SweepCluster::Finished() {
  if (m_mpi) MPI_Send(nullptr, 0, MPI_BYTE, 0, kFinishedTag, MPI_COMM_WORLD);
}

bool SweepCluster::Receive(const DeliverResults& deliver) {
  if (!m_mpi) return true;
  while (true) {
    int waiting = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &waiting, &status);
    if (waiting == 0) break;
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    std::vector<PointResult> results(static_cast<size_t>(bytes) / sizeof(PointResult));
    MPI_Recv(results.data(), bytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (status.MPI_TAG == kFinishedTag) {
      ++m_finished;
    } else {
      deliver(results);
    }
  }
  return m_finished + 1 >= m_size;
}

}  // namespace hfsim
