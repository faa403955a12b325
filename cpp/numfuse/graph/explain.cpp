// numfuse.explain: the plan and generated kernels of a pending array, without evaluating it.
#include <string>

#include "numfuse/backend/backend.h"
#include "numfuse/core/type_resolution.h"
#include "numfuse/graph/eval.h"
#include "numfuse/graph/planner.h"
#include "numfuse/graph/program_builder.h"
#include "numfuse/ir/reduce.h"

namespace nf {

std::vector<Node*> pending_graph(const Array& a);  // eval.cpp

namespace {

std::string dtype_list(const std::vector<DType>& d) {
  std::string s;
  for (DType t : d) s += std::string(s.empty() ? "" : ",") + dtype_name(t);
  return s;
}

std::string describe_program(const GroupProgram& p) {
  std::string s = "    leaves:";
  for (size_t l = 0; l < p.leaves.size(); ++l) {
    const Array& a = p.leaves[l];
    s += " a" + std::to_string(l) + "=" + dtype_name(a.dtype) + shape_str(a.shape);
  }
  s += "\n";
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const ProgramStep& st = p.steps[i];
    s += "    v" + std::to_string(i) + " = " + st.node->name() + "(";
    for (size_t k = 0; k < st.args.size(); ++k) {
      const ProgramValue& v = st.args[k];
      s += (k ? ", " : "") + (v.leaf >= 0 ? "a" + std::to_string(v.leaf) : "v" + std::to_string(v.step));
    }
    s += ") in " + dtype_list(st.op.in) + " -> " + dtype_list(st.op.out) + "\n";
  }
  s += "    written to memory:";
  for (const ProgramOutput& o : p.outputs) s += " v" + std::to_string(o.value.step);
  if (p.outputs.empty()) s += " (nothing: the closing reduction reads its values in-kernel)";
  return s + "\n";
}

bool inputs_in_memory(const GroupProgram& p) {
  for (const Array& a : p.leaves) {
    if (a.pending()) return false;
  }
  return true;
}

}  // namespace

std::string explain(const Array& a) {
  std::lock_guard<std::recursive_mutex> lock(graph_mutex());
  if (!a.pending()) return "nothing pending: the array is in memory\n";
  std::vector<Node*> order = pending_graph(a);
  std::vector<Group> groups = plan_groups(order);
  std::string s = std::to_string(order.size()) + " pending node(s) in " + std::to_string(groups.size()) +
                  " group(s) on " + a.device().str() + "\n";
  bool& dry = program_dry_run();
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    std::string names;
    for (Node* n : g.nodes) names += (names.empty() ? "" : " ") + n->name();
    s += "group " + std::to_string(i) + ": " + std::to_string(g.nodes.size()) + " node(s) [" + names +
         "] over " + shape_str(g.nodes.front()->out_shapes[0]) + ", cut: " + cut_reason_name(g.cut) + "\n";
    size_t r = g.nodes.size();  // the reduction's position, if the group has one
    for (size_t k = 0; k < g.nodes.size(); ++k) {
      if (g.nodes[k]->kind() == NodeKind::Reduction) r = k;
    }
    const bool has_reduction = r < g.nodes.size();
    if (g.nodes.front()->kind() != NodeKind::Elementwise && !has_reduction) continue;
    dry = true;
    try {
      GroupProgram p, e;
      const bool prologue = !has_reduction || r > 0;
      if (prologue) {
        p = has_reduction ? build_program(g, r, g.nodes[r]->inputs[0].storage.get()) : build_program(g);
      }
      Group epilogue_group;
      if (has_reduction) epilogue_group.nodes.assign(g.nodes.begin() + static_cast<std::ptrdiff_t>(r) + 1, g.nodes.end());
      if (!epilogue_group.nodes.empty()) e = build_program(epilogue_group);
      dry = false;
      if (prologue) s += describe_program(p);
      if (!epilogue_group.nodes.empty()) {
        s += "    epilogue over " + shape_str(e.shape) + " (from the " + g.nodes[r]->name() + " result):\n";
        s += describe_program(e);
      }
      if (prologue && inputs_in_memory(p)) {
        // What the device's backend makes of the group (the generated kernel, on CUDA).
        s += backend_for(g.nodes.front()->device)
                 .explain_group(p, has_reduction ? static_cast<ReduceNode*>(g.nodes[r]) : nullptr,
                                epilogue_group.nodes.empty() ? nullptr : &e);
      }
    } catch (...) {
      dry = false;
      throw;
    }
  }
  return s;
}

}  // namespace nf
