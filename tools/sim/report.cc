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
  if (!r.tiers.empty() && (r.tiers[0].pages_copied > 0 || r.tiers[0].page_hits > 0)) {
    const TierResult& t = r.tiers[0];
    uint64_t user_reads = 0;
    for (const TierResult& u : r.tiers) user_reads += u.user_reads;
    out += Printf("hot-page copies on tier 0: %.1f%% of user reads served by them, %llu pages "
                  "copied, at most %s held\n",
                  user_reads ? 100.0 * double(t.page_hits) / double(user_reads) : 0.0,
                  (unsigned long long)t.pages_copied, FormatSize(t.peak_copy_bytes).c_str());
  }
  return out;
}

std::string ResultJson(const SimResult& r, const SimConfig& config) {
  nlohmann::json tiers = nlohmann::json::array();
  for (const TierResult& t : r.tiers) {
    tiers.push_back({{"device", t.device}, {"capacity", t.capacity}, {"peak_used", t.peak_used},
                     {"mean_used", t.mean_used}, {"user_reads", t.user_reads},
                     {"user_read_share", t.user_read_share},
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
                      {"tiers", tiers}};
  return j.dump(2);
}

std::string ComparisonMarkdown(const std::vector<Cell>& cells,
                               const std::vector<std::string>& policies) {
  // config -> workload -> policy -> normalized; kept in first-seen order.
  std::vector<std::string> configs, workloads;
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> value;
  for (const Cell& c : cells) {
    const SimResult* ref = FastOnly(cells, c);
    if (!ref) continue;
    if (std::find(configs.begin(), configs.end(), c.config) == configs.end()) {
      configs.push_back(c.config);
    }
    if (std::find(workloads.begin(), workloads.end(), c.workload) == workloads.end()) {
      workloads.push_back(c.workload);
    }
    value[c.config][c.workload][c.result.policy] = Normalized(c.result, *ref);
  }
  std::string out;
  for (const std::string& config : configs) {
    out += "\n### " + config + "\n\n| workload |";
    for (const std::string& p : policies) out += " " + p + " |";
    out += "\n|:---|";
    for (size_t i = 0; i < policies.size(); ++i) out += "---:|";
    out += "\n";
    std::map<std::string, double> log_sum;
    std::map<std::string, int> n;
    for (const std::string& w : workloads) {
      auto row = value[config].find(w);
      if (row == value[config].end()) continue;
      out += "| " + w + " |";
      for (const std::string& p : policies) {
        auto v = row->second.find(p);
        if (v == row->second.end()) {
          out += " |";
          continue;
        }
        out += Printf(" %.4g |", v->second);
        log_sum[p] += std::log(v->second);
        n[p]++;
      }
      out += "\n";
    }
    out += "| **geomean** |";
    for (const std::string& p : policies) {
      out += n[p] ? Printf(" **%.4g** |", std::exp(log_sum[p] / n[p])) : std::string(" |");
    }
    out += "\n";
  }
  return out;
}

std::string ComparisonCsv(const std::vector<Cell>& cells) {
  std::string out =
      "config,workload,policy,normalized,avg_latency_us,p99_us,p9999_us,throughput,"
      "virtual_seconds,write_amplification,migrated_bytes,evicted_bytes,moves,tier0_hit_ratio,"
      "requests\n";
  for (const Cell& c : cells) {
    const SimResult& r = c.result;
    const SimResult* ref = FastOnly(cells, c);
    out += Printf("%s,%s,%s,%.6f,%.3f,%.3f,%.3f,%.1f,%.6f,%.4f,%llu,%llu,%llu,%.4f,%llu\n",
                  c.config.c_str(), c.workload.c_str(), r.policy.c_str(),
                  ref ? Normalized(r, *ref) : 0.0, r.avg_latency_us, r.p99_us, r.p9999_us,
                  r.throughput, r.virtual_seconds, r.write_amplification,
                  (unsigned long long)r.migrated_bytes, (unsigned long long)r.evicted_bytes,
                  (unsigned long long)r.moves, r.tiers.empty() ? 0.0 : r.tiers[0].hit_ratio,
                  (unsigned long long)r.requests);
  }
  return out;
}

}  // namespace sim
}  // namespace tierfs
