// Where an array lives: the CPU or one CUDA device.
#pragma once
#include <string>

namespace nf {

struct Device {
  enum class Kind : unsigned char { CPU, CUDA };
  Kind kind = Kind::CPU;
  int index = 0;

  static Device cpu() { return {}; }
  static Device cuda(int i) { return {Kind::CUDA, i}; }
  bool is_cpu() const { return kind == Kind::CPU; }
  bool operator==(const Device& o) const { return kind == o.kind && (is_cpu() || index == o.index); }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index); }
};

// The device new arrays go to unless told otherwise: NUMFUSE_DEVICE (cpu, cuda, cuda:N), else
// cuda:0 when CUDA is usable, else the CPU. A NUMFUSE_DEVICE naming an unusable device raises
// ValueError here (at first use, never at import) until set_default_device is called.
Device default_device();
void set_default_device(Device d);
// `with numfuse.cuda.Device(i):` on the calling thread: new arrays go to cuda:i until the matching
// pop (a stack per thread, as CuPy's current device; other threads keep the process default).
void push_thread_device(Device d);
// Throws ValueError when the calling thread has none pushed.
void pop_thread_device();
// Throws (CUDAError: no usable CUDA; ValueError: no such device) unless `d` can hold arrays.
void check_device_usable(Device d);
// Tests: while set, default_device() throws (a RuntimeError naming the trap), so a function of
// arrays that makes a temporary or a result on the default device instead of its operands' device
// fails on a machine without a GPU as it would on one (where the default is cuda:0). Process-wide;
// a device pushed on the thread (push_thread_device: a function following its operands' device)
// is answered as usual.
void set_default_device_trap(bool on);
// Parses "cpu", "cuda", "cuda:1"; throws ValueError otherwise.
Device parse_device(const std::string& s);

}  // namespace nf
