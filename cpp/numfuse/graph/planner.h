// The fusion planner's entry point: cuts a topologically ordered pending graph into groups that a
// backend runs as one kernel each.
#pragma once
#include <vector>

#include "numfuse/ir/node.h"

namespace nf {

// Why a group ends where it does (traced with NUMFUSE_TRACE=1).
enum class CutReason : uint8_t {
  FusionDisabled,      // NUMFUSE_FUSION=0: one node per group
  NotFusable,          // the next node is not elementwise (a reduction, an opaque op, a source)
  OpaqueNode,          // matmul, sort, gather...: a group of its own
  ShapeChange,         // the next node iterates over another shape
  DeviceChange,        // the next node runs on another device
  ViewOfIntermediate,  // the next node reads a group value through a view (other strides)
  OpLimit,             // NUMFUSE_MAX_GROUP_OPS reached
  InputLimit,          // NUMFUSE_MAX_GROUP_INPUTS reached
  ParamLimit,          // the kernel's parameters would pass NUMFUSE_MAX_KERNEL_PARAM_BYTES
  AfterReduction,      // the group ends in the reduction that absorbed it
  EndOfGraph,
};
const char* cut_reason_name(CutReason r);

struct Group {
  std::vector<Node*> nodes;  // in evaluation order
  CutReason cut = CutReason::EndOfGraph;
};

std::vector<Group> plan_groups(const std::vector<Node*>& topo_order);

}  // namespace nf
