#include "sim/import/chakra/chakra-import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "sim/import/chakra/et-convert.h"
#include "sim/import/chakra/et-file.h"
#include "sim/import/chakra/et-groups.h"
#include "sim/scenario/graph-section.h"
#include "sim/scenario/input-file.h"

namespace hfsim {

namespace {

std::string RankPath(const std::string& prefix, uint64_t rank) {
  return fmt::format("{}.{}.et", prefix, rank);
}

// A file's nodes by type, as the summary line shows them.
void CountNodes(const EtFile& file, ChakraCounts& counts) {
  for (const EtNode& node : file.nodes) {
    if (node.type >= 0 && node.type < 8) ++counts.by_type[node.type];
    if (node.type == static_cast<int32_t>(EtNodeType::kCompute) && node.is_cpu_op)
      ++counts.host_compute;
    if (node.type != static_cast<int32_t>(EtNodeType::kCollective)) continue;
    if (node.is_cpu_op) {
      ++counts.host_collectives;
    } else if (node.comm_type && *node.comm_type >= 0 && *node.comm_type < 10) {
      ++counts.collectives[*node.comm_type];
    }
  }
}

// Appends a value's bytes to a key.
template <typename T>
void Put(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

void Put(std::string& key, const std::string& text) {
  Put(key, text.size());
  key += text;
}

template <typename T>
void Put(std::string& key, const std::optional<T>& value) {
  Put(key, value.has_value());
  if (value) Put(key, *value);
}

// Everything of a file that its program depends on but the ends of its sends and receives,
// with node ids replaced by their positions in id order: equal keys, programs equal up to node
// ids and peers (built from the parsed nodes: far cheaper than comparing converted programs).
std::string ProgramKey(const EtFile& file, const EtGroups& groups) {
  std::unordered_map<uint64_t, uint64_t> position;
  position.reserve(file.nodes.size());
  for (size_t i = 0; i < file.nodes.size(); ++i) position.emplace(file.nodes[i].id, i);
  std::string key;
  key.reserve(file.nodes.size() * 48);
  auto deps = [&](const std::vector<uint64_t>& ids) {
    Put(key, ids.size());
    for (const uint64_t id : ids) {
      const auto found = position.find(id);
      Put(key, found == position.end() ? UINT64_MAX : found->second);
    }
  };
  for (const EtNode& node : file.nodes) {
    Put(key, node.name);
    Put(key, node.type);
    deps(node.ctrl_deps);
    deps(node.data_deps);
    Put(key, node.duration_micros);
    Put(key, node.is_cpu_op);
    // Not comm_src or comm_dst: a send's ends differ from rank to rank (CheckRank checks them).
    for (const auto* value : {&node.comm_type, &node.comm_size, &node.comm_tag, &node.num_ops,
                              &node.tensor_size, &node.hfsim_stream}) {
      Put(key, *value);
    }
    // A named group stands for its family of disjoint groups (one communicator): ranks in like
    // groups, every tensor group say, have equal programs. CheckRank checks the membership.
    if (const auto group = groups.Named(node.pg_name)) {
      Put(key, std::string("family"));
      Put(key, groups.family_of.at(*group));
      // ... of this group's size: an all-gather's hfsim size is comm_size times it.
      Put(key, groups.members.at(*group).size());
    } else {
      Put(key, node.pg_name);
    }
    Put(key, node.involved_dim.has_value());
    if (node.involved_dim) {
      Put(key, node.involved_dim->size());
      for (const bool on : *node.involved_dim) Put(key, on);
    }
    Put(key, node.hfsim_phase);
    Put(key, node.hfsim_duration_ns);
    Put(key, node.hfsim_communicator);
    Put(key, node.hfsim_continues_step);
    Put(key, node.hfsim_count);
    Put(key, node.hfsim_repeat);
    Put(key, node.metadata_groups);
  }
  return key;
}

}  // namespace

void ChakraCounts::Repeat(const ChakraCounts& other) {
  for (size_t i = 0; i < by_type.size(); ++i) by_type[i] += other.by_type[i];
  for (size_t i = 0; i < collectives.size(); ++i) collectives[i] += other.collectives[i];
  host_compute += other.host_compute;
  host_collectives += other.host_collectives;
}

uint64_t ChakraCounts::Nodes() const {
  uint64_t total = 0;
  for (const uint64_t n : by_type) total += n;
  return total;
}

std::string ChakraCounts::Summary() const {
  std::string text = fmt::format("chakra: {} rank file{}, {} bytes, {} nodes:", files,
                                 files == 1 ? "" : "s", bytes, Nodes());
  for (int32_t type = 0; type < 8; ++type) {
    if (by_type[type] == 0) continue;
    text += fmt::format(" {} {}", by_type[type], EtNodeTypeName(type));
    if (type == static_cast<int32_t>(EtNodeType::kCompute) && host_compute > 0) {
      text += fmt::format(" ({} on the host)", host_compute);
    }
    if (type == static_cast<int32_t>(EtNodeType::kCollective)) {
      std::vector<std::string> kinds;
      for (int64_t k = 0; k < 10; ++k) {
        if (collectives[k] > 0)
          kinds.push_back(fmt::format("{} {}", collectives[k], EtCollectiveName(k)));
      }
      if (host_collectives > 0)
        kinds.push_back(fmt::format("{} host-side calls", host_collectives));
      if (!kinds.empty()) text += fmt::format(" ({})", fmt::join(kinds, ", "));
    }
    text += ",";
  }
  text.back() = '\n';
  text += fmt::format(
      "chakra: {} distinct program{} after merging ranks whose programs differ only in "
      "node ids, peers and which group of a family; read and converted in {:.3f} s ({:.3g} "
      "nodes/s)\n",
      programs, programs == 1 ? "" : "s", seconds,
      seconds > 0.0 ? static_cast<double>(Nodes()) / seconds : 0.0);
  return text;
}

namespace {

// Rank r's file is a regular file; otherwise what it is instead.
std::optional<UserError> CheckRankFile(const std::string& prefix, uint64_t r, uint64_t ranks) {
  const std::string path = RankPath(prefix, r);
  std::error_code error;  // an unreadable directory is "no such file" too, not an exception
  const auto status = std::filesystem::status(path, error);
  if (std::filesystem::is_regular_file(status)) return std::nullopt;
  if (std::filesystem::exists(status)) {
    // What it is instead (a directory, a FIFO that reading would block on), as every input
    // file is described (input-file.h).
    const std::string what = InputKindRefusal(path).value_or("is not a regular file");
    return UserError{path, fmt::format("{} (rank {}'s trace of {}); accepted: a Chakra trace file",
                                       what.substr(0, what.find(';')), r, ranks)};
  }
  return UserError{path, fmt::format("no such file: the fabric has {} NPUs, so --chakra {} needs "
                                     "{} to {}",
                                     ranks, prefix, RankPath(prefix, 0), RankPath(prefix, ranks - 1))};
}

// The lowest rank of a file PREFIX.RANK.et in the prefix's directory with RANK >= ranks (RANK
// written as ASTRA-sim writes it: decimal, no leading zero), if any. A trace recorded for more
// NPUs than the fabric has must not run on it with its extra ranks silently left out.
std::optional<uint64_t> RankFileBeyond(const std::string& prefix, uint64_t ranks) {
  const std::filesystem::path whole(prefix);
  const std::filesystem::path parent =
      whole.has_parent_path() ? whole.parent_path() : std::filesystem::path(".");
  const std::string stem = whole.filename().string() + ".";
  std::optional<uint64_t> lowest;
  std::error_code error;
  for (std::filesystem::directory_iterator it(parent, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= stem.size() + 3 || name.compare(0, stem.size(), stem) != 0 ||
        name.compare(name.size() - 3, 3, ".et") != 0) {
      continue;
    }
    const std::string digits = name.substr(stem.size(), name.size() - stem.size() - 3);
    if (digits.empty() || digits.size() > 19 || (digits.size() > 1 && digits[0] == '0') ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const uint64_t rank = std::stoull(digits);
    if (rank >= ranks && (!lowest || rank < *lowest)) lowest = rank;
  }
  return lowest;
}

struct Kind {
  EtFile first;         // the first rank's file
  ChakraCounts counts;  // its nodes by type
};

// Every rank's file classed by its program's key (programs equal up to node ids, peers and
// which group of a family): the first file of each kind, each rank's kind and peers.
struct RankKinds {
  std::vector<Kind> kinds;
  std::vector<uint32_t> kind_of;
  std::vector<std::vector<uint32_t>> peers;
  std::string sends;  // rank 0's file's hfsim_sends
};

// One file's reading, done on a worker thread.
struct FileWork {
  std::string path;
  std::string data;
  int64_t same_as = -1;  // a kind whose first file has these very bytes (and no peers)
  std::optional<EtFile> file;
  std::string key;
  std::vector<uint32_t> peers;
  std::string sends;  // the metadata's hfsim_sends ("" when absent)
  std::optional<UserError> problem;
};

// Reads the rank files in batches: each batch is read from disk in rank order, parsed and
// checked on up to 8 threads (files whose bytes equal an earlier kind's first file, a
// symmetric job's, are not parsed again), then classed in rank order, so that the kinds, their
// numbering and the first error reported do not depend on the threads.
std::optional<UserError> ReadRankFiles(const ChakraInputs& inputs, uint64_t files,
                                       const EtConverter& converter, RankKinds& out,
                                       ChakraCounts& counts) {
  out.kind_of.assign(files, 0);
  out.peers.assign(files, {});
  std::unordered_map<std::string, uint32_t> kind_of_key;
  std::unordered_map<std::string, uint32_t> kind_of_bytes;  // kinds whose files have no peers
  uint64_t kind_nodes = 0;
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  const uint64_t batch = 4 * threads;
  for (uint64_t begin = 0; begin < files; begin += batch) {
    const uint64_t end = std::min(files, begin + batch);
    std::vector<FileWork> work(end - begin);
    for (uint64_t r = begin; r < end; ++r) {
      FileWork& w = work[r - begin];
      w.path = RankPath(inputs.prefix, r);
      // A file that cannot be read is that rank's problem, reported in rank order below.
      w.problem = ReadEtBytes(w.path, w.data);
      if (w.problem) break;
      if (const auto same = kind_of_bytes.find(w.data); same != kind_of_bytes.end()) {
        w.same_as = same->second;
      }
    }
    auto check = [&](size_t i) {
      FileWork& w = work[i];
      const auto rank = static_cast<uint32_t>(begin + i);
      if (w.problem || w.path.empty()) return;  // unreadable, or after an unreadable file
      if (w.same_as >= 0) {
        // The same groups as the kind's first file (the key holds pg_name): its membership is
        // checked for this rank, and an error names this rank's file.
        const EtFile& first = out.kinds[w.same_as].first;
        w.sends = first.sends;
        w.problem = converter.CheckRank(first, rank, w.peers);
        if (w.problem) w.problem->where.replace(0, first.path.size(), w.path);
        return;
      }
      auto file = ParseEtFile(w.path, w.data);
      if (!file) {
        w.problem = file.Error();
        return;
      }
      if (auto checked = CheckEtDependencies(file.Value(), inputs.legacy); !checked) {
        w.problem = checked.Error();
        return;
      }
      w.problem = converter.CheckRank(file.Value(), rank, w.peers);
      if (w.problem) return;
      w.key = ProgramKey(file.Value(), converter.Groups());
      w.sends = file.Value().sends;
      w.file = std::move(file).Value();
    };
    // An exception on a worker (out of memory) is carried to this thread and thrown here.
    std::vector<std::exception_ptr> failed(work.size());
    auto guarded = [&](size_t i) {
      try {
        check(i);
      } catch (...) {
        failed[i] = std::current_exception();
      }
    };
    // Files are taken one at a time by whichever thread is free; this thread works too, so the
    // batch is done even if no other thread can be started.
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i = next++; i < work.size(); i = next++) guarded(i);
    };
    // Reserved first: a vector that failed to grow would destroy the running threads with
    // it, and a joinable std::thread destroyed is std::terminate. A thread that cannot start
    // (std::system_error) or its memory (std::bad_alloc) just leaves more for the others.
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 1; t < threads && t < work.size(); ++t) {
      try {
        pool.emplace_back(worker);
      } catch (const std::exception&) {
        break;
      }
    }
    worker();
    for (std::thread& thread : pool) thread.join();
    for (const std::exception_ptr& failure : failed) {
      if (failure) std::rethrow_exception(failure);
    }
    for (uint64_t r = begin; r < end; ++r) {
      FileWork& w = work[r - begin];
      if (w.problem) return w.problem;
      // One graph has one kind of send: rank 0's file says which, and every other must agree.
      if (r == 0) {
        out.sends = w.sends;
      } else if (w.sends != out.sends) {
        auto shown = [](const std::string& sends) {
          return sends.empty() ? std::string("none (eager sends)") : "\"" + sends + "\"";
        };
        return UserError{w.path, fmt::format("the metadata's hfsim_sends is {} but rank 0's file's "
                                             "is {}; accepted: the same in every rank file",
                                             shown(w.sends), shown(out.sends))};
      }
      ++counts.files;
      counts.bytes += w.data.size();
      out.peers[r] = std::move(w.peers);
      if (w.same_as >= 0) {
        out.kind_of[r] = static_cast<uint32_t>(w.same_as);
      } else {
        const auto [it, added] =
            kind_of_key.emplace(std::move(w.key), static_cast<uint32_t>(out.kinds.size()));
        if (added) {
          // Each kind becomes at least one program: refused as soon as they cannot fit.
          kind_nodes += w.file->nodes.size();
          if (kind_nodes > kMaxGraphNodes) {
            return UserError{w.path, fmt::format("the trace's distinct programs hold more than {} "
                                                 "nodes; accepted: at most {} (ranks with equal "
                                                 "programs count once)",
                                                 kMaxGraphNodes, kMaxGraphNodes)};
          }
          ChakraCounts mine;
          CountNodes(*w.file, mine);
          out.kinds.push_back({std::move(*w.file), mine});
          // The first file of a kind is remembered by its bytes, so that copies of it (a
          // symmetric job's) are not parsed. Not a file that sends or receives: its own ends
          // must be each rank (CheckRank), which the same bytes cannot be for two ranks.
          if (out.peers[r].empty()) kind_of_bytes.emplace(std::move(w.data), it->second);
        }
        out.kind_of[r] = it->second;
      }
      counts.Repeat(out.kinds[out.kind_of[r]].counts);
    }
  }
  return std::nullopt;
}

}  // namespace

Expected<ChakraImport> ImportChakra(const ChakraInputs& inputs,
                                    const std::vector<uint32_t>& dimension_sizes) {
  const auto started = std::chrono::steady_clock::now();
  uint64_t ranks = 1;
  for (const uint32_t size : dimension_sizes) ranks *= size;
  EtGroups groups;
  if (!inputs.groups_path.empty()) {
    auto read = ReadEtGroups(inputs.groups_path, ranks);
    if (!read) return read.Error();
    groups = std::move(read).Value();
  }
  // Rank files for exactly the fabric's NPUs: all present, and none beyond (with --chakra-
  // replicate, rank 0's only).
  const uint64_t files = inputs.replicate ? 1 : ranks;
  for (uint64_t r = 0; r < files; ++r) {
    if (auto problem = CheckRankFile(inputs.prefix, r, ranks)) return *problem;
  }
  if (!inputs.replicate) {
    if (auto beyond = RankFileBeyond(inputs.prefix, ranks)) {
      return UserError{RankPath(inputs.prefix, *beyond),
                       fmt::format("the trace has a rank {} but the fabric has only {} NPUs "
                                   "(ranks 0 to {}); accepted: one file per NPU of the fabric",
                                   *beyond, ranks, ranks - 1)};
    }
  }
  EtConverter converter(inputs, dimension_sizes, std::move(groups));
  ChakraImport result;
  ChakraCounts& counts = result.counts;

  // 1. Every file is read and checked, and its rank classed by its program's key.
  RankKinds read;
  if (auto problem = ReadRankFiles(inputs, files, converter, read, counts)) return *problem;
  std::vector<Kind>& kinds = read.kinds;
  const std::vector<uint32_t>& kind_of = read.kind_of;
  const std::vector<std::vector<uint32_t>>& peers = read.peers;
  std::string data;

  // 2. Ranks of one kind share one program when its sends and receives pair them up the way
  //    a shared program's do: the i-th rank of the kind talks, at each send and receive, to
  //    the i-th rank of one other kind (PeerResolver). Kinds that do not are split into
  //    single ranks, and the splitting repeats until every shared program pairs up.
  std::vector<std::vector<uint32_t>> classes(kinds.size());
  for (uint64_t r = 0; r < files; ++r) classes[kind_of[r]].push_back(static_cast<uint32_t>(r));
  // Per rank of the fabric (with --chakra-replicate, every rank runs rank 0's kind).
  std::vector<uint32_t> class_of(ranks, 0);
  std::copy(kind_of.begin(), kind_of.end(), class_of.begin());
  if (inputs.replicate) {
    if (!peers[0].empty()) {
      return UserError{RankPath(inputs.prefix, 0),
                       "--chakra-replicate runs this rank's trace on every NPU, but it sends or "
                       "receives, which only its own rank can"};
    }
    // Every rank runs rank 0's program: an all-gather's size (comm_size times the group's) is
    // the same for all only if every group of its family has as many ranks.
    const EtGroups& groups = converter.Groups();
    for (const EtNode& node : kinds[0].first.nodes) {
      if (node.type != static_cast<int32_t>(EtNodeType::kCollective) || !node.comm_type ||
          *node.comm_type != static_cast<int64_t>(EtCollective::kAllGather) || !node.pg_name) {
        continue;
      }
      const auto named = groups.Named(node.pg_name);
      if (!named) continue;  // the default group (or no group: refused when converted)
      const int64_t id = *named;
      const size_t size = groups.members.at(id).size();
      for (const int64_t other : groups.families[groups.family_of.at(id)]) {
        if (groups.members.at(other).size() != size) {
          return NodeError(kinds[0].first, node,
                           fmt::format("--chakra-replicate runs this all-gather in every group of "
                                       "group {}'s family, but group {} has {} ranks and group {} "
                                       "has {}: its size (comm_size times the group's) would "
                                       "differ from rank to rank",
                                       id, id, size, other, groups.members.at(other).size()));
        }
      }
    }
    classes[0].clear();
    for (uint64_t r = 0; r < ranks; ++r) classes[0].push_back(static_cast<uint32_t>(r));
  }
  // Each rank of class c but its first gets a class of its own.
  auto split_up = [&](size_t c) {
    const std::vector<uint32_t> members = classes[c];  // a copy: splitting grows `classes`
    for (size_t i = 1; i < members.size(); ++i) {
      class_of[members[i]] = static_cast<uint32_t>(classes.size());
      classes.push_back({members[i]});
    }
    classes[c].resize(1);
  };
  // A program whose collectives run as custom implementations sends to ranks CheckRank does
  // not see (the implementation's peers): its ranks keep programs of their own.
  if (!inputs.custom.empty()) {
    for (size_t c = 0, kinds_count = classes.size(); c < kinds_count; ++c) {
      const EtFile& file = kinds[c].first;
      const bool custom =
          std::any_of(file.nodes.begin(), file.nodes.end(),
                      [&](const EtNode& node) { return converter.CustomOf(node) != nullptr; });
      if (custom) split_up(c);
    }
  }
  for (bool split = true; split;) {
    split = false;
    for (size_t c = 0; c < classes.size(); ++c) {
      const std::vector<uint32_t> members = classes[c];  // a copy: splitting grows `classes`
      if (members.size() < 2 || peers[members[0]].empty()) continue;
      bool pairs = true;
      for (size_t j = 0; j < peers[members[0]].size() && pairs; ++j) {
        const uint32_t peer_class = class_of[peers[members[0]][j]];
        const std::vector<uint32_t>& others = classes[peer_class];
        pairs = peer_class != c && others.size() == members.size();
        for (size_t i = 0; i < members.size() && pairs; ++i)
          pairs = peers[members[i]][j] == others[i];
      }
      if (pairs) continue;
      split_up(c);
      split = true;
    }
  }

  // 3. One program per class, converted from its first rank's file.
  nlohmann::json programs = nlohmann::json::array();
  uint64_t total_nodes = 0;
  std::vector<uint32_t> order(classes.size());
  for (uint32_t c = 0; c < order.size(); ++c) order[c] = c;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return classes[a].front() < classes[b].front(); });
  for (const uint32_t c : order) {
    const uint32_t first = classes[c].front();
    // Replicated, every rank runs rank 0's file.
    const EtFile* file = &kinds[inputs.replicate ? 0 : kind_of[first]].first;
    EtFile own;  // a rank split from its kind: its own file, read again
    if (!inputs.replicate && file->path != RankPath(inputs.prefix, first)) {
      const std::string path = RankPath(inputs.prefix, first);
      if (auto read = ReadEtBytes(path, data)) return *read;
      auto parsed = ParseEtFile(path, data);
      if (!parsed) return parsed.Error();
      own = std::move(parsed).Value();
      file = &own;
    }
    total_nodes += file->nodes.size();
    if (total_nodes > kMaxGraphNodes) {
      return UserError{file->path,
                       fmt::format("the trace's distinct programs hold more than {} nodes; "
                                   "accepted: at most {} (ranks with equal programs count once)",
                                   kMaxGraphNodes, kMaxGraphNodes)};
    }
    auto nodes = converter.Program(*file, first);
    if (!nodes) return nodes.Error();
    programs.push_back({{"ranks", classes[c]}, {"nodes", std::move(nodes).Value()}});
  }
  counts.programs = programs.size();
  result.graph = {{"communicators", converter.Communicators()}, {"programs", std::move(programs)}};
  // ASTRA-sim's sends do not wait for their receives; a graph hfsim wrote says if its did.
  result.graph["sends"] = read.sends == "rendezvous" ? "rendezvous" : "eager";
  counts.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace hfsim
