#include "numfuse/core/allocation_limit.h"

#include <sys/resource.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "numfuse/backend/backend.h"
#include "numfuse/core/error.h"

namespace nf {

namespace {

// A number from the first line of a file (cgroup limits); 0 when absent or "max".
uint64_t read_limit(const char* path) {
  std::ifstream f(path);
  std::string s;
  if (!(f >> s) || s.empty() || s == "max" ||
      s.find_first_not_of("0123456789") != std::string::npos) {
    return 0;
  }
  return std::stoull(s);
}

// "CommitLimit:    12342040 kB" from /proc/meminfo, in bytes; 0 when absent.
uint64_t commit_limit() {
  std::ifstream f("/proc/meminfo");
  std::string key, unit;
  uint64_t v = 0;
  while (f >> key >> v >> unit) {
    if (key == "CommitLimit:") return v * 1024;
  }
  return 0;
}

// RAM + swap, the strict commit limit and the cgroup's limits: none of them changes while a
// process runs (or rarely enough), so they are read once.
uint64_t host_capacity() {
  static const uint64_t cap = [] {
    struct sysinfo si {};
    uint64_t ram = 0, swap = 0;
    if (sysinfo(&si) == 0) {
      ram = uint64_t(si.totalram) * si.mem_unit;
      swap = uint64_t(si.totalswap) * si.mem_unit;
    }
    uint64_t c = ram + swap;
    if (c == 0) c = UINT64_MAX;  // unknown: leave it to the allocator
    if (read_limit("/proc/sys/vm/overcommit_memory") == 2) {
      if (uint64_t limit = commit_limit()) c = std::min(c, limit);
    }
    // cgroup v2, then v1 (whose "no limit" is a huge number, harmless under min).
    if (uint64_t mem = read_limit("/sys/fs/cgroup/memory.max")) {
      const uint64_t cg_swap = read_limit("/sys/fs/cgroup/memory.swap.max");
      c = std::min(c, mem + (cg_swap ? std::min(cg_swap, swap) : swap));
    } else if (uint64_t mem1 = read_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes")) {
      c = std::min(c, mem1 + swap);
    }
    return c;
  }();
  uint64_t c = cap;
  // The address-space limit can be changed at run time (resource.setrlimit): read it each time.
  struct rlimit rl {};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    c = std::min<uint64_t>(c, rl.rlim_cur);
  return c;
}

std::string python_shape_repr(const Shape& shape) {
  // Python's tuple repr, as NumPy's message prints it: (2, 3), (5,), ().
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

uint64_t allocation_capacity(Device device) {
  if (device.is_cpu()) return host_capacity();
  return backend_for(device).allocation_capacity(device.index);
}

std::string numpy_size_string(uint64_t nbytes) {
  // numpy/_core/_exceptions.py, _ArrayMemoryError._size_to_string, step by step.
  static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  const int bit_length = nbytes ? 64 - __builtin_clzll(nbytes) : 0;
  int unit_i = std::max(bit_length - 1, 1) / 10;
  double n_units = double(nbytes) / std::ldexp(1.0, 10 * unit_i);
  if (std::nearbyint(n_units) == 1024) {  // a unit that is right after rounding
    unit_i += 1;
    n_units /= 1024;
  }
  if (unit_i >= 7) {  // past EiB: more EiB
    n_units *= std::ldexp(1.0, 10 * (unit_i - 6));
    unit_i = 6;
  }
  char buf[64];
  if (unit_i == 0) {
    std::snprintf(buf, sizeof(buf), "%.0f %s", n_units, units[0]);
  } else if (std::nearbyint(n_units) < 1000) {
    std::snprintf(buf, sizeof(buf), "%#.3g %s", n_units, units[unit_i]);
  } else {
    std::snprintf(buf, sizeof(buf), "%#.0f %s", n_units, units[unit_i]);
  }
  return buf;
}

std::string allocation_error_message(uint64_t nbytes, const Shape& shape, DType dtype) {
  return "Unable to allocate " + numpy_size_string(nbytes) + " for an array with shape " +
         python_shape_repr(shape) + " and data type " + dtype_name(dtype);
}

void check_allocatable(uint64_t nbytes, const Shape& shape, DType dtype, Device device) {
  // Small requests always pass: no system query on the path of ordinary arrays.
  if (nbytes < (uint64_t(1) << 28)) return;
  if (nbytes <= allocation_capacity(device)) return;
  if (device.is_cpu()) throw MemoryError(allocation_error_message(nbytes, shape, dtype));
  throw CUDAOutOfMemoryError(allocation_error_message(nbytes, shape, dtype) + " on " +
                             device.str());
}

}  // namespace nf
