// The profile of a schedule (schedule-profile.h) from formulas, without building the schedule.
//
// ProfileSchedule walks every transfer of BuildSchedule's output: a direct all-to-all has n(n-1)
// of them, so walking costs O(n^2) memory and time (5 GB at n = 8192). The ring, direct and
// halving-doubling schedules are regular enough that each step's busiest link, longest route and
// busiest sender/receiver have a formula in n (derived in schedule-profile-closed-form.cc); this
// computes them in O(steps) time and O(1) memory, and sums the per-step terms in the same order
// and with the same arithmetic as ProfileSchedule, so the two agree bit for bit
// (tests/models/schedule-profile-closed-form-test.cc checks every tuple up to n = 64 and more).
#pragma once

#include <cstdint>
#include <optional>

#include "models/collective.h"
#include "models/schedule-profile.h"
#include "topologies/dimension.h"

namespace hfsim {

/// ProfileSchedule(BuildSchedule(kind, algorithm, peers), dimension_kind) for ring, direct and
/// halving_doubling; nullopt for double_binary_tree (its trees have no regular per-step loads:
/// walk it, O(peers) transfers) and in_network (no schedule). Throws std::invalid_argument when
/// UnsupportedReason(kind, algorithm, peers) is set, as BuildSchedule does.
std::optional<ScheduleProfile> ClosedFormProfile(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                 uint32_t peers, DimensionKind dimension_kind);
/// The same on a whole dimension, which a Clos needs (its leaves, spines and oversubscription):
/// ProfileSchedule(BuildSchedule(kind, algorithm, dim.size), dim), where ECMP is taken to spread
/// a leaf's traffic to other leaves evenly over its spines. nullopt for double_binary_tree.
std::optional<ScheduleProfile> ClosedFormProfile(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                 const Dimension& dim);

}  // namespace hfsim
