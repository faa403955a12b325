#include "numfuse/backend/cpu/fused_cpu.h"

#include <cstring>
#include <memory>

#include "numfuse/backend/cpu/fp_check_cpu.h"
#include "numfuse/backend/cpu/generate_cpu.h"
#include "numfuse/backend/cpu/run_buffers.h"
#include "numfuse/backend/cpu/ufunc_loops.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"
#include "numfuse/core/small_vector.h"
#include "numfuse/core/type_resolution.h"

namespace nf::cpu {

namespace {

constexpr int64_t kParallelGrain = 1 << 15;

struct Bytes16 {
  uint64_t lo, hi;
};

// c ? a : b without a branch: a mask (a's bits where c, b's elsewhere) vectorises, and a random
// mask (`a[a > 0.5] = 0`) costs no mispredicted branch per element (measured 8 ns per element
// with the branch, issue 11).
template <class T>
inline T select_bits(bool c, T a, T b) {
  if constexpr (std::is_same_v<T, Bytes16>) {
    const uint64_t m = uint64_t(0) - uint64_t(c);
    return {b.lo ^ ((a.lo ^ b.lo) & m), b.hi ^ ((a.hi ^ b.hi) & m)};
  } else {
    const T m = T(0) - T(c);
    return static_cast<T>(b ^ ((a ^ b) & m));
  }
}

template <class T>
void select_loop(const void* const* in, const int64_t* st, void* const* out, int64_t n) {
  const bool* c = static_cast<const bool*>(in[0]);
  const T* x = static_cast<const T*>(in[1]);
  const T* y = static_cast<const T*>(in[2]);
  T* o = static_cast<T*>(out[0]);
  if (st[0] == 1 && st[1] == 0 && st[2] == 1) {  // a[mask] = scalar
    const T xv = x[0];
    for (int64_t i = 0; i < n; ++i) o[i] = select_bits(c[i], xv, y[i]);
  } else if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = select_bits(c[i], x[i], y[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = select_bits(c[i * st[0]], x[i * st[1]], y[i * st[2]]);
  }
}

template <class T>
void copy_loop(const void* const* in, const int64_t* st, void* const* out, int64_t n) {
  const T* x = static_cast<const T*>(in[0]);
  T* o = static_cast<T*>(out[0]);
  if (st[0] == 1) {
    std::memcpy(o, x, static_cast<size_t>(n) * sizeof(T));
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = x[i * st[0]];
  }
}

// Selection and copies move bytes: one loop per item size serves every dtype.
#define NF_BY_ITEMSIZE_(LOOP, SIZE)          \
  switch (SIZE) {                            \
    case 1: return LOOP<uint8_t>;            \
    case 2: return LOOP<uint16_t>;           \
    case 4: return LOOP<uint32_t>;           \
    case 8: return LOOP<uint64_t>;           \
    case 16: return LOOP<Bytes16>;           \
  }                                          \
  return nullptr;
UFuncLoop select_for(size_t size) { NF_BY_ITEMSIZE_(select_loop, size) }
UFuncLoop copy_for(size_t size) { NF_BY_ITEMSIZE_(copy_loop, size) }
#undef NF_BY_ITEMSIZE_

}  // namespace

UFuncLoop loop_for(const ElementwiseOp& op) {
  switch (op.kind) {
    case ElementwiseOp::Kind::Select: return select_for(itemsize(op.out[0]));
    case ElementwiseOp::Kind::Copy: return copy_for(itemsize(op.out[0]));
    case ElementwiseOp::Kind::Generate: return nullptr;  // a GeneratorLoop instead
    case ElementwiseOp::Kind::User:  // ops/user_elementwise.cpp makes them for CUDA arrays only
      throw NotImplementedError("a user's CUDA C++ element-wise kernel cannot run on the CPU");
    case ElementwiseOp::Kind::UFunc: {
      DType outs[2];
      UFuncLoop l = find_ufunc_loop(op.ufunc, op.in.data(), outs);
      if (!l) {
        std::string types;
        for (DType d : op.in) types += std::string(types.empty() ? "" : ", ") + dtype_name(d);
        throw UFuncTypeError(std::string("ufunc '") + ufunc_name(op.ufunc) +
                             "' has no CPU loop for (" + types + ")");
      }
      return l;
    }
  }
  return nullptr;
}

namespace {

// A step's loop; its arguments' and outputs' entries start at first_arg / first_out of the
// program-wide tables (one allocation per table, not four per step).
struct StepPlan {
  UFuncLoop fn;
  GeneratorLoop gen = nullptr;  // generator steps: computed from the element positions
  int first_arg = 0;
  int first_out = 0;
};

// Scratch slots of a run, reused once a value is dead: a chain of n ops needs two slots, not n,
// so its intermediates stay in L1 whatever its length.
class SlotAllocator {
 public:
  int take() {
    if (free_.empty()) return count_++;
    int s = free_.back();
    free_.pop_back();
    return s;
  }
  void give_back(int s) { free_.push_back(s); }
  int count() const { return count_; }

 private:
  SmallVector<int, 16> free_;
  int count_ = 0;
};

}  // namespace

namespace {
// One step over small contiguous operands of the loop's own dtypes: a single call of the loop,
// no setup pass. This is the host-overhead path of small arrays.
bool try_run_small(const GroupProgram& p) {
  if (p.steps.size() != 1 || p.outputs.size() != p.steps[0].op.out.size()) return false;
  const ProgramStep& st = p.steps[0];
  const int64_t n = numel(p.shape);
  if (n > kRunElements || st.args.size() > 4) return false;
  if (st.op.kind == ElementwiseOp::Kind::Generate) {
    const Array& o = p.outputs[0].array;
    if (o.dtype != st.op.out[0] || !o.c_contiguous()) return false;
    if (n > 0) find_generator_loop(st.op.gen.kind, o.dtype)(st.op.gen.word, 0, 1, o.data(), n);
    return true;
  }
  const void* in[4];
  int64_t step[4];
  void* out[2];
  for (size_t j = 0; j < p.outputs.size(); ++j) {
    const Array& o = p.outputs[j].array;
    if (p.outputs[j].value.output != static_cast<int>(j) || o.dtype != st.op.out[j] ||
        !o.c_contiguous()) {
      return false;
    }
    out[j] = o.data();
  }
  for (size_t k = 0; k < st.args.size(); ++k) {
    const Array& a = p.leaves[st.args[k].leaf];
    if (a.dtype != st.op.in[k]) return false;
    if (a.ndim() == 0) {
      step[k] = 0;
    } else if (a.shape == p.shape && a.c_contiguous()) {
      step[k] = 1;
    } else {
      return false;
    }
    in[k] = a.data();
  }
  if (n > 0) {
    fp_hw_take();  // flags left by earlier work on this thread are not this step's
    loop_for(st.op)(in, step, out, n);
    if (uint8_t f = fp_hw_take()) {
      record_step_flags(st.node, st.op, fp_justified_flags(st.op, in, step, out, n, f));
    }
  }
  return true;
}
}  // namespace

void run_program(const GroupProgram& p) {
  const size_t nout = p.outputs.size(), nleaf = p.leaves.size(), nsteps = p.steps.size();
  if (nout == 0) return;
  if (try_run_small(p)) return;
  std::vector<Strides> strides;
  strides.reserve(nout + nleaf + 1);
  for (const ProgramOutput& o : p.outputs) strides.push_back(o.array.strides);
  for (const Array& l : p.leaves) strides.push_back(broadcast_strides(l.shape, l.strides, p.shape));
  // Generators read each element's C-order position: one more operand, with no memory behind it.
  const size_t position = strides.size();
  if (p.has_generators()) strides.push_back(contiguous_strides(p.shape));
  IterSpace sp = make_iter_space(p.shape, strides, 0);
  if (sp.size() == 0) return;
  const int inner = sp.ndim() - 1;

  // Each step output's index in the value tables, and the last step reading it (nsteps: an
  // output of the program stored after the run; -1: never read).
  SmallVector<StepPlan, 8> plan(nsteps);
  int nargs = 0, nvalues = 0;
  for (size_t s = 0; s < nsteps; ++s) {
    const ProgramStep& st = p.steps[s];
    plan[s].fn = loop_for(st.op);
    if (st.op.kind == ElementwiseOp::Kind::Generate) plan[s].gen = find_generator_loop(st.op.gen.kind, st.op.out[0]);
    plan[s].first_arg = nargs;
    plan[s].first_out = nvalues;
    nargs += static_cast<int>(st.args.size());
    nvalues += static_cast<int>(st.op.out.size());
  }
  auto value_index = [&](const ProgramValue& v) { return plan[v.step].first_out + v.output; };
  SmallVector<CastLoop, 16> cast(nargs, nullptr);  // per argument, null when it has the loop dtype
  SmallVector<int, 16> cast_slot(nargs, -1);        // scratch slot of each cast argument
  SmallVector<int, 16> value_slot(nvalues, -1);     // slot of each step output
  SmallVector<int, 16> direct_out(nvalues, -1);     // program output written in place, or -1
  SmallVector<int, 16> last_use(nvalues, -1);
  for (size_t s = 0; s < nsteps; ++s) {
    const ProgramStep& st = p.steps[s];
    for (size_t k = 0; k < st.args.size(); ++k) {
      DType have = p.dtype_of(st.args[k]);
      if (have != st.op.in[k]) cast[plan[s].first_arg + k] = find_cast_loop(have, st.op.in[k]);
      if (st.args[k].step >= 0) last_use[value_index(st.args[k])] = static_cast<int>(s);
    }
  }
  // A step whose value is an output with unit inner stride writes straight into it (once).
  SmallVector<char, 8> written_directly(nout, 0);
  for (size_t j = 0; j < nout; ++j) {
    const ProgramValue& v = p.outputs[j].value;
    if (sp.strides[j][inner] == 1 && direct_out[value_index(v)] < 0) {
      direct_out[value_index(v)] = static_cast<int>(j);
      written_directly[j] = 1;
    } else {
      last_use[value_index(v)] = static_cast<int>(nsteps);  // stored from its slot after the steps
    }
  }
  // Slots in step order: a step's casts and outputs never share a slot with its own arguments.
  SlotAllocator slots_of;
  for (size_t s = 0; s < nsteps; ++s) {
    const ProgramStep& st = p.steps[s];
    const int a0 = plan[s].first_arg, o0 = plan[s].first_out;
    for (size_t k = 0; k < st.args.size(); ++k) {
      if (cast[a0 + k]) cast_slot[a0 + k] = slots_of.take();
    }
    for (size_t o = 0; o < st.op.out.size(); ++o) value_slot[o0 + o] = slots_of.take();
    for (size_t k = 0; k < st.args.size(); ++k) {
      if (cast[a0 + k]) slots_of.give_back(cast_slot[a0 + k]);
      if (st.args[k].step < 0) continue;
      int& last = last_use[value_index(st.args[k])];
      if (last == static_cast<int>(s)) {
        slots_of.give_back(value_slot[value_index(st.args[k])]);
        last = -2;  // released (an argument read twice is released once)
      }
    }
    for (size_t o = 0; o < st.op.out.size(); ++o) {
      if (last_use[o0 + o] == -1) slots_of.give_back(value_slot[o0 + o]);
    }
  }
  const int slots = slots_of.count();
  SmallVector<char*, 8> out_base(nout, nullptr), leaf_base(nleaf, nullptr);
  for (size_t j = 0; j < nout; ++j) out_base[j] = p.outputs[j].array.data();
  for (size_t l = 0; l < nleaf; ++l) leaf_base[l] = p.leaves[l].data();
  const int64_t run = slots <= 8 ? kRunElements : kRunElements / 4;
  // The status flags each step raised, read after the step on every run (numpy.errstate).
  StepFlags step_flags(nsteps);

  auto chunk = [&](int64_t begin, int64_t end) {
    thread_local RunScratch scratch;
    SmallVector<char*, 16> value_ptr(static_cast<size_t>(slots), nullptr);
    SmallVector<const void*, 4> arg_ptr;
    SmallVector<int64_t, 4> arg_step;
    SmallVector<void*, 4> res_ptr;
    fp_hw_take();  // this thread's earlier flags are not this program's
    for_each_run(sp, begin, end, run, [&](const int64_t* off, int64_t n) {
      for (size_t s = 0; s < nsteps; ++s) {
        const ProgramStep& st = p.steps[s];
        const StepPlan& pl = plan[s];
        arg_ptr.assign(st.args.size(), nullptr);
        arg_step.assign(st.args.size(), 1);
        for (size_t k = 0; k < st.args.size(); ++k) {
          const ProgramValue& v = st.args[k];
          const char* ptr;
          int64_t step;
          if (v.leaf >= 0) {
            ptr = leaf_base[v.leaf] + off[nout + v.leaf] * int64_t(itemsize(p.leaves[v.leaf].dtype));
            step = sp.strides[nout + v.leaf][inner];
          } else {
            ptr = value_ptr[value_slot[value_index(v)]];
            step = 1;
          }
          if (CastLoop c = cast[pl.first_arg + k]) {
            char* buf = scratch.get(cast_slot[pl.first_arg + k]);
            c(ptr, step, buf, step == 0 ? 1 : n);
            ptr = buf;
            step = step == 0 ? 0 : 1;
          }
          arg_ptr[k] = ptr;
          arg_step[k] = step;
        }
        res_ptr.assign(st.op.out.size(), nullptr);
        for (size_t o = 0; o < st.op.out.size(); ++o) {
          const int slot = value_slot[pl.first_out + o];
          int j = direct_out[pl.first_out + o];
          char* ptr = j >= 0 ? out_base[j] + off[j] * int64_t(itemsize(p.outputs[j].array.dtype))
                             : scratch.get(slot);
          value_ptr[slot] = ptr;
          res_ptr[o] = ptr;
        }
        if (pl.gen) {
          pl.gen(st.op.gen.word, off[position], sp.strides[position][inner], res_ptr[0], n);
        } else {
          pl.fn(arg_ptr.data(), arg_step.data(), res_ptr.data(), n);
        }
        if (uint8_t f = fp_hw_test()) {
          fp_hw_clear();
          f = fp_justified_flags(st.op, arg_ptr.data(), arg_step.data(), res_ptr.data(), n, f);
          if (f) step_flags.add(s, f);
        }
      }
      for (size_t j = 0; j < nout; ++j) {
        if (written_directly[j]) continue;
        const ProgramValue& v = p.outputs[j].value;
        size_t size = itemsize(p.outputs[j].array.dtype);
        store_strided(value_ptr[value_slot[value_index(v)]], out_base[j] + off[j] * int64_t(size),
                      sp.strides[j][inner], n, size);
      }
    });
  };
  if (sp.size() <= kParallelGrain) {
    chunk(0, sp.size());  // what parallel_for would do, without wrapping the lambda
  } else {
    parallel_for(sp.size(), kParallelGrain, chunk);
  }
  if (step_flags.any()) {
    for (size_t s = 0; s < nsteps; ++s) {
      if (step_flags[s]) record_step_flags(p.steps[s].node, p.steps[s].op, step_flags[s]);
    }
  }
}

}  // namespace nf::cpu
