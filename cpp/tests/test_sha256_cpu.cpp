// SHA-256 with the x86 SHA instructions (where the CPU has them) against the portable rounds:
// every length around the block and padding boundaries, long inputs, and incremental updates.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "numfuse/backend/cuda/sha256.h"

namespace {

using namespace nf::cuda;

std::string random_bytes(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(gen() & 0xFF);
  return s;
}

TEST(Sha256Cpu, EveryLengthAgreesWithThePortableRounds) {
  for (size_t n = 0; n <= 300; ++n) {
    const std::string s = random_bytes(n, static_cast<unsigned>(n));
    EXPECT_EQ(sha256(s.data(), n), Sha256::portable_digest(s.data(), n)) << "length " << n;
  }
  for (size_t n : {4095u, 4096u, 65537u, 1000003u}) {
    const std::string s = random_bytes(n, 7);
    EXPECT_EQ(sha256(s.data(), n), Sha256::portable_digest(s.data(), n)) << "length " << n;
  }
}

TEST(Sha256Cpu, IncrementalUpdatesAgree) {
  const std::string s = random_bytes(5000, 3);
  std::mt19937 gen(11);
  for (int trial = 0; trial < 50; ++trial) {
    Sha256 h;
    size_t at = 0;
    while (at < s.size()) {
      size_t take = std::min<size_t>(s.size() - at, gen() % 200);
      h.update(s.data() + at, take);
      at += take;
    }
    EXPECT_EQ(h.digest(), Sha256::portable_digest(s.data(), s.size())) << "trial " << trial;
  }
}

TEST(Sha256Cpu, PortableRoundsKnownVector) {
  const std::string abc = "abc";
  auto d = Sha256::portable_digest(abc.data(), abc.size());
  EXPECT_EQ(to_hex(d.data(), d.size()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  RecordProperty("cpu_instructions", sha256_uses_cpu_instructions() ? "yes" : "no");
}

}  // namespace
