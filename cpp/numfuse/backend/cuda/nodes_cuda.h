// How the CUDA backend evaluates each node kind of ir/ (cuda_backend.cpp registers them): every
// CUDA evaluation of a node lives under backend/cuda, enqueued on the device's current stream.
// Elementwise kinds need no entry: alone, a node is a fused program of one step.
#pragma once
#include <string>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/ir/correlate.h"
#include "numfuse/ir/fft.h"
#include "numfuse/ir/gather.h"
#include "numfuse/ir/interp.h"
#include "numfuse/ir/linalg_solve.h"
#include "numfuse/ir/matmul.h"
#include "numfuse/ir/random_dist.h"
#include "numfuse/ir/reduce.h"
#include "numfuse/ir/scan.h"
#include "numfuse/ir/sort.h"
#include "numfuse/ir/statistics.h"
#include "numfuse/ir/unique.h"

namespace nf::cuda {

void eval_reduce(ReduceNode& node, const std::vector<Array>& outs);  // reduce_cuda.cpp
void eval_scan(ScanNode& node, const std::vector<Array>& outs);      // scan_cuda.cpp
void eval_gather(GatherNode& node, const std::vector<Array>& outs);  // gather_cuda.cpp
void eval_matmul(MatmulNode& node, const std::vector<Array>& outs);  // matmul_cuda.cpp
void eval_fft(FftNode& node, const std::vector<Array>& outs);        // fft_cuda.cpp
void eval_linalg(LinalgNode& node, const std::vector<Array>& outs);  // linalg_cuda.cpp
void eval_sort(SortNode& node, const std::vector<Array>& outs);      // sort_cuda.cpp
void eval_searchsorted(SearchSortedNode& node, const std::vector<Array>& outs);  // sort_cuda.cpp
void eval_unique(UniqueNode& node, const std::vector<Array>& outs);  // unique_cuda.cpp
void eval_bincount(BinCountNode& node, const std::vector<Array>& outs);  // statistics_cuda.cpp
void eval_interp(InterpNode& node, const std::vector<Array>& outs);  // interp_cuda.cpp
// The NVRTC source of nf_interp for samples of fp_dtype (float64 or complex128), after the prelude.
std::string interp_body(DType fp_dtype);
void eval_correlate(CorrelateNode& node, const std::vector<Array>& outs);  // correlate_cuda.cpp
// The NVRTC source of nf_correlate for `dtype`, after the prelude.
std::string correlate_body(DType dtype);
// Whether libnumfuse_cub.so (CUB's radix sorts) was found beside the module; without it sorts
// take the slower merge kernels (sort_cuda.cpp).
bool cub_sort_available();
void eval_random_dist(RandomDistNode& node, const std::vector<Array>& outs);  // random_dist_cuda.cpp
// The NVRTC source (after kKernelPrelude) of the kernel drawing `dist` into `out_dtype`.
std::string random_dist_body(int dist, DType out_dtype);  // random_dist_cuda.cpp

}  // namespace nf::cuda
