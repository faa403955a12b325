// The one run-time loader of the CUDA libraries: the driver, NVRTC, cuBLAS, cuSOLVER, cuFFT,
// cuRAND and NCCL are each a row of one search table (file names, where to look,
// what to tell the user when they are missing), opened with dlopen once per process at first use,
// and their calls resolved with dlsym through one helper, so that every library fails the same
// way: a reason naming the library, the files and directories tried and the loader's own words.
#pragma once
#include <mutex>
#include <string>
#include <vector>

namespace nf::cuda {

// Nccl last: library_loader.cpp sizes its table from it.
enum class CudaLibrary { Driver, Nvrtc, Cublas, Cusolver, Cufft, Curand, Nccl };

// A row of the search table.
struct LibrarySpec {
  const char* name;                // "cuBLAS": how messages name it
  std::vector<const char*> files;  // sonames, preferred first ("libcublas.so.13", ...)
  bool system_only;                // the driver: the system loader only, never a toolkit dir
  const char* hint;                // how to install it, appended to "could not be loaded"
  const char* symbol_hint;         // appended to "lacks <symbol>" ("" for none)
};
const LibrarySpec& library_spec(CudaLibrary lib);
// Every library of the table, in declaration order (the tests walk it).
std::vector<CudaLibrary> all_libraries();

// An opened library (or why it could not be opened). Lives until exit: handles are never closed.
class LoadedLibrary {
 public:
  bool ok() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }      // the file opened ("" when not)
  const std::string& reason() const { return reason_; }  // why not ("" when ok)
  CudaLibrary which() const { return which_; }

  // The symbol's address, nullptr when the library lacks it (or is not open).
  void* symbol(const char* name) const;

  // Resolves `name` into `fn`. False, with *reason set to "<library> at <path> lacks <name>
  // <symbol hint>", when the symbol is absent: the caller's table is then unusable.
  template <class Fn>
  bool bind(Fn*& fn, const char* name, std::string* reason) const {
    fn = reinterpret_cast<Fn*>(symbol(name));
    if (!fn && reason) *reason = missing_symbol(name);
    return fn != nullptr;
  }
  // An optional symbol: nullptr when absent, no reason.
  template <class Fn>
  void bind_optional(Fn*& fn, const char* name) const {
    fn = reinterpret_cast<Fn*>(symbol(name));
  }
  std::string missing_symbol(const char* name) const;

 private:
  friend const LoadedLibrary& load_library(CudaLibrary lib);
  CudaLibrary which_ = CudaLibrary::Driver;
  void* handle_ = nullptr;
  std::string path_, reason_;
};

// Opens `lib` on first call (thread-safe; later calls return the same object). Never throws:
// check ok() and reason(). Directories are library_dirs() (library_search.h) as they are at the
// first call, then the system loader (LD_LIBRARY_PATH, ldconfig), then /usr/local/cuda.
const LoadedLibrary& load_library(CudaLibrary lib);

// The process-wide table of a library's bound calls, made at first use and kept until exit (the
// handles and plans made through it may outlive static teardown). State has `bool ok` and
// `std::string reason`; `bind(lib, state)` resolves the calls into state and returns false, with
// state.reason set (LoadedLibrary::bind does), when one is missing. A library that cannot be
// opened leaves ok false and its reason. One table per State type.
template <class State, class Bind>
State& bound_library(CudaLibrary which, const Bind& bind) {
  static State* state = new State();
  static std::once_flag once;
  std::call_once(once, [&] {
    const LoadedLibrary& lib = load_library(which);
    if (!lib.ok()) {
      state->reason = lib.reason();
      return;
    }
    state->ok = bind(lib, *state);
  });
  return *state;
}

// dlopen's the first of `names` found: in each of `dirs` (full path), then by bare name through
// the system loader, then in /usr/local/cuda/lib64 and lib. Returns the handle (nullptr when
// none) and sets *path to the file opened, or *error to what was tried and the loader's words.
void* open_library(const std::vector<std::string>& names, const std::vector<std::string>& dirs,
                   bool global, std::string* path, std::string* error);

// Opens, RTLD_GLOBAL, the newest file in `path`'s directory whose name starts with `prefix`
// (NVRTC's builtins beside NVRTC). Returns the file opened, or "" when none opened.
std::string open_beside(const std::string& path, const std::string& prefix);

}  // namespace nf::cuda
