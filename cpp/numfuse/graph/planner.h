// The fusion planner's entry point: cuts a topologically ordered pending graph into groups that a
// backend runs as one kernel each.
#pragma once
#include <vector>

#include "numfuse/graph/node.h"

namespace nf {

// Why a group ends where it does (traced with NUMFUSE_TRACE=1).
enum class CutReason : uint8_t {
  OneNodePerGroup,  // fusion is not implemented for this pair yet, or NUMFUSE_FUSION=0
  OpaqueNode,       // matmul, sort, gather...: a group of its own
  EndOfGraph,
};
const char* cut_reason_name(CutReason r);

struct Group {
  std::vector<Node*> nodes;  // in evaluation order
  CutReason cut = CutReason::EndOfGraph;
};

std::vector<Group> plan_groups(const std::vector<Node*>& topo_order);

}  // namespace nf
