// CUDA source for a reduction (ops/reduction.h's ReduceSpec) over any strided input: the kept
// dims and the reduced dims are each coalesced; one kernel variant gives each output a block
// (or several, with a second pass over their partial results), another gives each output a
// thread (outer reductions, where neighbouring outputs are neighbours in memory). Shapes,
// strides, pointers and the initial value are parameters, never part of the source.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/fp_check_cuda.h"
#include "numfuse/core/array.h"
#include "numfuse/ir/group_program.h"
#include "numfuse/ir/reduce.h"

namespace nf::cuda {

constexpr int kMaxReduceRank = 6;  // coalesced kept dims and reduced dims, each

struct ReducePlan {
  Shape kept_shape, red_shape;      // coalesced, C order preserved within each part
  Strides kept_stride, red_stride;  // input strides in elements
  int64_t nout = 1, nred = 1;
  bool thread_per_output = false;
  bool warp_per_output = false;     // short rows, many outputs: a warp each, shuffles to combine
  int blocks_per_output = 1;        // > 1: partial results, then a second pass
  int vec = 1;                      // elements per load in the block variant (contiguous rows)
  // Outputs, reduced elements and their offsets index in 32 bits (nf_ri is int) when the whole
  // input space fits (reduce_fits_int32), or when launches of `rows_per_piece` rows of the
  // outermost kept dim each fit (plain reductions); otherwise in 64 (see docs/decisions.md).
  bool idx32 = true;
  int64_t rows_per_piece = 0;  // > 0: kept_shape[0] is launched in pieces of this many rows
};

// The rows of the outermost kept dim one 32-bit launch may take when the whole space does not fit:
// each piece's element count and input span (its rows, the other kept dims and the reduced
// dims) at most max_index; 0 when not even one row fits.
int64_t reduce_rows_per_piece(const ReducePlan& plan, int64_t max_index);

// Whether a reduction over `shape` whose operands step by `strides` (elements; broadcast zeros)
// fits 32-bit index maths: its element count and every operand's span, with the headroom of the
// elementwise kernels (kElementwiseMaxIndex) for the loops' steps past the end.
bool reduce_fits_int32(const Shape& shape, const std::vector<Strides>& strides,
                       int64_t max_index = kElementwiseMaxIndex);

// How to reduce `in` (its dims marked in spec.axes) on a device with `sm_count` multiprocessors;
// `max_index` bounds 32-bit indices (tests lower it to make pieces of small arrays).
ReducePlan plan_reduce(const ReduceSpec& spec, const Array& in, int sm_count,
                       int64_t max_index = kElementwiseMaxIndex);

struct ReduceKernel {
  std::string body;                    // kernels nf_reduce_main, nf_reduce_partials; NVRTC source
                                       // is kKernelPrelude + body
  std::vector<uint8_t> params;         // the parameter struct's bytes
  size_t partial_bytes = 0;            // scratch for partial results (0: one pass)
  // numpy.errstate check of the accumulation itself; the flag-word pointer is the parameter
  // struct's last field when fp is not empty.
  FpCheckPlan fp;
  size_t fp_param_offset = 0;
};

// The kernels of kernels/reduce.cuh in `plan`'s scheme, shared by plain and fused reductions:
// `setup` is code giving output o's state, `element` the expression of reduced element r's
// accumulator, `block_loop` the code accumulating a block's share into acc (scheme 2).
std::string reduce_kernels(const ReducePlan& plan, const std::string& setup,
                           const std::string& element, const std::string& block_loop);

// in: the input array (device memory); out: the C-contiguous keepdims-shaped output; partials:
// the scratch pointer (may be null when partial_bytes is 0: call twice, see reduce_cuda.cpp).
ReduceKernel generate_reduce(const ReduceSpec& spec, const Array& in, const ReducePlan& plan,
                             FpState state = kFpDefaultState);
void set_reduce_pointers(ReduceKernel& k, const void* in, void* out, void* partials);
// Points k's parameters at rows [row0, row0 + rows) of the outermost kept dim (a piece of
// plan.rows_per_piece rows): in and out advanced, nout and kept_shape[0] those of the piece.
// Returns the piece's output count (the grid follows it).
int64_t set_reduce_piece(ReduceKernel& k, const ReducePlan& plan, const Array& in, const Array& out,
                         int64_t row0, int64_t rows);

// A reduction whose input values are computed by a fused group's program (`prologue`, its value
// `prologue.reduced`) as the kernel reads them: x**2 is never stored for sum(x**2). Leaves are
// device arrays with any strides (broadcast to the reduced shape) or host scalars.
struct FusedReduceKernel {
  std::string body;
  std::vector<uint8_t> params;   // out and partial pointers first (set_fused_reduce_pointers)
  size_t partial_bytes = 0;
  ReducePlan plan;
  // numpy.errstate checks of the prologue's (program 0) and epilogue's (program 1) steps; the
  // flag-word pointer is the parameter struct's last field when fp is not empty.
  FpCheckPlan fp;
  size_t fp_param_offset = 0;
  // plan.rows_per_piece > 0: each leaf pointer's first address and bytes per row of the
  // outermost kept dim (ptr[] order), and where kshape[0] sits in params (set_fused_reduce_piece).
  std::vector<const char*> leaf_base;
  std::vector<int64_t> leaf_row_bytes;
  size_t kept_shape_at = 0;
};
// With `epilogue`, each output's result (its leaf over the storage `result`) also feeds the
// epilogue program, whose outputs the kernel writes at the output's index (see can_fuse_epilogue).
// `state`: the reduction's own errstate (its accumulation is checked when checks are on).
// `max_index` bounds 32-bit indices (tests lower it to make pieces of small arrays).
FusedReduceKernel generate_reduce_fused(const ReduceSpec& spec, const GroupProgram& prologue,
                                        int sm_count, const GroupProgram* epilogue = nullptr,
                                        const Storage* result = nullptr,
                                        FpState state = kFpDefaultState,
                                        int64_t max_index = kElementwiseMaxIndex);
void set_fused_reduce_pointers(FusedReduceKernel& k, void* out, void* partials);
// set_reduce_piece for a fused reduction (no epilogue, no position: the only ones planned in
// pieces): leaf pointers and out advanced to row0, nout and kshape[0] the piece's. Returns nout.
int64_t set_fused_reduce_piece(FusedReduceKernel& k, const Array& out, int64_t row0, int64_t rows);

}  // namespace nf::cuda
