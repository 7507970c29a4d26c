// Rules of the Tofino back end (p4c-barefoot) that p4c's front end does not check, as a checker
// of generated P4 text. Every program hfsim used to generate passed the front end and was
// rejected by the back end; each rule here is one of the errors it gave (docs/p4.md §3), so the
// generator's tests hold every generated program to them without the compiler at hand.
//
// The checker reads the program the way the back end groups it: a declared action is one
// action; in a control's apply block, consecutive assignments and extern calls form one
// synthesized action (a keyless table), split where a statement reads a field an earlier one in
// the group wrote or where both use an extern (p4c's SynthesizeActions with the Tofino policy);
// every `if` is a gateway. It understands the generator's style (one statement per line, no
// nested actions), not all of P4.
#pragma once

#include <string>
#include <vector>

namespace hfsim {

/// "Cannot cast implicitly type 'bit<8>' to type 'int<8>'": a RegisterAction's result is stored
/// into a field of exactly its result type, without a cast.
inline constexpr const char* kRuleRegisterResultType = "register-result-type";
/// "action spanning multiple stages": in one action each field is written at most once, never
/// read after it is written, and an assignment that reads a PHV field has at most one operator
/// (`x = (x & C) | p` and `x = (y >> C) & D` are two ALU steps on x).
inline constexpr const char* kRuleSingleStageAction = "single-stage-action";
/// "condition too complex": an `if` reads at most 4 bytes of PHV (Tofino's gateway input), and a
/// bitwise operator in it has a constant operand (`(a & b) == 0` of two fields is refused).
inline constexpr const char* kRuleGatewayCondition = "gateway-condition";
/// "The table ... with no key cannot have the action ... requires hash": an action of a keyless
/// table (a synthesized one, or an action called directly) that runs a RegisterAction (its index
/// comes from the hash unit) takes no action data: no parameters without direction and no
/// constant outside the ALU's immediate range; in particular no `index + constant` beside it.
inline constexpr const char* kRuleKeylessHashAction = "keyless-hash-action";
/// "condition too complex, limit of 4 bytes + 12 bits of PHV input exceeded", for an ordering
/// compare: the back end rewrites `x < K` (and <=, >, >=) on an unsigned field by slicing off K's
/// trailing zero bits; when what is left of K is 1 the test is an equality on PHV bytes,
/// otherwise the remaining slice of x goes through the gateway's 12 hash bits. `key >= 384` on a
/// 32-bit key needs 25 of them.
inline constexpr const char* kRuleGatewayRangeBits = "gateway-range-bits";
/// "cannot perform a range match on key ... as the key does not fit in under 5 PHV nibbles": a
/// table's `range` key is matched nibble by nibble in one TCAM group of 5 nibbles; a key wider
/// than 16 bits can span 6 depending on where PHV allocation puts it, so the rule allows 16.
inline constexpr const char* kRuleRangeKeyNibbles = "range-key-nibbles";

struct BackendRuleViolation {
  std::string rule;     ///< one of the kRule* names
  std::string where;    ///< the action, statement or condition at fault
  std::string message;  ///< why the back end refuses it
};

/// Every violation in `program` (P4_16 text for TNA / T2NA); empty when it keeps all the rules.
std::vector<BackendRuleViolation> CheckTofinoBackendRules(const std::string& program);

/// Bytes of PHV a gateway matches (Tofino-1 and Tofino-2), and the hash bits beside them that
/// carry ordering compares.
inline constexpr int kGatewayPhvBytes = 4;
inline constexpr int kGatewayHashBits = 12;
/// Widest `range` table key the checker accepts (5 nibbles at any alignment hold 16 bits).
inline constexpr int kWidestRangeKeyBits = 16;

}  // namespace hfsim
