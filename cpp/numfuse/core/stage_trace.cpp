// core/stage_trace.h: per-thread marks of the open call, medians printed at exit.
#include "numfuse/core/stage_trace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace nf {

namespace {

bool read_switch() {
  const char* e = std::getenv("NUMFUSE_TRACE_SMALL_LINALG");
  return e && *e == '1';
}

using Clock = std::chrono::steady_clock;

struct OpenCall {
  bool open = false;
  std::vector<std::pair<const char*, Clock::time_point>> marks;
};
thread_local OpenCall t_call;

constexpr int kWarmupCalls = 10;

// Every closed call's stage sequence (labels joined) -> per stage, the deltas in microseconds.
struct Summary {
  std::mutex mutex;
  std::map<std::string, std::pair<int, std::vector<std::vector<double>>>> paths;
  ~Summary() {
    for (auto& [path, entry] : paths) {
      auto& [calls, deltas] = entry;
      if (deltas.empty() || deltas[0].empty()) continue;
      std::fprintf(stderr, "[numfuse] trace small linalg: %zu calls (after %d warm-up), medians us:",
                   deltas[0].size(), kWarmupCalls);
      size_t start = 0;
      for (size_t i = 0; i < deltas.size(); ++i) {
        std::vector<double>& d = deltas[i];
        std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
        const size_t end = path.find('|', start);
        std::fprintf(stderr, "%s %s %.2f", i ? " |" : "",
                     path.substr(start, end - start).c_str(), d[d.size() / 2]);
        start = end + 1;
      }
      std::fprintf(stderr, "\n");
    }
  }
};
Summary& summary() {
  static Summary s;  // printed by its destructor, at exit
  return s;
}

}  // namespace

const bool g_stage_trace_on = read_switch();

void stage_trace_begin_slow(const char* label) {
  t_call.open = true;
  t_call.marks.clear();
  t_call.marks.emplace_back(label, Clock::now());
}

void stage_mark_slow(const char* label) {
  if (t_call.open) t_call.marks.emplace_back(label, Clock::now());
}

void stage_trace_end_slow(const char* label) {
  if (!t_call.open) return;
  t_call.marks.emplace_back(label, Clock::now());
  t_call.open = false;
  const auto& m = t_call.marks;
  std::string path;
  for (size_t i = 1; i < m.size(); ++i) path += std::string(i > 1 ? "|" : "") + m[i].first;
  path += "|total";
  Summary& s = summary();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto& [calls, deltas] = s.paths[path];
  if (++calls <= kWarmupCalls) return;
  deltas.resize(m.size());
  auto us = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
  };
  for (size_t i = 1; i < m.size(); ++i) deltas[i - 1].push_back(us(m[i - 1].second, m[i].second));
  deltas.back().push_back(us(m.front().second, m.back().second));
}

}  // namespace nf
