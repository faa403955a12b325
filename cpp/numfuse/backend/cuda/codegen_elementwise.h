// CUDA source for a fused elementwise group (ir/group_program.h): one kernel per program
// structure. Shapes, strides, pointers and scalar values are kernel parameters, never part of
// the source, so the same structure with other shapes or scalars reuses the compiled kernel.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/fp_check_cuda.h"
#include "numfuse/ir/group_program.h"

namespace nf::cuda {

// The kernel headers (nf_types.h, scalar_math.h, complex_math.h, scalar_ops.h, philox.h) as
// text, embedded at build time.
extern const char* const kKernelPrelude;

constexpr int kMaxKernelRank = 8;       // coalesced dims of the strided variant
constexpr int kMaxKernelOperands = 48;  // outputs + array leaves
// Up to this many elements a kernel takes one element per thread: vector loads do not matter to a
// launch-bound size, and the kernel's key then depends on neither the operands' alignment nor the
// innermost extent's parity (fewer kernels compiled, e.g. one for the real and imaginary views
// of a complex array, where the imaginary one is 4 or 8 bytes off alignment).
constexpr int64_t kScalarLoopElements = 1 << 16;

// How the kernel reaches one operand (outputs first, then leaves).
struct KernelOperand {
  DType dtype = DType::Bool;
  bool scalar = false;     // a 0-d host array: its value is a kernel parameter
  bool broadcast = false;  // stride 0 everywhere: loaded once per thread
  int ptr = -1;            // index into the parameters' ptr[] (and stride rows)
  int value = -1;          // index into the parameters' scalar[]
  int same_offset_as = -1;  // an earlier operand with equal strides: its offset is this one's
};

// One further launch of a kernel whose space was split for 32-bit indices: its elements and its
// parameter bytes (pointers advanced to the piece's first element, its shape and divisors).
struct ElementwiseLaunch {
  int64_t n = 0;
  std::vector<uint8_t> params;
};

// The largest index a kernel forms: INT32_MAX less the grid-stride step (grid_for caps a grid at
// 2^24 threads), so that i + gridDim*blockDim past the last element still fits an int.
constexpr int64_t kElementwiseMaxIndex = (int64_t(1) << 31) - (int64_t(1) << 24) - 1;
// More pieces than this (never seen: the pieces of a space number about its bytes / 2 GiB) and the
// kernel keeps 64-bit indices in one launch instead.
constexpr size_t kMaxElementwisePieces = 1024;

// NUMFUSE_CUDA_INT32_SPLIT=0 restores the index planning before issue 11, for measurement alone:
// elementwise kernels past 2^31 take one launch of 64-bit indices instead of 32-bit pieces, and
// reductions index in 64 bits always. Read once per process.
bool int32_split_enabled();

struct ElementwiseKernel {
  // The program's structure in a few bytes: equal keys mean equal source, so a warm launch looks
  // its kernel up by key and never builds the source text (the host cost of a small op).
  std::string key;
  std::string body;              // the generated part; the NVRTC source is kKernelPrelude + body
  std::string entry = "nf_fused";  // the __global__ function's name
  // The first launch (the only one unless the space was split): the bytes of the kernel's single
  // by-value parameter struct, and its elements (threads needed = ceil(n / vec)).
  std::vector<uint8_t> params;
  int64_t n = 0;
  // The further pieces of a space past 32-bit indices (core/iteration.h's split_for_int32), each
  // launched after the first with the same kernel; empty when one launch covers the space.
  std::vector<ElementwiseLaunch> more;
  int vec = 1;                   // elements per thread in the contiguous variant
  // The layout the source is written for.
  std::vector<KernelOperand> operands;
  int rank = 1, nptr = 0, nscalar = 0, ngen = 0;
  bool contiguous = true, idx32 = true;
  bool position = false;  // generators read the C-order position (stride row nptr),
                          // p.pos0 (a piece's first position, 64-bit) + a 32-bit offset
  // numpy.errstate checks: the checked steps, and where the flag-word pointer `fpw` (the
  // parameter struct's last field, present only when fp is not empty) sits in params.
  FpCheckPlan fp;
  size_t fp_param_offset = 0;
};

// The kernel of a program whose leaves and outputs live on the device (0-d host arrays become
// scalar parameters): key, parameters and layout, without the source text. Index arithmetic is
// 32-bit: a space whose elements or operand spans pass `max_index` is split into pieces, one
// launch each (kernel.more). Throws NotImplementedError past kMaxKernelRank / kMaxKernelOperands.
ElementwiseKernel plan_elementwise(const GroupProgram& program,
                                   int64_t max_index = kElementwiseMaxIndex);
// The source text of a planned kernel (on a kernel-cache miss).
std::string elementwise_body(const GroupProgram& program, const ElementwiseKernel& k);
// Both at once (tests, numfuse.explain).
ElementwiseKernel generate_elementwise(const GroupProgram& program,
                                       int64_t max_index = kElementwiseMaxIndex);

// The generator words of a program's Generate steps, 8 per step in step order: the `gen` array
// of the kernel parameters.
std::vector<uint64_t> generator_words(const GroupProgram& program);

// Division by a dimension's extent without a divide instruction, which costs a strided kernel tens
// of instructions per element and dimension: n / d == (mulhi(n, magic) + n) >> shift for every
// 0 <= n < 2^31 (idx32, 32-bit mulhi) or n < 2^63 (64-bit mulhi). d < 1 is taken as 1.
struct FastDivisor {
  uint64_t magic = 1, shift = 0;
};
FastDivisor fast_divisor(int64_t d, bool idx32);

// C++ spelling of a dtype in kernel source: storage ("nf::half") and compute ("float") types.
const char* cuda_storage_type(DType d);
const char* cuda_compute_type(DType d);

}  // namespace nf::cuda
