#include "sim/optimize/glpk-simplex.h"

#include <algorithm>
#include <atomic>
#include <csetjmp>
#include <memory>

#include <fmt/format.h>

namespace hfsim {

namespace {

std::atomic<uint64_t> g_resets{0};

struct GlpkTrap {
  std::jmp_buf jump;
  std::string output;  ///< what GLPK wrote to its terminal: the error message
};

int CaptureGlpkOutput(void* info, const char* text) {
  static_cast<GlpkTrap*>(info)->output += text;
  return 1;  // captured: GLPK prints nothing itself
}

[[noreturn]] void OnGlpkError(void* info) { std::longjmp(static_cast<GlpkTrap*>(info)->jump, 1); }

}  // namespace

// Bounded glp_simplex, except that an error inside GLPK (a failed internal assertion, for instance; on
// nearly parallel cuts GLPK 5.0's dual simplex can trip "teta >= 0.0" in spychuzc.c) returns
// kGlpkError with GLPK's message instead of aborting the process. GLPK's environment does not
// survive an error: it is freed here, and every problem object with it. Only GLPK's C frames
// lie between the setjmp and the longjmp, so no destructor is skipped; the trap lives on the
// heap, as a local changed between setjmp and longjmp would be indeterminate after the jump.
uint64_t GlpkResets() { return g_resets.load(); }

int GuardedSimplex(glp_prob* lp, glp_smcp parm, std::string& message) {
  parm.it_lim = parm.it_lim > 0 ? std::min(parm.it_lim, kGlpkIterationLimit) : kGlpkIterationLimit;
  parm.tm_lim = parm.tm_lim > 0 ? std::min(parm.tm_lim, kGlpkTimeLimitMs) : kGlpkTimeLimitMs;
  const auto trap = std::make_unique<GlpkTrap>();
  glp_error_hook(OnGlpkError, trap.get());
  glp_term_hook(CaptureGlpkOutput, trap.get());
  if (setjmp(trap->jump) != 0) {
    glp_free_env();
    ++g_resets;
    // GLPK's lines ("Assertion failed: ...", "Error detected in file ... at line ...") as one.
    const std::string& output = trap->output;
    message.clear();
    size_t begin = 0;
    while (begin < output.size()) {
      size_t end = output.find('\n', begin);
      if (end == std::string::npos) end = output.size();
      if (end > begin) {
        message += (message.empty() ? "" : "; ") + output.substr(begin, end - begin);
      }
      begin = end + 1;
    }
    return kGlpkError;
  }
  const int code = glp_simplex(lp, &parm);
  glp_term_hook(nullptr, nullptr);
  glp_error_hook(nullptr, nullptr);
  return code;
}

std::string LpFailureReason(int simplex_code, int status) {
  // glp_simplex's return codes (GLPK reference manual, "glp_simplex").
  switch (simplex_code) {
    case 0: break;
    case GLP_EBADB: return "the initial basis is invalid (glp_simplex: GLP_EBADB)";
    case GLP_ESING: return "the basis matrix is singular (glp_simplex: GLP_ESING)";
    case GLP_ECOND: return "the basis matrix is ill-conditioned (glp_simplex: GLP_ECOND)";
    case GLP_EBOUND:
      return "a double-bounded variable has incorrect bounds (glp_simplex: GLP_EBOUND)";
    case GLP_EFAIL: return "the simplex failed numerically (glp_simplex: GLP_EFAIL)";
    case GLP_EOBJLL: return "the objective reached its lower limit (glp_simplex: GLP_EOBJLL)";
    case GLP_EOBJUL: return "the objective reached its upper limit (glp_simplex: GLP_EOBJUL)";
    case GLP_EITLIM: return "the simplex iteration limit was exceeded (glp_simplex: GLP_EITLIM)";
    case GLP_ETMLIM: return "the time limit was exceeded (glp_simplex: GLP_ETMLIM)";
    case GLP_ENOPFS: return "the LP has no primal feasible solution (glp_simplex: GLP_ENOPFS)";
    case GLP_ENODFS: return "the LP has no dual feasible solution (glp_simplex: GLP_ENODFS)";
    default: return fmt::format("glp_simplex returned code {}", simplex_code);
  }
  // The simplex ran to its end; the status says what it found.
  switch (status) {
    case GLP_OPT: return "no failure (GLP_OPT)";
    case GLP_FEAS: return "the solution is feasible but not proven optimal (status GLP_FEAS)";
    case GLP_INFEAS: return "the solution is infeasible (status GLP_INFEAS)";
    case GLP_NOFEAS: return "the LP has no feasible solution (status GLP_NOFEAS)";
    case GLP_UNBND: return "the LP is unbounded (status GLP_UNBND)";
    case GLP_UNDEF: return "the solution is undefined (status GLP_UNDEF)";
    default: return fmt::format("glp_get_status returned {}", status);
  }
}

}  // namespace hfsim
