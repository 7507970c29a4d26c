#include "p4/backend-rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <tuple>

#include "models/aggregation/tofino-resources.h"

namespace hfsim {

namespace {

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\n");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\n");
  return s.substr(a, b - a + 1);
}

// One line of text for messages: runs of white space become one blank.
std::string OneLine(const std::string& s) {
  std::string out;
  for (char c : Trim(s)) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string StripComments(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t comment = text.find("//", pos);
    if (comment == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, comment - pos);
    pos = text.find('\n', comment);
    if (pos == std::string::npos) break;
  }
  return out;
}

// The index of the bracket closing the one at `open` ('(' or '{'), or npos.
size_t MatchClose(const std::string& s, size_t open) {
  const char o = s[open];
  const char c = o == '(' ? ')' : o == '{' ? '}' : ']';
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == o) ++depth;
    if (s[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

std::optional<int64_t> ParseNumber(const std::string& token) {
  std::smatch m;
  static const std::regex kNumber(R"((?:\d+[ws])?(0[xX][0-9a-fA-F]+|\d+))");
  if (!std::regex_match(token, m, kNumber)) return std::nullopt;
  return static_cast<int64_t>(std::stoull(m[1].str(), nullptr, 0));
}

struct BitsType {
  bool known = false;
  bool is_signed = false;
  int width = 0;
  bool operator==(const BitsType&) const = default;
};

std::string ToString(const BitsType& t) {
  return t.known ? fmt::format("{}<{}>", t.is_signed ? "int" : "bit", t.width) : "?";
}

// A PHV field reference: hdr.x.y, meta.x, ig_intr_md.x ...; `valid` for x.isValid().
struct FieldRef {
  std::string field;
  bool validity = false;
  bool operator<(const FieldRef& o) const {
    return std::tie(field, validity) < std::tie(o.field, o.validity);
  }
};

const std::regex& FieldPattern() {
  static const std::regex kField(
      R"(\b(?:hdr|meta|ig_intr_md|eg_intr_md|ig_tm_md|ig_dprsr_md|ig_prsr_md)(?:\.\w+)+(\s*\()?)");
  return kField;
}

std::vector<FieldRef> FieldRefs(const std::string& expr) {
  std::vector<FieldRef> refs;
  for (auto it = std::sregex_iterator(expr.begin(), expr.end(), FieldPattern());
       it != std::sregex_iterator(); ++it) {
    std::string text = (*it)[0].str();
    const bool call = (*it)[1].matched;
    if (call) {  // a method: hdr.agg.isValid( reads the validity bit, x.setValid( writes it
      text = Trim(text.substr(0, text.size() - (*it)[1].length()));
      const size_t dot = text.rfind('.');
      const std::string method = text.substr(dot + 1);
      refs.push_back({text.substr(0, dot), method == "isValid" || method == "setValid" ||
                                               method == "setInvalid"});
    } else {
      refs.push_back({text, false});
    }
  }
  return refs;
}

// The field an lvalue writes: hdr.agg.flags[1:1] writes hdr.agg.flags.
std::string BaseField(const std::string& lvalue) {
  const std::string t = Trim(lvalue);
  return Trim(t.substr(0, t.find('[')));
}

// Casts and slices change no ALU operation count and hold numbers that are not constants.
std::string WithoutCastsAndSlices(const std::string& expr) {
  static const std::regex kCast(R"(\(\s*(?:bit|int)<\d+>\s*\)|\(\s*\w+_t\s*\))");
  static const std::regex kSlice(R"(\[\s*\d+\s*:\s*\d+\s*\])");
  return std::regex_replace(std::regex_replace(expr, kCast, " "), kSlice, " ");
}

// Tokens of an expression: field references (one token each), names, numbers, operators.
std::vector<std::string> Tokens(const std::string& expr) {
  static const std::vector<std::string> kOperators = {
      "|+|", "|-|", "&&&", ">>", "<<", "&&", "||", "==", "!=", "<=", ">=", "&", "|",
      "^",   "+",   "-",   "*",  "~",  "<",  ">",  "!",  "(",  ")",  ",",  "=", "[", "]", ":"};
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < expr.size()) {
    const char c = expr[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[j])) ||
                                 expr[j] == '_' || expr[j] == '.')) {
        ++j;
      }
      tokens.push_back(expr.substr(i, j - i));
      i = j;
      continue;
    }
    bool matched = false;
    for (const std::string& op : kOperators) {
      if (expr.compare(i, op.size(), op) == 0) {
        tokens.push_back(op);
        i += op.size();
        matched = true;
        break;
      }
    }
    if (!matched) tokens.push_back(std::string(1, expr[i++]));
  }
  return tokens;
}

bool IsFieldToken(const std::string& token) {
  static const std::regex kRoot(
      R"(^(?:hdr|meta|ig_intr_md|eg_intr_md|ig_tm_md|ig_dprsr_md|ig_prsr_md)\.)");
  return std::regex_search(token, kRoot);
}

// ALU operations in an expression (assignment right-hand side).
int CountAluOperators(const std::string& expr) {
  static const std::set<std::string> kAlu = {"&", "|", "^", "+", "-", "*", "~",
                                             ">>", "<<", "|+|", "|-|"};
  int count = 0;
  for (const std::string& token : Tokens(WithoutCastsAndSlices(expr))) count += kAlu.count(token);
  return count;
}

struct Statement {
  std::string text;
  std::string lhs;  ///< empty for a call
  std::string rhs;  ///< the whole text for a call
  std::string writes;
  std::vector<FieldRef> reads;
  std::string execute;        ///< the RegisterAction it runs, if any
  std::string execute_index;  ///< its index argument
};

Statement Analyze(const std::string& raw) {
  Statement s;
  s.text = OneLine(raw);
  // The assignment's '=': not part of ==, !=, <=, >=.
  for (size_t i = 0; i < s.text.size(); ++i) {
    if (s.text[i] != '=') continue;
    const char before = i > 0 ? s.text[i - 1] : ' ';
    const char after = i + 1 < s.text.size() ? s.text[i + 1] : ' ';
    if (after == '=' || before == '=' || before == '!' || before == '<' || before == '>') continue;
    s.lhs = Trim(s.text.substr(0, i));
    s.rhs = Trim(s.text.substr(i + 1));
    break;
  }
  if (s.lhs.empty()) s.rhs = s.text;
  if (!s.lhs.empty()) s.writes = BaseField(s.lhs);
  for (const FieldRef& ref : FieldRefs(s.rhs)) {
    if (ref.validity && s.lhs.empty()) {
      s.writes = ref.field;  // setValid / setInvalid
    } else {
      s.reads.push_back(ref);
    }
  }
  static const std::regex kExecute(R"((\w+)\.execute\(\s*([^,)]*))");
  std::smatch m;
  if (std::regex_search(s.rhs, m, kExecute)) {
    s.execute = m[1].str();
    s.execute_index = Trim(m[2].str());
  }
  return s;
}

// A statement of a control's apply block.
struct Node {
  enum Kind { kSimple, kIf, kBlock } kind = kSimple;
  std::string text;  ///< simple statement, or the condition
  std::vector<Node> then_branch;
  std::vector<Node> else_branch;  ///< kBlock: unused
};

bool StartsWithKeyword(const std::string& s, size_t pos, const std::string& word) {
  if (s.compare(pos, word.size(), word) != 0) return false;
  const size_t after = pos + word.size();
  return after >= s.size() || !(std::isalnum(static_cast<unsigned char>(s[after])) ||
                                s[after] == '_');
}

void SkipSpace(const std::string& s, size_t& pos, size_t end) {
  while (pos < end && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
}

std::vector<Node> ParseStatements(const std::string& s, size_t pos, size_t end);

Node ParseOne(const std::string& s, size_t& pos, size_t end) {
  Node node;
  SkipSpace(s, pos, end);
  if (s[pos] == '{') {
    const size_t close = MatchClose(s, pos);
    node.kind = Node::kBlock;
    node.then_branch = ParseStatements(s, pos + 1, close);
    pos = close + 1;
    return node;
  }
  if (StartsWithKeyword(s, pos, "if")) {
    const size_t open = s.find('(', pos);
    const size_t close = MatchClose(s, open);
    node.kind = Node::kIf;
    node.text = OneLine(s.substr(open + 1, close - open - 1));
    pos = close + 1;
    node.then_branch.push_back(ParseOne(s, pos, end));
    size_t look = pos;
    SkipSpace(s, look, end);
    if (look < end && StartsWithKeyword(s, look, "else")) {
      pos = look + 4;
      node.else_branch.push_back(ParseOne(s, pos, end));
    }
    return node;
  }
  int depth = 0;
  size_t i = pos;
  for (; i < end; ++i) {
    if (s[i] == '(' || s[i] == '{') ++depth;
    if (s[i] == ')' || s[i] == '}') --depth;
    if (s[i] == ';' && depth == 0) break;
  }
  node.text = OneLine(s.substr(pos, i - pos));
  pos = i + 1;
  return node;
}

std::vector<Node> ParseStatements(const std::string& s, size_t pos, size_t end) {
  std::vector<Node> nodes;
  for (;;) {
    SkipSpace(s, pos, end);
    if (pos >= end) break;
    nodes.push_back(ParseOne(s, pos, end));
  }
  return nodes;
}

struct Action {
  std::string name;
  std::vector<std::string> data_params;  ///< parameters without direction: action data
  std::vector<Statement> statements;
  bool synthesized = false;
};

class Checker {
 public:
  explicit Checker(const std::string& program) : m_code(StripComments(program)) {
    ReadDeclarations();
  }

  std::vector<BackendRuleViolation> Run() {
    std::set<std::string> called;  // actions called directly: keyless tables of their own
    for (const std::vector<Node>& body : m_apply_bodies) Walk(body, called);
    for (const auto& [name, action] : m_actions) CollectIndexes(action);
    for (const Action& action : m_synthesized) CollectIndexes(action);
    for (const auto& [name, action] : m_actions) {
      CheckAction(action, called.count(name) > 0 || m_keyless_table_actions.count(name) > 0);
    }
    for (const Action& action : m_synthesized) CheckAction(action, true);
    for (const auto& [table, key] : m_range_keys) CheckRangeKey(table, key);
    return std::move(m_violations);
  }

 private:
  void ReadDeclarations() {
    static const std::regex kConst(R"(const\s+[\w<>]+\s+(\w+)\s*=\s*([^;]+);)");
    for (auto it = std::sregex_iterator(m_code.begin(), m_code.end(), kConst);
         it != std::sregex_iterator(); ++it) {
      if (auto value = ParseNumber(Trim((*it)[2].str()))) m_constants[(*it)[1].str()] = *value;
    }
    static const std::regex kTypedef(R"(typedef\s+([\w<>]+)\s+(\w+)\s*;)");
    for (auto it = std::sregex_iterator(m_code.begin(), m_code.end(), kTypedef);
         it != std::sregex_iterator(); ++it) {
      m_typedefs[(*it)[2].str()] = (*it)[1].str();
    }
    static const std::regex kAggregate(R"((?:header|struct)\s+(\w+)\s*\{([^}]*)\})");
    static const std::regex kMember(R"(([\w<>]+)\s+(\w+)\s*;)");
    for (auto it = std::sregex_iterator(m_code.begin(), m_code.end(), kAggregate);
         it != std::sregex_iterator(); ++it) {
      const std::string body = (*it)[2].str();
      auto& fields = m_structs[(*it)[1].str()];
      for (auto f = std::sregex_iterator(body.begin(), body.end(), kMember);
           f != std::sregex_iterator(); ++f) {
        fields[(*f)[2].str()] = (*f)[1].str();
      }
    }
    ReadRegisterActions();
    static const std::regex kAction(R"(\baction\s+(\w+)\s*\(([^)]*)\)\s*\{)");
    for (auto it = std::sregex_iterator(m_code.begin(), m_code.end(), kAction);
         it != std::sregex_iterator(); ++it) {
      Action action;
      action.name = (*it)[1].str();
      std::string params = (*it)[2].str();
      for (size_t start = 0; start <= params.size();) {
        size_t comma = params.find(',', start);
        if (comma == std::string::npos) comma = params.size();
        const std::string param = Trim(params.substr(start, comma - start));
        if (!param.empty() && param.rfind("in ", 0) != 0 && param.rfind("out ", 0) != 0 &&
            param.rfind("inout ", 0) != 0) {
          action.data_params.push_back(param);
        }
        start = comma + 1;
      }
      const size_t open = static_cast<size_t>(it->position(0) + it->length(0) - 1);
      const size_t close = MatchClose(m_code, open);
      for (const Node& node : ParseStatements(m_code, open + 1, close)) {
        if (node.kind == Node::kSimple) action.statements.push_back(Analyze(node.text));
      }
      m_actions[action.name] = std::move(action);
    }
    static const std::regex kTable(R"(\btable\s+(\w+)\s*\{)");
    static const std::regex kActionList(R"(actions\s*=\s*\{([^}]*)\})");
    static const std::regex kRangeKey(R"(([\w.]+)\s*:\s*range\b)");
    for (auto it = std::sregex_iterator(m_code.begin(), m_code.end(), kTable);
         it != std::sregex_iterator(); ++it) {
      const size_t open = static_cast<size_t>(it->position(0) + it->length(0) - 1);
      const std::string body = m_code.substr(open, MatchClose(m_code, open) - open);
      for (auto key = std::sregex_iterator(body.begin(), body.end(), kRangeKey);
           key != std::sregex_iterator(); ++key) {
        m_range_keys.push_back({(*it)[1].str(), (*key)[1].str()});
      }
      if (body.find("key") != std::string::npos) continue;
      std::smatch list;
      if (!std::regex_search(body, list, kActionList)) continue;
      for (const std::string& token : Tokens(list[1].str())) {
        if (m_actions.count(token) || std::isalpha(static_cast<unsigned char>(token[0]))) {
          m_keyless_table_actions.insert(token);
        }
      }
    }
    static const std::regex kControl(R"(\bcontrol\s+(\w+)\s*\()");
    for (auto it = std::sregex_iterator(m_code.begin(), m_code.end(), kControl);
         it != std::sregex_iterator(); ++it) {
      if ((*it)[1].str().find("Deparser") != std::string::npos) continue;  // no tables there
      const size_t params = static_cast<size_t>(it->position(0) + it->length(0) - 1);
      const size_t open = m_code.find('{', MatchClose(m_code, params));
      const size_t close = MatchClose(m_code, open);
      static const std::regex kApply(R"((^|[^\w])apply\s*\{)");
      std::smatch apply;
      const std::string body = m_code.substr(open + 1, close - open - 1);
      if (!std::regex_search(body, apply, kApply)) continue;
      const size_t apply_open = open + 1 + static_cast<size_t>(apply.position(0) +
                                                               apply.length(0) - 1);
      m_apply_bodies.push_back(
          ParseStatements(m_code, apply_open + 1, MatchClose(m_code, apply_open)));
    }
  }

  void ReadRegisterActions() {
    static const std::regex kRegisterAction(R"(\bRegisterAction2?<)");
    for (auto it = std::sregex_iterator(m_code.begin(), m_code.end(), kRegisterAction);
         it != std::sregex_iterator(); ++it) {
      size_t i = static_cast<size_t>(it->position(0) + it->length(0));
      std::vector<std::string> args(1);
      for (int depth = 1; i < m_code.size() && depth > 0; ++i) {
        const char c = m_code[i];
        if (c == '<') ++depth;
        if (c == '>' && --depth == 0) break;
        if (c == ',' && depth == 1) {
          args.emplace_back();
        } else {
          args.back() += c;
        }
      }
      static const std::regex kName(R"(^>\s*\(\s*\w+\s*\)\s*(\w+))");
      std::smatch name;
      const std::string rest = m_code.substr(i, 200);
      if (args.size() >= 3 && std::regex_search(rest, name, kName)) {
        m_register_action_results[name[1].str()] = Trim(args[2]);
      }
    }
  }

  BitsType Resolve(std::string type) const {
    type = Trim(type);
    for (int guard = 0; guard < 8 && m_typedefs.count(type); ++guard) type = m_typedefs.at(type);
    static const std::regex kBits(R"((bit|int)<(\d+)>)");
    std::smatch m;
    if (std::regex_match(type, m, kBits)) return {true, m[1].str() == "int", std::stoi(m[2].str())};
    if (type == "PortId_t") return {true, false, 9};
    if (type == "MulticastGroupId_t") return {true, false, 16};
    if (type == "bool") return {true, false, 1};
    return {};
  }

  BitsType FieldType(const std::string& field) const {
    const size_t dot = field.find('.');
    const std::string root = field.substr(0, dot);
    std::string rest = field.substr(dot + 1);
    std::string struct_name;
    if (root == "meta") {
      struct_name = "ingress_metadata_t";
    } else if (root == "hdr") {
      const size_t second = rest.find('.');
      if (second == std::string::npos) return {};
      const auto headers = m_structs.find("ingress_headers_t");
      if (headers == m_structs.end() || !headers->second.count(rest.substr(0, second))) return {};
      struct_name = headers->second.at(rest.substr(0, second));
      rest = rest.substr(second + 1);
    } else if (field == "ig_intr_md.ingress_port") {
      return {true, false, 9};
    } else if (field == "eg_intr_md.egress_rid") {
      return {true, false, 16};
    } else {
      return {};
    }
    const auto fields = m_structs.find(struct_name);
    if (fields == m_structs.end() || !fields->second.count(rest)) return {};
    return Resolve(fields->second.at(rest));
  }

  // Groups a block's statements as the back end's action synthesis does, and checks each `if`.
  void Walk(const std::vector<Node>& nodes, std::set<std::string>& called) {
    Action group;
    std::set<std::string> written;
    bool group_extern = false;
    auto flush = [&] {
      if (!group.statements.empty()) {
        group.name = "the statements from `" + group.statements.front().text + ";`";
        group.synthesized = true;
        m_synthesized.push_back(group);
      }
      group = Action();
      written.clear();
      group_extern = false;
    };
    static const std::regex kApply(R"(^\w+\.apply\(\s*\)$)");
    static const std::regex kCall(R"(^(\w+)\s*\((.*)\)$)");
    for (const Node& node : nodes) {
      if (node.kind != Node::kSimple) {
        flush();
        if (node.kind == Node::kIf) CheckCondition(node.text);
        Walk(node.then_branch, called);
        Walk(node.else_branch, called);
        continue;
      }
      std::smatch call;
      if (std::regex_match(node.text, kApply) ||
          (std::regex_match(node.text, call, kCall) && m_actions.count(call[1].str()))) {
        flush();
        if (!call.empty()) called.insert(call[1].str());
        continue;
      }
      const Statement statement = Analyze(node.text);
      const bool uses_extern = !statement.execute.empty();
      bool depends = !statement.writes.empty() && written.count(statement.writes);
      for (const FieldRef& ref : statement.reads) {
        for (const std::string& w : written) {
          if (ref.field == w || ref.field.rfind(w + ".", 0) == 0) depends = true;
        }
      }
      if (depends || (uses_extern && group_extern)) flush();
      group.statements.push_back(statement);
      if (!statement.writes.empty()) written.insert(statement.writes);
      group_extern = group_extern || uses_extern;
    }
    flush();
  }

  // Fields any RegisterAction takes its index from.
  void CollectIndexes(const Action& action) {
    for (const Statement& s : action.statements) {
      if (!s.execute.empty()) m_indexes.insert(BaseField(WithoutCastsAndSlices(s.execute_index)));
    }
  }

  void Add(const char* rule, const std::string& where, const std::string& message) {
    m_violations.push_back({rule, where, message});
  }

  // An ordering compare of one field with a constant, as the back end's CanonGatewayExpr
  // rewrites it: the hash bits it needs (0 when it becomes an equality or a constant).
  struct OrderingCompare {
    std::string field;
    std::string text;
    int hash_bits = 0;
  };

  std::optional<int64_t> ConstantValue(const std::string& token) const {
    if (auto number = ParseNumber(token)) return number;
    if (m_constants.count(token)) return m_constants.at(token);
    return std::nullopt;
  }

  std::vector<OrderingCompare> OrderingCompares(const std::vector<std::string>& tokens) const {
    std::vector<OrderingCompare> compares;
    for (size_t i = 1; i + 1 < tokens.size(); ++i) {
      std::string op = tokens[i];
      if (op != "<" && op != "<=" && op != ">" && op != ">=") continue;
      std::string field = tokens[i - 1];
      std::optional<int64_t> constant = ConstantValue(tokens[i + 1]);
      const bool field_first = IsFieldToken(field) && constant && (i + 2 >= tokens.size() ||
                                                                   tokens[i + 2] != "[");
      if (!field_first) {  // `K < x` is `x > K`
        field = tokens[i + 1];
        constant = ConstantValue(tokens[i - 1]);
        if (!IsFieldToken(field) || !constant || (i + 2 < tokens.size() && tokens[i + 2] == "[")) {
          continue;
        }
        op = op == "<" ? ">" : op == "<=" ? ">=" : op == ">" ? "<" : "<=";
      }
      const BitsType type = FieldType(field);
      if (!type.known || type.width > 63 || *constant < 0) continue;
      OrderingCompare compare{field, fmt::format("{} {} {}", field, op, *constant), 0};
      const uint64_t max = (uint64_t{1} << type.width) - 1;
      uint64_t k = static_cast<uint64_t>(*constant);
      if (op == "<=" || op == ">") {  // x <= K is x < K + 1; x > K is x >= K + 1
        if (k >= max) continue;       // always true or always false
        ++k;
      }
      if (type.is_signed) {
        compare.hash_bits = k == 0 ? 0 : type.width;  // x < 0 tests the sign bit
      } else if (k != 0) {
        int zeros = 0;  // K's trailing zero bits are sliced off x
        while (((k >> zeros) & 1) == 0) ++zeros;
        compare.hash_bits = (k >> zeros) == 1 ? 0 : type.width - zeros;
      }
      if (compare.hash_bits > 0) compares.push_back(compare);
    }
    return compares;
  }

  void CheckCondition(const std::string& condition) {
    const std::string where = "if (" + condition + ")";
    const std::vector<std::string> tokens = Tokens(condition);
    // Ordering compares go through the gateway's hash bits, not its PHV bytes; a field also
    // tested otherwise in the condition still takes its bytes.
    std::map<std::string, int> in_hash_bits;  // field -> its ordering compares
    int hash_bits = 0;
    std::string compares;
    for (const OrderingCompare& compare : OrderingCompares(tokens)) {
      ++in_hash_bits[compare.field];
      hash_bits += compare.hash_bits;
      compares += fmt::format("{}`{}` needs {}", compares.empty() ? "" : ", ", compare.text,
                              compare.hash_bits);
    }
    if (hash_bits > kGatewayHashBits) {
      Add(kRuleGatewayRangeBits, where,
          fmt::format("{} bits of the gateway's {} hash bits ({}); the back end slices a "
                      "constant's trailing zero bits off the field and matches the rest as a "
                      "range. Compare with a power of two, or mark the case with a ternary table",
                      hash_bits, kGatewayHashBits, compares));
    }
    std::map<std::string, int> uses;
    for (const FieldRef& ref : FieldRefs(condition)) {
      if (!ref.validity) ++uses[ref.field];
    }
    std::set<FieldRef> refs;
    for (const FieldRef& ref : FieldRefs(condition)) {
      const auto hashed = in_hash_bits.find(ref.field);
      if (ref.validity || hashed == in_hash_bits.end() || uses[ref.field] > hashed->second) {
        refs.insert(ref);
      }
    }
    int bytes = 0;
    for (const FieldRef& ref : refs) {
      const BitsType type = ref.validity ? BitsType{true, false, 1} : FieldType(ref.field);
      bytes += type.known ? (type.width + 7) / 8 : 4;
    }
    if (bytes > kGatewayPhvBytes) {
      Add(kRuleGatewayCondition, where,
          fmt::format("the condition reads {} bytes of PHV and a gateway reads at most {}; test "
                      "fewer fields per `if` or precompute a one-bit result in metadata",
                      bytes, kGatewayPhvBytes));
    }
    // The operand beside a bitwise operator, walking away from it: one token, or a whole
    // parenthesised expression; true when it reads a field.
    auto operand_is_field = [&](size_t at, bool forward) {
      int depth = 0;
      for (ptrdiff_t i = static_cast<ptrdiff_t>(at);
           i >= 0 && i < static_cast<ptrdiff_t>(tokens.size()); i += forward ? 1 : -1) {
        const std::string& token = tokens[static_cast<size_t>(i)];
        if (token == "(") depth += forward ? 1 : -1;
        if (token == ")") depth += forward ? -1 : 1;
        if (IsFieldToken(token)) return true;
        if (depth <= 0) break;
      }
      return false;
    };
    for (size_t i = 1; i + 1 < tokens.size(); ++i) {
      const std::string& op = tokens[i];
      if (op != "&" && op != "|" && op != "^") continue;
      if (operand_is_field(i - 1, false) && operand_is_field(i + 1, true)) {
        Add(kRuleGatewayCondition, where,
            fmt::format("`{}` between two fields: one operand of a bitwise test in a condition "
                        "must be constant; compute it into metadata first",
                        op));
      }
    }
  }

  void CheckRangeKey(const std::string& table, const std::string& key) {
    const BitsType type = FieldType(key);
    if (type.known && type.width <= kWidestRangeKeyBits) return;
    const std::string width = type.known ? fmt::format("{} bits", type.width) : "of unknown width";
    Add(kRuleRangeKeyNibbles, "table " + table,
        fmt::format("`{}: range` is {}: a range key is matched in one TCAM group of 5 PHV "
                    "nibbles, and a key wider than {} bits can span 6 or more; use a ternary key "
                    "with power-of-two blocks",
                    key, width, kWidestRangeKeyBits));
  }

  std::vector<int64_t> Constants(const std::string& expr) const {
    std::vector<int64_t> values;
    for (const std::string& token : Tokens(WithoutCastsAndSlices(expr))) {
      if (auto value = ConstantValue(token)) values.push_back(*value);
    }
    return values;
  }

  void CheckAction(const Action& action, bool keyless) {
    const std::string where = action.synthesized ? action.name : "action " + action.name;
    std::set<std::string> written;
    bool executes = false;
    for (const Statement& s : action.statements) executes = executes || !s.execute.empty();
    for (const Statement& s : action.statements) {
      // Rule: a RegisterAction's result goes into a field of its result type, uncast.
      if (!s.execute.empty() && !s.lhs.empty() && m_register_action_results.count(s.execute)) {
        const BitsType result = Resolve(m_register_action_results.at(s.execute));
        const BitsType field = FieldType(s.writes);
        static const std::regex kCastFirst(R"(^\(\s*[\w<>]+\s*\)\s*\w+\.execute)");
        if (std::regex_search(s.rhs, kCastFirst) || (result.known && field.known &&
                                                      !(result == field))) {
          Add(kRuleRegisterResultType, where,
              fmt::format("`{}`: {} returns {} and {} is {}; give the register, its "
                          "RegisterActions and the field one type, with no cast",
                          s.text, s.execute, ToString(result), s.writes, ToString(field)));
        }
      }
      // Rule: one ALU step per field per action.
      if (!s.reads.empty() && s.execute.empty() && CountAluOperators(s.rhs) > 1) {
        Add(kRuleSingleStageAction, where,
            fmt::format("`{}` takes {} operations on {} in one action; split it over two "
                        "actions (an intermediate in metadata) or use a slice",
                        s.text, CountAluOperators(s.rhs), s.writes));
      }
      for (const FieldRef& ref : s.reads) {
        if (written.count(ref.field)) {
          Add(kRuleSingleStageAction, where,
              fmt::format("`{}` reads {}, written earlier in the same action", s.text,
                          ref.field));
        }
      }
      if (!s.writes.empty() && !written.insert(s.writes).second) {
        Add(kRuleSingleStageAction, where,
            fmt::format("{} is written twice in one action", s.writes));
      }
    }
    if (!keyless || !executes) return;
    // Rule: a keyless table's action that needs the hash unit takes no action data.
    const TofinoLimits& limits = LimitsOf(TofinoGeneration::kTofino1);
    for (const std::string& param : action.data_params) {
      Add(kRuleKeylessHashAction, where,
          fmt::format("parameter `{}` is action data, and the action runs a RegisterAction "
                      "from a keyless table",
                      param));
    }
    for (const Statement& s : action.statements) {
      if (!s.execute.empty()) continue;
      if (m_indexes.count(s.writes) && s.rhs.find('+') != std::string::npos) {
        Add(kRuleKeylessHashAction, where,
            fmt::format("`{}` adds to the register index beside the RegisterAction that uses "
                        "it; compute the index in an earlier action",
                        s.text));
        continue;
      }
      for (int64_t value : Constants(s.rhs)) {
        if (value < limits.alu_immediate_min || value > limits.alu_immediate_max) {
          Add(kRuleKeylessHashAction, where,
              fmt::format("`{}`: the constant {} is action data (outside {}..{}), beside a "
                          "RegisterAction in a keyless table; move the statement to another "
                          "action",
                          s.text, value, limits.alu_immediate_min, limits.alu_immediate_max));
          break;
        }
      }
    }
  }

  std::string m_code;
  std::map<std::string, int64_t> m_constants;
  std::map<std::string, std::string> m_typedefs;
  std::map<std::string, std::map<std::string, std::string>> m_structs;
  std::map<std::string, std::string> m_register_action_results;
  std::map<std::string, Action> m_actions;
  std::set<std::string> m_keyless_table_actions;
  std::vector<std::pair<std::string, std::string>> m_range_keys;  ///< table, key field
  std::set<std::string> m_indexes;
  std::vector<std::vector<Node>> m_apply_bodies;
  std::vector<Action> m_synthesized;
  std::vector<BackendRuleViolation> m_violations;
};

}  // namespace

std::vector<BackendRuleViolation> CheckTofinoBackendRules(const std::string& program) {
  return Checker(program).Run();
}

}  // namespace hfsim
