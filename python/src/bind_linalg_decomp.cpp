// numfuse._core.linalg_decomp: the LAPACK operations of numpy.linalg (ops/linalg_decomp.h), for
// python/numfuse/_linalg_decomp.py, which does each function's argument handling.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "numfuse/core/error.h"
#include "numfuse/core/stage_trace.h"
#include "numfuse/graph/eval.h"
#include "numfuse/ops/linalg_decomp.h"

namespace nf::py {

namespace {

LinalgOp op_from_name(const std::string& name) {
  static const LinalgOp kAll[] = {
      LinalgOp::Inv,  LinalgOp::Solve,    LinalgOp::Det, LinalgOp::Slogdet, LinalgOp::Cholesky,
      LinalgOp::QrRaw, LinalgOp::QrQ,     LinalgOp::Eigh, LinalgOp::Eigvalsh, LinalgOp::Svd,
      LinalgOp::Svdvals, LinalgOp::Eig,   LinalgOp::Eigvals};
  for (LinalgOp op : kAll) {
    if (name == linalg_op_name(op)) return op;
  }
  throw ValueError("unknown linalg operation '" + name + "'");
}

}  // namespace

void bind_linalg_decomp(nb::module_& m) {
  m.def(
      "linalg_decomp",
      [](const std::string& op, const std::vector<Array>& inputs, bool upper, bool full_matrices,
         int64_t cols, bool raise_on_failure, bool widen, bool now) {
        stage_trace_begin("binding");
        LinalgSpec spec;
        spec.op = op_from_name(op);
        spec.upper = upper;
        spec.full_matrices = full_matrices;
        spec.cols = cols;
        spec.raise_on_failure = raise_on_failure;
        spec.widen = widen;
        std::vector<Array> outs = linalg_decomp(spec, inputs);
        stage_mark("node built");
        // now: evaluated before returning (numpy.linalg raises at the call), which saves the
        // front end a second call into C++ (_core.eval) on the path of a small stack's call.
        if (now) {
          stage_mark("eval binding");
          eval(outs, FlushReason::Explicit);  // releases the GIL itself when long
          stage_trace_end("eval returned");
        }
        return outs;
      },
      nb::arg("op"), nb::arg("inputs"), nb::arg("upper") = false,
      nb::arg("full_matrices") = false, nb::arg("cols") = 0, nb::arg("raise_on_failure") = true,
      nb::arg("widen") = false, nb::arg("now") = false,
      "The outputs of one LAPACK operation of numpy.linalg on a stack of matrices, pending (or "
      "evaluated: now=True).");
}

}  // namespace nf::py
