// Exceptions of the C++ core. The bindings translate each to the Python exception NumPy raises.
#pragma once
#include <stdexcept>
#include <string>

namespace nf {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ValueError : Error { using Error::Error; };          // -> ValueError
struct TypeError : Error { using Error::Error; };           // -> TypeError
struct IndexError : Error { using Error::Error; };          // -> IndexError
struct AxisError : Error { using Error::Error; };           // -> numpy.exceptions.AxisError
struct OverflowError : Error { using Error::Error; };       // -> OverflowError
struct NotImplementedError : Error { using Error::Error; }; // -> NotImplementedError
// Host memory a request can never get, or could not get ("Unable to allocate ...", as NumPy).
struct MemoryError : Error { using Error::Error; };         // -> MemoryError
// numpy's UFuncTypeError family (a TypeError): no loop for these dtypes, or a forbidden cast.
struct UFuncTypeError : TypeError { using TypeError::TypeError; };
struct LinAlgError : Error { using Error::Error; };         // -> numpy.linalg.LinAlgError
// CUDA: a driver call failed, or CUDA is not usable here.    -> numfuse.cuda.CUDAError
struct CUDAError : Error { using Error::Error; };
// Device memory exhausted (after a trim and one retry).      -> numfuse.cuda.OutOfMemoryError
struct CUDAOutOfMemoryError : CUDAError { using CUDAError::CUDAError; };
// NVRTC rejected a generated kernel; carries the log and the numbered source.
struct CompileError : Error { using Error::Error; };        // -> numfuse.cuda.CompileError

}  // namespace nf
