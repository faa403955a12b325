// The fixed scaffolding of the generated CUDA kernels: real .cuh files in cpp/numfuse/kernels,
// embedded as text at build time (CMakeLists.txt, NUMFUSE_KERNEL_TEMPLATES), never read from
// disk. The code generators append each where their kernel needs it, after the program-dependent
// definitions the file's first comment names (elementwise.cuh and reduce.cuh have placeholders,
// filled by fill_template in source_text.h); only what depends on the program is built in code.
#pragma once

namespace nf::cuda::kernel_templates {

extern const char* const elementwise;    // nf_fused: the fused elementwise kernel
extern const char* const vector_types;   // nf_vec<T, N>: aligned vector loads
extern const char* const fast_divide;    // nf_fdiv: division by a magic number
extern const char* const reduce_tree;    // nf_warp_reduce, nf_block_reduce
extern const char* const reduce;         // nf_reduce_main, nf_reduce_partials
extern const char* const scan;           // the cumsum / cumprod kernels
extern const char* const gather_common;  // nf_gparams and the index helpers
extern const char* const gather;         // nf_gather
extern const char* const scatter;        // nf_scatter_claim, nf_scatter_write
extern const char* const nonzero_fill;   // nf_nonzero_fill
extern const char* const int_gemm;       // nf_int_gemm
extern const char* const sort;           // nf_sort_tiles, nf_sort_merge, nf_sort_store, nf_searchsorted
extern const char* const histogram;      // nf_histogram (BinCountNode)
extern const char* const interp;         // nf_interp (and the per-point function the CPU shares)
extern const char* const correlate;      // nf_correlate (and the per-output sum the CPU shares)
extern const char* const random_distributions;  // the samplers (kernels/random_distributions.h)
extern const char* const random_discrete;  // the discrete ones (kernels/random_discrete.h)
extern const char* const random_dist;    // nf_random_dist
extern const char* const small_linalg;   // nf_small_solve, _det, _cholesky, _eigh (LinalgNode)
extern const char* const small_linalg_group;  // nf_small_inv_group (after small_linalg)

}  // namespace nf::cuda::kernel_templates
