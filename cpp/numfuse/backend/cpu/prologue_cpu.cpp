#include "numfuse/backend/cpu/prologue_cpu.h"

#include <algorithm>
#include <string>

#include "numfuse/backend/cpu/fp_check_cpu.h"
#include "numfuse/backend/cpu/fused_cpu.h"
#include "numfuse/core/error.h"
#include "numfuse/backend/cpu/run_buffers.h"

namespace nf::cpu {

Prologue::Prologue(const GroupProgram& p) : p_(p) {
  // Only the ancestors of the reduced value run: any other step's value is stored by the caller
  // before the reduction, or nobody needs it.
  std::vector<bool> needed(p.steps.size(), false);
  needed[p.reduced.step] = true;
  for (size_t s = p.steps.size(); s-- > 0;) {
    if (!needed[s]) continue;
    for (const ProgramValue& v : p.steps[s].args) {
      if (v.step >= 0) needed[v.step] = true;
    }
  }
  std::vector<std::vector<int>> slot_of(p.steps.size());
  for (size_t s = 0; s < p.steps.size(); ++s) {
    if (!needed[s]) continue;
    const ProgramStep& ps = p.steps[s];
    if (ps.args.size() > 8 || ps.op.out.size() > 4) {  // run() keeps a step's pointers on the stack
      throw NotImplementedError("a fused reduction step with " + std::to_string(ps.args.size()) + " inputs and " +
                                std::to_string(ps.op.out.size()) + " outputs");
    }
    Step st;
    st.step = &ps;
    if (ps.op.kind == ElementwiseOp::Kind::Generate) {
      st.gen = find_generator_loop(ps.op.gen.kind, ps.op.out[0]);
      position_ = 0;  // set to its operand index below
    } else {
      st.fn = loop_for(ps.op);
    }
    for (size_t k = 0; k < ps.args.size(); ++k) {
      const ProgramValue& v = ps.args[k];
      Arg a;
      if (v.leaf >= 0) {
        a.leaf = v.leaf;
      } else {
        a.slot = slot_of[v.step][v.output];
      }
      DType have = p.dtype_of(v);
      if (have != ps.op.in[k]) {
        a.cast = find_cast_loop(have, ps.op.in[k]);
        a.cast_slot = slots_++;
      }
      st.args.push_back(a);
    }
    for (size_t o = 0; o < ps.op.out.size(); ++o) {
      const bool reduced = static_cast<int>(s) == p.reduced.step && static_cast<int>(o) == p.reduced.output;
      st.out_slot.push_back(reduced ? -1 : slots_++);
    }
    slot_of[s] = st.out_slot;
    steps_.push_back(std::move(st));
  }
  step_flags_.assign(steps_.size(), 0);
  for (const Array& l : p.leaves) {
    strides_.push_back(broadcast_strides(l.shape, l.strides, p.shape));
    leaf_size_.push_back(l.itemsize());
  }
  if (position_ >= 0) {
    position_ = static_cast<int>(strides_.size());
    strides_.push_back(contiguous_strides(p.shape));
  }
}

IterSpace Prologue::space(const std::vector<int>& order) const {
  // The last operand is the flat index of the order itself: as the key of make_iter_space it
  // keeps the dims in the order given (its strides strictly decrease).
  Shape shape;
  for (int d : order) shape.push_back(p_.shape[d]);
  std::vector<Strides> st(strides_.size());
  for (size_t k = 0; k < strides_.size(); ++k) {
    for (int d : order) st[k].push_back(strides_[k][d]);
  }
  st.push_back(contiguous_strides(shape));
  return make_iter_space(shape, st, static_cast<int>(strides_.size()));
}

void Prologue::run(const int64_t* off, const int64_t* inner, int64_t n, char* dst) const {
  thread_local RunScratch scratch;
  const void* in[8];
  int64_t step[8];
  void* out[4];
  if (uint8_t f = fp_hw_test()) {  // the reduction's, from the values of the previous fill
    fp_hw_clear();
    __atomic_fetch_or(&before_fills_, f, __ATOMIC_RELAXED);
  }
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& st = steps_[i];
    for (size_t k = 0; k < st.args.size(); ++k) {
      const Arg& a = st.args[k];
      const char* ptr;
      int64_t s;
      if (a.leaf >= 0) {
        ptr = p_.leaves[a.leaf].data() + off[a.leaf] * int64_t(leaf_size_[a.leaf]);
        s = inner[a.leaf];
      } else {
        ptr = scratch.get(a.slot);
        s = 1;
      }
      if (a.cast) {
        char* buf = scratch.get(a.cast_slot);
        a.cast(ptr, s, buf, s == 0 ? 1 : n);
        ptr = buf;
        s = s == 0 ? 0 : 1;
      }
      in[k] = ptr;
      step[k] = s;
    }
    for (size_t o = 0; o < st.out_slot.size(); ++o) out[o] = st.out_slot[o] < 0 ? dst : scratch.get(st.out_slot[o]);
    if (st.gen) {
      st.gen(st.step->op.gen.word, off[position_], inner[position_], out[0], n);
    } else {
      st.fn(in, step, out, n);
    }
    if (uint8_t f = fp_hw_test()) {  // the step's own conditions, not the reduction's
      fp_hw_clear();
      if (!st.gen) f = fp_justified_flags(st.step->op, in, step, out, n, f);
      if (f) __atomic_fetch_or(&step_flags_[i], f, __ATOMIC_RELAXED);
    }
  }
}

void Prologue::record_fp_flags() const {
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (step_flags_[i]) record_step_flags(steps_[i].step->node, steps_[i].step->op, step_flags_[i]);
  }
}

void Prologue::fill(const IterSpace& sp, int64_t first, int64_t n, char* dst) const {
  const size_t size = itemsize(dtype());
  const int in = sp.ndim() - 1;
  int64_t inner[16];
  std::vector<int64_t> inner_big;
  int64_t* st = inner;
  if (strides_.size() > 16) {
    inner_big.resize(strides_.size());
    st = inner_big.data();
  }
  for (size_t k = 0; k < strides_.size(); ++k) st[k] = sp.strides[k][in];
  if (sp.ndim() == 1) {  // the common case, without the walker's allocations (a fill is short)
    int64_t off[16];
    std::vector<int64_t> off_big;
    int64_t* o = off;
    if (strides_.size() > 16) {
      off_big.resize(strides_.size());
      o = off_big.data();
    }
    for (int64_t i = 0; i < n; i += kRunElements) {
      const int64_t m = std::min(kRunElements, n - i);
      for (size_t k = 0; k < strides_.size(); ++k) o[k] = (first + i) * st[k];
      run(o, st, m, dst + i * int64_t(size));
    }
    return;
  }
  for_each_run(sp, first, first + n, kRunElements, [&](const int64_t* off, int64_t m) {
    run(off, st, m, dst);
    dst += m * int64_t(size);
  });
}

}  // namespace nf::cpu
