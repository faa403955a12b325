#include "numfuse/graph/program_builder.h"

#include <algorithm>

#include "numfuse/core/error.h"
#include "numfuse/graph/eval.h"
#include "numfuse/graph/node_set.h"

namespace nf {

bool& program_dry_run() {
  thread_local bool dry = false;
  return dry;
}

GroupProgram build_program(const Group& group, size_t elementwise_nodes, const Storage* reduce_input) {
  GroupProgram p;
  ElementwiseNode* first = static_cast<ElementwiseNode*>(group.nodes.front());
  p.shape = first->out_shapes[0];
  p.device = first->device;
  // The program's steps are the nodes marked `mark` (Node::group_index: their step).
  const uint64_t mark = new_graph_mark();
  // References to each in-group output from in-group inputs (output o of step s at
  // out_base[s] + o): a value nobody else holds stays in registers / scratch, never in memory.
  SmallVector<int, 256> internal_refs;
  SmallVector<int, 256> out_base;
  // The leaves read so far (views of one buffer, as in a stencil, are told apart by ViewSet).
  ViewSet leaf_views;
  elementwise_nodes = std::min(elementwise_nodes, group.nodes.size());
  p.steps.swap(spare_program_steps());
  p.steps.reserve(elementwise_nodes);
  for (size_t ni = 0; ni < elementwise_nodes; ++ni) {
    Node* n = group.nodes[ni];
    auto* en = static_cast<ElementwiseNode*>(n);
    p.steps.push_back(ProgramStep{en, en->op(), {}});
    ProgramStep& step = p.steps.back();
    for (const Array& in : n->inputs) {
      ProgramValue v;
      Node* prod = in.storage->producer.get();
      if (prod && prod->group_mark == mark) {
        v.step = prod->group_index;
        v.output = in.storage->producer_output;
        ++internal_refs[static_cast<size_t>(out_base[static_cast<size_t>(v.step)] + v.output)];
      } else {
        const int found = leaf_views.insert(in);
        if (found == static_cast<int>(p.leaves.size())) p.leaves.push_back(in);
        v.leaf = found;
      }
      step.args.push_back(v);
    }
    n->group_mark = mark;
    n->group_index = static_cast<int>(ni);
    out_base.push_back(static_cast<int>(internal_refs.size()));
    internal_refs.resize(internal_refs.size() + n->outputs.size(), 0);
  }
  // A generator's value stays pending when no node outside this group reads it (the rest of its
  // holders are the user's arrays): it is a function of the position alone.
  auto recomputable = [&](Node* n, const Storage* st) {
    if (n->eval_root || p.steps[static_cast<size_t>(n->group_index)].op.kind != ElementwiseOp::Kind::Generate) {
      return false;
    }
    for (const auto& w : st->readers) {
      std::shared_ptr<Node> r = w.lock();
      if (r && !r->done && r->group_mark != mark && !(elementwise_nodes < group.nodes.size() &&
                                                      r.get() == group.nodes[elementwise_nodes])) {
        return false;
      }
    }
    // On the CPU a small generator that an earlier evaluation recomputed already is written out
    // now: a loop-invariant `a = zeros(1000)` read by every iteration's evaluation otherwise
    // costs each of them a fused group (planner, program, interpreter) where a materialised `a`
    // takes the one-node path; its memory is a few KB. Large ones stay pending (recomputing a
    // fill beats reading it from memory), as do all on CUDA devices.
    constexpr int64_t kSmallGenerator = 4096;
    if (n->device.is_cpu() && n->times_recomputed > 0 && numel(n->out_shapes[0]) <= kSmallGenerator) {
      return false;
    }
    if (!program_dry_run() && n->times_recomputed < 255) ++n->times_recomputed;
    return true;
  };
  for (size_t s = 0; s < p.steps.size(); ++s) {
    Node* n = p.steps[s].node;
    for (size_t o = 0; o < n->outputs.size(); ++o) {
      // Holders of the output's storage besides the group's own readers: the user's arrays and
      // later nodes. Counted without locking (a chain's values have none and are skipped).
      const long holders = n->outputs[o].use_count();
      if (holders == 0) continue;
      long external = holders - internal_refs[static_cast<size_t>(out_base[s]) + o];
      if (external <= 0 && !reduce_input) continue;
      std::shared_ptr<Storage> st = n->outputs[o].lock();
      if (external > (st.get() == reduce_input ? 1 : 0) && recomputable(n, st.get())) {
        if (st.get() == reduce_input) p.reduced = ProgramValue{-1, static_cast<int>(s), static_cast<int>(o)};
        p.left_pending.push_back(n);
        continue;
      }
      if (st.get() == reduce_input) {
        p.reduced = ProgramValue{-1, static_cast<int>(s), static_cast<int>(o)};
        --external;  // the closing reduction's own reference
        p.reduced_also_stored = external > 0;
      }
      if (external <= 0) continue;
      const WriteRedirect& redirect = write_redirect();
      if (redirect.from == st.get()) {  // a write's right side: straight into its destination
        p.outputs.push_back({ProgramValue{-1, static_cast<int>(s), static_cast<int>(o)}, redirect.to});
        continue;
      }
      Array out;
      if (program_dry_run()) {
        out.dtype = n->out_dtypes[o];
        out.shape = n->out_shapes[o];
        out.strides = contiguous_strides(out.shape);
        out.storage = std::make_shared<Storage>();
        out.storage->device = n->device;
        out.storage->buffer = Buffer::wrap(nullptr, 0, n->device, nullptr, nullptr);
      } else {
        out = Array::empty(n->out_shapes[o], n->out_dtypes[o], n->device);
        st->buffer = out.storage->buffer;
      }
      p.outputs.push_back({ProgramValue{-1, static_cast<int>(s), static_cast<int>(o)}, out});
    }
  }
  return p;
}

}  // namespace nf
