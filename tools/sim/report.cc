#include "tools/sim/report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "util/size.h"

namespace tierfs {
namespace sim {

namespace {

std::string Printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Printf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

const SimResult* FastOnly(const std::vector<Cell>& cells, const Cell& c) {
  for (const Cell& o : cells) {
    if (o.config == c.config && o.workload == c.workload && o.result.policy == "fast-only") {
      return &o.result;
    }
  }
  return nullptr;
}

nlohmann::json CeilingsJsonValue(const std::vector<CeilingResult>& ceilings) {
  nlohmann::json out = nlohmann::json::array();
  for (const CeilingResult& c : ceilings) {
    out.push_back({{"ceiling", c.name}, {"page_size", c.spec.page_size},
                   {"capacity", c.spec.capacity}, {"pages", c.pages}, {"held", c.held},
                   {"reads", c.reads}, {"pieces", c.pieces}, {"bytes", c.bytes},
                   {"share", c.share}, {"strict_share", c.strict_share},
                   {"byte_share", c.byte_share}, {"request_share", c.request_share}});
  }
  return out;
}

// Adds `name` to `seen` unless it is there: first-seen order.
void Remember(std::vector<std::string>* seen, const std::string& name) {
  if (std::find(seen->begin(), seen->end(), name) == seen->end()) seen->push_back(name);
}

// Values by configuration, workload and column, configurations and
// workloads in first-seen order: the comparison tables.
class Grid {
 public:
  void Set(const std::string& config, const std::string& workload, const std::string& column,
           double v) {
    Remember(&configs_, config);
    Remember(&workloads_, workload);
    value_[config][workload][column] = v;
  }

  // One markdown table per configuration: a row per workload, a column per
  // `columns`, cells printed with `format`, and a last row of each column's
  // mean, geometric or arithmetic.
  std::string Markdown(const std::vector<std::string>& columns, const char* format,
                       bool geometric) {
    const std::string cell = std::string(" ") + format + " |";
    const std::string total = std::string(" **") + format + "** |";
    std::string out;
    for (const std::string& config : configs_) {
      out += "\n### " + config + "\n\n| workload |";
      for (const std::string& col : columns) out += " " + col + " |";
      out += "\n|:---|";
      for (size_t i = 0; i < columns.size(); ++i) out += "---:|";
      out += "\n";
      std::map<std::string, double> sum;
      std::map<std::string, int> n;
      for (const std::string& w : workloads_) {
        auto row = value_[config].find(w);
        if (row == value_[config].end()) continue;
        out += "| " + w + " |";
        for (const std::string& col : columns) {
          auto v = row->second.find(col);
          if (v == row->second.end()) {
            out += " |";
            continue;
          }
          out += Printf(cell.c_str(), v->second);
          sum[col] += geometric ? std::log(v->second) : v->second;
          n[col]++;
        }
        out += "\n";
      }
      out += geometric ? "| **geomean** |" : "| **mean** |";
      for (const std::string& col : columns) {
        const double mean = n[col] ? sum[col] / n[col] : 0;
        out += n[col] ? Printf(total.c_str(), geometric ? std::exp(mean) : mean) : std::string(" |");
      }
      out += "\n";
    }
    return out;
  }

 private:
  std::vector<std::string> configs_, workloads_;
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> value_;
};

}  // namespace

double Normalized(const SimResult& r, const SimResult& fast_only) {
  return r.avg_latency_us > 0 ? fast_only.avg_latency_us / r.avg_latency_us : 1.0;
}

std::string FormatResult(const SimResult& r, const SimConfig& config) {
  std::string out;
  out += Printf("policy %s on %s, segment %s, %s replay\n", r.policy.c_str(),
                DescribeTiers(config).c_str(), FormatSize(config.segment_size).c_str(),
                config.replay == SimConfig::Replay::kOpen ? "open" : "closed");
  out += Printf("requests %llu (%llu pieces) in %.3f virtual s: %.0f req/s\n",
                (unsigned long long)r.requests, (unsigned long long)r.pieces, r.virtual_seconds,
                r.throughput);
  out += Printf("latency avg %.1f us, p99 %.1f us, p99.99 %.1f us\n", r.avg_latency_us, r.p99_us,
                r.p9999_us);
  out += Printf("written by users %s, by devices %s: write amplification %.3f\n",
                FormatSize(r.user_write_bytes).c_str(), FormatSize(r.device_write_bytes).c_str(),
                r.write_amplification);
  out += Printf("migrated %s in %llu moves (%llu skipped, %llu plans, %llu forced chunks), "
                "evicted %s on the critical path\n",
                FormatSize(r.migrated_bytes).c_str(), (unsigned long long)r.moves,
                (unsigned long long)r.moves_skipped, (unsigned long long)r.plans,
                (unsigned long long)r.forced_chunks, FormatSize(r.evicted_bytes).c_str());
  out += Printf("%-4s %-10s %10s %10s %10s %8s %10s %10s %10s %10s %10s\n", "tier", "device",
                "capacity", "peak used", "mean used", "hit", "user reads", "read", "written",
                "moved in", "moved out");
  for (size_t i = 0; i < r.tiers.size(); ++i) {
    const TierResult& t = r.tiers[i];
    out += Printf("%-4zu %-10s %10s %10s %10s %7.1f%% %9.1f%% %10s %10s %10s %10s\n", i,
                  t.device.c_str(), FormatSize(t.capacity).c_str(),
                  FormatSize(t.peak_used).c_str(), FormatSize(uint64_t(t.mean_used)).c_str(),
                  100 * t.hit_ratio, 100 * t.user_read_share, FormatSize(t.read_bytes).c_str(),
                  FormatSize(t.write_bytes).c_str(), FormatSize(t.migrated_in).c_str(),
                  FormatSize(t.migrated_out).c_str());
  }
  if (config.young_records > 0 && !r.tiers.empty()) {
    uint64_t young = 0;
    for (const TierResult& u : r.tiers) young += u.young_user_reads;
    out += Printf("user reads of young files (first written within %llu I/O records): %llu "
                  "pieces, %.1f%% of them served by tier 0\n",
                  (unsigned long long)config.young_records, (unsigned long long)young,
                  100 * r.tiers[0].young_read_share);
  }
  if (!r.tiers.empty() && (r.tiers[0].pages_copied > 0 || r.tiers[0].page_hits > 0)) {
    const TierResult& t = r.tiers[0];
    uint64_t user_reads = 0;
    for (const TierResult& u : r.tiers) user_reads += u.user_reads;
    out += Printf("hot-page copies on tier 0 (%s): %.1f%% of user reads served by them, %llu "
                  "pages copied, at most %s held\n",
                  CopyPolicyName(config.copies.policy),
                  user_reads ? 100.0 * double(t.page_hits) / double(user_reads) : 0.0,
                  (unsigned long long)t.pages_copied, FormatSize(t.peak_copy_bytes).c_str());
    const PageCopies::Counters& c = r.copies;
    out += Printf("  copy decisions: %llu misses offered, %llu admitted, %llu rejected by the "
                  "policy, %llu wanted but no room, %llu evicted, %llu invalidated\n",
                  (unsigned long long)c.misses, (unsigned long long)c.admitted,
                  (unsigned long long)c.rejected, (unsigned long long)c.no_room,
                  (unsigned long long)c.evicted, (unsigned long long)c.invalidated);
  }
  return out;
}

std::string ResultJson(const SimResult& r, const SimConfig& config,
                       const std::vector<CeilingResult>& ceilings) {
  nlohmann::json tiers = nlohmann::json::array();
  for (const TierResult& t : r.tiers) {
    tiers.push_back({{"device", t.device}, {"capacity", t.capacity}, {"peak_used", t.peak_used},
                     {"mean_used", t.mean_used}, {"user_reads", t.user_reads},
                     {"user_read_share", t.user_read_share},
                     {"user_read_bytes", t.user_read_bytes},
                     {"user_read_byte_share", t.user_read_byte_share},
                     {"young_user_reads", t.young_user_reads},
                     {"young_read_share", t.young_read_share},
                     {"hit_ratio", t.hit_ratio}, {"served", t.served},
                     {"read_bytes", t.read_bytes}, {"write_bytes", t.write_bytes},
                     {"migrated_in", t.migrated_in}, {"migrated_out", t.migrated_out},
                     {"page_hits", t.page_hits}, {"pages_copied", t.pages_copied},
                     {"peak_copy_bytes", t.peak_copy_bytes}});
  }
  nlohmann::json j = {{"policy", r.policy},
                      {"tiers_config", DescribeTiers(config)},
                      {"segment_size", config.segment_size},
                      {"requests", r.requests},
                      {"pieces", r.pieces},
                      {"avg_latency_us", r.avg_latency_us},
                      {"p99_us", r.p99_us},
                      {"p9999_us", r.p9999_us},
                      {"user_read_latency_us", r.user_read_latency_us},
                      {"user_read_p99_us", r.user_read_p99_us},
                      {"throughput", r.throughput},
                      {"virtual_seconds", r.virtual_seconds},
                      {"user_write_bytes", r.user_write_bytes},
                      {"device_write_bytes", r.device_write_bytes},
                      {"write_amplification", r.write_amplification},
                      {"migrated_bytes", r.migrated_bytes},
                      {"evicted_bytes", r.evicted_bytes},
                      {"moves", r.moves},
                      {"moves_skipped", r.moves_skipped},
                      {"plans", r.plans},
                      {"forced_chunks", r.forced_chunks},
                      {"copies_restored", r.copies_restored},
                      {"copies_refused", r.copies_refused},
                      {"stats_restored", r.stats_restored},
                      {"stats_refused", r.stats_refused},
                      {"tiers", tiers}};
  if (!ceilings.empty()) j["ceilings"] = CeilingsJsonValue(ceilings);
  return j.dump(2);
}

std::string FormatCeilings(const std::vector<CeilingResult>& ceilings, uint64_t segment_size) {
  if (ceilings.empty()) return "";
  const CeilingResult& any = ceilings.front();
  std::string out = Printf("ceilings: %llu user reads, %llu pieces of %s segments, %s\n",
                           (unsigned long long)any.reads, (unsigned long long)any.pieces,
                           FormatSize(segment_size).c_str(), FormatSize(any.bytes).c_str());
  out += Printf("%-26s %10s %10s %10s %8s %8s %8s %8s\n", "ceiling", "capacity", "pages", "held",
                "share", "strict", "bytes", "reads");
  for (const CeilingResult& c : ceilings) {
    out += Printf("%-26s %10s %10llu %10llu %7.1f%% %7.1f%% %7.1f%% %7.1f%%\n", c.name.c_str(),
                  FormatSize(c.spec.capacity).c_str(), (unsigned long long)c.pages,
                  (unsigned long long)c.held, 100 * c.share, 100 * c.strict_share,
                  100 * c.byte_share, 100 * c.request_share);
  }
  return out;
}

std::string CeilingsJson(const std::vector<CeilingResult>& ceilings) {
  return CeilingsJsonValue(ceilings).dump(2);
}

std::string ComparisonMarkdown(const std::vector<Cell>& cells,
                               const std::vector<std::string>& policies) {
  Grid grid;
  for (const Cell& c : cells) {
    const SimResult* ref = FastOnly(cells, c);
    if (ref) grid.Set(c.config, c.workload, c.result.policy, Normalized(c.result, *ref));
  }
  return grid.Markdown(policies, "%.4g", /*geometric=*/true);
}

std::string ComparisonCsv(const std::vector<Cell>& cells) {
  std::string out =
      "config,workload,policy,normalized,avg_latency_us,p99_us,p9999_us,throughput,"
      "virtual_seconds,write_amplification,migrated_bytes,evicted_bytes,moves,tier0_hit_ratio,"
      "requests,tier0_user_read_share\n";
  for (const Cell& c : cells) {
    const SimResult& r = c.result;
    const SimResult* ref = FastOnly(cells, c);
    out += Printf("%s,%s,%s,%.6f,%.3f,%.3f,%.3f,%.1f,%.6f,%.4f,%llu,%llu,%llu,%.4f,%llu,%.4f\n",
                  c.config.c_str(), c.workload.c_str(), r.policy.c_str(),
                  ref ? Normalized(r, *ref) : 0.0, r.avg_latency_us, r.p99_us, r.p9999_us,
                  r.throughput, r.virtual_seconds, r.write_amplification,
                  (unsigned long long)r.migrated_bytes, (unsigned long long)r.evicted_bytes,
                  (unsigned long long)r.moves, r.tiers.empty() ? 0.0 : r.tiers[0].hit_ratio,
                  (unsigned long long)r.requests,
                  r.tiers.empty() ? 0.0 : r.tiers[0].user_read_share);
  }
  return out;
}

std::string UserReadShareMarkdown(const std::vector<Cell>& cells,
                                  const std::vector<std::string>& policies,
                                  const std::vector<CeilingCell>& ceilings) {
  std::vector<std::string> columns;
  for (const std::string& p : policies) {
    if (p != "fast-only") columns.push_back(p);
  }
  Grid grid;
  for (const Cell& c : cells) {
    if (!c.result.tiers.empty()) {
      grid.Set(c.config, c.workload, c.result.policy, 100 * c.result.tiers[0].user_read_share);
    }
  }
  for (const CeilingCell& c : ceilings) {
    Remember(&columns, c.result.name);
    grid.Set(c.config, c.workload, c.result.name, 100 * c.result.share);
  }
  return grid.Markdown(columns, "%.1f", /*geometric=*/false);
}

std::string CeilingsCsv(const std::vector<CeilingCell>& ceilings) {
  std::string out =
      "config,workload,ceiling,page_size,capacity,pages,held,reads,pieces,bytes,share,"
      "strict_share,byte_share,request_share\n";
  for (const CeilingCell& c : ceilings) {
    const CeilingResult& r = c.result;
    out += Printf("%s,%s,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%.6f,%.6f,%.6f\n",
                  c.config.c_str(), c.workload.c_str(), r.name.c_str(),
                  (unsigned long long)r.spec.page_size, (unsigned long long)r.spec.capacity,
                  (unsigned long long)r.pages, (unsigned long long)r.held,
                  (unsigned long long)r.reads, (unsigned long long)r.pieces,
                  (unsigned long long)r.bytes, r.share, r.strict_share, r.byte_share,
                  r.request_share);
  }
  return out;
}

}  // namespace sim
}  // namespace tierfs
