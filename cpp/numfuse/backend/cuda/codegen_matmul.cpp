#include "numfuse/backend/cuda/codegen_matmul.h"

#include "numfuse/backend/cuda/codegen_elementwise.h"  // cuda_storage_type
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/core/error.h"

namespace nf::cuda {

namespace {

#define NF_STRINGIFY_(...) #__VA_ARGS__
#define NF_STRINGIFY(...) NF_STRINGIFY_(__VA_ARGS__)

static_assert(kIntGemmMaxBatchDims == 8, "NF_INT_GEMM_PARAMS_BODY's arrays hold 8 batch dims");

}  // namespace

std::string int_gemm_kernel_body(DType dt) {
  if (!is_integer(dt) && dt != DType::Bool) {
    throw TypeError(std::string("integer matmul kernel: unsupported dtype ") + dtype_name(dt));
  }
  std::string s = "\n// ---- integer matmul kernel\ntypedef ";
  s += cuda_storage_type(dt);
  s += " nf_T;\n";
  if (dt == DType::Bool) {
    s += "typedef unsigned int nf_acc;\n"
         "__device__ __forceinline__ nf_acc nf_load(nf_T v) { return v ? 1u : 0u; }\n"
         "__device__ __forceinline__ nf_acc nf_step(nf_acc acc, nf_acc x, nf_acc y) { return acc | (x & y); }\n"
         "__device__ __forceinline__ nf_T nf_store(nf_acc acc) { return acc != 0; }\n";
  } else {
    // Products and sums modulo 2^32 or 2^64 have the low bits of the wrapped dtype arithmetic.
    s += itemsize(dt) <= 4 ? "typedef unsigned int nf_acc;\n" : "typedef unsigned long long nf_acc;\n";
    s += "__device__ __forceinline__ nf_acc nf_load(nf_T v) { return (nf_acc)v; }\n"
         "__device__ __forceinline__ nf_acc nf_step(nf_acc acc, nf_acc x, nf_acc y) { return acc + x * y; }\n"
         "__device__ __forceinline__ nf_T nf_store(nf_acc acc) { return (nf_T)acc; }\n";
  }
  s += "struct IntGemmParams " NF_STRINGIFY(NF_INT_GEMM_PARAMS_BODY) ";\n";
  s += kernel_templates::int_gemm;
  return s;
}

}  // namespace nf::cuda
