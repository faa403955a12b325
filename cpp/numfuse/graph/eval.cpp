#include "numfuse/graph/eval.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <new>

#include "numfuse/backend/backend.h"
#include "numfuse/core/allocation_limit.h"
#include "numfuse/core/block_pool.h"
#include "numfuse/core/error.h"
#include "numfuse/core/fp_status.h"
#include "numfuse/core/interrupt.h"
#include "numfuse/core/iteration.h"
#include "numfuse/core/stage_trace.h"
#include "numfuse/graph/fork.h"
#include "numfuse/graph/planner.h"
#include "numfuse/graph/program_builder.h"
#include "numfuse/ir/node.h"
#include "numfuse/ir/reduce.h"

namespace nf {

namespace {
std::atomic<int64_t> g_pending_nodes{0};
std::atomic<uint64_t> g_epoch{1};
}  // namespace

std::recursive_mutex& graph_mutex() {
  static std::recursive_mutex m;
  return m;
}

namespace {

EvalHooks g_hooks;

// Signalled (under graph_mutex) when an evaluation lets go of the nodes it claimed. Leaked: a
// child after fork gets a fresh one (graph/fork.cpp), the parent's waiters being gone.
std::condition_variable_any* g_node_done = new std::condition_variable_any();

// The claimed nodes of every evaluation now running, under graph_mutex: a child after fork
// releases the claims of the parent's other threads, which do not exist there.
struct ClaimedNodes {
  Node* const* nodes;
  size_t count;
};
std::vector<ClaimedNodes>& active_evaluations() {
  static auto* v = new std::vector<ClaimedNodes>();
  return *v;
}

// Planned work (elements read and written) from which an evaluation lets other threads run:
// releasing and retaking the GIL costs about a microsecond, this much work tens of them.
constexpr int64_t kLongWork = int64_t(1) << 16;

// This thread's evaluations: how deep they nest, and whether the outermost one began blocking.
struct EvalThreadState {
  int depth = 0;
  bool blocking = false;
  void* token = nullptr;
};
thread_local EvalThreadState t_eval;

// Lets other threads run for the rest of this thread's outermost evaluation.
void begin_blocking() {
  if (t_eval.blocking || t_eval.depth == 0) return;
  t_eval.blocking = true;
  if (g_hooks.begin_blocking) t_eval.token = g_hooks.begin_blocking();
}

// One per public entry point; the outermost one ends the blocking after everything it locked is
// released (its body's locks are destroyed first).
struct EntryScope {
  EntryScope() { ++t_eval.depth; }
  ~EntryScope() {
    if (--t_eval.depth == 0 && t_eval.blocking) {
      t_eval.blocking = false;
      if (g_hooks.end_blocking) g_hooks.end_blocking(t_eval.token);
      t_eval.token = nullptr;
    }
  }
};

// Runs an entry point's body; an interrupted outermost evaluation hands the signal to the host
// language, and runs again when its handler raised nothing.
template <class F>
auto run_entry(F&& body) {
  for (;;) {
    try {
      EntryScope scope;
      return body();
    } catch (const Interrupted&) {
      if (t_eval.depth > 0 || !g_hooks.deliver_interrupt) throw;
      g_hooks.deliver_interrupt();
    }
  }
}

// The graph lock, without holding up other threads while another evaluation plans.
std::unique_lock<std::recursive_mutex> lock_graph() {
  std::unique_lock<std::recursive_mutex> lk(graph_mutex(), std::try_to_lock);
  if (!lk.owns_lock()) {
    begin_blocking();
    lk.lock();
  }
  return lk;
}

// Waits (graph lock released) until some evaluation lets go of its claimed nodes.
void wait_for_other_evaluation(std::unique_lock<std::recursive_mutex>& lk) {
  begin_blocking();
  g_node_done->wait_for(lk, std::chrono::milliseconds(50));  // and polls for Ctrl-C
  check_interrupt();
}

}  // namespace

void set_eval_hooks(const EvalHooks& hooks) { g_hooks = hooks; }

void run_blocking(const std::function<void()>& fn) {
  run_entry([&] {
    begin_blocking();
    fn();
  });
}

void graph_lock_for_fork() { graph_mutex().lock(); }
void graph_unlock_after_fork_parent() { graph_mutex().unlock(); }

void graph_after_fork_child() {
  // Evaluations of the parent's other threads do not go on here: their claims are released (the
  // nodes they had not finished stay pending, whole, as after an interrupt) and their waiters,
  // gone, leave a fresh condition variable behind.
  for (const ClaimedNodes& c : active_evaluations()) {
    for (size_t i = 0; i < c.count; ++i) c.nodes[i]->in_flight = false;
  }
  active_evaluations().clear();
  g_node_done = new std::condition_variable_any();
  t_eval = EvalThreadState{};
  // Made anew rather than unlocked: a recursive mutex records its owner's thread id, which the
  // child's thread does not have, so unlocking it there fails.
  new (&graph_mutex()) std::recursive_mutex();
}

WriteRedirect& write_redirect() {
  thread_local WriteRedirect r;
  return r;
}

namespace {
// Floating-point events are handed to the front end (warnings, FloatingPointError, callbacks:
// Python code) once the outermost evaluation of the thread is over and the graph lock is
// released, never while it is held (core/fp_status.h).
struct EvalScope {
  int unwinding = std::uncaught_exceptions();
  EvalScope() { fp_enter_evaluation(); }
  ~EvalScope() { fp_leave_evaluation(std::uncaught_exceptions() > unwinding); }
};
void report_fp_events_if_outermost() { fp_report_if_outermost(); }
}  // namespace

uint64_t new_graph_mark() { return g_epoch.fetch_add(1, std::memory_order_relaxed); }

int64_t pending_node_count() { return g_pending_nodes.load(std::memory_order_relaxed); }

Node::~Node() {
  // A node dies unevaluated when nothing needs its outputs any more.
  if (!done) g_pending_nodes.fetch_sub(1, std::memory_order_relaxed);
}

namespace {

// Inputs that are still pending, as their producer nodes.
template <class F>
void for_each_pending_input(Node* n, F&& f) {
  for (const Array& in : n->inputs) {
    if (in.storage->producer) f(in.storage->producer.get());
  }
}

// Depth-first post-order of everything `roots` depend on, without recursion. With `busy`, nodes
// another evaluation has claimed are neither entered nor listed; *busy says whether any was met.
std::vector<Node*> topo_sort(const std::vector<Node*>& roots, bool* busy = nullptr) {
  uint64_t epoch = new_graph_mark();
  if (busy) *busy = false;
  auto claimed = [busy](Node* n) {
    if (!busy || !n->in_flight) return false;
    *busy = true;
    return true;
  };
  std::vector<Node*> order;
  std::vector<std::pair<Node*, size_t>> stack;
  order.reserve(16);
  stack.reserve(16);
  for (Node* r : roots) {
    if (r->visit_epoch == epoch || claimed(r)) continue;
    r->visit_epoch = epoch;
    stack.emplace_back(r, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->inputs.size()) {
        Storage* s = node->inputs[next++].storage.get();
        Node* p = s->producer.get();
        if (p && p->visit_epoch != epoch && !claimed(p)) {
          p->visit_epoch = epoch;
          stack.emplace_back(p, 0);
        }
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  return order;
}

// Marks a node evaluated: its storages become plain buffers and it lets go of its inputs.
void detach(Node* node) {
  std::lock_guard<std::recursive_mutex> lock(graph_mutex());  // kernels run without it
  for (auto& w : node->outputs) {
    if (auto s = w.lock()) {
      if (s->producer.get() == node) s->producer.reset();  // the caller holds the node alive
    }
  }
  node->inputs.clear();
  node->outputs.clear();
  node->done = true;
  g_pending_nodes.fetch_sub(1, std::memory_order_relaxed);
}

// A storage's buffer, set while kernels run without the graph lock: assigned under it, as the
// program builder assigns it, so that no other thread and no child forked meanwhile (the fork
// handlers take the lock) sees the shared_ptr half-written.
void attach_buffer(Storage* storage, const decltype(Storage::buffer)& buffer) {
  std::lock_guard<std::recursive_mutex> lock(graph_mutex());
  storage->buffer = buffer;
}

void run_node(Node* node) {
  stage_mark("run_node");
  std::vector<Array> outs(node->outputs.size());
  // The output storages held until detach: the first without a vector (most nodes have one).
  std::shared_ptr<Storage> keep_first;
  std::vector<std::shared_ptr<Storage>> keep_rest;
  const WriteRedirect& redirect = write_redirect();
  for (size_t i = 0; i < node->outputs.size(); ++i) {
    std::shared_ptr<Storage>& keep = i == 0 ? keep_first : keep_rest.emplace_back();
    keep = node->outputs[i].lock();
    if (redirect.from && keep.get() == redirect.from &&
        (node->kind() == NodeKind::Elementwise || node->writes_contiguous_view())) {
      outs[i] = redirect.to;  // the write's destination (eval_into checked its layout)
      continue;
    }
    // An output nobody holds (one half of divmod, say) still needs scratch memory.
    Array out = Array::empty(node->out_shapes[i], node->out_dtypes[i], node->device);
    if (keep) attach_buffer(keep.get(), out.storage->buffer);
    outs[i] = std::move(out);
  }
  stage_mark("outputs allocated");
  backend_for(node->device).eval_node(*node, outs);
  stage_mark("backend returned");
  detach(node);
  stage_mark("detached");
}

// Marks the first `count` nodes of a group evaluated, but for the generators the program left
// pending.
void detach_group(const Group& g, const GroupProgram& program, size_t count = size_t(-1)) {
  std::lock_guard<std::recursive_mutex> lock(graph_mutex());
  count = std::min(count, g.nodes.size());
  for (size_t i = 0; i < count; ++i) {
    Node* n = g.nodes[i];
    const auto& lp = program.left_pending;
    if (std::find(lp.begin(), lp.end(), n) == lp.end()) detach(n);
  }
}

// build_program under the graph lock: it reads the readers of the group's storages, which other
// threads' new nodes extend while this group's kernels run.
template <class... Args>
GroupProgram locked_build_program(const Args&... args) {
  std::lock_guard<std::recursive_mutex> lock(graph_mutex());
  return build_program(args...);
}

// A group around a reduction: the elementwise prologue it absorbed (nodes before it) and the
// elementwise epilogue computed from its result (nodes after it). When no prologue value must be
// stored, the reduction computes the prologue as it reads it (on CUDA one kernel does all three);
// otherwise the parts run one after the other.
void run_reduction_group(const Group& g, size_t r) {
  Node* red = g.nodes[r];
  std::vector<Array> outs;
  for (size_t i = 0; i < red->outputs.size(); ++i) {
    Array out = Array::empty(red->out_shapes[i], red->out_dtypes[i], red->device);
    if (auto st = red->outputs[i].lock()) attach_buffer(st.get(), out.storage->buffer);
    outs.push_back(out);
  }
  // The epilogue's program: the reduction's result is one of its leaves (its buffer is set).
  Group epilogue_group;
  epilogue_group.nodes.assign(g.nodes.begin() + static_cast<std::ptrdiff_t>(r) + 1, g.nodes.end());
  GroupProgram epilogue;
  if (!epilogue_group.nodes.empty()) epilogue = locked_build_program(epilogue_group);
  bool epilogue_done = false;
  Backend& backend = backend_for(red->device);
  auto run_reduction_alone = [&] { backend.eval_node(*red, outs); };
  if (r == 0) {
    run_reduction_alone();
  } else {
    const Storage* input = red->inputs[0].storage.get();
    GroupProgram program = locked_build_program(g, r, input);
    if (!program.outputs.empty() || program.reduced_also_stored || program.reduced.step < 0) {
      // Values needed in memory: store them (the reduction's input among them), then reduce it.
      if (!program.reduced_also_stored && program.reduced.step >= 0) {
        Node* n = program.steps[program.reduced.step].node;
        Array in = Array::empty(n->out_shapes[program.reduced.output], n->out_dtypes[program.reduced.output],
                                n->device);
        attach_buffer(const_cast<Storage*>(input), in.storage->buffer);
        program.outputs.push_back({program.reduced, in});
        // Now in memory: a generator that was to stay pending is evaluated after all.
        auto& lp = program.left_pending;
        lp.erase(std::remove(lp.begin(), lp.end(), n), lp.end());
      }
      backend_for(program.device).run_program(program);
      detach_group(g, program, r);
      run_reduction_alone();
    } else {
      // The backend may compute the epilogue in the reduction's own kernel (CUDA does).
      epilogue_done =
          backend.run_reduction_program(*static_cast<ReduceNode*>(red), program, outs[0],
                                        epilogue_group.nodes.empty() ? nullptr : &epilogue);
      detach_group(g, program, r);
    }
  }
  detach(red);
  if (epilogue_group.nodes.empty()) return;
  if (!epilogue_done) backend_for(epilogue.device).run_program(epilogue);
  detach_group(epilogue_group, epilogue);
}

// A fused elementwise group: one program, one pass over the data.
void run_group(const Group& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i]->kind() == NodeKind::Reduction) {
      run_reduction_group(g, i);
      return;
    }
  }
  GroupProgram program = locked_build_program(g);
  backend_for(program.device).run_program(program);
  detach_group(g, program);
}

double trace_clock_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

using GraphLock = std::unique_lock<std::recursive_mutex>;

// Elements read and written by the nodes: whether the evaluation is long.
template <class Nodes>
int64_t planned_work(const Nodes& order) {
  int64_t work = 0;
  for (Node* n : order) {
    for (const Shape& s : n->out_shapes) work += numel(s);
    for (const Array& in : n->inputs) work += in.size();
    if (work >= kLongWork) break;
  }
  return work;
}

// Runs the groups of `order` (planned under `lk`). Short work runs under the lock, as one step.
// Long work is claimed (in_flight) and runs with the graph lock released; the claims are let go
// under it again, also when a group throws (an interrupt, an allocation failure): the nodes not
// yet run stay pending, whole, and evaluable later.
template <class Nodes, class Run>
void run_claimed(GraphLock& lk, const Nodes& order, Run&& run) {
  if (planned_work(order) < kLongWork) {
    run();
    return;
  }
  for (Node* n : order) n->in_flight = true;
  auto& active = active_evaluations();
  active.push_back({order.data(), order.size()});
  // A lone node whose backend launches and then waits lets other threads run from its wait on
  // (device_wait_begins), so that the launch comes first.
  const bool at_wait =
      order.size() == 1 && backend_for(order[0]->device).waits_for_device(*order[0]);
  const DeviceWaitHook outer = set_device_wait_hook(at_wait ? &begin_blocking : nullptr);
  if (!at_wait) begin_blocking();
  auto release_claims = [&] {
    for (Node* n : order) n->in_flight = false;  // generators left pending included
    active.erase(std::find_if(active.begin(), active.end(),
                              [&](const ClaimedNodes& c) { return c.nodes == order.data(); }));
    g_node_done->notify_all();
  };
  lk.unlock();
  try {
    run();
  } catch (...) {
    set_device_wait_hook(outer);
    lk.lock();
    release_claims();
    throw;
  }
  set_device_wait_hook(outer);
  lk.lock();
  release_claims();
}

// Evaluates `hold`'s nodes and everything they depend on. `lk` holds the graph lock once, on
// entry and on return; it is released while kernels run and while waiting for nodes another
// evaluation has claimed.
void eval_nodes(GraphLock& lk, std::vector<std::shared_ptr<Node>> hold, FlushReason why) {
  const bool trace = graph_limits().trace;
  const double t_start = trace ? trace_clock_us() : 0;
  std::vector<Node*> roots, order;
  for (;;) {
    // Roots another evaluation finished while this one waited are left out.
    hold.erase(std::remove_if(hold.begin(), hold.end(), [](const auto& n) { return n->done; }),
               hold.end());
    if (hold.empty()) return;
    roots.clear();
    for (auto& n : hold) roots.push_back(n.get());
    bool busy = false;
    order = topo_sort(roots, &busy);
    if (!busy) break;
    wait_for_other_evaluation(lk);
  }
  for (Node* n : roots) n->eval_root = true;
  // Evaluating a node drops its inputs, which may hold the last reference to a later node's
  // input producer: keep every node of the walk alive until the end.
  hold.reserve(hold.size() + order.size());
  for (Node* n : order) {
    for (const Array& in : n->inputs) {
      if (in.storage->producer) hold.push_back(in.storage->producer);
    }
  }
  std::vector<Group> groups = plan_groups(order);
  const double t_planned = trace ? trace_clock_us() : 0;
  if (trace) {
    std::fprintf(stderr, "[numfuse] eval (%s): %zu nodes in %zu groups\n", flush_reason_name(why),
                 order.size(), groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
      std::string names;
      for (Node* n : groups[i].nodes) names += (names.empty() ? "" : " ") + n->name();
      std::fprintf(stderr, "[numfuse]   group %zu: %zu node(s) [%s] cut: %s\n", i,
                   groups[i].nodes.size(), names.c_str(), cut_reason_name(groups[i].cut));
    }
  }
  const double t_after_print = trace ? trace_clock_us() : 0;
  run_claimed(lk, order, [&] {
    for (Group& g : groups) {
      check_interrupt();
      if (g.nodes.size() == 1) {
        run_node(g.nodes[0]);
      } else {
        run_group(g);
      }
    }
  });
  if (trace) {
    // Host time only: device work is asynchronous (the trace's own printing is excluded).
    const double t_end = trace_clock_us();
    std::fprintf(stderr, "[numfuse]   host time: walk and plan %.1f us, groups %.1f us\n",
                 t_planned - t_start, t_end - t_after_print);
  }
}

}  // namespace

// The common case of a node whose inputs are all materialised: no walk, no plan.
static bool try_eval_single(GraphLock& lk, Node* n) {
  if (graph_limits().trace || n->in_flight) return false;
  for (const Array& in : n->inputs) {
    if (in.storage->producer) return false;
  }
  std::shared_ptr<Node> hold = n->outputs.empty() ? nullptr : n->outputs[0].lock()->producer;
  const std::array<Node*, 1> order{n};
  run_claimed(lk, order, [n] { run_node(n); });
  return true;
}

// The pending nodes `a` depends on, in evaluation order (explain.cpp).
std::vector<Node*> pending_graph(const Array& a) {
  if (!a.storage->producer) return {};
  return topo_sort({a.storage->producer.get()});
}

// Each entry point: the floating-point events of the evaluation (B's EvalScope) are reported once
// run_entry has retaken the GIL and let go of the graph lock.
void eval_pending(const Array& a, FlushReason why) {
  {
    EvalScope scope;
    run_entry([&] {
      GraphLock lk = lock_graph();
      if (!a.storage || !a.storage->producer) return;
      if (try_eval_single(lk, a.storage->producer.get())) return;
      eval_nodes(lk, {a.storage->producer}, why);
    });
  }
  report_fp_events_if_outermost();
}

void eval(const std::vector<Array>& arrays, FlushReason why) {
  {
    EvalScope scope;
    run_entry([&] {
      GraphLock lk = lock_graph();
      if (arrays.size() == 1 && arrays[0].storage && arrays[0].storage->producer) {
        if (try_eval_single(lk, arrays[0].storage->producer.get())) return;
      }
      std::vector<std::shared_ptr<Node>> roots;
      for (const Array& a : arrays) {
        if (a.storage && a.storage->producer) roots.push_back(a.storage->producer);
      }
      if (!roots.empty()) eval_nodes(lk, std::move(roots), why);
    });
  }
  report_fp_events_if_outermost();
}

void prepare_write(const Array& dst) {
  {
    EvalScope scope;
    run_entry([&] {
      GraphLock lk = lock_graph();
      Storage* s = dst.storage.get();
      // Again until none is left: a reader another thread registered while this evaluation ran
      // its kernels (the lock released) must see the old values too.
      for (;;) {
        std::vector<std::shared_ptr<Node>> roots;
        if (s->producer) roots.push_back(s->producer);
        for (auto& w : s->readers) {
          auto reader = w.lock();
          if (reader && !reader->done) roots.push_back(std::move(reader));
        }
        if (roots.empty()) break;
        eval_nodes(lk, std::move(roots), FlushReason::Write);
      }
      s->readers.clear();
    });
  }
  report_fp_events_if_outermost();
}

// eval_into with the graph lock held once by `lk` (released while kernels run). Where another
// thread's evaluation has claimed part of src's graph, or took src itself while this one waited,
// it gives up (returns false) and the caller copies, waiting as every evaluation does.
static bool eval_into_locked(GraphLock& lk, const Array& src, const Array& dst) {
  Node* root = src.storage->producer.get();
  if (!root || root->in_flight || root->outputs.size() != 1) return false;
  // An opaque node (a product) writes a C-contiguous destination only, from materialised inputs
  // none of which meets it (BLAS reads its inputs while it writes: no index-by-index rule holds).
  const bool opaque = root->kind() != NodeKind::Elementwise;
  // Host memory only (see below): a device's products keep their temporary, untouched.
  if (opaque &&
      (!root->writes_contiguous_view() || !dst.c_contiguous() || !dst.device().is_cpu())) {
    return false;
  }
  if (opaque) {
    for (const Array& in : root->inputs) {
      if (in.storage->producer || (in.storage == dst.storage && bytes_may_meet(in, dst))) {
        return false;
      }
    }
  }
  if (src.dtype != dst.dtype || src.shape != dst.shape || src.shape != root->out_shapes[0] ||
      src.byte_offset != 0 || !src.c_contiguous() || root->device != dst.device()) {
    return false;
  }
  // src a view of dst's own pending storage (x[:] = x[:]): nothing to redirect.
  if (src.storage == dst.storage) return false;
  std::shared_ptr<Node> hold = src.storage->producer;
  // A pending destination is materialised first, so that every input of src's graph that shares
  // its memory is materialised too and the overlap check below sees it: the pending case takes
  // the materialised case's path. Evaluating dst may evaluate src with it (src was part of dst's
  // graph): then there is nothing left to redirect.
  if (dst.storage->producer) {
    eval_nodes(lk, {dst.storage->producer}, FlushReason::Write);  // the lock held once, as eval's
    if (root->done || root->in_flight) return false;
  }
  // Host memory numfuse did not allocate (a numfuse.memmap, a wrapped buffer), or that a NumPy
  // view shows, may show dst's bytes through another storage at other addresses (two mappings of
  // one file), where no storage-based check sees the overlap.
  const bool dst_reachable_elsewhere =
      dst.device().is_cpu() && (!dst.storage->buffer->host_allocated() ||
                                dst.storage->host_views.load(std::memory_order_relaxed) > 0);
  // An opaque node writes only memory numfuse allocated on the host and nobody else sees:
  // elsewhere the product goes through its temporary, as before (on CUDA it always does). And no
  // input of another storage may lie at dst's addresses.
  if (opaque && dst_reachable_elsewhere) return false;
  if (opaque && dst.size() > 0) {
    const auto [dlo, dhi] = byte_extent(dst);
    const char* dbase = dst.storage->data();
    for (const Array& in : root->inputs) {
      if (in.storage == dst.storage || in.size() == 0) continue;
      const auto [lo, hi] = byte_extent(in);
      const char* base = in.storage->data();
      if (base + lo < dbase + dhi && dbase + dlo < base + hi) return false;
    }
  }
  // out= on materialised operands (the common case): one node, no walk and no plan.
  bool single = !graph_limits().trace;
  for (const Array& in : root->inputs) single = single && !in.storage->producer;
  bool busy = false;
  std::vector<Node*> order;  // the walk's nodes; for a single node just root (no allocation)
  if (!single) order = topo_sort({root}, &busy);
  if (busy) return false;
  Node* const* walk = single ? &root : order.data();
  const size_t walk_size = single ? 1 : order.size();
  // Every materialised input that shares dst's memory must read it through dst's own mapping
  // (elementwise, index by index); anything else needs the right side computed first.
  for (size_t k = 0; k < walk_size; ++k) {
    for (const Array& in : walk[k]->inputs) {
      if (in.storage->producer) continue;
      if (in.storage != dst.storage) {
        // the right side then goes through its temporary, as NumPy's does
        if (dst_reachable_elsewhere && !in.storage->buffer->host_allocated()) return false;
        continue;
      }
      // A column beside the rows it does not reach (an LU step) does not meet dst.
      bool overlap = bytes_may_meet(in, dst);
      bool same = in.byte_offset == dst.byte_offset && in.dtype == dst.dtype &&
                  (in.shape == dst.shape ? in.strides == dst.strides
                                         : broadcasts_to(in.shape, dst.shape) &&
                                               broadcast_strides(in.shape, in.strides, dst.shape) == dst.strides);
      if (overlap && !same) return false;
    }
  }
  // Pending readers of dst outside src's graph must see the old values.
  std::vector<std::shared_ptr<Node>> others;
  for (auto& w : dst.storage->readers) {
    auto r = w.lock();
    if (r && !r->done && std::find(walk, walk + walk_size, r.get()) == walk + walk_size) {
      others.push_back(r);
    }
  }
  if (!others.empty()) eval_nodes(lk, std::move(others), FlushReason::Write);
  // The lock was released while those ran: src's graph must still be this evaluation's to run.
  if (root->done || root->in_flight) return false;
  if (!single) topo_sort({root}, &busy);
  if (busy) return false;
  WriteRedirect& redirect = write_redirect();
  redirect = {src.storage.get(), dst};
  try {
    if (single) {
      const std::array<Node*, 1> one{root};
      run_claimed(lk, one, [root] { run_node(root); });
    } else {
      eval_nodes(lk, {hold}, FlushReason::Write);
    }
  } catch (...) {
    redirect = {};
    throw;
  }
  redirect = {};
  return true;
}

bool eval_into(const Array& src, const Array& dst) {
  bool done;
  {
    EvalScope scope;
    done = run_entry([&] {
      GraphLock lk = lock_graph();
      return eval_into_locked(lk, src, dst);
    });
  }
  report_fp_events_if_outermost();
  return done;
}

// Remembers that `node` reads `s`, dropping entries of nodes already gone or evaluated.
static void add_reader(Storage* s, const std::shared_ptr<Node>& node) {
  if (s->constant) return;  // nothing ever writes into it
  auto& r = s->readers;
  if (!r.empty() && !r.back().owner_before(node) && !node.owner_before(r.back())) return;  // a * a
  if (r.size() >= 16 && (r.size() & (r.size() - 1)) == 0) {
    size_t k = 0;
    for (auto& w : r) {
      auto n = w.lock();
      if (n && !n->done) r[k++] = w;
    }
    r.resize(k);
  }
  r.push_back(node);
}

// Registers `node` (inputs, out_dtypes and out_shapes set) and writes its n pending outputs to
// `outs`; applies the graph limits.
static void register_pending_locked(const std::shared_ptr<Node>& node, Array* outs, size_t n);

// Immediate evaluation (RunNow::IfSmall): a small CPU node whose inputs are all materialised
// runs here, in the call, and never joins the graph. Its result is what the pending node would
// have produced; only the bookkeeping (registration, readers, the evaluation's entry, detach) is
// skipped, which for a few thousand elements costs more than the op. Inputs with a pending
// producer keep the graph (the chain fuses); the trace keeps every node visible.
static bool run_immediately(const std::shared_ptr<Node>& node, Array* outs, size_t n) {
  const GraphLimits& lim = graph_limits();
  if (lim.immediate_max <= 0 || lim.trace || !node->device.is_cpu()) return false;
  int64_t work = 0;
  for (const Array& in : node->inputs) {
    // Read without the graph lock, as every op's pending() test is: a materialised storage only
    // turns pending again through a write this thread would have to be racing with.
    if (in.pending()) return false;
    work = std::max(work, in.size());
  }
  for (size_t i = 0; i < n; ++i) work = std::max(work, numel(node->out_shapes[i]));
  if (work > lim.immediate_max) return false;
  std::vector<Array> res(n);
  for (size_t i = 0; i < n; ++i) res[i] = Array::empty(node->out_shapes[i], node->out_dtypes[i], node->device);
  {
    EvalScope scope;  // floating-point events reported once, as an evaluation's
    run_entry([&] { backend_for(node->device).eval_node(*node, res); });
  }
  node->done = true;  // never counted as pending
  for (size_t i = 0; i < n; ++i) outs[i] = std::move(res[i]);
  report_fp_events_if_outermost();
  return true;
}

static void register_pending(const std::shared_ptr<Node>& node, Array* outs, size_t n, RunNow run_now) {
  // Sizes first, before anything is registered: an impossible output fails at the call, as in
  // NumPy (ValueError past int64, MemoryError past what the device can ever hold).
  for (size_t i = 0; i < n; ++i) {
    const int64_t nbytes = checked_nbytes(node->out_shapes[i], itemsize(node->out_dtypes[i]));
    check_allocatable(static_cast<uint64_t>(nbytes), node->out_shapes[i], node->out_dtypes[i],
                      node->device);
  }
  node->fp_state = current_fp_state();
  if (run_now == RunNow::IfSmall && run_immediately(node, outs, n)) return;
  {
    EvalScope scope;  // a graph limit may evaluate here
    register_pending_locked(node, outs, n);
  }
  report_fp_events_if_outermost();
}

static void register_pending_locked(const std::shared_ptr<Node>& node, Array* outs, size_t n) {
  std::unique_lock<std::recursive_mutex> lock(graph_mutex());
  int depth = 0;
  bool any_input_pending = false;
  for (const Array& in : node->inputs) {
    if (in.storage->producer) {
      depth = std::max(depth, in.storage->producer->depth + 1);
      any_input_pending = true;
    }
  }
  node->depth = depth;
  node->outputs.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Array& a = outs[i];
    a.dtype = node->out_dtypes[i];
    a.shape = node->out_shapes[i];
    a.strides = contiguous_strides(a.shape);
    a.storage = std::allocate_shared<Storage>(PoolAllocator<Storage>());
    a.storage->nbytes = static_cast<size_t>(numel(a.shape)) * itemsize(a.dtype);
    a.storage->device = node->device;
    a.storage->producer = node;
    a.storage->producer_output = static_cast<int>(i);
    node->outputs.emplace_back(a.storage);
  }
  bool reads_host_view = false;
  for (const Array& in : node->inputs) {
    add_reader(in.storage.get(), node);
    reads_host_view |= in.storage->host_views.load(std::memory_order_relaxed) > 0;
  }
  g_pending_nodes.fetch_add(1, std::memory_order_relaxed);
  lock.unlock();  // an evaluation takes the lock itself, once
  const GraphLimits& lim = graph_limits();
  // A chain of max_depth nodes is evaluated: one group under the default op limit.
  if (reads_host_view) {
    // NumPy could write into the input through the view before this node is evaluated; NumPy's
    // eager semantics say the node sees the values of now.
    eval(std::vector<Array>(outs, outs + n), FlushReason::HostView);
  } else if (any_input_pending && depth + 1 >= lim.max_depth) {
    eval(std::vector<Array>(outs, outs + n), FlushReason::GraphDepthLimit);
  } else if (pending_node_count() > lim.max_pending) {
    eval(std::vector<Array>(outs, outs + n), FlushReason::GraphSizeLimit);
  }
}

std::vector<Array> make_pending(std::shared_ptr<Node> node, std::vector<DType> dtypes,
                                std::vector<Shape> shapes, RunNow run_now) {
  node->out_dtypes = std::move(dtypes);
  node->out_shapes.assign(shapes.begin(), shapes.end());
  std::vector<Array> outs(node->out_dtypes.size());
  register_pending(node, outs.data(), outs.size(), run_now);
  return outs;
}

Array make_pending(std::shared_ptr<Node> node, DType dtype, Shape shape, RunNow run_now) {
  node->out_dtypes.assign(1, dtype);
  node->out_shapes.assign(1, std::move(shape));
  Array out;
  register_pending(node, &out, 1, run_now);
  return out;
}

void make_pending(std::shared_ptr<Node> node, const DType* dtypes, const Shape& shape, int n, Array* outs,
                  RunNow run_now) {
  node->out_dtypes.assign(dtypes, dtypes + n);
  node->out_shapes.assign(static_cast<size_t>(n), shape);
  register_pending(node, outs, static_cast<size_t>(n), run_now);
}

}  // namespace nf
