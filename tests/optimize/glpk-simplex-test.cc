// Every GLPK solve goes through GuardedSimplex (sim/optimize/glpk-simplex.h): an error inside
// GLPK is a message, never an abort, and every solve is bounded in iterations and time.
#include "sim/optimize/glpk-simplex.h"

#include <string>

#include <gtest/gtest.h>

namespace hfsim {
namespace {

// min x1 + x2 subject to x1 + 2 x2 >= 2, 2 x1 + x2 >= 2, x >= 0: optimum 4/3 at (2/3, 2/3).
glp_prob* SmallLp() {
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  glp_add_cols(lp, 2);
  glp_add_rows(lp, 2);
  for (int j = 1; j <= 2; ++j) {
    glp_set_col_bnds(lp, j, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp, j, 1.0);
  }
  const int index[] = {0, 1, 2};
  const double row1[] = {0, 1.0, 2.0};
  const double row2[] = {0, 2.0, 1.0};
  glp_set_mat_row(lp, 1, 2, index, row1);
  glp_set_mat_row(lp, 2, 2, index, row2);
  glp_set_row_bnds(lp, 1, GLP_LO, 2.0, 0.0);
  glp_set_row_bnds(lp, 2, GLP_LO, 2.0, 0.0);
  return lp;
}

// GLPK's defaults with its terminal output off, as every test here wants.
glp_smcp QuietParameters() {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  return parm;
}

TEST(GlpkSimplex, SolvesWithinItsLimits) {
  glp_prob* lp = SmallLp();
  glp_smcp parm = QuietParameters();
  std::string message;
  ASSERT_EQ(GuardedSimplex(lp, parm, message), 0);
  EXPECT_EQ(glp_get_status(lp), GLP_OPT);
  EXPECT_NEAR(glp_get_obj_val(lp), 4.0 / 3.0, 1e-12);
  glp_delete_prob(lp);
}

TEST(GlpkSimplex, InternalErrorIsAMessageNotAnAbort) {
  glp_prob* lp = SmallLp();
  glp_smcp parm = QuietParameters();
  parm.meth = 12345;  // GLPK reports an invalid parameter through its error hook
  std::string message;
  EXPECT_EQ(GuardedSimplex(lp, parm, message), kGlpkError);
  EXPECT_NE(message.find("meth"), std::string::npos) << message;
  // GLPK freed its environment (and `lp` with it); a new problem solves again.
  glp_prob* fresh = SmallLp();
  EXPECT_EQ(GuardedSimplex(fresh, QuietParameters(), message), 0);
  EXPECT_NEAR(glp_get_obj_val(fresh), 4.0 / 3.0, 1e-12);
  glp_delete_prob(fresh);
}

TEST(GlpkSimplex, IterationLimitIsAFailureWithItsReason) {
  glp_prob* lp = SmallLp();
  glp_smcp parm = QuietParameters();
  parm.it_lim = 1;  // fewer than the two pivots this LP needs
  std::string message;
  const int code = GuardedSimplex(lp, parm, message);
  EXPECT_EQ(code, GLP_EITLIM);
  EXPECT_EQ(LpFailureReason(code, glp_get_status(lp)),
            "the simplex iteration limit was exceeded (glp_simplex: GLP_EITLIM)");
  glp_delete_prob(lp);
}

}  // namespace
}  // namespace hfsim
