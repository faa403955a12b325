// ndarray.base: a view made from an array object holds a reference to the object that owns the
// memory (NumPy's base), through the core's opaque Array::base. Copies of a view's Array live in
// pending graph nodes and may be released by a thread without the GIL: the reference is then
// handed to the interpreter (Py_AddPendingCall) instead of taking the GIL, which that thread may
// not wait for (the GIL holder may be waiting for the graph).
#include <mutex>

#include "bindings.h"

namespace nf::py {

namespace {

std::mutex g_release_mutex;
std::vector<PyObject*>* g_to_release = new std::vector<PyObject*>;  // never destroyed
bool g_drain_scheduled = false;
// Set at the very end of interpreter finalization (Py_AtExit): views destroyed after it (static
// caches) release nothing. Until then the finalizing thread holds the GIL and releases normally.
bool g_python_gone = false;

int drain_releases(void*) {
  std::vector<PyObject*> objs;
  {
    std::lock_guard<std::mutex> lock(g_release_mutex);
    objs.swap(*g_to_release);
    g_drain_scheduled = false;
  }
  for (PyObject* o : objs) Py_DECREF(o);
  return 0;
}

void release_ref(PyObject* o) {
  if (g_python_gone) return;
  if (PyGILState_Check()) {
    Py_DECREF(o);
    return;
  }
  std::lock_guard<std::mutex> lock(g_release_mutex);
  g_to_release->push_back(o);
  if (!g_drain_scheduled && Py_AddPendingCall(&drain_releases, nullptr) == 0) g_drain_scheduled = true;
}

}  // namespace

BaseRef base_reference(nb::handle self) { return base_reference(self, *nb::inst_ptr<Array>(self)); }

BaseRef base_reference(nb::handle self, Array& self_array) {
  static const bool at_exit_registered = Py_AtExit([] { g_python_gone = true; }) == 0;
  (void)at_exit_registered;
  // One link per owner object, kept by its Array: a view per a[i] allocates nothing.
  BaseLink* link = self_array.owner_link.get_or_make(
      self.ptr(), [](void* p) { release_ref(static_cast<PyObject*>(p)); });
  bool first = false;
  BaseRef r = BaseRef::acquire(link, &first);
  if (first) Py_INCREF(self.ptr());  // held for all the views together, released by the last
  return r;
}

Array as_view_of(nb::handle self, Array r) {
  const Array& a = *nb::inst_ptr<Array>(self);
  if (r.is_view && !r.base && r.storage == a.storage) r.base = base_reference(self);
  return r;
}

nb::object base_of(const Array& a) {
  if (!a.base) return nb::none();
  return nb::borrow(static_cast<PyObject*>(a.base.get()));
}

}  // namespace nf::py
