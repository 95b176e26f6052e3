// Reading a search space and moving about in it (space.h).
#include "tools/tune/space.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "agents/policy.h"
#include "engine/page_copies.h"
#include "tools/sim/simulator.h"
#include "tools/tune/rocksdb_options.h"
#include "util/size.h"

namespace tierfs {
namespace tune {
namespace {

// The keys a space may tune (besides POLICY.PARAM), in the URI's spelling.
const std::vector<std::string>& TunableKeys() {
  static const std::vector<std::string> keys = {
      "segment_size", "policy", "migration", "migration_queue", "migration_rate",
      "migration_busy_share", "migration_plan_ms", "fast_headroom", "level_room", "wal_room", "copies",
      "copy_page", "copy_unit", "copy_share", "copy_inherit", "copy_policy"};
  return keys;
}

// TierFS's default of `key` as the URI spells it ("" if it has none here).
std::string TierFsDefault(const std::string& key, const sim::SimConfig& d) {
  if (IsRocksDbKey(key)) {
    const RocksDbOption* o = FindLiveOption(key.substr(sizeof(kRocksDbPrefix) - 1));
    return o ? o->rocksdb_default : "";
  }
  const MigrationOptions& m = d.migration;
  if (key == "segment_size") return FormatSizeExact(d.segment_size);
  if (key == "policy") return d.policy;
  if (key == "migration") return m.enabled ? "on" : "off";
  if (key == "migration_queue") return std::to_string(m.queue);
  if (key == "migration_rate") return FormatSizeExact(m.rate);
  if (key == "migration_busy_share") return std::to_string(m.busy_share);
  if (key == "migration_plan_ms") return std::to_string(m.plan_ms);
  if (key == "fast_headroom") {
    if (m.fast_headroom_auto) return "auto";
    return m.fast_headroom_bytes ? FormatSizeExact(m.fast_headroom_bytes)
                                 : std::to_string(m.fast_headroom_pct) + "%";
  }
  if (key == "level_room") return m.level_room ? "on" : "off";
  if (key == "wal_room") return m.wal_room ? "on" : "off";
  if (key == "copies") return d.copies.enabled ? "on" : "off";
  if (key == "copy_page") return FormatSizeExact(d.copies.page);
  if (key == "copy_unit") return d.copies.blocks ? "block" : "page";
  if (key == "copy_share") return std::to_string(d.copies.share_pct);
  if (key == "copy_inherit") return d.copies.inherit ? "on" : "off";
  if (key == "copy_policy") return CopyPolicyName(d.copies.policy);
  return "";
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Parses `constraint SIDE OP SIDE`, each side terms joined by `+`, a term
// `N*OPERAND` or `OPERAND` (spaces around `+` and `*` optional). The
// operands are checked against the space once it is read.
bool ParseConstraint(const std::vector<std::string>& words, Constraint* c, std::string* error) {
  static const std::vector<std::string> ops = {"<=", ">=", "==", "!=", "<", ">"};
  const std::string usage =
      "expected 'constraint A OP B' with OP one of < <= > >= == !=, each side a key, a "
      "number or a sum of terms N*KEY (as 'a + 2*b <= 64M')";
  std::string text;
  for (size_t i = 1; i < words.size(); ++i) text += (i > 1 ? " " : "") + words[i];
  c->text = text;
  std::string compact;
  for (char ch : text) {
    if (ch != ' ') compact += ch;
  }
  size_t at = std::string::npos, len = 0;
  for (const std::string& op : ops) {
    const size_t pos = compact.find(op);
    if (pos != std::string::npos && (at == std::string::npos || pos < at)) at = pos, len = op.size();
  }
  if (at == std::string::npos) {
    *error = usage;
    return false;
  }
  c->op = compact.substr(at, len);
  auto side = [&](const std::string& expr, std::vector<Term>* terms) {
    if (expr.empty()) return false;
    std::istringstream in(expr);
    for (std::string t; std::getline(in, t, '+');) {
      Term term;
      const size_t star = t.find('*');
      if (star != std::string::npos) {
        const std::string factor = t.substr(0, star);
        char* end = nullptr;
        const long n = factor.empty() ? 0 : std::strtol(factor.c_str(), &end, 10);
        if (factor.empty() || *end != '\0' || n < 1 || n > 1000000) return false;
        term.factor = double(n);
        t = t.substr(star + 1);
      }
      if (t.empty() || t.find_first_of("*<>=!") != std::string::npos) return false;
      term.operand = t;
      terms->push_back(term);
    }
    return expr.back() != '+';
  };
  if (!side(compact.substr(0, at), &c->left) || !side(compact.substr(at + len), &c->right)) {
    *error = usage;
    return false;
  }
  return true;
}

bool IsSize(const std::string& s) {
  return !s.empty() && std::string("KMGT").find(s.back()) != std::string::npos;
}

// Checks that `key` set to `value` is a configuration the simulator takes
// (and, for POLICY.PARAM, a parameter the policy knows); a live-only
// `rocksdb.NAME` against RocksDB's option of that name (rocksdb_options.h).
bool CheckValue(const std::string& tiers, const std::string& key, const std::string& value,
                const std::string& policy, std::string* error) {
  if (IsRocksDbKey(key)) {
    return CheckRocksDbValue(key.substr(sizeof(kRocksDbPrefix) - 1), value, error);
  }
  std::string uri = "tierfs://" + tiers;
  if (!policy.empty()) uri += ";policy:" + policy;
  uri += ";" + key + ":" + value;
  sim::SimConfig config;
  if (!sim::ParseSimConfig(uri, &config, error)) return false;
  if (key == "policy" || !policy.empty()) {
    std::unique_ptr<Policy> p = NewPolicy(config.policy, config.policy_params, error);
    if (!p) return false;
  }
  return true;
}

}  // namespace

bool Space::Load(const std::string& path, Space* space, std::string* error,
                 const std::string& tiers) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read space file '" + path + "'";
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path, space, error, tiers);
}

bool Space::Parse(const std::string& text, const std::string& name, Space* space,
                  std::string* error, const std::string& tiers) {
  Space s;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  sim::SimConfig defaults;
  std::map<std::string, std::string> explicit_default;  // key -> default= as written
  auto fail = [&](const std::string& key, const std::string& what) {
    *error = name + " line " + std::to_string(lineno) + (key.empty() ? "" : " (" + key + ")") +
             ": " + what;
    return false;
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find('#') != std::string::npos) line.resize(line.find('#'));
    std::vector<std::string> w = Words(line);
    if (w.empty()) continue;
    const std::string& key = w[0];
    if (key == "tiers") {
      if (w.size() != 2) return fail(key, "expected 'tiers PATH:CAPACITY:DEVICE,...'");
      if (!s.tiers_.empty()) return fail(key, "tiers given twice");
      const std::string& chosen = tiers.empty() ? w[1] : tiers;
      std::string err;
      if (!sim::ParseSimConfig("tierfs://" + chosen, &defaults, &err)) {
        return fail(key, (tiers.empty() ? "" : "--tiers '" + tiers + "': ") + err);
      }
      s.tiers_ = chosen;
      continue;
    }
    if (s.tiers_.empty()) return fail(key, "the 'tiers' line must come first");
    if (key == "constraint") {
      Constraint c;
      std::string err;
      if (!ParseConstraint(w, &c, &err)) return fail(key, err);
      c.line = lineno;
      s.constraints_.push_back(std::move(c));
      continue;
    }
    if (key == "fixed") {
      if (w.size() != 3) return fail("", "expected 'fixed KEY VALUE'");
      if (w[1].find('.') != std::string::npos && !IsRocksDbKey(w[1])) {
        return fail(w[1], "a POLICY.PARAM cannot be fixed (it binds only under its policy): "
                          "declare it categorical with one value");
      }
      if (s.Find(w[1]) >= 0) return fail(w[1], "declared twice");
      std::string err;
      if (!CheckValue(s.tiers_, w[1], w[2], "", &err)) return fail(w[1], err);
      if (w[1] == "policy") s.fixed_policy_ = w[2];
      s.fixed_.push_back({w[1], w[2]});
      continue;
    }
    if (key == "tier" || key == "capacity" || key.find("capacity") != std::string::npos) {
      return fail(key, "tier capacities are fixed by the 'tiers' line, not parameters");
    }
    const size_t dot = key.find('.');
    const bool live = IsRocksDbKey(key);
    const std::string policy = dot == std::string::npos || live ? "" : key.substr(0, dot);
    if (policy.empty() && !live &&
        std::find(TunableKeys().begin(), TunableKeys().end(), key) == TunableKeys().end()) {
      std::string known;
      for (const std::string& k : TunableKeys()) known += (known.empty() ? "" : ", ") + k;
      return fail(key, "unknown key (known: " + known + ", POLICY.PARAM, rocksdb.OPTION)");
    }
    if (s.Find(key) >= 0) return fail(key, "declared twice");
    for (const auto& f : s.fixed_) {
      if (f.first == key) return fail(key, "declared twice");
    }
    if (w.size() < 2) return fail(key, "expected a kind: fixed, numeric, discrete or categorical");
    if (w[1] == "fixed") return fail(key, "write 'fixed " + key + " VALUE'");
    Param p;
    p.key = key;
    p.policy = policy;
    p.live = live;
    p.line = lineno;
    std::vector<std::string> items;
    for (size_t i = 2; i < w.size(); ++i) {
      if (w[i].rfind("default=", 0) == 0) {
        explicit_default[key] = w[i].substr(8);
      } else if (w[i].rfind("unit=", 0) == 0) {
        p.unit = w[i].substr(5);
      } else if (w[i] == "log") {
        p.log = true;
      } else {
        items.push_back(w[i]);
      }
    }
    std::vector<std::string> to_check;  // values that must pass the URI grammar
    if (w[1] == "numeric") {
      p.kind = ParamKind::kNumeric;
      const size_t dots = items.size() == 1 ? items[0].find("..") : std::string::npos;
      uint64_t lo, hi;
      if (dots == std::string::npos || !ParseSize(items[0].substr(0, dots), &lo) ||
          !ParseSize(items[0].substr(dots + 2), &hi) || lo > hi) {
        return fail(key, "expected 'numeric LOW..HIGH' with integers or sizes, LOW <= HIGH");
      }
      if (p.log && lo == 0) return fail(key, "a log range must start above 0");
      if (!p.unit.empty() && p.unit != "%") return fail(key, "unit must be %");
      p.low = double(lo);
      p.high = double(hi);
      if (IsSize(items[0].substr(0, dots)) || IsSize(items[0].substr(dots + 2))) {
        // Sizes move in LOW's unit (4M..1G in whole MiB) and render as sizes.
        p.unit = "size";
        while (p.step * 1024 <= p.low) p.step *= 1024;
      }
      to_check = {std::to_string(lo), std::to_string(hi)};
      for (std::string& v : to_check) v += p.unit == "%" ? "%" : "";
    } else if (w[1] == "discrete" || w[1] == "categorical") {
      if (items.empty()) return fail(key, "no values");
      if (p.log || !p.unit.empty()) return fail(key, "log and unit= are for numeric ranges");
      p.kind = w[1] == "discrete" ? ParamKind::kDiscrete : ParamKind::kCategorical;
      std::vector<std::pair<double, std::string>> sorted;
      for (const std::string& v : items) {
        uint64_t n = 0;
        if (p.kind == ParamKind::kDiscrete && !ParseSize(v, &n)) {
          return fail(key, "discrete value '" + v + "' is not a number or size (use categorical)");
        }
        for (const auto& e : sorted) {
          if (e.second == v) return fail(key, "value '" + v + "' given twice");
        }
        sorted.push_back({double(n), v});
      }
      if (p.kind == ParamKind::kDiscrete) std::sort(sorted.begin(), sorted.end());
      for (const auto& e : sorted) {
        p.numbers.push_back(e.first);
        p.values.push_back(e.second);
      }
      to_check = p.values;
    } else {
      return fail(key, "unknown kind '" + w[1] + "' (numeric, discrete or categorical)");
    }
    for (const std::string& v : to_check) {
      std::string err;
      if (!CheckValue(s.tiers_, key, v, policy, &err)) return fail(key, err);
    }
    if (key == "policy") s.policy_index_ = int(s.params_.size());
    s.params_.push_back(p);
  }
  if (s.tiers_.empty()) {
    *error = name + ": no 'tiers' line (the URI's tier part, e.g. 'tiers /fast:256M:optane,"
             "/slow:4G:sata-ssd')";
    return false;
  }
  // Defaults: default= as written, else TierFS's own (nearest value in range).
  for (Param& p : s.params_) {
    lineno = p.line;
    std::string text;
    if (explicit_default.count(p.key)) {
      text = explicit_default[p.key];
    } else {
      text = TierFsDefault(p.key, defaults);
      if (text.empty()) return fail(p.key, "no TierFS default known: give default=VALUE");
    }
    if (p.kind == ParamKind::kCategorical) {
      auto it = std::find(p.values.begin(), p.values.end(), text);
      if (it == p.values.end()) {
        if (!explicit_default.count(p.key)) {
          return fail(p.key, "TierFS's default '" + text + "' is not among the values: "
                             "add it or give default=VALUE");
        }
        return fail(p.key, "default '" + text + "' is not among the values");
      }
      p.default_value = double(it - p.values.begin());
      continue;
    }
    std::string number = text;
    if (!number.empty() && number.back() == '%') number.pop_back();
    uint64_t n;
    if (!ParseSize(number, &n)) {
      if (!explicit_default.count(p.key)) {
        return fail(p.key, "TierFS's default '" + text + "' is not a number: give default=VALUE "
                           "or list it among categorical values");
      }
      return fail(p.key, "bad default '" + text + "'");
    }
    if (p.kind == ParamKind::kNumeric) {
      if (explicit_default.count(p.key) && (double(n) < p.low || double(n) > p.high)) {
        return fail(p.key, "default '" + text + "' is outside the range");
      }
      p.default_value = std::clamp(double(n), p.low, p.high);
    } else {
      size_t best = 0;
      for (size_t i = 0; i < p.numbers.size(); ++i) {
        if (std::fabs(p.numbers[i] - double(n)) < std::fabs(p.numbers[best] - double(n))) best = i;
      }
      if (explicit_default.count(p.key) && p.numbers[best] != double(n)) {
        return fail(p.key, "default '" + text + "' is not among the values");
      }
      p.default_value = double(best);
    }
  }
  // A policy's parameter whose policy can never be chosen would never bind.
  for (const Param& p : s.params_) {
    if (p.policy.empty()) continue;
    const std::vector<std::string> chosen =
        s.policy_index_ >= 0 ? s.params_[size_t(s.policy_index_)].values
                             : std::vector<std::string>{s.fixed_policy_};
    if (std::find(chosen.begin(), chosen.end(), p.policy) == chosen.end()) {
      lineno = p.line;
      return fail(p.key, "the policy " + p.policy + " is never chosen in this space, so " +
                             p.key + " would never bind");
    }
  }
  for (const Constraint& c : s.constraints_) {
    for (const std::vector<Term>* side : {&c.left, &c.right}) {
      for (const Term& t : *side) {
        const std::string& operand = t.operand;
        uint64_t n;
        if (s.Find(operand) < 0 && !ParseSize(operand, &n)) {
          lineno = c.line;
          return fail("constraint", "'" + operand + "' is neither a parameter nor a number");
        }
        if (s.Find(operand) >= 0 && s.params_[s.Find(operand)].kind == ParamKind::kCategorical) {
          lineno = c.line;
          return fail("constraint", "'" + operand + "' is categorical: it has no number");
        }
      }
    }
  }
  for (const Param& p : s.params_) s.defaults_.push_back(p.default_value);
  for (const Constraint& c : s.constraints_) {
    if (!s.Holds(c, s.defaults_)) {
      lineno = c.line;
      return fail("constraint", "the default configuration breaks '" + c.text + "'");
    }
  }
  *space = std::move(s);
  return true;
}

int Space::Find(const std::string& key) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].key == key) return int(i);
  }
  return -1;
}

double Space::Unit(const Point& p, size_t i) const {
  const Param& q = params_[i];
  switch (q.kind) {
    case ParamKind::kNumeric:
      if (q.high == q.low) return 0;
      if (q.log) return std::log(p[i] / q.low) / std::log(q.high / q.low);
      return (p[i] - q.low) / (q.high - q.low);
    case ParamKind::kDiscrete:
      return q.values.size() == 1 ? 0 : p[i] / double(q.values.size() - 1);
    case ParamKind::kCategorical:
      break;
  }
  return 0;
}

double Space::FromUnit(size_t i, double u) const {
  const Param& q = params_[i];
  u = std::clamp(u, 0.0, 1.0);
  if (q.kind == ParamKind::kNumeric) {
    const double v = q.log ? q.low * std::pow(q.high / q.low, u) : q.low + u * (q.high - q.low);
    return std::clamp(std::round(v / q.step) * q.step, q.low, q.high);
  }
  return std::round(u * double(q.values.size() - 1));
}

void Space::Clamp(Point* p) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& q = params_[i];
    double& v = (*p)[i];
    if (q.kind == ParamKind::kNumeric) {
      v = std::clamp(std::round(v / q.step) * q.step, q.low, q.high);
    } else {
      v = std::clamp(std::round(v), 0.0, double(q.values.size() - 1));
    }
  }
}

void Space::Resample(Point* p, size_t i, Rng* rng) const {
  const Param& q = params_[i];
  if (q.kind == ParamKind::kNumeric) {
    (*p)[i] = FromUnit(i, rng->Uniform());
  } else {
    (*p)[i] = double(rng->Below(q.values.size()));
  }
}

Point Space::Random(Rng* rng) const {
  Point p(params_.size());
  for (int tries = 0; tries < 1000; ++tries) {
    for (size_t i = 0; i < params_.size(); ++i) Resample(&p, i, rng);
    if (Feasible(p)) return p;
  }
  return defaults_;
}

Point Space::Neighbor(const Point& p, Rng* rng) const {
  std::vector<size_t> active;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (Active(p, i)) active.push_back(i);
  }
  if (active.empty()) return p;
  for (int tries = 0; tries < 100; ++tries) {
    Point n = p;
    const size_t i = active[rng->Below(active.size())];
    const Param& q = params_[i];
    if (q.kind == ParamKind::kNumeric) {
      n[i] = FromUnit(i, Unit(p, i) + rng->Normal() / 6);
    } else if (q.kind == ParamKind::kDiscrete) {
      const double step = rng->Below(2) ? 1 : -1;
      n[i] = std::clamp(p[i] + step, 0.0, double(q.values.size() - 1));
      if (n[i] == p[i]) n[i] = p[i] - step;
    } else if (q.values.size() > 1) {
      n[i] = double((size_t(p[i]) + 1 + rng->Below(q.values.size() - 1)) % q.values.size());
    }
    Clamp(&n);
    if (n != p && Feasible(n)) return n;
  }
  return p;
}

std::vector<Point> Space::Adjacent(const Point& p) const {
  std::vector<Point> out;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!Active(p, i)) continue;
    const Param& q = params_[i];
    std::vector<double> values;
    if (q.kind == ParamKind::kNumeric) {
      values = {FromUnit(i, Unit(p, i) - 0.125), FromUnit(i, Unit(p, i) + 0.125)};
    } else if (q.kind == ParamKind::kDiscrete) {
      values = {p[i] - 1, p[i] + 1};
    } else {
      for (size_t v = 0; v < q.values.size(); ++v) values.push_back(double(v));
    }
    for (double v : values) {
      Point n = p;
      n[i] = v;
      Clamp(&n);
      if (n[i] != p[i] && Feasible(n) &&
          std::find(out.begin(), out.end(), n) == out.end()) {
        out.push_back(n);
      }
    }
  }
  return out;
}

bool Space::Active(const Point& p, size_t i) const {
  const Param& q = params_[i];
  if (q.policy.empty()) return true;
  const std::string policy =
      policy_index_ >= 0 ? params_[policy_index_].values[size_t(p[policy_index_])] : fixed_policy_;
  return policy == q.policy;
}

double Space::Number(const std::string& operand, const Point& p) const {
  const int i = Find(operand);
  if (i < 0) {
    uint64_t n = 0;
    ParseSize(operand, &n);
    return double(n);
  }
  const Param& q = params_[i];
  return q.kind == ParamKind::kNumeric ? p[i] : q.numbers[size_t(p[i])];
}

double Space::Sum(const std::vector<Term>& side, const Point& p) const {
  double sum = 0;
  for (const Term& t : side) sum += t.factor * Number(t.operand, p);
  return sum;
}

bool Space::Holds(const Constraint& c, const Point& p) const {
  // A constraint on an inactive parameter does not bind.
  for (const std::vector<Term>* side : {&c.left, &c.right}) {
    for (const Term& t : *side) {
      const int i = Find(t.operand);
      if (i >= 0 && !Active(p, size_t(i))) return true;
    }
  }
  const double a = Sum(c.left, p), b = Sum(c.right, p);
  if (c.op == "<") return a < b;
  if (c.op == "<=") return a <= b;
  if (c.op == ">") return a > b;
  if (c.op == ">=") return a >= b;
  if (c.op == "==") return a == b;
  return a != b;
}

bool Space::Feasible(const Point& p) const {
  for (const Constraint& c : constraints_) {
    if (!Holds(c, p)) return false;
  }
  return true;
}

bool Space::HasLive() const {
  for (const Param& p : params_) {
    if (p.live) return true;
  }
  for (const auto& f : fixed_) {
    if (IsRocksDbKey(f.first)) return true;
  }
  return false;
}

Space Space::WithoutLive() const {
  Space s = *this;
  s.params_.clear();
  s.defaults_.clear();
  s.fixed_.clear();
  s.constraints_.clear();
  s.policy_index_ = -1;
  for (const Param& p : params_) {
    if (p.live) continue;
    if (p.key == "policy") s.policy_index_ = int(s.params_.size());
    s.params_.push_back(p);
    s.defaults_.push_back(p.default_value);
  }
  for (const auto& f : fixed_) {
    if (!IsRocksDbKey(f.first)) s.fixed_.push_back(f);
  }
  for (const Constraint& c : constraints_) {
    bool live = false;
    for (const std::vector<Term>* side : {&c.left, &c.right}) {
      for (const Term& t : *side) live = live || IsRocksDbKey(t.operand);
    }
    if (!live) s.constraints_.push_back(c);
  }
  return s;
}

std::string Space::Value(const Point& p, size_t i) const {
  const Param& q = params_[i];
  if (q.kind != ParamKind::kNumeric) return q.values[size_t(p[i])];
  const uint64_t v = uint64_t(p[i]);
  if (q.unit == "size") return FormatSizeExact(v);
  return std::to_string(v) + q.unit;
}

std::string Space::Render(const Point& p) const {
  std::string uri = "tierfs://" + tiers_;
  for (const auto& [key, value] : fixed_) uri += ";" + key + ":" + value;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (Active(p, i)) uri += ";" + params_[i].key + ":" + Value(p, i);
  }
  return uri;
}

bool Space::PointOf(const std::string& uri, Point* out) const {
  std::map<std::string, std::string> values;
  std::stringstream in(uri);
  for (std::string item; std::getline(in, item, ';');) {
    const size_t colon = item.find(':');
    if (colon != std::string::npos) values[item.substr(0, colon)] = item.substr(colon + 1);
  }
  Point p = defaults_;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& q = params_[i];
    auto v = values.find(q.key);
    if (v == values.end()) continue;  // inactive here, or not this space's: Render tells
    if (q.kind != ParamKind::kNumeric) {
      auto at = std::find(q.values.begin(), q.values.end(), v->second);
      if (at == q.values.end()) return false;
      p[i] = double(at - q.values.begin());
      continue;
    }
    std::string text = v->second;
    if (q.unit == "%" && !text.empty() && text.back() == '%') text.pop_back();
    uint64_t n = 0;
    if (!ParseSize(text, &n) || double(n) < q.low || double(n) > q.high) return false;
    p[i] = double(n);
  }
  if (!Feasible(p) || Render(p) != uri) return false;
  *out = p;
  return true;
}

std::vector<double> Space::Encode(const Point& p) const {
  std::vector<double> out;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& q = params_[i];
    const double v = Active(p, i) ? p[i] : defaults_[i];
    if (q.kind == ParamKind::kCategorical) {
      for (size_t c = 0; c < q.values.size(); ++c) {
        out.push_back(size_t(v) == c ? std::sqrt(0.5) : 0.0);
      }
    } else {
      Point tmp = p;
      tmp[i] = v;
      out.push_back(Unit(tmp, i));
    }
  }
  return out;
}

double Space::Manhattan(const Point& a, const Point& b) const {
  double d = 0;
  for (size_t i = 0; i < params_.size(); ++i) {
    const bool ia = Active(a, i), ib = Active(b, i);
    if (!ia && !ib) continue;
    if (ia != ib) {
      d += 1;
    } else if (params_[i].kind == ParamKind::kCategorical) {
      d += a[i] != b[i] ? 1 : 0;
    } else {
      d += std::fabs(Unit(a, i) - Unit(b, i));
    }
  }
  return d;
}

}  // namespace tune
}  // namespace tierfs
