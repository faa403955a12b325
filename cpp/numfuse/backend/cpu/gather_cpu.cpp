#include "numfuse/backend/cpu/gather_cpu.h"

#include <algorithm>

#include "numfuse/backend/cpu/thread_pool.h"
#include "numfuse/core/error.h"
#include "numfuse/core/iteration.h"

namespace nf::cpu {

namespace {

constexpr int64_t kGrain = 1 << 14;  // elements per task, roughly

struct Bytes16 {
  uint64_t lo, hi;
};

// The element offset of flat position i of an array of `shape` read with `strides`.
int64_t unravel_offset(int64_t i, const Shape& shape, const Strides& strides) {
  int64_t off = 0;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    off += (i % shape[d]) * strides[d];
    i /= shape[d];
  }
  return off;
}

// Copies one inner block between a strided place (the source or destination array) and a
// contiguous one (the gathered result or the values). kGather: strided -> contiguous.
template <class T, bool kGather>
void block(T* strided, T* contig, const int64_t* shape, const int64_t* strides,
           const int64_t* contig_steps, int nd) {
  if (nd == 0) {
    if (kGather) *contig = *strided; else *strided = *contig;
    return;
  }
  if (nd == 1) {
    const int64_t n = shape[0], st = strides[0];
    if (kGather) {
      if (st == 1) std::copy(strided, strided + n, contig);
      else for (int64_t i = 0; i < n; ++i) contig[i] = strided[i * st];
    } else {
      for (int64_t i = 0; i < n; ++i) strided[i * st] = contig[i];
    }
    return;
  }
  for (int64_t i = 0; i < shape[0]; ++i) {
    block<T, kGather>(strided + i * strides[0], contig + i * contig_steps[0], shape + 1,
                      strides + 1, contig_steps + 1, nd - 1);
  }
}

template <class T, bool kGather>
void run(T* strided, T* contig, const GatherGeometry& g, const std::vector<int64_t>& boff) {
  // Dims that step through memory as one merge (fewer, longer inner loops), in C order.
  const IterSpace inner = coalesce_in_order(g.inner_shape, {g.inner_strides});
  const Shape& ishape = inner.shape;
  const Strides& istrides = inner.strides[0];
  const int nd = inner.size() == 1 ? 0 : inner.ndim();  // one element per position: no inner loop
  std::vector<int64_t> steps(nd, 1);
  for (int d = nd - 2; d >= 0; --d) steps[d] = steps[d + 1] * ishape[d + 1];
  const int64_t ninner = numel(ishape), nb = static_cast<int64_t>(boff.size());
  const int64_t rows = numel(g.outer_shape) * nb;
  if (rows == 0 || ninner == 0) return;
  auto body = [&](int64_t r0, int64_t r1) {
    int64_t oi = r0 / nb, bi = r0 % nb;
    int64_t ooff = unravel_offset(oi, g.outer_shape, g.outer_strides);
    for (int64_t r = r0; r < r1;) {
      // One run of B positions under the same outer offset.
      const int64_t n = std::min(nb - bi, r1 - r);
      const int64_t* b = boff.data() + bi;
      T* base = strided + ooff;
      if (nd == 0) {  // one element per position: the common a[idx] and a[:, idx] cases
        T* c = contig + r;
        if (kGather) {
          for (int64_t i = 0; i < n; ++i) c[i] = base[b[i]];
        } else {
          for (int64_t i = 0; i < n; ++i) base[b[i]] = c[i];
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          block<T, kGather>(base + b[i], contig + (r + i) * ninner, ishape.data(), istrides.data(),
                            steps.data(), nd);
        }
      }
      r += n;
      bi += n;
      if (bi == nb) {
        bi = 0;
        ooff = unravel_offset(++oi, g.outer_shape, g.outer_strides);
      }
    }
  };
  if (kGather) {
    parallel_for(rows, std::max<int64_t>(1, kGrain / ninner), body);
  } else {
    body(0, rows);  // in order: the last of repeated indices wins
  }
}

template <bool kGather>
void dispatch(char* strided, char* contig, size_t itemsize, const GatherGeometry& g) {
  std::vector<int64_t> boff = index_offsets(g);
  switch (itemsize) {
#define NF_GATHER_CASE_(S, T)                                                                  \
  case S:                                                                                      \
    run<T, kGather>(reinterpret_cast<T*>(strided), reinterpret_cast<T*>(contig), g, boff);     \
    return;
    NF_GATHER_CASE_(1, uint8_t)
    NF_GATHER_CASE_(2, uint16_t)
    NF_GATHER_CASE_(4, uint32_t)
    NF_GATHER_CASE_(8, uint64_t)
    NF_GATHER_CASE_(16, Bytes16)
#undef NF_GATHER_CASE_
  }
  throw Error("gather: unsupported item size " + std::to_string(itemsize));
}

}  // namespace

std::vector<int64_t> index_offsets(const GatherGeometry& g) {
  const size_t k = g.indices.size();
  std::vector<Strides> strides;
  for (const Array& idx : g.indices) {
    strides.push_back(broadcast_strides(idx.shape, idx.strides, g.bshape));
  }
  IterSpace sp;
  sp.shape = g.bshape;
  sp.strides = strides;
  const int64_t n = numel(g.bshape);
  std::vector<int64_t> boff(static_cast<size_t>(n));
  parallel_for(n, kGrain, [&](int64_t b, int64_t e) {
    int64_t pos = b;
    for_each_run(sp, b, e, int64_t(1) << 30, [&](const int64_t* off, int64_t len) {
      for (int64_t i = 0; i < len; ++i) boff[pos + i] = 0;
      for (size_t j = 0; j < k; ++j) {
        const int64_t* p = g.indices[j].data_as<int64_t>() + off[j];
        const int64_t st = sp.strides[j].empty() ? 0 : sp.strides[j].back();
        const int64_t size = g.adv_sizes[j], stride = g.adv_strides[j];
        for (int64_t i = 0; i < len; ++i) {
          int64_t v = p[i * st];
          if (v < 0) v += size;
          if (v < 0 || v >= size) {
            throw IndexError("index " + std::to_string(p[i * st]) + " is out of bounds for axis " +
                             std::to_string(g.adv_axes[j]) + " with size " + std::to_string(size));
          }
          boff[pos + i] += v * stride;
        }
      }
      pos += len;
    });
  });
  return boff;
}

void gather(const Array& src, const GatherGeometry& g, const Array& out) {
  dispatch<true>(src.data(), out.data(), src.itemsize(), g);
}

void scatter(const Array& values, const GatherGeometry& g, const Array& dst) {
  dispatch<false>(dst.data(), values.data(), dst.itemsize(), g);
}

}  // namespace nf::cpu
