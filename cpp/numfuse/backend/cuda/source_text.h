// Helpers of the CUDA code generators: kernel source built by string appends (no iostreams and no
// locale on the launch path: an ostringstream crashed inside libstdc++'s locale code on the GPU
// machine's build), and the bytes of a by-value parameter struct.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace nf::cuda {

struct SourceText {
  std::string text;
  SourceText& operator<<(const char* v) {
    text += v;
    return *this;
  }
  SourceText& operator<<(const std::string& v) {
    text += v;
    return *this;
  }
  SourceText& operator<<(char v) {
    text += v;
    return *this;
  }
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  SourceText& operator<<(T v) {
    text += std::to_string(v);
    return *this;
  }
  std::string str() { return std::move(text); }
};

// Appends the bytes of v to a parameter struct being laid out (8-byte fields keep it aligned).
template <class T>
void append_param(std::vector<uint8_t>& bytes, const T& v) {
  size_t at = bytes.size();
  bytes.resize(at + sizeof(T));
  std::memcpy(bytes.data() + at, &v, sizeof(T));
}

}  // namespace nf::cuda
