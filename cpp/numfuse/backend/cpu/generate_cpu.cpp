#include "numfuse/backend/cpu/generate_cpu.h"

#include <cstring>
#include <string>

#include "numfuse/backend/cpu/fused_cpu.h"
#include "numfuse/backend/cpu/nodes_cpu.h"
#include "numfuse/core/error.h"
#include "numfuse/ir/group_program.h"
#include "numfuse/kernels/generators.h"

namespace nf::cpu {

namespace {

template <class T>
void fill_loop(const uint64_t* w, int64_t, int64_t, void* out, int64_t n) {
  const T v = gen::fill<T>(w);
  T* o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = v;
}

// One loop per generator function; positions advance by `step` (1 for C-ordered outputs).
#define NF_GENERATOR_LOOP_(NAME)                                                   \
  template <class T>                                                               \
  void NAME##_loop(const uint64_t* w, int64_t first, int64_t step, void* out, int64_t n) { \
    T* o = static_cast<T*>(out);                                                   \
    if (step == 1) {                                                               \
      for (int64_t i = 0; i < n; ++i) o[i] = gen::NAME<T>(w, uint64_t(first + i)); \
    } else {                                                                       \
      for (int64_t i = 0; i < n; ++i) o[i] = gen::NAME<T>(w, uint64_t(first + i * step)); \
    }                                                                              \
  }
NF_GENERATOR_LOOP_(arange)
NF_GENERATOR_LOOP_(eye)
NF_GENERATOR_LOOP_(normal)
NF_GENERATOR_LOOP_(integers)
#undef NF_GENERATOR_LOOP_

// Uniforms two at a time where positions are consecutive: neighbours share a Philox block.
template <class T>
void uniform_loop(const uint64_t* w, int64_t first, int64_t step, void* out, int64_t n) {
  T* o = static_cast<T*>(out);
  int64_t i = 0;
  if (step == 1) {
    if (n > 0 && ((w[2] + uint64_t(first)) & 1)) {  // start on a block boundary
      o[0] = gen::uniform<T>(w, uint64_t(first));
      i = 1;
    }
    for (; i + 1 < n; i += 2) gen::uniform2<T>(w, uint64_t(first + i), o[i], o[i + 1]);
  }
  for (; i < n; ++i) o[i] = gen::uniform<T>(w, uint64_t(first + i * step));
}

template <class T>
constexpr bool kFloatDraw = tt::is_same<T, float> || tt::is_same<T, double>;
template <class T>
constexpr bool kIntegerDraw = is_int_v<T> || is_bool_v<T>;

}  // namespace

GeneratorLoop find_generator_loop(Generator::Kind kind, DType dtype) {
  GeneratorLoop loop = nullptr;
  NF_DISPATCH(dtype, generator_name(kind), {
    switch (kind) {
      case Generator::Kind::Fill: loop = fill_loop<scalar_t>; break;
      case Generator::Kind::Arange: loop = arange_loop<scalar_t>; break;
      case Generator::Kind::Eye: loop = eye_loop<scalar_t>; break;
      case Generator::Kind::Uniform:
        if constexpr (kFloatDraw<scalar_t>) loop = uniform_loop<scalar_t>;
        break;
      case Generator::Kind::Normal:
        if constexpr (kFloatDraw<scalar_t>) loop = normal_loop<scalar_t>;
        break;
      case Generator::Kind::Integers:
        if constexpr (kIntegerDraw<scalar_t>) loop = integers_loop<scalar_t>;
        break;
    }
  });
  if (!loop) throw TypeError(std::string(generator_name(kind)) + ": unsupported dtype " + dtype_name(dtype));
  return loop;
}

// Up to 2 MiB a fill runs on this thread: run_program splits 2^15 elements and more between
// threads, and waking the second one cost more than the fill (zeros_like of 300x300 float64,
// materialised by its first row write: 14.5 us through the program, NumPy's fill 10.9 us).
constexpr size_t kDirectFillBytes = size_t(2) << 20;

void eval_generator(GeneratorNode& node, const std::vector<Array>& outs) {
  const Array& out = outs[0];
  const size_t nbytes = out.nbytes();
  if (node.gen.kind == Generator::Kind::Fill && outs.size() == 1 && out.c_contiguous() &&
      out.dtype == node.out_dtypes[0] && nbytes <= kDirectFillBytes) {
    if (nbytes == 0) return;
    const unsigned char* value = reinterpret_cast<const unsigned char*>(node.gen.word);
    bool zero = true;
    for (size_t i = 0; i < out.itemsize(); ++i) zero &= value[i] == 0;
    if (zero) {
      std::memset(out.data(), 0, nbytes);  // zeros, zeros_like: one pass of the store unit
    } else {
      find_generator_loop(Generator::Kind::Fill, out.dtype)(node.gen.word, 0, 1, out.data(), out.size());
    }
    return;
  }
  run_program(single_node_program(&node, outs));
}

}  // namespace nf::cpu
