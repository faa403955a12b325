// The LAPACK call tables, resolved from the BLAS library's handle. See lapack.h.
#include "numfuse/backend/cpu/lapack.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <string>

#include "numfuse/backend/cpu/blas.h"
#include "numfuse/backend/cpu/blas_routines.h"
#include "numfuse/core/error.h"

namespace nf::cpu {

namespace {

struct Tables {
  const BlasRoutines* from = nullptr;  // the library they were resolved from
  LapackTable t[4];  // s, d, c, z
  std::string error;  // why there are none
};

Tables* resolve_all(const BlasRoutines* r) {
  auto* out = new Tables;  // leaked on purpose, as blas.cpp's Library: usable at exit
  out->from = r;
  if (!r || !r->handle) {
    out->error = "numfuse.linalg needs LAPACK, and " + blas_description();
    return out;
  }
  if (!r->ilp64) {
    out->error = "numfuse.linalg needs an ILP64 LAPACK (NumPy's own OpenBLAS is one); in use: " +
                 blas_description();
    return out;
  }
  auto sym = [&](char p, const char* name) {
    return dlsym(r->handle, (r->lapack_prefix + p + name + r->lapack_suffix).c_str());
  };
  const char prefixes[4] = {'s', 'd', 'c', 'z'};
  for (int i = 0; i < 4; ++i) {
    const char p = prefixes[i];
    const bool cplx = i >= 2;
    LapackTable& t = out->t[i];
    t.getrf = sym(p, "getrf");
    t.getri = sym(p, "getri");
    t.getrs = sym(p, "getrs");
    t.gesv = sym(p, "gesv");
    t.potrf = sym(p, "potrf");
    t.geqrf = sym(p, "geqrf");
    t.orgqr = sym(p, cplx ? "ungqr" : "orgqr");
    t.syevd = sym(p, cplx ? "heevd" : "syevd");
    t.gesdd = sym(p, "gesdd");
    t.geev = sym(p, "geev");
    t.gelsd = sym(p, "gelsd");
    void* all[] = {t.getrf, t.getri, t.getrs, t.gesv,  t.potrf, t.geqrf,
                   t.orgqr, t.syevd, t.gesdd, t.geev, t.gelsd};
    for (void* f : all) {
      if (!f) {
        out->error = "numfuse.linalg: the BLAS library in use has no LAPACK (" +
                     r->lapack_prefix + p + "getrf" + r->lapack_suffix + " and others): " +
                     blas_description();
        return out;
      }
    }
  }
  return out;
}

// The tables of the BLAS library in use, resolved again when blas_set_library_path changed it
// (blas.cpp publishes a new, never freed, routines object then).
const Tables* current_tables() {
  static std::mutex mu;
  static std::atomic<const Tables*> cached{nullptr};
  const BlasRoutines* r = blas_routines();
  const Tables* t = cached.load(std::memory_order_acquire);
  if (t && t->from == r) return t;
  std::lock_guard<std::mutex> lock(mu);
  t = cached.load(std::memory_order_acquire);
  if (t && t->from == r) return t;
  t = resolve_all(r);
  cached.store(t, std::memory_order_release);
  return t;
}

}  // namespace

const LapackTable& lapack_table(DType dt) {
  const Tables* tables = current_tables();
  if (!tables->error.empty()) throw Error(tables->error);
  switch (dt) {
    case DType::Float32: return tables->t[0];
    case DType::Float64: return tables->t[1];
    case DType::Complex64: return tables->t[2];
    case DType::Complex128: return tables->t[3];
    default: throw TypeError(std::string("array type ") + dtype_name(dt) + " is unsupported in linalg");
  }
}

}  // namespace nf::cpu
