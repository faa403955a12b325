// The one-off work of a process's first CUDA calls, done ahead on background threads: from the
// driver's initialisation on (driver.cpp), when the kernel cache directory holds no kernel yet (so
// this process will compile), NVRTC started (~225 ms on the H100's host before its first compile;
// the prelude's PCH built too where NUMFUSE_NVRTC_PCH=1); from the first context on (driver.cpp's primary_context), cuBLAS
// and cuSOLVER loaded (~700 MB of libraries: 0.2-0.4 s from a cold disk) with their handles.
// A call that needs one of these while it is being made waits for it, as it would have made it
// itself; nothing else changes. NUMFUSE_CUDA_WARMUP=0: none of it (each at its first use).
#pragma once

namespace nf::cuda {

// Start the warm-ups once per process (later calls return at once); never throw: a failure there
// is left for the first real use to report. NVRTC's (for device 0's architecture), at cuInit:
void start_nvrtc_warmup() noexcept;
// cuSOLVER's and cuBLAS's for `device`, at its first context:
void start_warmup(int device) noexcept;
// Runs `task` on a thread of its own (nvrtc.cpp builds the prelude's PCH this way); false when
// no thread could be made (the caller does without). `task` must not throw.
bool run_in_background(void (*task)(void*), void* arg) noexcept;
// Returns when no background task runs (at once when none was started). Called before a fork
// (the child must not inherit a thread inside NVRTC or cuSOLVER) and at interpreter exit (before
// the libraries' static destructors run under it).
void wait_warmup() noexcept;
// True while a background task runs (for tests).
bool warmup_running() noexcept;

}  // namespace nf::cuda
