// A pending operation in the lazy graph. Ops (ops/) validate eagerly and build Nodes; backends
// compute them. Each Node kind is a small subclass that only describes its work: every backend
// registers how it evaluates each kind (backend/backend.h), so this vocabulary names no device.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/core/block_pool.h"
#include "numfuse/core/fp_status.h"

namespace nf {

// How the planner may group a node with its neighbours.
enum class NodeKind : uint8_t {
  Elementwise,  // one output element from the inputs' elements at the same index
  Reduction,    // reduces some axes of one elementwise input
  Opaque,       // anything else (matmul, sort, gather): a group of its own
};

// A node's own lists live in the node pool: malloc's slow path for hundreds of same-sized blocks
// freed at once (a flushed chain) was a fifth of a recorded op's instructions.
template <class T>
using NodeVector = std::vector<T, PoolAllocator<T>>;

struct Node {
  NodeVector<Array> inputs;                    // dropped once evaluated
  NodeVector<std::weak_ptr<Storage>> outputs;
  SmallVector<DType, 2> out_dtypes;
  NodeVector<Shape> out_shapes;
  Device device;
  int depth = 0;               // longest pending chain below this node
  uint64_t visit_epoch = 0;    // scratch mark for graph walks
  // Scratch of the planner and the program builder: the node belongs to the group (program)
  // marked `group_mark`, at `group_index`. A mark instead of a hash set: membership is tested
  // for every input of every node of every evaluation.
  uint64_t group_mark = 0;
  int group_index = -1;
  bool done = false;           // evaluated: outputs are materialised, inputs dropped
  bool eval_root = false;      // asked for by an evaluation (a generator then is materialised)
  // Claimed by an evaluation that is running it with the graph lock released (graph/eval.cpp):
  // another thread's evaluation that needs it waits for it instead of running it twice.
  bool in_flight = false;
  uint8_t times_recomputed = 0;  // evaluations that recomputed this generator and left it pending
  // numpy.errstate when the op was recorded: the conditions its evaluation reports, and how.
  FpState fp_state = kFpDefaultState;

  virtual ~Node();
  virtual NodeKind kind() const = 0;
  virtual std::string name() const = 0;
  // Evaluation is the backends' (Backend::eval_node): from materialised inputs into `outs`,
  // C-contiguous arrays over fresh storage (elementwise nodes may also get a strided destination:
  // a write's target).
  // Whether every backend's evaluation of this opaque kind also accepts, as its one output, a
  // C-contiguous view into other memory (at any byte offset) that none of its inputs meets: a
  // write's target (`out[i] = v @ M`, graph/eval.cpp's eval_into), written with no temporary.
  virtual bool writes_contiguous_view() const { return false; }
};

// Whether a node may run at once instead of joining the graph: RunNow::IfSmall lets a small CPU
// node whose inputs are all materialised be evaluated in the call, as NumPy's op would be, when
// the graph's bookkeeping would cost more than the work (NUMFUSE_IMMEDIATE_MAX; "Immediate
// evaluation of small CPU ops" in docs/decisions.md). Ops pass it where the result is a fresh
// array nobody has seen (not out=, whose pending result is redirected into the destination).
enum class RunNow : uint8_t { Never, IfSmall };

// The graph's side of a node (defined in graph/eval.cpp): ops build a node and hand it over here.
// Registers `node` (inputs already set) and returns its pending outputs, one per (dtype, shape).
// Applies the graph limits: a node past them is evaluated at once.
std::vector<Array> make_pending(std::shared_ptr<Node> node, std::vector<DType> dtypes,
                                std::vector<Shape> shapes, RunNow run_now = RunNow::Never);
Array make_pending(std::shared_ptr<Node> node, DType dtype, Shape shape, RunNow run_now = RunNow::Never);
// The same for n outputs of one shape, written to outs[0..n) (the ufunc path: no vectors).
void make_pending(std::shared_ptr<Node> node, const DType* dtypes, const Shape& shape, int n, Array* outs,
                  RunNow run_now = RunNow::Never);

// A fresh mark for visit_epoch / group_mark (never 0, never repeated).
uint64_t new_graph_mark();

// The number of nodes alive and not yet evaluated.
int64_t pending_node_count();

}  // namespace nf
