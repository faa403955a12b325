// Helpers of the CUDA code generators: kernel templates filled in, kernel source built by string
// appends (no iostreams and no locale on the launch path: an ostringstream crashed inside
// libstdc++'s locale code on the GPU machine's build), and the bytes of a by-value parameter
// struct.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
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

// `templ` (a kernel template's text) with each ${name} replaced by its value. A placeholder
// without a value, or a value without a placeholder, throws std::logic_error naming it: a template
// and its generator cannot drift apart unnoticed.
inline std::string fill_template(const std::string& templ,
                                 const std::vector<std::pair<const char*, std::string>>& values) {
  std::string out;
  out.reserve(templ.size() + 1024);
  std::vector<bool> used(values.size(), false);
  size_t at = 0;
  for (size_t open = templ.find("${"); open != std::string::npos; open = templ.find("${", at)) {
    const size_t close = templ.find('}', open);
    if (close == std::string::npos) throw std::logic_error("kernel template: unclosed ${");
    const std::string name = templ.substr(open + 2, close - open - 2);
    size_t v = 0;
    while (v < values.size() && name != values[v].first) ++v;
    if (v == values.size()) throw std::logic_error("kernel template: no value for ${" + name + "}");
    used[v] = true;
    out.append(templ, at, open - at);
    out += values[v].second;
    at = close + 1;
  }
  out.append(templ, at, std::string::npos);
  for (size_t v = 0; v < values.size(); ++v) {
    if (!used[v])
      throw std::logic_error(std::string("kernel template: no ${") + values[v].first + "}");
  }
  return out;
}

// Appends the bytes of v to a parameter struct being laid out (8-byte fields keep it aligned).
template <class T>
void append_param(std::vector<uint8_t>& bytes, const T& v) {
  size_t at = bytes.size();
  bytes.resize(at + sizeof(T));
  std::memcpy(bytes.data() + at, &v, sizeof(T));
}

}  // namespace nf::cuda
