// The NVRTC version every kernel cache key names, known without loading NVRTC.
//
// libnvrtc is ~110 MB with ~200,000 relocations: dlopen costs 5-10 ms, most of the first launch
// of a kernel the disk cache already holds (issue 14: <= 5 ms asked). The first process that
// loads NVRTC writes a stamp into the cache directory: the library file it opened (path, device,
// inode, size, modification time) and its version, under a name derived from what decides which
// file the loader opens (numfuse's library directories, LD_LIBRARY_PATH, /etc/ld.so.cache).
// A later process with the same search inputs whose recorded file is unchanged reads the version
// from the stamp; anything else (no stamp, another file, another search) loads NVRTC and
// rewrites the stamp. A compile always loads NVRTC and re-checks the stamp (note_nvrtc_loaded).
#pragma once
#include <string>

namespace nf::cuda {

// "nvrtc 13.0" (from a valid stamp in `stamp_dir`, else from NVRTC itself, then stamped), or
// "no nvrtc" when NVRTC cannot be loaded. `stamp_dir` "" never reads or writes a stamp.
std::string nvrtc_identity(const std::string& stamp_dir);

// Called once NVRTC is loaded (by a compile): rewrites the stamp when it no longer says what
// was loaded. Never throws.
void note_nvrtc_loaded(const std::string& stamp_dir) noexcept;

// ---- the pieces, for tests ---------------------------------------------------------------------

// What decides which libnvrtc the loader opens, as one string (part of the stamp's name).
std::string nvrtc_search_context();
// The stamp file of `context` in `dir`.
std::string stamp_path(const std::string& dir, const std::string& context);
// Writes the stamp: `library` (stat'ed now) has `version`. False when it cannot.
bool write_stamp(const std::string& dir, const std::string& context, const std::string& library,
                 const std::string& version);
// The version of a stamp whose context matches and whose library file is unchanged; "" else.
std::string read_stamp(const std::string& dir, const std::string& context);

}  // namespace nf::cuda
