// The NVRTC stamp of the kernel cache (compiler_stamp.h): a stamp is trusted only for the same
// search inputs and an unchanged library file; anything else reads as no stamp.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "numfuse/backend/cuda/compiler_stamp.h"
#include "numfuse/backend/cuda/nvrtc.h"

namespace {

using namespace nf::cuda;

class CompilerStamp : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/numfuse-stamp-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    lib_ = dir_ + "/libnvrtc.so.99";
    write_file(lib_, "a library");
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  static void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }
  std::string dir_, lib_;
};

TEST_F(CompilerStamp, RoundTrip) {
  ASSERT_TRUE(write_stamp(dir_, "ctx", lib_, "nvrtc 99.1"));
  EXPECT_EQ(read_stamp(dir_, "ctx"), "nvrtc 99.1");
  struct stat st;
  ASSERT_EQ(::stat(stamp_path(dir_, "ctx").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(CompilerStamp, AnotherSearchContextHasNoStamp) {
  ASSERT_TRUE(write_stamp(dir_, "ctx", lib_, "nvrtc 99.1"));
  EXPECT_EQ(read_stamp(dir_, "ctx2"), "");
}

TEST_F(CompilerStamp, ChangedLibraryInvalidatesTheStamp) {
  ASSERT_TRUE(write_stamp(dir_, "ctx", lib_, "nvrtc 99.1"));
  write_file(lib_, "a newer library, longer");  // another size (and mtime)
  EXPECT_EQ(read_stamp(dir_, "ctx"), "");
}

TEST_F(CompilerStamp, RemovedLibraryInvalidatesTheStamp) {
  ASSERT_TRUE(write_stamp(dir_, "ctx", lib_, "nvrtc 99.1"));
  ASSERT_EQ(::unlink(lib_.c_str()), 0);
  EXPECT_EQ(read_stamp(dir_, "ctx"), "");
}

TEST_F(CompilerStamp, GarbledStampIsIgnored) {
  ASSERT_TRUE(write_stamp(dir_, "ctx", lib_, "nvrtc 99.1"));
  write_file(stamp_path(dir_, "ctx"), "numfuse nvrtc stamp 1\nctx\n");  // truncated
  EXPECT_EQ(read_stamp(dir_, "ctx"), "");
  write_file(stamp_path(dir_, "ctx"), "something else\nctx\n" + lib_ + "\n1 2 3 4.5\nnvrtc 99.1\n");
  EXPECT_EQ(read_stamp(dir_, "ctx"), "");
}

TEST_F(CompilerStamp, NoDirectoryOrLibraryWritesNothing) {
  EXPECT_FALSE(write_stamp("", "ctx", lib_, "nvrtc 99.1"));
  EXPECT_FALSE(write_stamp(dir_, "ctx", dir_ + "/absent.so", "nvrtc 99.1"));
  EXPECT_EQ(read_stamp(dir_, "ctx"), "");
  EXPECT_EQ(read_stamp("", "ctx"), "");
}

TEST_F(CompilerStamp, SearchContextNamesLdLibraryPath) {
  const char* old = std::getenv("LD_LIBRARY_PATH");
  const std::string saved = old ? old : "";
  ::setenv("LD_LIBRARY_PATH", "/one", 1);
  const std::string a = nvrtc_search_context();
  ::setenv("LD_LIBRARY_PATH", "/two", 1);
  const std::string b = nvrtc_search_context();
  if (old) ::setenv("LD_LIBRARY_PATH", saved.c_str(), 1); else ::unsetenv("LD_LIBRARY_PATH");
  EXPECT_NE(a, b);
  EXPECT_NE(stamp_path(dir_, a), stamp_path(dir_, b));
}

// With NVRTC loadable, the identity is NVRTC's own version and a stamp of it is left behind.
TEST_F(CompilerStamp, IdentityIsTheLoadedVersion) {
  if (!nvrtc_available()) GTEST_SKIP() << "NVRTC is not loadable here";
  const std::string want = "nvrtc " + nvrtc_version_string();
  EXPECT_EQ(nvrtc_identity(dir_), want);
  EXPECT_EQ(read_stamp(dir_, nvrtc_search_context()), want);
  EXPECT_EQ(nvrtc_identity(""), want);
}

}  // namespace
