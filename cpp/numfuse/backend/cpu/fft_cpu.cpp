// The FFT node on the CPU: pocketfft (cmake/pocketfft.cmake obtains it; docs/decisions.md says
// why), one transformed axis at a time, the independent lines of each pass spread over numfuse's
// thread pool. pocketfft's own threads are compiled out: one pool, one thread count
// (NUMFUSE_NUM_THREADS), and fork safety are then the pool's (thread_pool.h). Plans (twiddle
// tables) are cached by length, as NumPy's pocketfft caches them.
#define POCKETFFT_NO_MULTITHREADING
#define POCKETFFT_CACHE_SIZE 16
#include <pocketfft_hdronly.h>

#include <algorithm>
#include <complex>

#include "numfuse/backend/cpu/nodes_cpu.h"
#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/error.h"

namespace nf::cpu {

namespace {

namespace pf = pocketfft;

// A strided view in pocketfft's terms: the shape, and strides in bytes.
struct View {
  pf::shape_t shape;
  pf::stride_t strides;
  char* data;
};

View view_of(const Array& a) {
  View v{pf::shape_t(a.shape.begin(), a.shape.end()), pf::stride_t(a.ndim()), a.data()};
  for (int d = 0; d < a.ndim(); ++d) v.strides[d] = a.strides[d] * int64_t(a.itemsize());
  return v;
}

// Runs fn(in, out) over the lines of `axis`: the largest other axis is split into ranges run on
// the pool (each range a sub-view of both), so that every pass is threaded over independent lines
// when there are several.
template <class Fn>
void for_line_ranges(const View& in, const View& out, size_t axis, Fn fn) {
  int split = -1;
  for (size_t d = 0; d < in.shape.size(); ++d)
    if (d != axis && (split < 0 || in.shape[d] > in.shape[size_t(split)])) split = int(d);
  if (split < 0 || in.shape[size_t(split)] < 2 || num_threads() < 2) {
    fn(in, out);
    return;
  }
  const size_t sd = size_t(split);
  size_t line_values = 1;  // values in one index of the split axis
  for (size_t d = 0; d < in.shape.size(); ++d)
    if (d != sd) line_values *= std::max(in.shape[d], out.shape[d]);
  // About 64K values per range: the pool's overhead is small next to the transforms.
  const int64_t grain = std::max<int64_t>(1, int64_t(65536 / std::max<size_t>(line_values, 1)));
  parallel_for(int64_t(in.shape[sd]), grain, [&](int64_t b, int64_t e) {
    View i = in, o = out;
    i.shape[sd] = o.shape[sd] = size_t(e - b);
    i.data += b * in.strides[sd];
    o.data += b * out.strides[sd];
    fn(i, o);
  });
}

// Whether the transform is over rows: one axis, the last, both arrays C-contiguous. Then each
// line is transformed in place in the output, as NumPy's pocketfft does, which saves pocketfft's
// general path a scratch line per call and a copy (2^22 values: 64 MiB of fresh pages).
bool is_rows(const FftSpec& spec, const Array& in, const Array& out) {
  return spec.axes.size() == 1 && spec.axes[0] == out.ndim() - 1 && in.c_contiguous() &&
         out.c_contiguous();
}

// Runs line(i) for the `lines` rows on the pool.
template <class Fn>
void for_rows(int64_t lines, int64_t row_values, Fn line) {
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(row_values, 1));
  parallel_for(lines, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) line(i);
  });
}

template <class T>
void run_rows(const FftSpec& spec, const Array& in_arr, const Array& out_arr) {
  using C = std::complex<T>;
  using pf::detail::cmplx;
  const int ax = out_arr.ndim() - 1;
  const size_t n_in = size_t(in_arr.shape[ax]), n_out = size_t(out_arr.shape[ax]);
  const int64_t lines = out_arr.size() / int64_t(n_out);
  switch (spec.kind) {
    case FftKind::C2C: {
      auto plan = pf::detail::get_plan<pf::detail::pocketfft_c<T>>(n_out);
      const C* src = in_arr.data_as<C>();
      C* dst = out_arr.data_as<C>();
      for_rows(lines, int64_t(n_out), [&](int64_t i) {
        C* d = dst + i * int64_t(n_out);
        std::copy(src + i * int64_t(n_in), src + (i + 1) * int64_t(n_in), d);
        plan->exec(reinterpret_cast<cmplx<T>*>(d), T(1), spec.forward);
      });
      break;
    }
    case FftKind::R2C: {
      // pocketfft's real plan leaves fftpack's order r0 r1 i1 r2 i2 ... in place: run it one
      // value into the output line, then move r0 down and zero the imaginary parts it lacks.
      auto plan = pf::detail::get_plan<pf::detail::pocketfft_r<T>>(n_in);
      const T* src = in_arr.data_as<T>();
      T* dst = reinterpret_cast<T*>(out_arr.data_as<C>());
      for_rows(lines, int64_t(n_in), [&](int64_t i) {
        T* d = dst + i * int64_t(2 * n_out);
        std::copy(src + i * int64_t(n_in), src + (i + 1) * int64_t(n_in), d + 1);
        std::fill(d + 1 + n_in, d + 2 * n_out, T(0));
        plan->exec(d + 1, T(1), true);
        if (!spec.forward)  // the backward exponent: the conjugate spectrum of a real signal
          for (size_t k = 3; k < 2 * n_out; k += 2) d[k] = -d[k];
        d[0] = d[1];
        d[1] = T(0);
      });
      break;
    }
    case FftKind::C2R: {
      // The inverse: the half spectrum in fftpack's order in the output line, then in place.
      auto plan = pf::detail::get_plan<pf::detail::pocketfft_r<T>>(n_out);
      const C* src = in_arr.data_as<C>();
      T* dst = out_arr.data_as<T>();
      const T sign = spec.forward ? T(-1) : T(1);
      for_rows(lines, int64_t(n_out), [&](int64_t i) {
        const C* s = src + i * int64_t(n_in);
        T* d = dst + i * int64_t(n_out);
        d[0] = s[0].real();
        for (size_t k = 1; 2 * k - 1 < n_out; ++k) {
          d[2 * k - 1] = s[k].real();
          if (2 * k < n_out) d[2 * k] = sign * s[k].imag();
        }
        plan->exec(d, T(1), false);
      });
      break;
    }
  }
}

template <class T>
void run_fft(const FftSpec& spec, const Array& in_arr, const Array& out_arr) {
  using C = std::complex<T>;
  if (is_rows(spec, in_arr, out_arr)) return run_rows<T>(spec, in_arr, out_arr);
  const View in = view_of(in_arr), out = view_of(out_arr);
  const size_t nax = spec.axes.size();
  const bool fwd = spec.forward;
  // The passes after the first transform the output in place; C2R first transforms the complex
  // axes into a scratch copy (the input is not ours to overwrite), then the real axis.
  switch (spec.kind) {
    case FftKind::C2C:
      for (size_t i = 0; i < nax; ++i) {
        const size_t ax = size_t(spec.axes[nax - 1 - i]);  // NumPy's order: the last axis first
        for_line_ranges(i == 0 ? in : out, out, ax, [&](const View& a, const View& b) {
          pf::c2c<T>(a.shape, a.strides, b.strides, {ax}, fwd, reinterpret_cast<const C*>(a.data),
                     reinterpret_cast<C*>(b.data), T(1), 1);
        });
      }
      break;
    case FftKind::R2C: {
      const size_t last = size_t(spec.axes.back());
      for_line_ranges(in, out, last, [&](const View& a, const View& b) {
        pf::r2c<T>(a.shape, a.strides, b.strides, last, fwd, reinterpret_cast<const T*>(a.data),
                   reinterpret_cast<C*>(b.data), T(1), 1);
      });
      for (size_t i = 1; i < nax; ++i) {
        const size_t ax = size_t(spec.axes[nax - 1 - i]);
        for_line_ranges(out, out, ax, [&](const View& a, const View& b) {
          pf::c2c<T>(a.shape, a.strides, b.strides, {ax}, fwd, reinterpret_cast<const C*>(a.data),
                     reinterpret_cast<C*>(b.data), T(1), 1);
        });
      }
      break;
    }
    case FftKind::C2R: {
      const size_t last = size_t(spec.axes.back());
      View src = in;
      Array scratch;
      if (nax > 1) {
        scratch = Array::empty(in_arr.shape, in_arr.dtype, in_arr.device());
        const View tmp = view_of(scratch);
        for (size_t i = 0; i + 1 < nax; ++i) {
          const size_t ax = size_t(spec.axes[i]);
          for_line_ranges(i == 0 ? in : tmp, tmp, ax, [&](const View& a, const View& b) {
            pf::c2c<T>(a.shape, a.strides, b.strides, {ax}, fwd, reinterpret_cast<const C*>(a.data),
                       reinterpret_cast<C*>(b.data), T(1), 1);
          });
        }
        src = tmp;
      }
      // Split on the output's shape: c2r is described by it (the input has n/2+1 on `last`).
      View src_as_out = src;
      src_as_out.shape = out.shape;
      for_line_ranges(src_as_out, out, last, [&](const View& a, const View& b) {
        pf::c2r<T>(b.shape, a.strides, b.strides, last, fwd, reinterpret_cast<const C*>(a.data),
                   reinterpret_cast<T*>(b.data), T(1), 1);
      });
      break;
    }
  }
}

}  // namespace

void eval_fft(FftNode& node, const std::vector<Array>& outs) {
  const Array& in = node.inputs[0];
  const Array& out = outs[0];
  if (out.size() == 0) return;
  const DType cdt = node.spec.kind == FftKind::C2R ? in.dtype : out.dtype;  // the complex side
  if (cdt == DType::Complex64) {
    run_fft<float>(node.spec, in, out);
  } else if (cdt == DType::Complex128) {
    run_fft<double>(node.spec, in, out);
  } else {
    throw TypeError(std::string("fft: no transform for dtype ") + dtype_name(cdt));
  }
}

}  // namespace nf::cpu
