// numfuse.ndarray is no GC type, as NumPy's ndarray is not. nanobind makes every weak-referenceable
// type a GC type, so each ndarray was tracked and untracked by the cycle collector (with the GC
// header, ~10 ns of a.T's 64 in a loop). An ndarray can be in no cycle the collector could see:
// the Python objects it refers to (its base, through the core's BaseRef) were never visited by a
// tp_traverse either. So the type is bound without nanobind's weak-reference support (a plain
// type), and weak references are added here: the list lives in the object's own Array
// (Array::weak_list), which every constructor sets to null: nanobind allocates a plain type's
// instances with PyObject_New, which leaves memory as it was, and a list outside the Array would
// hold garbage. tp_dealloc clears the references, which nanobind does only for its GC types.
//
// An instance is visible to Python before its Array exists only when made by tp_new
// (ndarray.__new__, a type call before __init__, Python subclasses): tp_new sets its list to
// null and records it until __init__ builds the Array around that list; every other instance is
// made and filled by C++ at once (a failure there frees one that no Python code has seen).
#include <unordered_set>

#include "bindings.h"

namespace nf::py {

namespace {

Py_ssize_t g_payload_offset = 0;  // from an instance to its Array
Py_ssize_t g_list_offset = 0;     // from an instance to its Array's weak_list
newfunc g_nanobind_new = nullptr;
destructor g_nanobind_dealloc = nullptr;
// Made by tp_new, their Array not built yet: their list is null or live (never destroyed).
std::unordered_set<PyObject*>* g_made_by_new = new std::unordered_set<PyObject*>;

PyObject** list_of(PyObject* self) {
  return reinterpret_cast<PyObject**>(reinterpret_cast<char*>(self) + g_list_offset);
}

PyObject* array_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* self = g_nanobind_new(type, args, kwargs);
  if (!self) return nullptr;
  *list_of(self) = nullptr;
  try {
    g_made_by_new->insert(self);
  } catch (const std::bad_alloc&) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  return self;
}

void decref_now(void* object) { Py_DECREF(static_cast<PyObject*>(object)); }

void array_dealloc(PyObject* self) {
  // The list is readable once the Array exists, or when tp_new set it.
  const auto [built, owned] = nb::inst_state(nb::handle(self));
  bool readable = built;
  if (!g_made_by_new->empty() && g_made_by_new->erase(self) > 0) readable = true;
  if (readable && *list_of(self)) PyObject_ClearWeakRefs(self);
  // A view's reference to its owner, released here where the GIL is known to be held (no check,
  // and for the one view of an owner no atomic: core/base_ref.h), before nanobind destroys the
  // rest of the Array.
  if (built && owned) nb::inst_ptr<Array>(self)->base.drop_holding_lock(&decref_now);
  g_nanobind_dealloc(self);
}

}  // namespace

void untrack_array_type(nb::handle type) {
  auto* t = reinterpret_cast<PyTypeObject*>(type.ptr());
  // Bound with nanobind's weak references after all (another binding's choice): nothing to add.
  // A GC type (a nanobind that makes every type one) is slower, not wrong: the list is ours.
  if (t->tp_weaklistoffset != 0) return;
  {
    // Where an instance's Array lies: nanobind's layout, read from one instance (its Array is
    // never built; it goes back to nanobind's pool as it came).
    nb::object probe = nb::inst_alloc(type);
    if (!probe.is_valid()) throw nb::python_error();
    g_payload_offset =
        reinterpret_cast<char*>(nb::inst_ptr<Array>(probe)) - reinterpret_cast<char*>(probe.ptr());
  }
  Array layout;
  g_list_offset = g_payload_offset + (reinterpret_cast<char*>(&layout.weak_list.value) -
                                      reinterpret_cast<char*>(&layout));
  t->tp_weaklistoffset = g_list_offset;
  g_nanobind_new = t->tp_new;
  t->tp_new = array_new;
  g_nanobind_dealloc = t->tp_dealloc;
  t->tp_dealloc = array_dealloc;
  // Construction through tp_new and __init__ on every Python version (3.14's nanobind installs
  // a type vectorcall that allocates without tp_new).
  t->tp_vectorcall = nullptr;
  PyType_Modified(t);
}

void build_in_new_object(Array* payload, const Array& contents) {
  if (g_list_offset == 0) {  // the type's weak references are nanobind's
    new (payload) Array(contents);
    return;
  }
  PyObject* self = reinterpret_cast<PyObject*>(reinterpret_cast<char*>(payload) - g_payload_offset);
  // Weak references taken between tp_new and __init__ stay the object's. An instance neither
  // made by tp_new nor built yet (a type call that bypassed tp_new) has no list to read.
  const bool made_by_new = g_made_by_new->erase(self) > 0;
  PyObject* list = made_by_new || nb::inst_ready(nb::handle(self)) ? *list_of(self) : nullptr;
  new (payload) Array(contents);
  payload->weak_list.value = list;
}

}  // namespace nf::py
