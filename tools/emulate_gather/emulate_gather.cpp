// Host emulation of the generated advanced-indexing kernels (backend/cuda/codegen_gather.h): each
// generated body is compiled with g++ against shim.h (CUDA built-ins as host code), loaded, and
// run thread by thread with a small grid (so the grid-stride loops wrap), then compared bit for
// bit with the CPU kernels: gather, scatter (repeated indices: the last wins) and nonzero's fill,
// over random keys (arrays, ints, slices, newaxis, broadcasting, negative indices, transposed
// arrays) and dtypes. Checks the index maths without a GPU. From the repository root:
//   g++ -std=c++17 -O1 -Icpp tools/emulate_gather/emulate_gather.cpp build/dev/libnumfuse_core.a \
//       -lpthread -ldl -o build/emulate_gather && build/emulate_gather
// (kernels are compiled into $TMPDIR or /tmp).
#include <dlfcn.h>
#include <unistd.h>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <cstring>
#include "numfuse/backend/cpu/gather_cpu.h"
#include "numfuse/backend/cuda/codegen_gather.h"
#include "numfuse/ops/advanced_indexing.h"
#include "numfuse/ops/views.h"
#include "numfuse/graph/eval.h"
#include "numfuse/core/error.h"
using namespace nf;

// shim.h beside this source file.
std::string shim_path() {
  std::string here = __FILE__;
  std::string dir = here.substr(0, here.find_last_of('/') + 1);
  char resolved[4096];
  return realpath((dir + "shim.h").c_str(), resolved) ? resolved : dir + "shim.h";
}

typedef void (*runner)(const void*, unsigned, unsigned);
std::map<std::string, void*> libs;
runner load(const std::string& body, const std::string& kernel, const char* ptype) {
  std::string key = body + kernel;
  void*& h = libs[key];
  if (!h) {
    static int counter = 0;
    const char* tmp = getenv("TMPDIR");
    std::string base = std::string(tmp ? tmp : "/tmp") + "/nf_emulate_gather_" + std::to_string(getpid()) + "_" +
                       std::to_string(counter++);
    std::ofstream f(base + ".cpp");
    f << "#include \"" << shim_path() << "\"\n" << body << "\n";
    f << "extern \"C\" void run_" << kernel << "(const void* params, unsigned grid, unsigned block) {\n"
      << "  gridDim.x = grid; blockDim.x = block;\n"
      << "  for (unsigned b = 0; b < grid; ++b) for (unsigned t = 0; t < block; ++t) {\n"
      << "    blockIdx.x = b; threadIdx.x = t; " << kernel << "(*static_cast<const " << ptype << "*>(params)); }\n}\n";
    f.close();
    std::string cmd = "g++ -std=c++17 -O1 -w -shared -fPIC -o " + base + ".so " + base + ".cpp";
    if (system(cmd.c_str()) != 0) { fprintf(stderr, "compile failed %s\n", base.c_str()); exit(1); }
    h = dlopen((base + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); exit(1); }
    unlink((base + ".cpp").c_str());  // the loaded library stays mapped
    unlink((base + ".so").c_str());
  }
  return reinterpret_cast<runner>(dlsym(h, ("run_" + kernel).c_str()));
}

std::mt19937_64 rng(12345);
int64_t rnd(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

Array random_index(const Shape& shape, int64_t size) {
  Array a = Array::empty(shape, DType::Int64, Device::cpu());
  for (int64_t i = 0; i < a.size(); ++i) a.data_as<int64_t>()[i] = size ? rnd(-size, size - 1) : 0;
  return a;
}

int cases = 0, failures = 0, direct_cases = 0, hash_cases = 0;

void run_case(int trial) {
  const DType dtypes[] = {DType::Bool, DType::Int8, DType::Int16, DType::Float32, DType::Float64, DType::Complex128};
  DType dt = dtypes[rnd(0, 5)];
  int nd = (int)rnd(1, 4);
  Shape shape;
  for (int d = 0; d < nd; ++d) shape.push_back(rnd(1, 5));
  Array base = Array::empty(shape, dt, Device::cpu());
  for (size_t i = 0; i < base.nbytes(); ++i) base.data()[i] = (char)rnd(0, 255);
  Array a = base;
  if (rnd(0, 2) == 0) a = transpose(base);
  // A key: per dim, an array, an int, a slice, or nothing; sometimes a newaxis.
  std::vector<KeyItem> key;
  Shape bs;  // a broadcast shape for this key's arrays
  int brank = (int)rnd(0, 2);
  for (int d = 0; d < brank; ++d) bs.push_back(rnd(1, 4));
  bool any_array = false;
  for (int d = 0; d < a.ndim(); ++d) {
    int kind = (int)rnd(0, 4);
    if (kind <= 1 || (d == a.ndim() - 1 && !any_array)) {
      Shape s = bs;
      // drop some leading dims / set some to 1 to broadcast
      while (!s.empty() && rnd(0, 2) == 0) s.erase(s.begin());
      for (auto& x : s) if (rnd(0, 3) == 0) x = 1;
      key.push_back(KeyItem::of(random_index(s, a.shape[d])));
      any_array = true;
    } else if (kind == 2) {
      key.push_back(KeyItem::of(IndexItem::integer(rnd(-a.shape[d], a.shape[d] - 1))));
    } else if (kind == 3) {
      bool neg = rnd(0, 1);
      key.push_back(KeyItem::of(neg ? IndexItem::slice(false, 0, false, 0, -1) : IndexItem::slice(true, 1, false, 0, 1)));
    } else {
      key.push_back(KeyItem::of(IndexItem::new_axis()));
      --d;
      if (rnd(0, 1)) continue;
    }
  }
  IndexPlan plan;
  try {
    plan = plan_index(a, key);
  } catch (const std::exception& e) {
    return;  // shape mismatch etc.
  }
  ++cases;
  eval(plan.indices, FlushReason::DataDependent);
  cpu::GatherGeometry g = gather_geometry(plan.view, plan.adv_dims, plan.adv_axes, plan.indices, plan.bshape, plan.adjacent);
  const size_t isz = itemsize(dt);
  // gather
  Array want = Array::empty(plan.result_shape, dt, Device::cpu());
  Array got = Array::empty(plan.result_shape, dt, Device::cpu());
  cpu::gather(plan.view, g, want);
  memset(got.data(), 0x5A, got.nbytes());
  cuda::GatherKernel k = cuda::generate_gather(g, isz, plan.view.data(), got.data());
  unsigned grid = (unsigned)rnd(1, 3), block = (unsigned)rnd(1, 5);
  if (k.n) load(k.body, "nf_gather", "nf_gparams")(k.params.data(), grid, block);
  if (memcmp(want.data(), got.data(), want.nbytes()) != 0) {
    ++failures;
    fprintf(stderr, "gather mismatch trial %d result %s\n", trial, shape_str(plan.result_shape).c_str());
  }
  // scatter: values random, repeated indices are likely
  Array vals = Array::empty(plan.result_shape, dt, Device::cpu());
  for (size_t i = 0; i < vals.nbytes(); ++i) vals.data()[i] = (char)rnd(0, 255);
  Array b1 = Array::empty(base.shape, dt, Device::cpu()), b2 = Array::empty(base.shape, dt, Device::cpu());
  memcpy(b1.data(), base.data(), base.nbytes());
  memcpy(b2.data(), base.data(), base.nbytes());
  Array v1 = b1.view(plan.view.shape, plan.view.strides, plan.view.byte_offset);
  Array v2 = b2.view(plan.view.shape, plan.view.strides, plan.view.byte_offset);
  if (vals.size()) {
    cpu::scatter(vals, g, v1);
    cuda::GatherKernel s = cuda::generate_scatter(g, isz, v2.data(), vals.data(), nullptr);
    std::vector<int64_t> table(s.table_bytes / 8, -1);
    cuda::set_scatter_table(s, table.data());
    ++(s.direct ? direct_cases : hash_cases);
    load(s.body, "nf_scatter_claim", "nf_gparams")(s.params.data(), grid, block);
    load(s.body, "nf_scatter_write", "nf_gparams")(s.params.data(), grid, block);
    if (memcmp(b1.data(), b2.data(), b1.nbytes()) != 0) {
      ++failures;
      fprintf(stderr, "scatter mismatch trial %d result %s\n", trial, shape_str(plan.result_shape).c_str());
    }
  }
}

void nonzero_case(int trial) {
  int nd = (int)rnd(1, 4);
  Shape shape;
  for (int d = 0; d < nd; ++d) shape.push_back(rnd(1, 5));
  Array m = Array::empty(shape, DType::Bool, Device::cpu());
  for (int64_t i = 0; i < m.size(); ++i) m.data_as<bool>()[i] = rnd(0, 2) == 0;
  std::vector<Array> want = nonzero(m);
  std::vector<int64_t> pos(m.size());
  int64_t c = 0;
  for (int64_t i = 0; i < m.size(); ++i) pos[i] = (c += m.data_as<bool>()[i]);
  std::vector<std::vector<int64_t>> out(nd, std::vector<int64_t>(c + 1, -7));
  std::vector<int64_t*> ptrs;
  for (auto& o : out) ptrs.push_back(o.data());
  cuda::GatherKernel k = cuda::generate_nonzero_fill(shape, pos.data(), ptrs);
  load(k.body, "nf_nonzero_fill", "nf_nzparams")(k.params.data(), (unsigned)rnd(1, 3), (unsigned)rnd(1, 5));
  for (int d = 0; d < nd; ++d) {
    if (want[d].size() != c || memcmp(want[d].data(), out[d].data(), c * 8) != 0 || out[d][c] != -7) {
      ++failures;
      fprintf(stderr, "nonzero mismatch trial %d dim %d\n", trial, d);
    }
  }
}

int main() {
  for (int t = 0; t < 400; ++t) run_case(t);
  for (int t = 0; t < 100; ++t) nonzero_case(t);
  printf("cases %d (scatters: %d direct, %d hashed), kernels compiled %zu, failures %d\n", cases,
         direct_cases, hash_cases, libs.size(), failures);
  return failures != 0;
}
