// Where the CUDA libraries and headers are looked for at run time: CUDA_HOME / CUDA_PATH, the
// directories the Python layer found in pip's nvidia-* packages, the system loader's own search
// (LD_LIBRARY_PATH, ldconfig), and /usr/local/cuda. library_loader.h opens the libraries.
#pragma once
#include <string>
#include <vector>

namespace nf::cuda {

// Adds directories (pip's nvidia/*/lib and nvidia/*/include) searched after CUDA_HOME.
void add_search_dirs(const std::vector<std::string>& lib_dirs,
                     const std::vector<std::string>& include_dirs);

// Library directories in search order (those that exist).
std::vector<std::string> library_dirs();
// Include directories holding cuda_fp16.h (or the toolkit's include dir), in search order.
std::vector<std::string> cuda_include_dirs();

}  // namespace nf::cuda
