// The CUDA code generator: generated sources compile with NVRTC (no GPU needed), parameters are
// laid out as declared, and the source depends on structure only (shapes and scalars do not
// change it).
#include <gtest/gtest.h>

#include <random>

#include "numfuse/backend/cuda/codegen_elementwise.h"
#include "numfuse/backend/cuda/codegen_reduce.h"
#include "numfuse/backend/cuda/kernel_templates.h"
#include "numfuse/backend/cuda/source_text.h"
#include "numfuse/backend/cuda/reduce_cuda.h"
#include "numfuse/core/iteration.h"
#include "numfuse/ir/elementwise_kinds.h"
#include "numfuse/kernels/scalar_ops.h"
#include "numfuse/ops/elementwise.h"
#include "numfuse/ops/views.h"
#include "nvrtc_check.h"

using namespace nf;
using namespace nf::cuda;

namespace {

std::vector<std::shared_ptr<Node>> keep;  // nodes must outlive the programs that point at them

// A program over host arrays that pretends to target cuda:0 (nothing is launched).
GroupProgram make_program(UFunc op, const Array& a, const Operand& b, DType out) {
  auto node = std::make_shared<UFuncNode>();
  node->ufunc = op;
  node->device = Device::cuda(0);
  node->inputs = {a, b.array};
  node->in_loop = {out, out};
  node->out_loop = {out};
  node->out_dtypes = {out};
  node->out_shapes = {a.shape};
  GroupProgram p;
  p.shape = a.shape;
  p.device = Device::cuda(0);
  p.leaves = {a, b.array};
  p.steps.push_back({node.get(), node->op(), {ProgramValue{0}, ProgramValue{1}}});
  p.outputs.push_back({ProgramValue{-1, 0, 0}, Array::empty(a.shape, out, Device::cpu())});
  keep.push_back(node);
  return p;
}

void expect_compiles(const std::string& src) { expect_nvrtc_compiles(src, "fused.cu"); }

}  // namespace

TEST(Codegen, ContiguousFloatKernelCompilesAndIsVectorised) {
  Array a = Array::empty({100000}, DType::Float32, Device::cpu());  // above kScalarLoopElements
  ElementwiseKernel k = generate_elementwise(make_program(UFunc::Add, a, Operand::of(a), DType::Float32));
  EXPECT_EQ(k.vec, 4);
  EXPECT_EQ(k.n, 100000);
  expect_compiles(std::string(kKernelPrelude) + k.body);
}

TEST(Codegen, ScalarsAreParametersNotSource) {
  Array a = Array::empty({10}, DType::Float64, Device::cpu());
  Array b = Array::empty({20}, DType::Float64, Device::cpu());
  double two = 2.0, three = 3.0;
  auto k1 = generate_elementwise(make_program(UFunc::Multiply, a, Operand::of(Array::scalar(&two, DType::Float64)), DType::Float64));
  auto k2 = generate_elementwise(make_program(UFunc::Multiply, b, Operand::of(Array::scalar(&three, DType::Float64)), DType::Float64));
  EXPECT_EQ(k1.body, k2.body);
  EXPECT_NE(k1.params, k2.params);
  expect_compiles(std::string(kKernelPrelude) + k1.body);
}

TEST(Codegen, StridedHalfAndComplexKernelsCompile) {
  Array a = Array::empty({6, 8}, DType::Float16, Device::cpu());
  Array t = transpose(a);
  auto k = generate_elementwise(make_program(UFunc::Maximum, t, Operand::of(t), DType::Float16));
  EXPECT_EQ(k.vec, 1);
  EXPECT_NE(k.body.find("p.stride"), std::string::npos);
  expect_compiles(std::string(kKernelPrelude) + k.body);
  Array z = Array::empty({5}, DType::Complex128, Device::cpu());
  expect_compiles(std::string(kKernelPrelude) + generate_elementwise(make_program(UFunc::Power, z, Operand::of(z), DType::Complex128)).body);
}

namespace {
ReduceSpec spec_of(ReduceOp op, DType loop, std::vector<bool> axes) {
  ReduceSpec s;
  s.op = op;
  s.loop = loop;
  s.axes = std::move(axes);
  return s;
}
}  // namespace

TEST(CodegenReduce, PlansFullInnerAndOuterReductions) {
  Array a = Array::empty({1000, 64}, DType::Float32, Device::cpu());
  ReducePlan full = plan_reduce(spec_of(ReduceOp::Sum, DType::Float32, {true, true}), a, 132);
  EXPECT_EQ(full.nout, 1);
  EXPECT_EQ(full.nred, 64000);
  EXPECT_FALSE(full.thread_per_output);
  EXPECT_GT(full.blocks_per_output, 1);
  ReducePlan outer = plan_reduce(spec_of(ReduceOp::Sum, DType::Float32, {true, false}), a, 132);
  EXPECT_EQ(outer.nout, 64);
  EXPECT_EQ(outer.red_stride, (Strides{64}));
  Array wide = Array::empty({10, 5000}, DType::Float64, Device::cpu());
  EXPECT_TRUE(plan_reduce(spec_of(ReduceOp::Max, DType::Float64, {true, false}), wide, 132).thread_per_output);
}

// The CUDA reduction's geometry comes from the setup pass (split_reduction): a reversed,
// transposed view reduced over its first and last axes keeps each part in C order, coalesced
// where the input allows, and the kernel compiles.
TEST(CodegenReduce, PlanComesFromTheSetupPass) {
  Array base = Array::empty({6, 5, 4}, DType::Float64, Device::cpu());
  // Axes reversed and the last two swapped: shape (6, 4, 5), strides (-20, -1, -4).
  Array v = base.view({6, 4, 5}, {-20, -1, -4}, 119 * 8);
  ReduceSpec spec = spec_of(ReduceOp::Sum, DType::Float64, {true, false, true});
  ReducePlan plan = plan_reduce(spec, v, 132);
  const ReduceSpaces want = split_reduction(v.shape, {v.strides}, spec.axes);
  EXPECT_EQ(plan.kept_shape, want.kept.shape);
  EXPECT_EQ(plan.kept_stride, want.kept.strides[0]);
  EXPECT_EQ(plan.red_shape, (Shape{30}));  // dims 0 and 2 step through memory as one (-20 = 5 * -4)
  EXPECT_EQ(plan.red_stride, (Strides{-4}));
  EXPECT_EQ(plan.kept_stride, (Strides{-1}));
  expect_compiles(std::string(kKernelPrelude) + generate_reduce(spec, v, plan).body);
  // A C-contiguous middle axis kept: the reduced leading and trailing dims stay apart.
  Array c = Array::empty({6, 5, 4}, DType::Float32, Device::cpu());
  ReducePlan mid = plan_reduce(spec_of(ReduceOp::Max, DType::Float32, {true, false, true}), c, 132);
  EXPECT_EQ(mid.red_shape, (Shape{6, 4}));
  EXPECT_EQ(mid.red_stride, (Strides{20, 1}));
  ReducePlan lead = plan_reduce(spec_of(ReduceOp::Max, DType::Float32, {true, true, false}), c, 132);
  EXPECT_EQ(lead.red_shape, (Shape{30}));
  EXPECT_EQ(lead.red_stride, (Strides{4}));
}

TEST(CodegenReduce, EveryOpCompiles) {
  Array f = Array::empty({4, 300}, DType::Float16, Device::cpu());
  Array z = Array::empty({4, 300}, DType::Complex64, Device::cpu());
  Array i = Array::empty({4, 300}, DType::Int8, Device::cpu());
  struct Case { ReduceOp op; const Array* a; DType loop; };
  for (Case c : {Case{ReduceOp::Sum, &f, DType::Float16}, Case{ReduceOp::Prod, &z, DType::Complex64},
                 Case{ReduceOp::Max, &f, DType::Float16}, Case{ReduceOp::Fmin, &f, DType::Float16},
                 Case{ReduceOp::Any, &i, DType::Bool}, Case{ReduceOp::All, &z, DType::Bool},
                 Case{ReduceOp::ArgMax, &f, DType::Int64}, Case{ReduceOp::ArgMin, &i, DType::Int64},
                 Case{ReduceOp::Sum, &i, DType::Int64}, Case{ReduceOp::Var, &i, DType::Float64},
                 Case{ReduceOp::Var, &f, DType::Float32}}) {
    ReduceSpec spec = spec_of(c.op, c.loop, {false, true});
    ReduceKernel k = generate_reduce(spec, *c.a, plan_reduce(spec, *c.a, 132));
    SCOPED_TRACE(reduce_op_name(c.op));
    expect_compiles(std::string(kKernelPrelude) + k.body);
  }
}

TEST(CodegenReduce, FusedPrologueCompiles) {
  // sum(x * 2.0 + y, axis=1) with y broadcast along the reduced axis, as one kernel.
  Array x = Array::empty({40, 300}, DType::Float64, Device::cpu());
  Array y = Array::empty({40, 1}, DType::Float64, Device::cpu());
  double two = 2.0;
  GroupProgram p = make_program(UFunc::Multiply, x, Operand::of(Array::scalar(&two, DType::Float64)),
                                DType::Float64);
  auto add = std::make_shared<UFuncNode>();
  add->ufunc = UFunc::Add;
  add->in_loop = {DType::Float64, DType::Float64};
  add->out_loop = {DType::Float64};
  keep.push_back(add);
  p.leaves.push_back(y);
  p.steps.push_back({add.get(), add->op(), {ProgramValue{-1, 0, 0}, ProgramValue{2}}});
  p.outputs.clear();
  p.reduced = ProgramValue{-1, 1, 0};
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::ArgMin, ReduceOp::Any}) {
    ReduceSpec spec = spec_of(op, op == ReduceOp::Any ? DType::Bool : DType::Float64, {false, true});
    FusedReduceKernel k = generate_reduce_fused(spec, p, 132);
    EXPECT_EQ(k.plan.nout, 40);
    EXPECT_EQ(k.plan.nred, 300);
    SCOPED_TRACE(reduce_op_name(op));
    expect_compiles(std::string(kKernelPrelude) + k.body);
  }
}

TEST(CodegenReduce, EpilogueAndGeneratorsCompileIntoTheReductionKernel) {
  // sqrt(sum(x**2 + u, axis=1)) * w + 1 with u a random draw: prologue, generator, epilogue, one
  // kernel for each plan variant (block, warp, thread per output).
  for (const Shape& shape : {Shape{40, 300}, Shape{100000, 100}, Shape{300, 40000}}) {
    Array x = Array::empty(shape, DType::Float64, Device::cpu());
    GroupProgram p = make_program(UFunc::Multiply, x, Operand::of(x), DType::Float64);
    ElementwiseOp gen{ElementwiseOp::Kind::Generate, UFunc::Add, {}, {DType::Float64}};
    gen.gen.kind = Generator::Kind::Uniform;
    p.steps.push_back({nullptr, gen, {}});
    auto add = std::make_shared<UFuncNode>();
    add->ufunc = UFunc::Add;
    add->in_loop = {DType::Float64, DType::Float64};
    add->out_loop = {DType::Float64};
    keep.push_back(add);
    p.steps.push_back({add.get(), add->op(), {ProgramValue{-1, 0, 0}, ProgramValue{-1, 1, 0}}});
    p.outputs.clear();
    p.reduced = ProgramValue{-1, 2, 0};
    Array result = Array::empty({shape[0], 1}, DType::Float64, Device::cpu());
    Array w = Array::empty({shape[0]}, DType::Float64, Device::cpu());
    double one = 1.0;
    GroupProgram e = make_program(UFunc::Sqrt, reshape(result, {shape[0]}), Operand::of(w), DType::Float64);
    e.steps[0].args.pop_back();
    e.steps[0].op.in.pop_back();
    e.steps.push_back({add.get(), add->op(), {ProgramValue{-1, 0, 0}, ProgramValue{1}}});  // + w
    e.leaves.push_back(Array::scalar(&one, DType::Float64));
    e.steps.push_back({add.get(), add->op(), {ProgramValue{-1, 1, 0}, ProgramValue{2}}});  // + 1
    e.outputs[0].value = ProgramValue{-1, 2, 0};
    e.outputs[0].array = Array::empty({shape[0]}, DType::Float64, Device::cpu());
    ASSERT_TRUE(can_fuse_epilogue(e));
    ReduceSpec spec = spec_of(ReduceOp::Sum, DType::Float64, {false, true});
    FusedReduceKernel k = generate_reduce_fused(spec, p, 132, &e, result.storage.get());
    EXPECT_NE(k.body.find("nf_finish"), std::string::npos);
    EXPECT_NE(k.body.find("nf::gen::uniform<double>"), std::string::npos);
    EXPECT_NE(k.body.find("p.eptr[0])[o] ="), std::string::npos);
    if (shape[0] == 40) EXPECT_NE(k.body.find("nf_elem2"), std::string::npos);  // uniforms in pairs
    expect_compiles(std::string(kKernelPrelude) + k.body);
  }
}

TEST(CodegenReduce, ShortRowsGetAWarpEach) {
  Array a = Array::empty({100000, 1000}, DType::Float64, Device::cpu());
  ReduceSpec spec = spec_of(ReduceOp::Sum, DType::Float64, {false, true});
  ReducePlan plan = plan_reduce(spec, a, 132);
  EXPECT_TRUE(plan.warp_per_output);
  expect_compiles(std::string(kKernelPrelude) + generate_reduce(spec, a, plan).body);
  ReduceSpec arg = spec_of(ReduceOp::ArgMax, DType::Int64, {false, true});
  expect_compiles(std::string(kKernelPrelude) + generate_reduce(arg, a, plan_reduce(arg, a, 132)).body);
}

TEST(Codegen, Float16NextafterStepsInHalfPrecision) {
  Array h = Array::empty({8}, DType::Float16, Device::cpu());
  ElementwiseKernel k = generate_elementwise(make_program(UFunc::Nextafter, h, Operand::of(h), DType::Float16));
  EXPECT_NE(k.body.find("nextafter_half_value"), std::string::npos);
  expect_compiles(std::string(kKernelPrelude) + k.body);
  // The host twin of the device function agrees with the CPU loop's bit stepping.
  EXPECT_EQ(nf::sop::nextafter_half_value(1.0f, 2.0f), float(half::to_float(0x3c01)));
  EXPECT_EQ(nf::sop::nextafter_half_value(0.0f, -1.0f), -half::to_float(0x0001));
}

namespace {
uint64_t fast_quotient(uint64_t n, const FastDivisor& f, bool idx32) {
  if (idx32) return ((((n * f.magic) >> 32) & 0xffffffffu) + n) >> f.shift;  // __umulhi on 32 bits
  return static_cast<uint64_t>(((static_cast<unsigned __int128>(n) * f.magic) >> 64) + n) >> f.shift;
}
}  // namespace

TEST(Codegen, FastDivisionEqualsDivisionOverTheIndexRange) {
  std::mt19937_64 gen(7);
  for (bool idx32 : {true, false}) {
    const uint64_t top = idx32 ? (uint64_t(1) << 31) - 1 : (uint64_t(1) << 63) - 1;
    std::vector<uint64_t> divisors = {1, 2, 3, 5, 7, 8190, 8192, 1000, 65535, 65536, 65537, 999983};
    for (int i = 0; i < 200; ++i) divisors.push_back(1 + gen() % (idx32 ? 100000 : top));
    if (idx32) divisors.insert(divisors.end(), {(uint64_t(1) << 30) + 1, top});
    for (uint64_t d : divisors) {
      const FastDivisor f = fast_divisor(static_cast<int64_t>(d), idx32);
      std::vector<uint64_t> ns = {0, 1, d - 1, d, d + 1, top, top - 1, top / d * d, top / d * d - 1};
      for (int i = 0; i < 200; ++i) ns.push_back(gen() % (top + 1));
      for (uint64_t n : ns) {
        if (n > top) continue;
        ASSERT_EQ(fast_quotient(n, f, idx32), n / d) << n << " / " << d << (idx32 ? " (32-bit)" : " (64-bit)");
      }
    }
  }
}

TEST(Codegen, SmallKernelsTakeOneElementAThreadWhateverTheirAlignment) {
  // The real and imaginary views of a complex64 array (the second 4 bytes off 16-byte alignment),
  // and odd and even extents, share one kernel at a launch-bound size.
  Array z = Array::empty({3, 5}, DType::Float32, Device::cpu());
  Array re = z.view({3, 5}, z.strides, 0), im = z.view({3, 5}, z.strides, 4);
  auto kre = generate_elementwise(make_program(UFunc::Add, re, Operand::of(re), DType::Float32));
  auto kim = generate_elementwise(make_program(UFunc::Add, im, Operand::of(im), DType::Float32));
  EXPECT_EQ(kre.vec, 1);
  EXPECT_EQ(kre.key, kim.key);
  Array a = Array::empty({6, 8}, DType::Float32, Device::cpu());
  auto odd = generate_elementwise(make_program(UFunc::Add, a.view({6, 7}, a.strides, 4),
                                               Operand::of(a.view({6, 7}, a.strides, 4)), DType::Float32));
  auto even = generate_elementwise(make_program(UFunc::Add, a.view({6, 6}, a.strides, 4),
                                                Operand::of(a.view({6, 6}, a.strides, 4)), DType::Float32));
  EXPECT_EQ(odd.vec, 1);
  EXPECT_EQ(odd.key, even.key);
  expect_compiles(std::string(kKernelPrelude) + kim.body);
}

TEST(Codegen, StridedRunsNeedUnitInnerStridesAndAnEvenExtent) {
  Array a = Array::empty({600, 800}, DType::Float32, Device::cpu());  // above kScalarLoopElements
  Array odd = a.view({600, 799}, a.strides, 4);         // a[:, 1:]: extent 799
  Array even = a.view({600, 798}, a.strides, 4);        // a[:, 1:-1]
  Array stepped = a.view({600, 400}, {800, 2}, 0);      // a[:, ::2]
  EXPECT_EQ(generate_elementwise(make_program(UFunc::Add, odd, Operand::of(odd), DType::Float32)).vec, 1);
  EXPECT_EQ(generate_elementwise(make_program(UFunc::Add, even, Operand::of(even), DType::Float32)).vec, 2);
  EXPECT_EQ(generate_elementwise(make_program(UFunc::Add, stepped, Operand::of(stepped), DType::Float32)).vec, 1);
  auto k = generate_elementwise(make_program(UFunc::Add, even, Operand::of(even), DType::Float32));
  EXPECT_FALSE(k.contiguous);
  expect_compiles(std::string(kKernelPrelude) + k.body);
}

TEST(Codegen, StridedKernelDividesByMagicNumbersNotDivideInstructions) {
  Array a = Array::empty({7, 9, 11}, DType::Float64, Device::cpu());
  Array t = transpose(a);
  auto k = generate_elementwise(make_program(UFunc::Add, t, Operand::of(t), DType::Float64));
  EXPECT_FALSE(k.contiguous);
  EXPECT_NE(k.body.find("nf_fdiv"), std::string::npos);
  EXPECT_EQ(k.body.find(" % "), std::string::npos) << k.body;
  expect_compiles(std::string(kKernelPrelude) + k.body);
}

TEST(Codegen, ViewsWithEqualStridesShareTheirOffset) {
  // a[:-2, 1:-1] + a[2:, 1:-1] into a fresh (contiguous) output: the two views share one offset,
  // the output has its own.
  Array a = Array::empty({400, 500}, DType::Float64, Device::cpu());
  Array up = a.view({398, 498}, a.strides, 8);
  Array down = a.view({398, 498}, a.strides, (2 * 500 + 1) * 8);
  auto k = generate_elementwise(make_program(UFunc::Add, up, Operand::of(down), DType::Float64));
  ASSERT_FALSE(k.contiguous);
  EXPECT_EQ(k.operands[2].same_offset_as, 1);
  EXPECT_EQ(k.operands[1].same_offset_as, -1);
  EXPECT_EQ(k.body.find("o2 +="), std::string::npos) << k.body;
  EXPECT_NE(k.body.find("p.ptr[2])[o1 + k]"), std::string::npos) << k.body;
  EXPECT_EQ(k.vec, 2) << "unit inner strides and an even extent: runs of two";
  expect_compiles(std::string(kKernelPrelude) + k.body);
}

// ---- the fixed scaffolding comes from the embedded .cuh files (backend/cuda/kernel_templates.h)
// --

namespace {

bool has(const std::string& body, const char* templ) {
  return body.find(templ) != std::string::npos;
}

// A template's text after its last placeholder: fixed, so every source filled from it holds it.
std::string fixed_tail(const char* templ) {
  const std::string t = templ;
  return t.substr(t.find('}', t.rfind("${")) + 1);
}

}  // namespace

TEST(KernelTemplates, ElementwiseAndReductionKernelsAppendTheirTemplatesAndCompile) {
  // Elementwise: the contiguous variant takes the vector type only; the strided one (32- and
  // 64-bit indices alike, through nf_fdiv's overloads) the fast division too.
  Array x = Array::empty({40, 30}, DType::Float32, Device::cpu());
  ElementwiseKernel flat =
      generate_elementwise(make_program(UFunc::Add, x, Operand::of(x), DType::Float32));
  ASSERT_TRUE(flat.contiguous);
  EXPECT_TRUE(has(flat.body, kernel_templates::vector_types));
  EXPECT_FALSE(has(flat.body, kernel_templates::fast_divide));
  EXPECT_TRUE(has(flat.body, fixed_tail(kernel_templates::elementwise).c_str()));
  expect_compiles(std::string(kKernelPrelude) + flat.body);
  Array xt = transpose(x, {1, 0});
  GroupProgram strided_program = make_program(UFunc::Add, xt, Operand::of(xt), DType::Float32);
  for (bool idx32 : {true, false}) {
    ElementwiseKernel k = plan_elementwise(strided_program);
    ASSERT_FALSE(k.contiguous);
    k.idx32 = idx32;  // the 64-bit variant is planned only past kMaxElementwisePieces pieces
    k.body = elementwise_body(strided_program, k);
    EXPECT_TRUE(has(k.body, kernel_templates::fast_divide));
    EXPECT_TRUE(has(k.body, fixed_tail(kernel_templates::elementwise).c_str()));
    EXPECT_NE(k.body.find(idx32 ? "typedef int nf_idx" : "typedef long long nf_idx"),
              std::string::npos);
    expect_compiles(std::string(kKernelPrelude) + k.body);
  }
  // Reductions, each scheme: a block per output (with the second pass), a warp, a thread.
  struct Case {
    Shape shape;
    std::vector<bool> axes;
    const char* scheme;
  };
  for (const Case& c :
       {Case{{4, 3000}, {false, true}, "block"}, Case{{1000, 64}, {false, true}, "warp"},
        Case{{10, 5000}, {true, false}, "thread"}}) {
    SCOPED_TRACE(c.scheme);
    Array a = Array::empty(c.shape, DType::Float64, Device::cpu());
    ReduceSpec spec = spec_of(ReduceOp::Sum, DType::Float64, c.axes);
    ReducePlan plan = plan_reduce(spec, a, 132);
    const bool block = !plan.warp_per_output && !plan.thread_per_output;
    EXPECT_EQ(block, std::string(c.scheme) == "block");
    EXPECT_EQ(plan.warp_per_output, std::string(c.scheme) == "warp");
    ReduceKernel k = generate_reduce(spec, a, plan);
    EXPECT_TRUE(has(k.body, kernel_templates::reduce_tree));
    EXPECT_TRUE(has(k.body, fixed_tail(kernel_templates::reduce).c_str()));
    const char* scheme = block                  ? "#define NF_REDUCE_SCHEME 2"
                         : plan.warp_per_output ? "#define NF_REDUCE_SCHEME 0"
                                                : "#define NF_REDUCE_SCHEME 1";
    EXPECT_TRUE(has(k.body, scheme)) << scheme;
    expect_compiles(std::string(kKernelPrelude) + k.body);
  }
  // A fused reduction (its input computed in the kernel) runs the same kernels.
  GroupProgram p = make_program(
      UFunc::Multiply, Array::empty({4, 3000}, DType::Float64, Device::cpu()),
      Operand::of(Array::empty({4, 3000}, DType::Float64, Device::cpu())), DType::Float64);
  p.outputs.clear();
  p.reduced = ProgramValue{-1, 0, 0};
  FusedReduceKernel fk =
      generate_reduce_fused(spec_of(ReduceOp::Max, DType::Float64, {false, true}), p, 132);
  EXPECT_TRUE(has(fk.body, kernel_templates::reduce_tree));
  EXPECT_TRUE(has(fk.body, fixed_tail(kernel_templates::reduce).c_str()));
  EXPECT_TRUE(has(fk.body, "#define NF_REDUCE_SCHEME 2"));
  expect_compiles(std::string(kKernelPrelude) + fk.body);
}

TEST(KernelTemplates, FillTemplateReplacesEveryPlaceholderAndRefusesDrift) {
  EXPECT_EQ(fill_template("a ${x} b ${y} ${x}", {{"x", "1"}, {"y", "22"}}), "a 1 b 22 1");
  EXPECT_EQ(fill_template("no holes", {}), "no holes");
  EXPECT_THROW(fill_template("a ${x} ${z}", {{"x", "1"}}), std::logic_error);  // z has no value
  EXPECT_THROW(fill_template("a ${x}", {{"x", "1"}, {"y", "2"}}), std::logic_error);  // y unused
  EXPECT_THROW(fill_template("a ${x", {{"x", "1"}}), std::logic_error);
}
