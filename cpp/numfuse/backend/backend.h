// The Backend interface: everything the graph, the ops and the core ask of a device, and the
// registry that finds the backend of a device kind. The CPU and CUDA backends implement it
// (backend/cpu/cpu_backend.h, backend/cuda/cuda_backend.h); backend/registry.cpp, the one file
// that knows both, registers them. This header includes only ir/ and core/ (the include rule of
// docs/architecture.md): the layers above call backends through it and nothing else.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "numfuse/core/array.h"
#include "numfuse/core/buffer.h"
#include "numfuse/core/device.h"
#include "numfuse/ir/gather.h"
#include "numfuse/ir/group_program.h"
#include "numfuse/ir/node.h"
#include "numfuse/ir/reduce.h"

namespace nf {

class Backend {
 public:
  // How a backend evaluates one node kind: from the node's materialised inputs into `outs`
  // (C-contiguous over fresh storage; an elementwise node may get a write's strided target).
  using NodeEval = void (*)(Node& node, const std::vector<Array>& outs);

  // `devices` names the devices in messages: "'sort' is not implemented on CUDA devices yet".
  Backend(Device::Kind kind, std::string devices);
  virtual ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  Device::Kind kind() const { return kind_; }
  const std::string& devices() const { return devices_; }

  // ---- devices
  // Whether this kind of device can be used at all (a driver, a GPU); never throws.
  virtual bool available() const { return true; }
  // Why not, when available() is false.
  virtual std::string unavailable_reason() const { return ""; }
  virtual int device_count() const { return 1; }
  // In the child after fork(): rebuild or disable what did not survive it (threads, contexts).
  virtual void after_fork_child() {}

  // ---- memory (host memory is the core's: core/host_allocator.h)
  // nbytes on `device` (its index); the Buffer's release function frees it.
  virtual std::shared_ptr<Buffer> allocate(size_t nbytes, int device);
  // The most bytes one allocation on `device` can ever get (core/allocation_limit.h).
  virtual uint64_t allocation_capacity(int device) const;
  // dst[...] = src (broadcast, cast), both materialised, one of them on this backend's devices
  // (the other on the same device, or a host array): backend::copy_into picks the backend.
  virtual void copy(const Array& src, const Array& dst) = 0;

  // ---- fused groups
  // Runs a fused elementwise program: its outputs are written, nothing else.
  virtual void run_program(const GroupProgram& program) = 0;
  // The reduction `red` that closes a fused group: `prologue` computes its input
  // (prologue.reduced) as it is read; `out` is the keepdims-shaped result. With `epilogue` (whose
  // leaf over red's result storage is that result) the backend may compute the epilogue too:
  // returns whether it did (else the caller runs the epilogue's program).
  virtual bool run_reduction_program(ReduceNode& red, const GroupProgram& prologue,
                                     const Array& out, const GroupProgram* epilogue) = 0;
  // An upper bound of the parameter bytes of the kernel of a group of `rank` that reads `arrays`
  // arrays, `scalars` scalars and `generators` generators: the planner cuts a group before it
  // passes NUMFUSE_MAX_KERNEL_PARAM_BYTES. The default is the generated CUDA kernel's layout.
  virtual int64_t kernel_param_bytes(int64_t rank, int arrays, int scalars, int generators) const;
  // What numfuse.explain adds for a group of this device after its programs: the generated
  // kernel, say. `reduction` is the group's closing reduction (prologue computes its input) or
  // null; `epilogue` the elementwise program on its result, or null. "" when nothing.
  virtual std::string explain_group(const GroupProgram& prologue, const ReduceNode* reduction,
                                    const GroupProgram* epilogue) const {
    return "";
  }

  // ---- opaque work outside the graph (eager writes and data-dependent reads)
  // dst[indices] = values (C-contiguous, the result shape, dst's dtype); with repeated indices the
  // last in C order wins. Values must not overlap dst.
  virtual void scatter(const Array& values, const GatherGeometry& g, const Array& dst) = 0;
  // numpy.count_nonzero and numpy.nonzero of a materialised array, counted where the values are
  // (the CPU's way; `n` is count_nonzero(a)). Devices that count through a reduction and a scan
  // (CUDA) leave both out: ops/advanced_indexing.cpp composes those, then asks for
  // nonzero_from_cumsum.
  virtual int64_t count_nonzero(const Array& a);
  virtual std::vector<Array> nonzero(const Array& a, int64_t n);
  // numpy.nonzero's arrays from `pos`, the C-contiguous int64 inclusive cumsum of the flags of an
  // array of `shape` (pos's last element is the count, n).
  virtual std::vector<Array> nonzero_from_cumsum(const Array& pos, const Shape& shape, int64_t n);

  // a[mask] and a[mask] = v at the call, in one pass over a mask of a's leading dims (element
  // loops, issue 11): a, mask and v materialised and C-contiguous on this device. Devices without
  // it (has_eager_masks() false) get a gather / a where in the graph instead.
  virtual bool has_eager_masks() const { return false; }
  // out = a[mask], out C-contiguous of (count of Trues,) + a.shape[mask.ndim():].
  virtual void mask_select(const Array& a, const Array& mask, const Array& out);
  // a[mask] = v: one block of a.shape[mask.ndim():] for every True, or one per True (per_true).
  virtual void mask_store(const Array& a, const Array& mask, const Array& v, bool per_true);

  // A lone ufunc over small host operands, run now without a node (the express lane of
  // ops/elementwise.cpp for `a + b` and `a[i:, j] /= s` in a Python loop): in[k] and out[j]
  // advance by strides[k] and strides[nin + j] elements along the dims of `shape` (0:
  // broadcast, negative: reversed), all of the loop's dtypes. With fresh_outputs the outputs are
  // the caller's new arrays, overlapping nothing; otherwise they may overlap the inputs in any
  // way, and every result is computed before the first is stored (NumPy's out= semantics).
  // False, with nothing stored and nothing reported, when this device has no such loop for the
  // dtypes or the loop raised a floating-point flag: the caller then takes the node's path,
  // which computes again and reports the flag as errstate says. out_loop is what the caller
  // allocated: a loop that would write other dtypes is refused.
  virtual bool run_ufunc_now(UFunc op, const DType* in_loop, const DType* out_loop, const void* const* in,
                             void* const* out, const Shape& shape, const Strides* strides, bool fresh_outputs) {
    return false;
  }

  // The same for a reduction: `spec` of the small materialised host array `in` into `out` (fresh,
  // C-contiguous, the reduced dims kept as 1). False, with nothing reported, when the loop raised
  // a floating-point flag or the device has no such path.
  virtual bool run_reduce_now(const ReduceSpec& spec, const Array& in, const Array& out) { return false; }

  // The same for the product of two vectors (`v @ w`, numpy.dot of 1-D operands in a Python
  // loop): *out = sum x[i] * y[i] over n elements of `dt` (strides in elements, negative:
  // reversed). False when this device has no such path for the dtype.
  virtual bool run_vector_dot_now(DType dt, int64_t n, const void* x, int64_t incx, const void* y,
                                  int64_t incy, void* out) {
    return false;
  }
  // And of a matrix and a vector (`data[:, i] @ data[:, i:]`): y = op(A) x, A row-major, stored
  // rows x cols with lda elements between stored rows, op(A) = A or, with trans, A^T; y fresh
  // and contiguous. False, with nothing written, when this device has no such path for the call.
  virtual bool run_matvec_now(DType dt, bool trans, int64_t rows, int64_t cols, const void* A,
                              int64_t lda, const void* x, int64_t incx, void* y) {
    return false;
  }

  // ---- nodes
  // Whether evaluating `node` enqueues device work and then only waits for it, calling
  // device_wait_begins() (core/interrupt.h) before the wait and before any long host work: a
  // long evaluation of it then lets other threads run from that call on, not before the launch.
  virtual bool waits_for_device(const Node& node) const { return false; }

  // Evaluates `node` with the function registered for its kind. An elementwise kind without one
  // runs as a program of one step (single_node_program); any other raises NotImplementedError.
  void eval_node(Node& node, const std::vector<Array>& outs);

 protected:
  // Registers how this backend evaluates node kind N (a backend's constructor calls it per kind).
  template <class N, void (*F)(N&, const std::vector<Array>&)>
  void add_node_eval() {
    node_evals_.emplace_back(
        std::type_index(typeid(N)),
        [](Node& n, const std::vector<Array>& outs) { F(static_cast<N&>(n), outs); });
  }

 private:
  Device::Kind kind_;
  std::string devices_;
  // A short list searched in order: a dozen kinds, a comparison of type_info each.
  std::vector<std::pair<std::type_index, NodeEval>> node_evals_;
};

// The backend of `kind`'s devices; throws RuntimeError when none is registered.
Backend& backend_for(Device::Kind kind);
inline Backend& backend_for(Device device) { return backend_for(device.kind); }
// The same, or null when none is registered (a build without that backend).
Backend* find_backend(Device::Kind kind);
// Every registered backend, the CPU's first.
const std::vector<Backend*>& backends();

namespace backend {

// dst[...] = src (broadcast, cast), both materialised; picks the backend from the devices: the
// device side's when one array is on a device, the CPU's when both are on the host.
void copy_into(const Array& src, const Array& dst);

}  // namespace backend

}  // namespace nf
