// A fused elementwise group as a backend-neutral program: leaves (materialised arrays read with
// any strides, broadcast to the group's shape), steps (one elementwise node each, reading leaves
// or earlier steps' values) and outputs (the step values that must be kept in memory).
// The CPU interpreter runs it in cache-sized runs; the CUDA backend turns it into one kernel.
#pragma once
#include <memory>
#include <vector>

#include "numfuse/ir/elementwise_node.h"

namespace nf {

struct ProgramValue {
  int leaf = -1;    // >= 0: leaves[leaf]
  int step = -1;    // >= 0: output `output` of steps[step]
  int output = 0;
};

struct ProgramStep {
  ElementwiseNode* node;
  ElementwiseOp op;
  SmallVector<ProgramValue, 3> args;
  // A step without a node (a backend's own copy for an assignment): the errstate of the call that
  // made it, which decides what its cast reports (0: nothing).
  FpState own_fp_state = 0;
};

struct ProgramOutput {
  ProgramValue value;
  Array array;  // C-contiguous over the storage's fresh buffer
};

struct GroupProgram {
  GroupProgram() = default;
  GroupProgram(GroupProgram&&) = default;
  GroupProgram& operator=(GroupProgram&&) = default;
  GroupProgram(const GroupProgram&) = default;
  GroupProgram& operator=(const GroupProgram&) = default;
  ~GroupProgram();  // hands its step storage to the next program (group_program.cpp)

  Shape shape;
  Device device;
  std::vector<Array> leaves;
  std::vector<ProgramStep> steps;
  std::vector<ProgramOutput> outputs;
  // When the group ends in a reduction: the value it reduces (step < 0 when none), and whether
  // that value is needed in memory too (someone else holds it).
  ProgramValue reduced;
  bool reduced_also_stored = false;
  // Generator nodes whose values the user still holds but nothing else in this evaluation needs:
  // computed in registers here and left pending (they hold no memory), so that a held random
  // sample or arange is recomputed where it is used instead of being written out now.
  std::vector<Node*> left_pending;
  // Whether some step is a generator: the kernel then needs each element's C-order position in
  // `shape` (a pseudo-operand with contiguous strides that no pointer backs).
  bool has_generators() const;
  // Whether some step reads the element's C-order position: generators, and users' elementwise
  // operations (their `i`).
  bool uses_position() const;
  // The dtype a value holds.
  DType dtype_of(const ProgramValue& v) const {
    return v.leaf >= 0 ? leaves[v.leaf].dtype : steps[v.step].op.out[v.output];
  }
};

// The step storage of finished programs, kept for the next one (a program's destructor hands its
// steps here; the program builder starts from them): a 64-step program's steps are ~14 KB, and a
// fresh block of that size made malloc consolidate its fast bins (the nodes the last evaluation
// freed) on every evaluation of a Python loop's chain.
std::vector<ProgramStep>& spare_program_steps();

// The program of one node writing into the given arrays: how a backend evaluates an elementwise
// node alone (graph/program_builder.h builds the programs of fused groups).
GroupProgram single_node_program(ElementwiseNode* node, const std::vector<Array>& outs);

}  // namespace nf
