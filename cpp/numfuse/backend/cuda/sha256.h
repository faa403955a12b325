// SHA-256 (FIPS 180-4), written for numfuse: kernel cache keys and cache-file checksums.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace nf::cuda {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t n);
  void update(const std::string& s) { update(s.data(), s.size()); }
  // Adds s with its length first, so that ("ab","c") and ("a","bc") hash differently.
  void update_field(const std::string& s);
  std::array<uint8_t, 32> digest();  // finishes; the object must not be updated afterwards
  // The digest computed with the portable rounds only (tests compare them with the CPU's).
  static std::array<uint8_t, 32> portable_digest(const void* data, size_t n);

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
  bool portable_ = false;
};

// True when the x86 SHA instructions compute the rounds (checked once, at the first hash).
bool sha256_uses_cpu_instructions();

std::array<uint8_t, 32> sha256(const void* data, size_t n);
std::string to_hex(const uint8_t* p, size_t n);
inline std::string sha256_hex(const std::string& s) {
  auto d = sha256(s.data(), s.size());
  return to_hex(d.data(), d.size());
}

}  // namespace nf::cuda
