#include "numfuse/backend/cuda/codegen_random.h"

#include "numfuse/backend/cuda/codegen_elementwise.h"  // cuda_storage_type
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

#define NF_STRINGIFY_(...) #__VA_ARGS__
#define NF_STRINGIFY(...) NF_STRINGIFY_(__VA_ARGS__)

// The value of element i from its block `blk`, written exactly as random_cpu.cpp computes it:
// float32 parameters are the doubles rounded to float once, integers wrap modulo 2^64 and are
// truncated to the dtype.
const char* value_expr(RandomDist dist, DType dt) {
  const bool f32 = dt == DType::Float32;
  switch (dist) {
    case RandomDist::Uniform:
      return f32 ? "nf::rng::uniform_float(blk, (float)p.a, (float)p.b)"
                 : "nf::rng::uniform_double(blk, p.a, p.b)";
    case RandomDist::Normal:
      return f32 ? "nf::rng::normal_float(blk, (float)p.a, (float)p.b)"
                 : "nf::rng::normal_double(blk, p.a, p.b)";
    case RandomDist::Integers:
      return dt == DType::Bool ? "(p.low + nf::rng::bounded_uint64(blk, p.range)) != 0ull"
                               : "(nf_T)(p.low + nf::rng::bounded_uint64(blk, p.range))";
  }
  return "";
}

}  // namespace

std::string random_kernel_body(RandomDist dist, DType dt) {
  const bool is_float = dt == DType::Float32 || dt == DType::Float64;
  const bool is_int = is_integer(dt) || dt == DType::Bool;
  if ((dist == RandomDist::Integers && !is_int) || (dist != RandomDist::Integers && !is_float)) {
    throw TypeError(std::string("random: unsupported dtype ") + dtype_name(dt));
  }
  std::string s = "\n// ---- random kernel\ntypedef ";
  s += cuda_storage_type(dt);
  s += " nf_T;\nstruct RandomParams " NF_STRINGIFY(NF_RANDOM_PARAMS_BODY) ";\n";
  s += "extern \"C\" __global__ void __launch_bounds__(256) nf_random(const RandomParams p) {\n"
       "  nf_T* out = (nf_T*)p.out;\n"
       "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n;"
       " i += (long long)gridDim.x * blockDim.x) {\n"
       "    const nf::uint32x4 blk = nf::rng::philox_block(p.seed, p.stream, p.offset,"
       " (unsigned long long)i);\n"
       "    out[i] = ";
  s += value_expr(dist, dt);
  s += ";\n  }\n}\n";
  return s;
}

RandomParams random_params(const RandomSpec& spec, void* out, int64_t n) {
  RandomParams p{};
  p.out = out;
  p.n = n;
  p.seed = spec.seed;
  p.stream = spec.stream;
  p.offset = spec.offset;
  p.a = spec.a;
  p.b = spec.b;
  p.low = spec.low;
  p.range = spec.range;
  return p;
}

}  // namespace nf::cuda
