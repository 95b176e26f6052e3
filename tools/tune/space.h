// The search space of tierfs-tune: TierFS's own configuration keys, each a
// numeric range, an ordered list (discrete) or a set of names (categorical),
// plus constraints, read from one file a user edits (tools/tune/space.txt is
// the default). A point of the space renders as a tierfs:// URI on the fixed
// tier part the file gives: the tiers and their capacities, tier 0's
// included, are never a parameter.
//
// The file, one statement a line ('#' starts a comment):
//
//   tiers /fast:256M:optane,/slow:4G:sata-ssd      the URI's tier part (required, once)
//   fixed KEY VALUE                                 a key set in every configuration
//   KEY numeric LOW..HIGH [log] [unit=%] [default=V]   integers LOW to HIGH (sizes: 8M..512M)
//   KEY discrete V1 V2 ... [default=V]              ordered numeric values (sizes allowed)
//   KEY categorical N1 N2 ... [default=N]           unordered names
//   constraint A OP B                               A and B keys or numbers, OP < <= > >= == !=
//   constraint A + 2*B + ... OP C + ...             sums of terms, each [N*]key or a number
//                                                  (a memory budget: cache + 2*memtable <= 64M)
//
// KEY is a URI key the simulator honours (segment_size, policy, migration,
// migration_queue, migration_rate, migration_busy_share, migration_plan_ms,
// fast_headroom, level_room, wal_room, copies, copy_page, copy_share, copy_inherit) or a policy's
// own POLICY.PARAM, which is active only in configurations whose policy is
// POLICY (the URI grammar refuses it otherwise), or a live-only RocksDB
// option `rocksdb.NAME` (rocksdb_options.h: block_cache_size,
// write_buffer_size, max_bytes_for_level_base, max_bytes_for_level_multiplier,
// target_file_size_base, compaction_readahead_size, use_direct_reads,
// use_direct_io_for_flush_and_compaction; `fixed` may name one too). A
// live-only key renders among the URI's keys (`;rocksdb.write_buffer_size:8M`)
// so that one string still names a configuration; SplitConfiguration
// separates it from the URI TierFS takes. The simulator cannot measure these
// options (it runs no RocksDB), so a simulated search drops them
// (WithoutLive) and the simulator evaluator refuses a configuration that
// holds one. Every value a parameter can take is checked against the live
// grammar (core/config.cc) and, for a POLICY.PARAM, against the policy itself,
// when the file is read. Without default=, a parameter's default is TierFS's
// own (MigrationOptions, PageCopyOptions; RocksDB 7.8's own for
// `rocksdb.NAME`) where the value is in range, else the value nearest it.
// `log` searches a numeric range on a logarithmic scale (LOW > 0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/tune/rng.h"

namespace tierfs {
namespace tune {

// A point of a space: one number per parameter, in the space's order. For a
// numeric parameter the value itself (an integer), for a discrete or
// categorical one the index of its value.
using Point = std::vector<double>;

enum class ParamKind { kNumeric, kDiscrete, kCategorical };

struct Param {
  std::string key;
  ParamKind kind = ParamKind::kNumeric;
  double low = 0, high = 0;  // numeric: the range, inclusive
  bool log = false;          // numeric: searched on a log scale
  std::string unit;          // numeric: "%" (appended in the URI) or "size" (rendered 64M)
  double step = 1;           // numeric: values are multiples of this (a size range: LOW's unit)
  std::vector<std::string> values;  // discrete, categorical: as spelled in the URI
  std::vector<double> numbers;      // discrete: each value's number (sorted ascending)
  double default_value = 0;         // as a Point holds it
  std::string policy;  // a POLICY.PARAM's POLICY: active only when the policy is this
  bool live = false;   // a live-only rocksdb.NAME: only a live run measures it
  int line = 0;        // where the file declared it
};

// One side of a constraint is a sum of terms, each an integer factor times a
// key or a number ("2*rocksdb.write_buffer_size", "64M").
struct Term {
  double factor = 1;
  std::string operand;  // a key or a number (sizes allowed)
};

struct Constraint {
  std::vector<Term> left, right;
  std::string op;
  std::string text;  // as written after `constraint`, for messages
  int line = 0;
};

class Space {
 public:
  // Reads a space from `text` (named `name` in errors). False and *error
  // naming the line and the key on a bad statement, an unknown key, a value
  // the URI grammar or the policy refuses, a capacity given as a parameter,
  // or a default that breaks a constraint.
  // A non-empty `tiers` replaces the file's `tiers` line: the same space on
  // another device configuration (tierfs-tune --tiers).
  static bool Parse(const std::string& text, const std::string& name, Space* space,
                    std::string* error, const std::string& tiers = "");
  static bool Load(const std::string& path, Space* space, std::string* error,
                   const std::string& tiers = "");

  const std::vector<Param>& params() const { return params_; }
  const std::string& tiers() const { return tiers_; }
  size_t size() const { return params_.size(); }
  // The index of parameter `key`, or -1.
  int Find(const std::string& key) const;
  // True if a parameter or a fixed key is a live-only rocksdb.NAME.
  bool HasLive() const;
  // This space without its live-only parameters, fixed keys and the
  // constraints that name them: what a simulated search explores.
  Space WithoutLive() const;

  // The defaults: TierFS's own configuration on these tiers (the grade's
  // reference).
  Point Default() const { return defaults_; }
  // A uniformly random feasible point (rejection sampling; the default if
  // 1000 draws all break a constraint).
  Point Random(Rng* rng) const;
  // `p` with one active parameter changed: numeric by a normal step of a
  // sixth of its (log) range, discrete to a neighbouring value, categorical to
  // another name. Feasible (the same point if 100 tries are not).
  Point Neighbor(const Point& p, Rng* rng) const;
  // Every point one step from `p` in one active parameter (numeric: an
  // eighth of the (log) range up or down; discrete: the next value up or
  // down; categorical: each other name), feasible ones only.
  std::vector<Point> Adjacent(const Point& p) const;
  // Parameter i with a fresh uniform value (for mutation).
  void Resample(Point* p, size_t i, Rng* rng) const;
  // Rounds numeric values to integers in range and indices to valid ones.
  void Clamp(Point* p) const;

  // True if parameter i takes part in `p` (a POLICY.PARAM only under POLICY).
  bool Active(const Point& p, size_t i) const;
  // True if `p` meets every constraint.
  bool Feasible(const Point& p) const;
  // The URI value of parameter i at `p` ("64M", "lru", "5%").
  std::string Value(const Point& p, size_t i) const;
  // The tierfs:// URI of `p`: the tier part, the fixed keys, then every
  // active parameter in the file's order. Points that differ only in
  // inactive parameters render the same: the URI names the configuration.
  std::string Render(const Point& p) const;
  // The inverse of Render: the point whose URI is `uri` (inactive
  // parameters at their defaults). False if `uri` is not a configuration of
  // this space: other tiers or fixed keys, a value out of range or not
  // listed, a constraint broken (a ConfDB written with another space).
  bool PointOf(const std::string& uri, Point* p) const;
  // `p` as numbers in [0, 1] for a Gaussian process: numeric by its (log)
  // position in the range, discrete by its index over the values, and a
  // categorical one-hot scaled by 1/sqrt(2) (two names differ by a squared
  // distance of 1, a Hamming distance). An inactive parameter encodes as its
  // default.
  std::vector<double> Encode(const Point& p) const;
  // The Manhattan distance between two points in normalized units (a
  // categorical parameter counts 0 or 1; inactive parameters count 0):
  // LearnedSSD's measure for its exploit factor.
  double Manhattan(const Point& a, const Point& b) const;

 private:
  // Parameter i's position in [0, 1] (numeric, discrete) at `p`.
  double Unit(const Point& p, size_t i) const;
  double FromUnit(size_t i, double u) const;
  bool Holds(const Constraint& c, const Point& p) const;
  double Number(const std::string& operand, const Point& p) const;
  double Sum(const std::vector<Term>& side, const Point& p) const;

  std::string tiers_;
  std::vector<std::pair<std::string, std::string>> fixed_;
  std::vector<Param> params_;
  std::vector<Constraint> constraints_;
  Point defaults_;
  int policy_index_ = -1;
  std::string fixed_policy_ = "fast-first";  // the policy when it is not a parameter
};

}  // namespace tune
}  // namespace tierfs
