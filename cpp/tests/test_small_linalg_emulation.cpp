// The small-matrix linalg kernels (kernels/small_linalg.cuh): compiled by NVRTC for every
// operation, dtype and padded size, and run on the CPU through tests/cuda_emulator.h against
// LAPACK (the CPU backend's LinalgNode, NumPy's own results) on random, ill-conditioned, singular
// and NaN-holding matrices in one stack. Emulation is opt-in: NUMFUSE_EMULATE_CUDA=<repository
// root>.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cuda_emulator.h"
#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/small_linalg_cuda.h"
#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/linalg_decomp.h"
#include "nvrtc_check.h"

using namespace nf;
using namespace nf::cuda;
using C = std::complex<double>;

namespace {

const std::vector<DType> kTypes = {DType::Float32, DType::Float64, DType::Complex64,
                                   DType::Complex128};
const std::vector<LinalgOp> kOps = {LinalgOp::Inv,     LinalgOp::Solve,    LinalgOp::Det,
                                    LinalgOp::Slogdet, LinalgOp::Cholesky, LinalgOp::Eigh,
                                    LinalgOp::Eigvalsh};

bool single(DType d) { return d == DType::Float32 || d == DType::Complex64; }
double eps(DType d) { return single(d) ? 5.96e-8 : 1.11e-16; }
DType real_of(DType d) { return single(d) ? DType::Float32 : DType::Float64; }

C get(const Array& a, int64_t i) {
  switch (a.dtype) {
    case DType::Float32:
      return a.data_as<float>()[i];
    case DType::Float64:
      return a.data_as<double>()[i];
    case DType::Complex64:
      return C(a.data_as<std::complex<float>>()[i]);
    default:
      return a.data_as<C>()[i];
  }
}
void set(const Array& a, int64_t i, C v) {
  switch (a.dtype) {
    case DType::Float32:
      a.data_as<float>()[i] = float(v.real());
      break;
    case DType::Float64:
      a.data_as<double>()[i] = v.real();
      break;
    case DType::Complex64:
      a.data_as<std::complex<float>>()[i] = std::complex<float>(v);
      break;
    default:
      a.data_as<C>()[i] = v;
      break;
  }
}

// What a matrix of the test stack is.
enum class Kind { Random, IllConditioned, Singular, NaN, NotPositive };

// A stack of n x n matrices of `kinds`; SPD ones (Hermitian positive definite) for Cholesky,
// Hermitian ones for eigh (junk in the triangle not read, to show it is ignored).
Array make_stack(DType dt, int n, const std::vector<Kind>& kinds, LinalgOp op, bool upper,
                 uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  const bool cplx = is_complex(dt);
  const int64_t batch = static_cast<int64_t>(kinds.size());
  Array a = Array::empty({batch, n, n}, dt, Device::cpu());
  for (int64_t m = 0; m < batch; ++m) {
    std::vector<C> x(n * n);
    for (C& v : x) v = C(g(rng), cplx ? g(rng) : 0.0);
    const Kind k = kinds[m];
    if (k == Kind::IllConditioned &&
        n > 1) {  // last row nearly the first: cond ~ 1e5 (1e3 in float32)
      const double d = single(dt) ? 1e-3 : 1e-6;
      for (int j = 0; j < n; ++j) x[(n - 1) * n + j] = x[j] + d * x[(n - 1) * n + j];
    }
    if (op == LinalgOp::Cholesky || op == LinalgOp::Eigh || op == LinalgOp::Eigvalsh) {
      std::vector<C> h(n * n);  // x x^H (+ n I for Cholesky's positive definite ones)
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          C s = 0;
          for (int l = 0; l < n; ++l) s += x[i * n + l] * std::conj(x[j * n + l]);
          h[i * n + j] = s;
        }
      }
      if (op == LinalgOp::Cholesky && k != Kind::IllConditioned) {
        for (int i = 0; i < n; ++i) h[i * n + i] += double(n);
      }
      if (k == Kind::NotPositive) h[(n - 1) * n + n - 1] = -1.0;
      if (op == LinalgOp::Cholesky &&
          k == Kind::IllConditioned) {  // a small ridge: cond ~ n^2 / ridge
        for (int i = 0; i < n; ++i) h[i * n + i] += single(dt) ? 1e-2 : 1e-6;
      }
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          const bool read = upper ? j >= i : j <= i;
          if (!read) h[i * n + j] = C(1e3 + i, 7.0 * cplx);  // junk: must be ignored
        }
      }
      x = h;
    }
    if (k == Kind::Singular) {
      if (op == LinalgOp::Cholesky || op == LinalgOp::Eigh || op == LinalgOp::Eigvalsh) {
        for (int j = 0; j < n; ++j) x[j] = x[j * n] = 0.0;  // a zero first row and column
      } else {  // a zero column: exactly singular in any rounding (a repeated row is not)
        for (int i = 0; i < n; ++i) x[i * n + n / 2] = 0.0;
      }
    }
    if (k == Kind::NaN) x[(n / 2) * n + n / 2] = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; i < n * n; ++i) set(a, m * n * n + i, x[i]);
  }
  return a;
}

// Matrix m of a C-order stack, as its own array (a view).
Array matrix(const Array& a, int64_t m) {
  Shape s(a.shape.begin() + 1, a.shape.end());
  Strides st(a.strides.begin() + 1, a.strides.end());
  return a.view(s, st, a.byte_offset + m * a.strides[0] * static_cast<int64_t>(a.itemsize()));
}

LinalgSpec spec_of(LinalgOp op, bool upper) {
  LinalgSpec s;
  s.op = op;
  s.upper = upper;
  return s;
}

// LAPACK's outputs for matrix m (empty when LAPACK reports the matrix singular / not positive).
std::vector<Array> reference(const LinalgSpec& spec, const Array& a, const Array& b, int64_t m) {
  std::vector<Array> in = {matrix(a, m)};
  if (spec.op == LinalgOp::Solve) in.push_back(matrix(b, m));
  try {
    std::vector<Array> out = linalg_decomp(spec, in);
    eval(out, FlushReason::Explicit);
    return out;
  } catch (const LinAlgError&) {
    return {};
  }
}

struct Result {
  std::vector<Array> outs;
  std::vector<int> info;
  int failed = -7;  // the failure word (host memory on the GPU too)
  int factored = -7, blocks = -7;  // early completion: the ticket word and the block counter
};

// The kernel for spec on the stack a (and b), run in emulation; computing in `compute` (a's
// dtype when Bool: the default) while the arrays stay a's dtype (LinalgSpec::widen).
// codes false: no info array (p.info null), the host's first run. constant_sizes: n (when it is
// the padded size) and solve's nrhs (when 1) compiled in, as the host does for the kernels that
// compile fast; false: the kernel taking every size from its parameters.
// early: the early-completion word and counter passed (ticket 7), as NUMFUSE_SMALL_LINALG_EARLY.
Result run_emulated(const LinalgSpec& spec, const Array& a, const Array& b,
                    DType compute = DType::Bool, bool codes = true, bool constant_sizes = true,
                    bool early = false) {
  const int64_t batch = a.shape[0];
  const int n = static_cast<int>(a.shape[1]);
  const DType dt = a.dtype;
  const DType ct = compute == DType::Bool ? dt : compute;
  Result r;
  r.info.assign(batch, -7);   // every code is written (but det's and slogdet's: none)
  r.failed = 0;               // zeroed before the launch, as the host does
  auto out = [&](Shape s, DType d) { r.outs.push_back(Array::empty(s, d, Device::cpu())); };
  switch (spec.op) {
    case LinalgOp::Inv:
    case LinalgOp::Cholesky:
      out({batch, n, n}, dt);
      break;
    case LinalgOp::Solve:
      out(b.shape, dt);
      break;
    case LinalgOp::Det:
      out({batch}, dt);
      break;
    case LinalgOp::Slogdet:
      out({batch}, dt), out({batch}, real_of(dt));
      break;
    case LinalgOp::Eigh:
      out({batch, n}, real_of(dt)), out({batch, n, n}, dt);
      break;
    default:
      out({batch, n}, real_of(dt));
      break;
  }
  SmallLinalgParams p{};
  p.a = a.data();
  p.b = b.storage ? b.data() : nullptr;
  p.out = r.outs[0].data();
  p.out2 = r.outs.size() > 1 ? r.outs[1].data() : nullptr;
  p.info = codes ? r.info.data() : nullptr;
  p.failed = &r.failed;
  if (early) {
    r.factored = 0;
    r.blocks = 0;
    p.factored = &r.factored;
    p.blocks = &r.blocks;
    p.ticket = 7;
  }
  p.batch = batch;
  p.n = n;
  p.nrhs = spec.op == LinalgOp::Solve ? static_cast<int>(b.shape[2]) : 0;
  p.flags = small_linalg_flags(spec);
  std::vector<uint8_t> bytes(sizeof p);
  std::memcpy(bytes.data(), &p, sizeof p);
  const int N = small_linalg_padded_size(n);  // every size runs here, above the routing bound too
  const std::string entry = small_linalg_entry(spec.op, ct, N);
  const unsigned per_block = small_linalg_matrices_per_block(spec.op, ct, N);
  const std::string body = constant_sizes ? small_linalg_body(spec.op, ct, N, dt, n, p.nrhs)
                                          : small_linalg_body(spec.op, ct, N, dt);
  test::emulate_launch(body, "nf_sm_params", {entry}, entry,
                       static_cast<unsigned>((batch + per_block - 1) / per_block),
                       small_linalg_threads(spec.op, ct, N), bytes);
  return r;
}

double max_abs(const Array& x) {
  double s = 0;
  for (int64_t i = 0; i < x.size(); ++i) s = std::max(s, std::abs(get(x, i)));
  return s;
}
bool has_nan(const Array& x) {
  for (int64_t i = 0; i < x.size(); ++i) {
    if (std::isnan(get(x, i).real()) || std::isnan(get(x, i).imag())) return true;
  }
  return false;
}

// Checks the kernel's results for one (op, dtype, n) against LAPACK, matrix by matrix.
void check_case(LinalgOp op, DType dt, int n, bool upper) {
  std::vector<Kind> kinds;  // 41 matrices: a full block of the kernel's 32 and a partial one
  for (int i = 0; i < 41; ++i) {
    const Kind pattern[] = {Kind::Random, Kind::IllConditioned, Kind::Singular, Kind::Random,
                            Kind::NaN,    Kind::Random};
    kinds.push_back(pattern[i % 6]);
  }
  if (op == LinalgOp::Cholesky) kinds[33] = Kind::NotPositive;
  const LinalgSpec spec = spec_of(op, upper);
  const Array a =
      make_stack(dt, n, kinds, op, upper,
                 1000u * n + static_cast<uint32_t>(op) * 17u + static_cast<uint32_t>(dt));
  const int64_t batch = a.shape[0];
  Array b;
  if (op == LinalgOp::Solve) {
    const int nrhs = 1 + n % 3;
    const int N = small_linalg_padded_size(n);
    if (small_linalg_group(op, dt, N) && nrhs > N) return;  // not routed (small_linalg_covers)
    b = Array::empty({batch, n, nrhs}, dt, Device::cpu());
    std::mt19937 rng(n);
    std::normal_distribution<double> g;
    for (int64_t i = 0; i < b.size(); ++i) set(b, i, C(g(rng), is_complex(dt) ? g(rng) : 0.0));
  }
  const Result r = run_emulated(spec, a, b);
  const double tol = 200.0 * n * eps(dt);
  int failures = 0;
  for (int64_t m = 0; m < batch; ++m) {
    SCOPED_TRACE(std::string(linalg_op_name(op)) + " " + dtype_name(dt) + " n=" +
                 std::to_string(n) + " matrix " + std::to_string(m) + (upper ? " upper" : ""));
    const std::vector<Array> ref = reference(spec, a, b, m);
    const bool fails = op == LinalgOp::Det || op == LinalgOp::Slogdet ? false : ref.empty();
    const bool can_fail = op == LinalgOp::Inv || op == LinalgOp::Solve || op == LinalgOp::Cholesky;
    if (can_fail) {
      ASSERT_EQ(r.info[m] != 0, fails) << "info " << r.info[m];
      failures += fails;
    } else if (op == LinalgOp::Det || op == LinalgOp::Slogdet) {
      ASSERT_EQ(r.info[m], -7) << "det never fails: no code written";
    } else {
      ASSERT_EQ(r.info[m], 0);
    }
    if (fails) continue;
    ASSERT_EQ(ref.size(), r.outs.size());
    for (size_t o = 0; o < ref.size(); ++o) {
      const Array got = matrix(r.outs[o], m);
      const Array want = ref[o];
      ASSERT_EQ(got.size(), want.size());
      if (kinds[m] == Kind::NaN) {  // NaN in: NaN out, as LAPACK's
        // LAPACK's syevd makes NaN, or finite values, depending on where the NaN sits; the
        // kernel's eigenvalues are always NaN.
        if (op == LinalgOp::Eigh || op == LinalgOp::Eigvalsh)
          EXPECT_TRUE(o > 0 || has_nan(got));
        else
          EXPECT_EQ(has_nan(got), has_nan(want)) << "output " << o;
        continue;
      }
      if (op == LinalgOp::Eigh && o == 1) continue;  // vectors: checked through residuals below
      // Singular and ill-conditioned matrices: inverse and solution are only as exact as the
      // condition number allows, so they are checked through residuals; the rest against LAPACK.
      const bool cond_bound =
          kinds[m] != Kind::Random && (op == LinalgOp::Inv || op == LinalgOp::Solve ||
                                       op == LinalgOp::Cholesky || op == LinalgOp::Det);
      if (cond_bound) continue;
      const double scale = std::max(1.0, max_abs(want));
      for (int64_t i = 0; i < got.size(); ++i) {
        const C g = get(got, i), w = get(want, i);
        if (std::isinf(w.real())) {
          EXPECT_EQ(g.real(), w.real()) << "output " << o << " element " << i;
          continue;
        }
        // LU's results carry the condition number (up to ~1e3 for these random matrices).
        const bool lu = op == LinalgOp::Inv || op == LinalgOp::Solve || op == LinalgOp::Det ||
                        op == LinalgOp::Slogdet;
        const double t = op == LinalgOp::Slogdet && kinds[m] != Kind::Random ? 1e-2
                         : lu                                                ? tol * 1e3
                                                                             : tol;
        EXPECT_LE(std::abs(g - w), t * scale)
            << "output " << o << " element " << i << ": " << g << " vs " << w;
      }
    }
    // Residuals: inv (A X = I), solve (A X = B), cholesky (L L^H = A), eigh (A v = w v, V^T V = I).
    const Array am = matrix(a, m);
    if (kinds[m] == Kind::NaN) continue;
    auto A = [&](int i, int j) {
      if (op == LinalgOp::Cholesky || op == LinalgOp::Eigh || op == LinalgOp::Eigvalsh) {
        const bool read = upper ? j >= i : j <= i;
        return read ? get(am, i * n + j) : std::conj(get(am, j * n + i));
      }
      return get(am, i * n + j);
    };
    const double anorm = std::max(1e-300, max_abs(am));
    if (op == LinalgOp::Inv || op == LinalgOp::Solve) {
      const Array x = matrix(r.outs[0], m);
      const int k = static_cast<int>(x.shape[1]);
      const double xnorm = max_abs(x);
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < k; ++j) {
          C s = 0;
          for (int l = 0; l < n; ++l) s += A(i, l) * get(x, l * k + j);
          const C want = op == LinalgOp::Inv ? C(i == j ? 1.0 : 0.0) : get(matrix(b, m), i * k + j);
          EXPECT_LE(std::abs(s - want), tol * n * anorm * xnorm) << "residual " << i << "," << j;
        }
      }
    }
    if (op == LinalgOp::Cholesky) {
      const Array l = matrix(r.outs[0], m);
      auto L = [&](int i, int j) {
        return upper ? std::conj(get(l, j * n + i)) : get(l, i * n + j);
      };
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          if (j > i) EXPECT_EQ(L(i, j), C(0.0)) << "the other triangle is zero";
          C s = 0;
          for (int q = 0; q < n; ++q) s += L(i, q) * std::conj(L(j, q));
          EXPECT_LE(std::abs(s - A(i, j)), tol * anorm) << "L L^H at " << i << "," << j;
        }
      }
    }
    if (op == LinalgOp::Eigh) {
      const Array w = matrix(r.outs[0], m), v = matrix(r.outs[1], m);
      for (int c = 0; c < n; ++c) {
        for (int i = 0; i < n; ++i) {
          C av = 0, vv = 0;
          for (int l = 0; l < n; ++l) av += A(i, l) * get(v, l * n + c);
          EXPECT_LE(std::abs(av - get(w, c) * get(v, i * n + c)), tol * anorm)
              << "A v = w v, vector " << c;
          for (int l = 0; l < n; ++l) vv += std::conj(get(v, l * n + i)) * get(v, l * n + c);
          EXPECT_LE(std::abs(vv - C(i == c ? 1.0 : 0.0)), tol) << "V^H V = I at " << i << "," << c;
        }
      }
    }
  }
  // The failure word: what the host reads first (it reads the codes only when it is set).
  EXPECT_EQ(r.failed, failures > 0 ? 1 : 0) << failures << " failed matrices";
}

// Whether the CPU backend has LAPACK (NUMFUSE_BLAS_LIBRARY naming NumPy's OpenBLAS, say).
bool lapack_available() {
  try {
    Array one = Array::empty({1, 1}, DType::Float64, Device::cpu());
    one.data_as<double>()[0] = 2.0;
    eval(linalg_decomp(spec_of(LinalgOp::Inv, false), {one}), FlushReason::Explicit);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

#define NF_SKIP_UNLESS_EMULATED_WITH_LAPACK()                     \
  if (test::emulation_root().empty())                             \
    GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>"; \
  if (!lapack_available()) GTEST_SKIP() << "no LAPACK for the reference: set NUMFUSE_BLAS_LIBRARY"

}  // namespace

TEST(SmallLinalg, SizesAndRouting) {
  EXPECT_EQ(small_linalg_padded_size(1), 2);
  EXPECT_EQ(small_linalg_padded_size(5), 8);
  EXPECT_EQ(small_linalg_padded_size(16), 16);
  if (std::getenv("NUMFUSE_SMALL_LINALG_MAX_N")) GTEST_SKIP() << "bounds overridden";
  EXPECT_EQ(small_linalg_size(LinalgOp::Inv, DType::Float64, 1), 2);
  EXPECT_EQ(small_linalg_size(LinalgOp::Inv, DType::Float64, 8), 8);
  EXPECT_EQ(small_linalg_size(LinalgOp::Inv, DType::Float64, 9), 16);    // the group kernel
  EXPECT_EQ(small_linalg_size(LinalgOp::Solve, DType::Float64, 9), 16);  // the group kernel
  EXPECT_EQ(small_linalg_size(LinalgOp::Eigh, DType::Float64, 9), 0);    // spills: cuSOLVER
  if (std::getenv("NUMFUSE_SMALL_LINALG_GROUP")) GTEST_SKIP() << "group choice overridden";
  EXPECT_TRUE(small_linalg_group(LinalgOp::Inv, DType::Float32, 16));
  EXPECT_TRUE(small_linalg_group(LinalgOp::Inv, DType::Complex128, 8));
  EXPECT_FALSE(small_linalg_group(LinalgOp::Inv, DType::Float64, 8));
  EXPECT_TRUE(small_linalg_group(LinalgOp::Solve, DType::Float32, 16));
  EXPECT_TRUE(small_linalg_group(LinalgOp::Slogdet, DType::Float64, 16));
  EXPECT_FALSE(small_linalg_group(LinalgOp::Solve, DType::Float64, 8));
  EXPECT_FALSE(small_linalg_group(LinalgOp::Cholesky, DType::Float64, 16));
  {  // the group solve takes at most N right-hand sides
    LinalgNode node;
    node.spec.op = LinalgOp::Solve;
    node.inputs.push_back(Array::empty({2, 12, 12}, DType::Float64, Device::cpu()));
    node.inputs.push_back(Array::empty({2, 12, 16}, DType::Float64, Device::cpu()));
    EXPECT_TRUE(small_linalg_covers(node, 12));
    node.inputs[1] = Array::empty({2, 12, 17}, DType::Float64, Device::cpu());
    EXPECT_FALSE(small_linalg_covers(node, 12));
    node.inputs[1] = Array::empty({2, 5, 17}, DType::Float64, Device::cpu());
    node.inputs[0] = Array::empty({2, 5, 5}, DType::Float64, Device::cpu());
    EXPECT_TRUE(small_linalg_covers(node, 5));  // one thread a matrix: any nrhs
  }
  for (DType dt : kTypes) {  // whole groups a block, and the tile fits
    EXPECT_EQ(small_linalg_threads(LinalgOp::Inv, dt, 16) % 16, 0u);
    EXPECT_GE(small_linalg_matrices_per_block(LinalgOp::Inv, dt, 16), 4u);
  }
  EXPECT_EQ(small_linalg_size(LinalgOp::Solve, DType::Float32, 9), 16);
  EXPECT_EQ(small_linalg_size(LinalgOp::Cholesky, DType::Float64, 16), 16);
  EXPECT_EQ(small_linalg_size(LinalgOp::Inv, DType::Float32, 17), 0);
  EXPECT_EQ(small_linalg_size(LinalgOp::Inv, DType::Float64, 0), 0);
  EXPECT_EQ(small_linalg_size(LinalgOp::Eigh, DType::Float64, 8), 8);
  EXPECT_EQ(small_linalg_size(LinalgOp::Eigh, DType::Complex128, 4), 4);
  EXPECT_EQ(small_linalg_size(LinalgOp::Eigh, DType::Complex128, 5), 0);  // spills: cuSOLVER
  EXPECT_EQ(small_linalg_size(LinalgOp::Svd, DType::Float64, 4), 0);
  EXPECT_EQ(sizeof(SmallLinalgParams), 104u);  // 8 pointers, batch, 8 ints
}

TEST(SmallLinalg, KernelsCompileUnderNvrtc) {
  for (LinalgOp op : kOps) {
    if (op == LinalgOp::Slogdet || op == LinalgOp::Eigvalsh)
      continue;  // the same kernels as det, eigh
    for (DType dt : kTypes) {
      for (int N : {2, 16}) {
        // complex Jacobi at N = 16 (not routed: it spills) takes minutes to unroll; 8 stands in
        if (N == 16 && is_complex(dt) && op == LinalgOp::Eigh) N = 8;
        expect_nvrtc_compiles(
            std::string(kKernelPrelude) + small_linalg_body(op, dt, N, dt),
            std::string(linalg_op_name(op)) + " " + dtype_name(dt) + " N=" + std::to_string(N));
      }
    }
    // Widened: single-precision arrays, double-precision arithmetic (the group kernel at 16).
    const int N = op == LinalgOp::Inv ? 16 : 4;
    expect_nvrtc_compiles(
        std::string(kKernelPrelude) + small_linalg_body(op, DType::Float64, N, DType::Float32),
        std::string(linalg_op_name(op)) + " float32 in float64");
    expect_nvrtc_compiles(
        std::string(kKernelPrelude) + small_linalg_body(op, DType::Complex128, N, DType::Complex64),
        std::string(linalg_op_name(op)) + " complex64 in complex128");
  }
}

TEST(SmallLinalg, StaggerSwitchValues) {
  using nf::cuda::parse_small_linalg_stagger;
  EXPECT_EQ(parse_small_linalg_stagger("").ns, 0);
  EXPECT_EQ(parse_small_linalg_stagger("0").ns, 0);
  EXPECT_EQ(parse_small_linalg_stagger("3000").ns, 3000);
  EXPECT_FALSE(parse_small_linalg_stagger("3000").graded);
  EXPECT_EQ(parse_small_linalg_stagger("g1500").ns, 1500);
  EXPECT_TRUE(parse_small_linalg_stagger("g1500").graded);
  EXPECT_FALSE(parse_small_linalg_stagger("g1500").automatic);
  EXPECT_TRUE(parse_small_linalg_stagger("auto").automatic);
  EXPECT_TRUE(parse_small_linalg_stagger("auto").graded);
  EXPECT_GT(parse_small_linalg_stagger("auto").ns, 0);
  EXPECT_EQ(parse_small_linalg_stagger("-5").ns, 0);
  EXPECT_EQ(parse_small_linalg_stagger("g").ns, 0);
}

// The default stagger: float64 8 x 8 inv alone (the measured case), one-thread kernels only.
TEST(SmallLinalg, StaggerDefaultIsFloat64EightByEightInv) {
  if (std::getenv("NUMFUSE_SMALL_LINALG_STAGGER")) GTEST_SKIP() << "stagger overridden";
  using nf::cuda::small_linalg_stagger;
  EXPECT_EQ(small_linalg_stagger(LinalgOp::Inv, DType::Float64, 8, DType::Float64).ns, 3000);
  EXPECT_FALSE(small_linalg_stagger(LinalgOp::Inv, DType::Float64, 8, DType::Float64).graded);
  EXPECT_EQ(small_linalg_stagger(LinalgOp::Solve, DType::Float64, 8, DType::Float64).ns, 0);
  EXPECT_EQ(small_linalg_stagger(LinalgOp::Inv, DType::Float64, 8, DType::Float32).ns, 0);
  EXPECT_EQ(small_linalg_stagger(LinalgOp::Inv, DType::Float32, 8, DType::Float32).ns, 0);
  EXPECT_EQ(small_linalg_stagger(LinalgOp::Inv, DType::Float64, 4, DType::Float64).ns, 0);
  EXPECT_EQ(small_linalg_stagger(LinalgOp::Det, DType::Float64, 8, DType::Float64).ns, 0);
  // the group kernel (complex128 8 x 8) has no stagger
  EXPECT_EQ(small_linalg_stagger(LinalgOp::Inv, DType::Complex128, 8, DType::Complex128).ns, 0);
  // and the default kernel's source carries it
  EXPECT_NE(small_linalg_body(LinalgOp::Inv, DType::Float64, 8, DType::Float64, 8)
                .find("#define NF_SM_STAGGER 1"),
            std::string::npos);
  EXPECT_EQ(small_linalg_body(LinalgOp::Solve, DType::Float64, 8, DType::Float64, 8, 1)
                .find("#define NF_SM_STAGGER 1"),
            std::string::npos);
}

// NUMFUSE_SMALL_LINALG_STAGGER's and _PREFETCH's kernels (the first wave's later rounds wait on
// %globaltimer; every block prefetches the next wave's matrices into L2).
TEST(SmallLinalg, StaggeredKernelsCompileUnderNvrtc) {
  for (LinalgOp op : {LinalgOp::Inv, LinalgOp::Solve}) {
    expect_nvrtc_compiles(std::string(kKernelPrelude) + "#define NF_SM_STAGGER 1\n" +
                              small_linalg_body(op, DType::Float64, 8, DType::Float64, 8,
                                                op == LinalgOp::Solve ? 1 : 0),
                          std::string(linalg_op_name(op)) + " float64 N=8 staggered");
    expect_nvrtc_compiles(std::string(kKernelPrelude) +
                              "#define NF_SM_STAGGER 1\n#define NF_SM_PREFETCH 1\n" +
                              small_linalg_body(op, DType::Float32, 4, DType::Float32),
                          std::string(linalg_op_name(op)) + " float32 N=4 staggered, prefetching");
    expect_nvrtc_compiles(std::string(kKernelPrelude) + "#define NF_SM_PREFETCH 1\n" +
                              small_linalg_body(op, DType::Float64, 8, DType::Float64, 8,
                                                op == LinalgOp::Solve ? 1 : 0),
                          std::string(linalg_op_name(op)) + " float64 N=8 prefetching");
  }
}

// Every operation and dtype at sizes that pad (n < N) and fill (n == N) their kernel, in emulation.
TEST(SmallLinalgEmulation, MatchesLapack) {
  NF_SKIP_UNLESS_EMULATED_WITH_LAPACK();
  for (LinalgOp op : kOps) {
    for (DType dt : kTypes) {
      for (int n : {3, 4}) {
        check_case(op, dt, n, false);
        if (op == LinalgOp::Cholesky || op == LinalgOp::Eigh) check_case(op, dt, n, true);
      }
    }
  }
}

// The other padded sizes, float64 and complex128 (float32 and complex64 share their code).
TEST(SmallLinalgEmulation, EverySize) {
  NF_SKIP_UNLESS_EMULATED_WITH_LAPACK();
  for (LinalgOp op :
       {LinalgOp::Inv, LinalgOp::Solve, LinalgOp::Slogdet, LinalgOp::Cholesky, LinalgOp::Eigh}) {
    for (DType dt : {DType::Float64, DType::Complex128}) {
      for (int n : {1, 2, 7, 13, 16}) {
        if (n > 8 && is_complex(dt) && op == LinalgOp::Eigh)
          continue;  // not routed; minutes to build
        check_case(op, dt, n, false);
      }
    }
  }
}

// float32 / complex64 stacks computed in double precision (LinalgSpec::widen, numpy.linalg's way):
// the kernel converting as it loads and stores gives exactly the double-precision kernel's results
// on the same values, rounded once to single precision, and the same info codes.
TEST(SmallLinalgEmulation, WidenedIsDoubleRounded) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  const std::vector<Kind> kinds = {Kind::Random, Kind::Singular, Kind::NaN, Kind::Random,
                                   Kind::IllConditioned};
  for (DType dt : {DType::Float32, DType::Complex64}) {
    const DType wide = dt == DType::Float32 ? DType::Float64 : DType::Complex128;
    for (LinalgOp op :
         {LinalgOp::Inv, LinalgOp::Solve, LinalgOp::Slogdet, LinalgOp::Cholesky, LinalgOp::Eigh}) {
      for (int n : {5, 12}) {
        if (n == 12 && op != LinalgOp::Inv) continue;  // the group kernel: inv's
        SCOPED_TRACE(std::string(linalg_op_name(op)) + " " + dtype_name(dt) +
                     " n=" + std::to_string(n));
        const LinalgSpec spec = spec_of(op, false);
        const Array a = make_stack(dt, n, kinds, op, false, 77u + n);
        Array b, aw = Array::empty(a.shape, wide, Device::cpu()), bw;
        for (int64_t i = 0; i < a.size(); ++i) set(aw, i, get(a, i));
        if (op == LinalgOp::Solve) {
          b = Array::empty({a.shape[0], n, 2}, dt, Device::cpu());
          bw = Array::empty(b.shape, wide, Device::cpu());
          for (int64_t i = 0; i < b.size(); ++i)
            set(b, i, C(0.5 * i - 3, is_complex(dt) ? 1.0 : 0.0));
          for (int64_t i = 0; i < b.size(); ++i) set(bw, i, get(b, i));
        }
        const Result got = run_emulated(spec, a, b, wide), want = run_emulated(spec, aw, bw);
        ASSERT_EQ(got.info, want.info);
        ASSERT_EQ(got.failed, want.failed);
        ASSERT_EQ(got.outs.size(), want.outs.size());
        for (size_t o = 0; o < got.outs.size(); ++o) {
          Array rounded = Array::empty(got.outs[o].shape, got.outs[o].dtype, Device::cpu());
          for (int64_t i = 0; i < rounded.size(); ++i) set(rounded, i, get(want.outs[o], i));
          for (int64_t m = 0; m < a.shape[0]; ++m) {
            if (want.info[m] != 0) continue;  // the host raises or writes NaN
            const Array g = matrix(got.outs[o], m), w = matrix(rounded, m);
            for (int64_t i = 0; i < g.size(); ++i) {
              const C x = get(g, i), y = get(w, i);
              const bool same = (x == y) || (std::isnan(x.real()) && std::isnan(y.real()));
              EXPECT_TRUE(same) << "output " << o << " matrix " << m << " element " << i << ": "
                                << x << " vs " << y;
            }
          }
        }
      }
    }
  }
}

// n == N and solve's single column compile with the sizes as constants (NF_SM_EXACT, NF_SM_NRHS):
// the same results, bit for bit, and the same codes as the kernel reading them from its
// parameters, for the one-thread kernels (N = 2, 4, 8) and the group kernel (16), a partial last
// block included.
TEST(SmallLinalgEmulation, ConstantSizesSameResults) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  std::vector<Kind> kinds;
  for (int i = 0; i < 37; ++i) {
    const Kind pattern[] = {Kind::Random, Kind::Singular, Kind::Random, Kind::IllConditioned};
    kinds.push_back(pattern[i % 4]);
  }
  for (LinalgOp op :
       {LinalgOp::Inv, LinalgOp::Solve, LinalgOp::Slogdet, LinalgOp::Cholesky, LinalgOp::Eigh}) {
    for (int n : {2, 4, 8, 16}) {
      if (n == 16 && op != LinalgOp::Inv && op != LinalgOp::Solve) continue;
      for (int nrhs : {1, 3}) {
        if (nrhs == 3 && op != LinalgOp::Solve) continue;
        SCOPED_TRACE(std::string(linalg_op_name(op)) + " n=" + std::to_string(n) +
                     " nrhs=" + std::to_string(nrhs));
        const LinalgSpec spec = spec_of(op, false);
        const Array a = make_stack(DType::Float64, n, kinds, op, false, 300u + n);
        Array b;
        if (op == LinalgOp::Solve) {
          b = Array::empty({a.shape[0], n, nrhs}, DType::Float64, Device::cpu());
          for (int64_t i = 0; i < b.size(); ++i) set(b, i, C(0.5 * (i % 7) - 1, 0.0));
        }
        const Result got = run_emulated(spec, a, b, DType::Bool, true, true);
        const Result want = run_emulated(spec, a, b, DType::Bool, true, false);
        EXPECT_EQ(got.info, want.info);
        EXPECT_EQ(got.failed, want.failed);
        ASSERT_EQ(got.outs.size(), want.outs.size());
        for (size_t o = 0; o < got.outs.size(); ++o) {
          for (int64_t m = 0; m < a.shape[0]; ++m) {
            if (want.info[m] > 0) continue;  // failed: the host raises or writes NaN
            const Array g = matrix(got.outs[o], m), w = matrix(want.outs[o], m);
            for (int64_t i = 0; i < g.size(); ++i) {
              const C x = get(g, i), y = get(w, i);
              EXPECT_TRUE(x == y || (std::isnan(x.real()) && std::isnan(y.real())))
                  << "output " << o << " matrix " << m << " element " << i << ": " << x << " vs "
                  << y;
            }
          }
        }
      }
    }
  }
}

// Early completion: with the ticket word and the block counter, the last block to pass its
// factorisation writes the ticket and leaves the counter at zero (for the next launch); outputs,
// codes and the failure word as without them. Several blocks: one-thread kernels (150 matrices,
// blocks of 64) and the group kernel (n = 12: 8 matrices a block).
TEST(SmallLinalgEmulation, EarlyCompletionSignalsOnce) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  std::vector<Kind> kinds;
  for (int i = 0; i < 150; ++i) kinds.push_back(i % 11 == 5 ? Kind::Singular : Kind::Random);
  for (LinalgOp op : {LinalgOp::Inv, LinalgOp::Solve, LinalgOp::Cholesky, LinalgOp::Eigh}) {
    for (int n : {8, 12}) {
      if (n == 12 && op != LinalgOp::Inv && op != LinalgOp::Solve) continue;
      SCOPED_TRACE(std::string(linalg_op_name(op)) + " n=" + std::to_string(n));
      const LinalgSpec spec = spec_of(op, false);
      const Array a = make_stack(DType::Float64, n, kinds, op, false, 500u + n);
      Array b;
      if (op == LinalgOp::Solve) {
        b = Array::empty({a.shape[0], n, 1}, DType::Float64, Device::cpu());
        for (int64_t i = 0; i < b.size(); ++i) set(b, i, C(0.125 * (i % 9), 0.0));
      }
      const Result got = run_emulated(spec, a, b, DType::Bool, true, true, true);
      const Result want = run_emulated(spec, a, b);
      EXPECT_EQ(got.factored, 7);
      EXPECT_EQ(got.blocks, 0);
      EXPECT_EQ(want.factored, -7) << "no word without early completion";
      EXPECT_EQ(got.info, want.info);
      EXPECT_EQ(got.failed, want.failed);
      for (size_t o = 0; o < got.outs.size(); ++o) {
        for (int64_t m = 0; m < a.shape[0]; ++m) {
          if (want.info[m] != 0) continue;
          const Array g = matrix(got.outs[o], m), w = matrix(want.outs[o], m);
          for (int64_t i = 0; i < g.size(); ++i)
            EXPECT_EQ(get(g, i), get(w, i))
                << "output " << o << " matrix " << m << " element " << i;
        }
      }
    }
  }
}

// The host's first run passes no info array (p.info null) and runs the kernel again with one only
// when the failure word is set: without codes the kernel gives the same outputs and the same word,
// for the one-thread kernels and the group kernel (n = 12), failing matrices among good ones.
TEST(SmallLinalgEmulation, NoCodesSameResults) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  const std::vector<Kind> kinds = {Kind::Random, Kind::Singular,       Kind::NaN,
                                   Kind::Random, Kind::IllConditioned, Kind::NotPositive};
  for (LinalgOp op : {LinalgOp::Inv, LinalgOp::Solve, LinalgOp::Cholesky, LinalgOp::Eigh}) {
    for (int n : {3, 8, 12}) {
      if (n == 12 && op != LinalgOp::Inv && op != LinalgOp::Solve) continue;  // group: LU only
      SCOPED_TRACE(std::string(linalg_op_name(op)) + " n=" + std::to_string(n));
      const LinalgSpec spec = spec_of(op, false);
      const Array a = make_stack(DType::Float64, n, kinds, op, false, 91u + n);
      Array b;
      if (op == LinalgOp::Solve) {
        b = Array::empty({a.shape[0], n, 1}, DType::Float64, Device::cpu());
        for (int64_t i = 0; i < b.size(); ++i) set(b, i, C(0.25 * i - 1, 0.0));
      }
      const Result with = run_emulated(spec, a, b),
                   without = run_emulated(spec, a, b, DType::Bool, false);
      EXPECT_EQ(without.info, std::vector<int>(kinds.size(), -7)) << "no code written";
      EXPECT_EQ(without.failed, with.failed);
      int failed = 0;
      for (int code : with.info) failed += code != 0;
      EXPECT_EQ(with.failed, failed > 0 ? 1 : 0);
      if (op != LinalgOp::Eigh) EXPECT_GT(failed, 0) << "the stack holds a failing matrix";
      ASSERT_EQ(without.outs.size(), with.outs.size());
      for (size_t o = 0; o < with.outs.size(); ++o) {
        for (int64_t m = 0; m < a.shape[0]; ++m) {
          if (with.info[m] != 0) continue;  // not written, or written and replaced by the host
          const Array g = matrix(without.outs[o], m), w = matrix(with.outs[o], m);
          for (int64_t i = 0; i < g.size(); ++i) {
            const C x = get(g, i), y = get(w, i);
            EXPECT_TRUE(x == y || (std::isnan(x.real()) && std::isnan(y.real())))
                << "output " << o << " matrix " << m << " element " << i;
          }
        }
      }
    }
  }
}

// A stack not aligned to its element size (complex64 at a 4-byte offset: legal for its float
// parts) is staged through registers one element at a time, not by the element copies (cp.async
// on the device): the same results as the aligned stack.
TEST(SmallLinalgEmulation, UnalignedStackStagesThroughRegisters) {
  if (test::emulation_root().empty()) GTEST_SKIP() << "set NUMFUSE_EMULATE_CUDA=<repository root>";
  const std::vector<Kind> kinds(41, Kind::Random);
  for (LinalgOp op : {LinalgOp::Inv, LinalgOp::Cholesky, LinalgOp::Eigh}) {
    SCOPED_TRACE(linalg_op_name(op));
    const int n = 3;
    const Array a = make_stack(DType::Complex64, n, kinds, op, false, 5u);
    const Array base = Array::empty({42, n, n}, DType::Complex64, Device::cpu());
    const Array shifted = base.view(a.shape, a.strides, base.byte_offset + 4);
    ASSERT_NE(reinterpret_cast<uintptr_t>(shifted.data()) % 8, 0u);
    for (int64_t i = 0; i < a.size(); ++i) set(shifted, i, get(a, i));
    const LinalgSpec spec = spec_of(op, false);
    const Result got = run_emulated(spec, shifted, Array()), want = run_emulated(spec, a, Array());
    ASSERT_EQ(got.info, want.info);
    for (size_t o = 0; o < got.outs.size(); ++o) {
      for (int64_t i = 0; i < got.outs[o].size(); ++i)
        EXPECT_EQ(get(got.outs[o], i), get(want.outs[o], i)) << "output " << o << " element " << i;
    }
  }
}
