// numpy.errstate for numfuse: numfuse.errstate, seterr, geterr, seterrcall and geterrcall ARE
// NumPy's (one state, whichever module the user sets it through). Each op captures the state
// current when it is recorded (core/fp_status.h): reading NumPy's context variable is a few
// nanoseconds, and the state is decoded only when the variable holds a new object. The
// conditions an evaluation found are reported here, as NumPy's _error_handler does.
#include <cstdio>
#include <string>
#include <vector>

#include "bindings.h"
#include "numfuse/core/divmod_flags.h"
#include "numfuse/core/fp_status.h"

namespace nf::py {

namespace {

enum class FpMode : uint8_t { Ignore, Warn, Raise, Call, Print, Log };

// A distinct error state: the mode of divide, over, under, invalid (NumPy's bit order) and the
// seterrcall object. Kept for the life of the module (distinct states are few).
struct DecodedState {
  FpMode mode[4];
  PyObject* call;  // held by the module's _fp_held list
};

std::vector<DecodedState> g_states;  // FpState >> 4 indexes it; entry 0 is NumPy's default
PyObject* g_extobj_var = nullptr;    // numpy._core.umath._extobj_contextvar
PyObject* g_extobj_dict = nullptr;   // numpy._core.umath._get_extobj_dict
PyObject* g_module = nullptr;        // numfuse._core: its attributes hold what we keep, so
                                     // that interpreter teardown releases it
PyObject* g_held = nullptr;          // _core._fp_held: the callbacks of g_states
PyObject* g_last_extobj = nullptr;   // the variable's value at the last capture (held by
                                     // _core._fp_last_extobj)
FpState g_last_state = kFpDefaultState;
constexpr size_t kMaxStates = size_t(1) << 20;

const char* const kFlagKeys[4] = {"divide", "over", "under", "invalid"};
const char* const kFlagText[4] = {"divide by zero", "overflow", "underflow", "invalid value"};

FpMode mode_from(nb::handle s) {
  std::string v = nb::cast<std::string>(nb::str(s));
  if (v == "warn") return FpMode::Warn;
  if (v == "raise") return FpMode::Raise;
  if (v == "call") return FpMode::Call;
  if (v == "print") return FpMode::Print;
  if (v == "log") return FpMode::Log;
  return FpMode::Ignore;
}

FpState state_id(const DecodedState& d) {
  size_t id = g_states.size();
  for (size_t i = 0; i < g_states.size(); ++i) {
    const DecodedState& e = g_states[i];
    if (std::equal(e.mode, e.mode + 4, d.mode) && e.call == d.call) {
      id = i;
      break;
    }
  }
  if (id == g_states.size()) {
    if (id >= kMaxStates)
      id = 0;  // never in practice: a million distinct callbacks
    else {
      if (d.call && PyList_Append(g_held, d.call) < 0) throw nb::python_error();
      g_states.push_back(d);
    }
  }
  FpState watched = 0;
  for (int i = 0; i < 4; ++i) {
    if (g_states[id].mode[i] != FpMode::Ignore) watched |= 1u << i;
  }
  return static_cast<FpState>(id << 4) | watched;
}

// The current state, decoded from numpy._core.umath._get_extobj_dict().
FpState decode_current() {
  nb::object d = nb::steal(PyObject_CallNoArgs(g_extobj_dict));
  if (!d.is_valid()) throw nb::python_error();
  DecodedState s{};
  for (int i = 0; i < 4; ++i) s.mode[i] = mode_from(d[kFlagKeys[i]]);
  nb::object call = d["call"];
  s.call = call.is_none() ? nullptr : call.ptr();
  return state_id(s);
}

FpState capture_state() {
  if (!g_extobj_var || !PyGILState_Check()) return g_last_state;
  PyObject* value = nullptr;
  if (PyContextVar_Get(g_extobj_var, nullptr, &value) < 0 || !value) {
    PyErr_Clear();
    return g_last_state;
  }
  if (value == g_last_extobj) {
    Py_DECREF(value);
    return g_last_state;
  }
  try {
    g_last_state = decode_current();
  } catch (nb::python_error& e) {
    e.restore();
    PyErr_Clear();
    Py_DECREF(value);
    return g_last_state;
  }
  // Held: while it is the last one, its address can never name another state.
  const int failed = PyObject_SetAttrString(g_module, "_fp_last_extobj", value);
  Py_DECREF(value);
  if (failed < 0) {
    PyErr_Clear();
    g_last_extobj = nullptr;
  } else {
    g_last_extobj = value;
  }
  return g_last_state;
}

[[noreturn]] void throw_current() { throw nb::python_error(); }

// The warning's stack level: the user's line, past numfuse's own Python frames (asnumpy,
// printing...) that forced the evaluation. NumPy's loops have no Python frames of their own.
int user_stack_level() {
  static std::string package_dir;
  if (package_dir.empty()) {
    nb::object file = nb::getattr(nb::handle(g_module), "__file__", nb::none());
    std::string f = file.is_none() ? std::string("?") : nb::cast<std::string>(nb::str(file));
    package_dir = f.substr(0, f.find_last_of('/') + 1);
  }
  int level = 1;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    const char* name = PyUnicode_AsUTF8(code->co_filename);
    const bool ours = name && std::string(name).rfind(package_dir, 0) == 0;
    Py_DECREF(code);
    if (!ours) break;
    ++level;
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);
  PyErr_Clear();
  return level;
}

// NumPy's _error_handler for one op's conditions, in NumPy's order.
void report_event(const FpEvent& e) {
  const DecodedState& st = g_states[e.state >> 4 < g_states.size() ? e.state >> 4 : 0];
  for (int i = 0; i < 4; ++i) {
    if (!(e.flags & (1u << i))) continue;
    const FpMode mode = st.mode[i];
    if (mode == FpMode::Ignore) continue;
    std::string msg = std::string(kFlagText[i]) + " encountered in " + e.op;
    switch (mode) {
      case FpMode::Ignore:
        break;
      case FpMode::Warn:
        if (PyErr_WarnEx(PyExc_RuntimeWarning, msg.c_str(), user_stack_level()) < 0)
          throw_current();
        break;
      case FpMode::Raise:
        PyErr_SetString(PyExc_FloatingPointError, msg.c_str());
        throw_current();
      case FpMode::Print:
        std::fprintf(stderr, "Warning: %s\n", msg.c_str());
        std::fflush(stderr);
        break;
      case FpMode::Call: {
        if (!st.call) {
          PyErr_Format(PyExc_NameError,
                       "python callback specified for %s (in  %s) but no function found.",
                       kFlagText[i], e.op.c_str());
          throw_current();
        }
        PyObject* r = PyObject_CallFunction(st.call, "si", kFlagText[i], int(e.flags));
        if (!r) throw_current();
        Py_DECREF(r);
        break;
      }
      case FpMode::Log: {
        if (!st.call) {
          PyErr_Format(PyExc_NameError,
                       "log specified for %s (in %s) but no object with write method found.",
                       kFlagText[i], e.op.c_str());
          throw_current();
        }
        std::string line = "Warning: " + msg + "\n";
        PyObject* r = PyObject_CallMethod(st.call, "write", "s", line.c_str());
        if (!r) throw_current();
        Py_DECREF(r);
        break;
      }
    }
  }
}

void report_events(const std::vector<FpEvent>& events) {
  nb::gil_scoped_acquire gil;  // evaluation may have run without it
  for (const FpEvent& e : events) report_event(e);
}

}  // namespace

void bind_errstate(nb::module_& m) {
  DecodedState dflt{{FpMode::Warn, FpMode::Warn, FpMode::Ignore, FpMode::Warn}, nullptr};
  g_states.push_back(dflt);  // id 0: kFpDefaultState
  g_module = m.ptr();
  nb::list held;
  m.attr("_fp_held") = held;
  g_held = held.ptr();
  try {
    nb::object umath = nb::module_::import_("numpy._core.umath");
    g_extobj_var = nb::getattr(umath, "_extobj_contextvar").release().ptr();
    g_extobj_dict = nb::getattr(umath, "_get_extobj_dict").release().ptr();
  } catch (nb::python_error& e) {
    // Another NumPy layout: ops keep NumPy's default state.
    g_extobj_var = g_extobj_dict = nullptr;
  }
  set_fp_state_hook(&capture_state);
  set_fp_report_hook(&report_events);
  m.def(
      "_fp_state", [] { return capture_state(); },
      "The errstate word an op recorded now captures (tests).");
  m.def(
      "_set_divmod_nonfinite_flags",
      [](nb::bytes table) {
        if (table.size() != static_cast<size_t>(kDivmodTableSize)) throw nb::value_error("bad table size");
        set_divmod_nonfinite_flags(reinterpret_cast<const uint8_t*>(table.c_str()));
      },
      "Installs NumPy's flags of floor_divide/remainder/divmod on NaN and infinite operands "
      "(numfuse/_numpy_fp_probe.py, core/divmod_flags.h).");
  m.def(
      "_divmod_nonfinite_flags",
      [](int op, int is_double, int a, int b) { return divmod_nonfinite_table(op, is_double, a, b); },
      "The installed table's entry (tests).");
}

}  // namespace nf::py
