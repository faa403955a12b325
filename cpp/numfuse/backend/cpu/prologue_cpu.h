// The prologue of a fused CPU reduction: the program steps that the reduced value depends on,
// evaluated over a few thousand elements at a time into a small contiguous buffer that the
// reduction kernels then read as if it were the input in memory (reduce_fused_cpu.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "numfuse/backend/cpu/generate_cpu.h"
#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/core/iteration.h"
#include "numfuse/ir/group_program.h"

namespace nf::cpu {

class Prologue {
 public:
  // Plans the steps of `p` that p.reduced depends on (p.reduced.step >= 0). Keeps a reference to p.
  explicit Prologue(const GroupProgram& p);

  // The dtype of the reduced value, as fill() writes it.
  DType dtype() const { return p_.dtype_of(p_.reduced); }

  // The program's operands (its leaves, and the C-order position that generator steps read) over
  // the reduction input's dims taken in `order` (dims of p.shape; unit dims may be left out),
  // coalesced where every operand allows and never reordered: flat index i of the space is the
  // i-th element of that order, so a reduction can ask for the values it needs as flat ranges.
  IterSpace space(const std::vector<int>& order) const;

  // Writes the reduced value at flat indices [first, first + n) of `sp` (from space()) to dst,
  // contiguous. Thread-safe: scratch is per thread.
  void fill(const IterSpace& sp, int64_t first, int64_t n, char* dst) const;

  // Records the floating-point conditions each step raised in the fills so far (numpy.errstate).
  void record_fp_flags() const;
  // The flags found set when a fill started: raised by the reduction between fills, not by a step.
  uint8_t flags_before_fills() const { return before_fills_; }

 private:
  struct Arg {
    int leaf = -1;             // >= 0: a leaf; else the scratch slot of an earlier step's value
    int slot = -1;
    CastLoop cast = nullptr;   // to the step's input dtype, when the value has another
    int cast_slot = -1;
  };
  struct Step {
    const ProgramStep* step;
    UFuncLoop fn = nullptr;
    GeneratorLoop gen = nullptr;
    std::vector<Arg> args;
    std::vector<int> out_slot;  // -1: the reduced value, written straight to the destination
  };
  // One run of n <= kRunElements elements: operand offsets `off`, inner strides `st`.
  void run(const int64_t* off, const int64_t* st, int64_t n, char* dst) const;

  const GroupProgram& p_;
  std::vector<Step> steps_;
  std::vector<Strides> strides_;  // per operand over p.shape: the leaves, then the position
  std::vector<size_t> leaf_size_;
  int position_ = -1;             // operand index of the position, when a step generates values
  int slots_ = 0;
  mutable std::vector<uint8_t> step_flags_;  // per step, OR-ed atomically by the filling threads
  mutable uint8_t before_fills_ = 0;
};

}  // namespace nf::cpu
