// Every call of GLPK's simplex goes through here: bounded in iterations and time (an LP that
// cycles or stalls would otherwise hang `optimize`; one did on LIBRA's Turing-NLG inputs), and
// guarded so that an error inside GLPK becomes a message instead of an abort.
#pragma once

#include <cstdint>
#include <string>

#include <glpk.h>

namespace hfsim {

/// GuardedSimplex's return value when GLPK stopped on an error of its own (glp_simplex's codes
/// are positive). GLPK's environment does not survive such an error: every problem object was
/// freed with it.
inline constexpr int kGlpkError = -1;

/// The bounds put on every solve (the LPs here have at most a few hundred rows; the largest
/// measured solve takes a few hundred iterations and well under a ms: docs/optimize.md §8).
inline constexpr int kGlpkIterationLimit = 20000;
inline constexpr int kGlpkTimeLimitMs = 10000;

/// How many times an internal GLPK error has reset GLPK's environment in this process. Every
/// problem object that exists at a reset is freed with it: an owner compares the count with the
/// one it saw when it created its problem before touching or deleting it.
uint64_t GlpkResets();

/// glp_simplex(lp, parm) with parm's iteration and time limits capped at the bounds above; on
/// an internal GLPK error returns kGlpkError and GLPK's message in `message`.
int GuardedSimplex(glp_prob* lp, glp_smcp parm, std::string& message);

/// Why a solve ended without an optimum: glp_simplex's code and the status it left, in words.
std::string LpFailureReason(int simplex_code, int status);

}  // namespace hfsim
