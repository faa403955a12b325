// How the CPU backend evaluates each node kind of ir/ (cpu_backend.cpp registers them): every CPU
// evaluation of a node lives under backend/cpu.
#pragma once
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/ir/correlate.h"
#include "numfuse/ir/elementwise_kinds.h"
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

namespace nf::cpu {

// A lone ufunc: small contiguous operands call the loop directly (the host-overhead path of a
// lone op); anything else runs as a program of one step.
void eval_ufunc(UFuncNode& node, const std::vector<Array>& outs);
void eval_reduce(ReduceNode& node, const std::vector<Array>& outs);  // nodes_cpu.cpp
void eval_scan(ScanNode& node, const std::vector<Array>& outs);      // nodes_cpu.cpp
void eval_gather(GatherNode& node, const std::vector<Array>& outs);  // nodes_cpu.cpp
void eval_matmul(MatmulNode& node, const std::vector<Array>& outs);  // matmul_cpu.cpp
void eval_fft(FftNode& node, const std::vector<Array>& outs);        // fft_cpu.cpp
void eval_linalg(LinalgNode& node, const std::vector<Array>& outs);  // linalg_cpu.cpp
void eval_sort(SortNode& node, const std::vector<Array>& outs);      // sort_cpu.cpp
void eval_searchsorted(SearchSortedNode& node, const std::vector<Array>& outs);  // sort_cpu.cpp
void eval_unique(UniqueNode& node, const std::vector<Array>& outs);  // unique_cpu.cpp
void eval_bincount(BinCountNode& node, const std::vector<Array>& outs);  // statistics_cpu.cpp
void eval_interp(InterpNode& node, const std::vector<Array>& outs);  // interp_cpu.cpp
void eval_correlate(CorrelateNode& node, const std::vector<Array>& outs);  // correlate_cpu.cpp
// A lone fill (zeros, ones, full materialised by a write): filled on this thread; other
// generators as a program of one step. generate_cpu.cpp.
void eval_generator(GeneratorNode& node, const std::vector<Array>& outs);
void eval_random_dist(RandomDistNode& node, const std::vector<Array>& outs);  // random_dist_cpu.cpp

}  // namespace nf::cpu
