#include "numfuse/ir/group_program.h"

namespace nf {

const char* generator_name(Generator::Kind k) {
  switch (k) {
    case Generator::Kind::Fill: return "fill";
    case Generator::Kind::Arange: return "arange";
    case Generator::Kind::Eye: return "eye";
    case Generator::Kind::Uniform: return "random_uniform";
    case Generator::Kind::Normal: return "random_normal";
    case Generator::Kind::Integers: return "random_integers";
  }
  return "generator";
}

bool GroupProgram::has_generators() const {
  for (const ProgramStep& st : steps) {
    if (st.op.kind == ElementwiseOp::Kind::Generate) return true;
  }
  return false;
}

bool GroupProgram::uses_position() const {
  for (const ProgramStep& st : steps) {
    if (st.op.kind == ElementwiseOp::Kind::Generate || st.op.kind == ElementwiseOp::Kind::User) return true;
  }
  return false;
}

std::vector<ProgramStep>& spare_program_steps() {
  thread_local std::vector<ProgramStep> spare;
  return spare;
}

GroupProgram::~GroupProgram() {
  std::vector<ProgramStep>& spare = spare_program_steps();
  if (steps.capacity() > spare.capacity()) {
    steps.clear();
    spare.swap(steps);
  }
}

GroupProgram single_node_program(ElementwiseNode* node, const std::vector<Array>& outs) {
  GroupProgram p;
  p.shape = outs[0].shape;
  p.device = node->device;
  ProgramStep step{node, node->op(), {}};
  for (const Array& in : node->inputs) {
    ProgramValue v;
    v.leaf = static_cast<int>(p.leaves.size());
    p.leaves.push_back(in);
    step.args.push_back(v);
  }
  p.steps.push_back(std::move(step));
  for (size_t o = 0; o < outs.size(); ++o) {
    p.outputs.push_back({ProgramValue{-1, 0, static_cast<int>(o)}, outs[o]});
  }
  return p;
}

}  // namespace nf
