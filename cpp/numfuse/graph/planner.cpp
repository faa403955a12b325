#include "numfuse/graph/planner.h"

namespace nf {

const char* cut_reason_name(CutReason r) {
  switch (r) {
    case CutReason::OneNodePerGroup: return "one-node-per-group";
    case CutReason::OpaqueNode: return "opaque-node";
    case CutReason::EndOfGraph: return "end-of-graph";
  }
  return "?";
}

std::vector<Group> plan_groups(const std::vector<Node*>& topo_order) {
  // Foundation: every node is its own group. The fusion planner replaces this body.
  std::vector<Group> groups;
  groups.reserve(topo_order.size());
  for (size_t i = 0; i < topo_order.size(); ++i) {
    Group g;
    g.nodes.push_back(topo_order[i]);
    bool last = i + 1 == topo_order.size();
    g.cut = last ? CutReason::EndOfGraph
                 : (topo_order[i]->kind() == NodeKind::Opaque ? CutReason::OpaqueNode
                                                               : CutReason::OneNodePerGroup);
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace nf
