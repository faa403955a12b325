#include "numfuse/graph/planner.h"

#include <algorithm>

#include "numfuse/backend/backend.h"
#include "numfuse/graph/flush.h"
#include "numfuse/graph/node_set.h"
#include "numfuse/ir/node.h"

namespace nf {

const char* cut_reason_name(CutReason r) {
  switch (r) {
    case CutReason::FusionDisabled: return "fusion-disabled";
    case CutReason::NotFusable: return "not-fusable";
    case CutReason::OpaqueNode: return "opaque-node";
    case CutReason::ShapeChange: return "shape-change";
    case CutReason::DeviceChange: return "device-change";
    case CutReason::ViewOfIntermediate: return "view-of-intermediate";
    case CutReason::OpLimit: return "op-limit";
    case CutReason::InputLimit: return "input-limit";
    case CutReason::ParamLimit: return "param-limit";
    case CutReason::AfterReduction: return "after-reduction";
    case CutReason::EndOfGraph: return "end-of-graph";
  }
  return "?";
}

namespace {

// Grows one elementwise group: every node iterates over the same shape on the same device and
// reads group values only as they were produced (C-contiguous, whole), so one index serves all.
class GroupBuilder {
 public:
  explicit GroupBuilder(Node* first, size_t room) : mark(new_graph_mark()) {
    group.nodes.reserve(std::min<size_t>(room, static_cast<size_t>(graph_limits().max_group_ops)));
    add(first);
  }

  // Why `n` cannot join, or nothing if it can.
  bool can_join(Node* n, CutReason* why) const {
    const GraphLimits& lim = graph_limits();
    Node* first = group.nodes.front();
    if (!lim.fusion) return fail(why, CutReason::FusionDisabled);
    if (first->kind() == NodeKind::Opaque || n->kind() == NodeKind::Opaque) {
      return fail(why, CutReason::OpaqueNode);
    }
    if (closed) {
      if (!can_join_epilogue(n)) return fail(why, CutReason::AfterReduction);
      if (static_cast<int>(group.nodes.size()) >= lim.max_group_ops) return fail(why, CutReason::OpLimit);
      return true;
    }
    // A reduction closes the group: it computes the group's values as it reads them (one CUDA
    // kernel; on the CPU a few thousand at a time into a buffer that the reduction reads).
    if (n->kind() == NodeKind::Reduction && first->kind() == NodeKind::Elementwise &&
        n->device == first->device && n->inputs.size() == 1) {
      const Array& in = n->inputs[0];
      Node* prod = in.storage->producer.get();
      bool whole = prod && is_member(prod) && in.byte_offset == 0 &&
                   in.shape == first->out_shapes[0] && in.c_contiguous() &&
                   in.dtype == prod->out_dtypes[in.storage->producer_output];
      if (whole) return true;
    }
    if (first->kind() != NodeKind::Elementwise || n->kind() != NodeKind::Elementwise) {
      return fail(why, CutReason::NotFusable);
    }
    if (n->device != first->device) return fail(why, CutReason::DeviceChange);
    for (const Shape& s : n->out_shapes) {
      if (s != first->out_shapes[0]) return fail(why, CutReason::ShapeChange);
    }
    if (static_cast<int>(group.nodes.size()) >= lim.max_group_ops) return fail(why, CutReason::OpLimit);
    int new_inputs = 0, new_scalars = 0;
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const Array& in = n->inputs[i];
      Node* prod = in.storage->producer.get();
      if (prod && is_member(prod)) {
        bool whole = in.byte_offset == 0 && in.shape == first->out_shapes[0] && in.c_contiguous() &&
                     in.dtype == prod->out_dtypes[in.storage->producer_output];
        if (!whole) return fail(why, CutReason::ViewOfIntermediate);
      } else if (is_new_leaf(n, i)) {  // 0-d inputs are kernel parameters, not array inputs
        ++(in.ndim() > 0 ? new_inputs : new_scalars);
      }
    }
    if (inputs + new_inputs > lim.max_group_inputs) return fail(why, CutReason::InputLimit);
    if (param_bytes(inputs + new_inputs, scalars + new_scalars, generators + is_generator(n)) > lim.max_param_bytes) {
      return fail(why, CutReason::ParamLimit);
    }
    return true;
  }

  void add(Node* n) {
    if (n->kind() == NodeKind::Reduction) {
      closed = true;
      reduction = n;
    } else if (closed) {
      epilogue.insert(n);
    }
    group.nodes.push_back(n);
    n->group_mark = mark;
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const Array& in = n->inputs[i];
      Node* prod = in.storage->producer.get();
      if (prod && is_member(prod)) continue;
      bool added = false;
      leaves.insert(in, &added);
      if (added) ++(in.ndim() > 0 ? inputs : scalars);
    }
    generators += is_generator(n);
  }

  Group group;

 private:
  static bool fail(CutReason* why, CutReason r) {
    *why = r;
    return false;
  }
  // An elementwise node computed from the closing reduction's result, element for element: the
  // reduction's kernel finishes each output with it (sqrt(sum(x**2, axis=-1)) is one kernel).
  // It reads the result whole (any view that keeps its C order and size, such as keepdims=False
  // drops), earlier epilogue values whole, 0-d arrays, or other arrays of exactly its shape.
  bool can_join_epilogue(Node* n) const {
    if (n->kind() != NodeKind::Elementwise || n->device != reduction->device || n->inputs.empty()) return false;
    const Shape& shape = n->out_shapes[0];
    for (const Shape& s : n->out_shapes) {
      if (s != shape) return false;
    }
    if (!epilogue.empty() && shape != (*epilogue.begin())->out_shapes[0]) return false;
    if (numel(shape) != numel(reduction->out_shapes[0])) return false;
    for (const Array& in : n->inputs) {
      if (in.ndim() == 0) continue;
      Node* prod = in.storage->producer.get();
      const bool flat = in.shape == shape && in.c_contiguous() && in.byte_offset == 0;
      if (prod == reduction) {
        if (!flat || in.dtype != reduction->out_dtypes[0]) return false;
      } else if (prod && epilogue.count(prod)) {
        if (!flat || in.dtype != prod->out_dtypes[in.storage->producer_output]) return false;
      } else if (prod && is_member(prod)) {
        return false;  // a value of the reduction's input space
      } else if (!flat) {
        return false;
      }
    }
    return true;
  }

  static int is_generator(Node* n) { return n->kind() == NodeKind::Elementwise && n->inputs.empty(); }

  // An upper bound of the kernel's parameter bytes, as the group's backend lays them out.
  int64_t param_bytes(int arrays, int scalar_count, int generator_count) const {
    const Node* first = group.nodes.front();
    const int64_t rank = static_cast<int64_t>(first->out_shapes[0].size());
    return backend_for(first->device)
        .kernel_param_bytes(rank, arrays, scalar_count, generator_count);
  }

  bool is_member(const Node* n) const { return n->group_mark == mark; }
  // Whether input i of n is a view the group does not read yet (nor n's earlier inputs): the
  // program reads each distinct view once, so `b + 1.0` repeated is one scalar parameter.
  bool is_new_leaf(const Node* n, size_t i) const {
    const Array& in = n->inputs[i];
    for (size_t j = 0; j < i; ++j) {
      if (ViewSet::same_view(n->inputs[j], in)) return false;
    }
    return leaves.find(in) < 0;
  }

  uint64_t mark;  // the group_mark of the group's nodes
  PtrSet<Node*> epilogue;
  ViewSet leaves;  // the arrays the group reads from memory or as parameters
  Node* reduction = nullptr;
  int inputs = 0, scalars = 0, generators = 0;
  bool closed = false;  // ends in a reduction: only its epilogue joins
};

}  // namespace

std::vector<Group> plan_groups(const std::vector<Node*>& topo_order) {
  std::vector<Group> groups;
  if (topo_order.empty()) return groups;
  groups.reserve(4);
  GroupBuilder cur(topo_order[0], topo_order.size());
  for (size_t i = 1; i < topo_order.size(); ++i) {
    CutReason why = CutReason::EndOfGraph;
    if (cur.can_join(topo_order[i], &why)) {
      cur.add(topo_order[i]);
      continue;
    }
    cur.group.cut = why;
    groups.push_back(std::move(cur.group));
    cur = GroupBuilder(topo_order[i], topo_order.size() - i);
  }
  cur.group.cut = CutReason::EndOfGraph;
  groups.push_back(std::move(cur.group));
  return groups;
}

}  // namespace nf
