// ---- Sort kernels (sort, argsort, partition along one axis; searchsorted). Expects the
// generated nf_t (stored type). A first step, not CUB: each tile of NF_SORT_TILE elements of a
// line is sorted in shared memory by a bitonic network, then runs are merged pairwise, a
// merge-path split per thread, until one run per line is left (docs/decisions.md, "Sorting on
// CUDA"). Elements compare as (value in NumPy's order, index in the line): a total order, so
// the result is the stable sort whatever the network does.

#define NF_SORT_TILE 1024
#define NF_SORT_THREADS 256
#define NF_MERGE_ITEMS 8

// NumPy's order: NaNs last (npysort's FLOAT_LT), complex by real then imaginary part with
// NaN classes [R+Rj, R+nanj, nan+Rj, nan+nanj].
template <class T>
__device__ __forceinline__ bool nf_sort_less(const T& a, const T& b) { return a < b; }
template <>
__device__ __forceinline__ bool nf_sort_less<float>(const float& a, const float& b) {
  return a < b || (b != b && a == a);
}
template <>
__device__ __forceinline__ bool nf_sort_less<double>(const double& a, const double& b) {
  return a < b || (b != b && a == a);
}
template <>
__device__ __forceinline__ bool nf_sort_less<nf::half>(const nf::half& a, const nf::half& b) {
  return nf_sort_less<float>(static_cast<float>(a), static_cast<float>(b));
}
template <class F>
__device__ __forceinline__ bool nf_complex_less(const nf::complex<F>& a, const nf::complex<F>& b) {
  const int ca = (a.re != a.re ? 2 : 0) + (a.im != a.im ? 1 : 0);
  const int cb = (b.re != b.re ? 2 : 0) + (b.im != b.im ? 1 : 0);
  if (ca != cb) return ca < cb;
  if (ca == 0) return a.re < b.re || (a.re == b.re && a.im < b.im);
  if (ca == 1) return a.re < b.re;
  if (ca == 2) return a.im < b.im;
  return false;
}
template <>
__device__ __forceinline__ bool nf_sort_less<nf::complex64>(const nf::complex64& a, const nf::complex64& b) {
  return nf_complex_less(a, b);
}
template <>
__device__ __forceinline__ bool nf_sort_less<nf::complex128>(const nf::complex128& a, const nf::complex128& b) {
  return nf_complex_less(a, b);
}

struct nf_sort_params {
  const void* in;           // C-contiguous (outer, n, inner); lines are (outer, inner) pairs
  void* vals_src;           // line-major working values (lines * n), read by a pass
  long long* idx_src;       // their indices in the line
  void* vals_dst;           // written by a pass
  long long* idx_dst;
  void* out_values;         // C-contiguous like `in`, or null
  long long* out_indices;   // C-contiguous like `in`, or null
  long long n, lines, inner, width;  // width: the run length a merge pass starts from
  unsigned* idx32_dst;        // 32-bit indices in the line (CUB's radix paths, n < 2^32), or null
  const unsigned* idx32_src;
  long long* count;           // one device int64: the NaN fix-up's count, unique's count
  long long canonical;        // make_keys: -0.0 as 0.0 (argsort's stability, unique's equality)
  const long long* starts;    // unique: where each run of equal values starts in the sorted line
};

// Where element i of line l lies in a C-contiguous (outer, n, inner) array.
__device__ __forceinline__ long long nf_sort_at(const nf_sort_params& p, long long l, long long i) {
  if (p.inner == 1) return l * p.n + i;  // rows (and one line): no 64-bit division
  const long long o = l / p.inner;
  return o * p.n * p.inner + (l - o * p.inner) + i * p.inner;
}

// The line and the place in it of line-major element g (one line: no 64-bit division).
__device__ __forceinline__ void nf_line_of(const nf_sort_params& p, long long g, long long& l, long long& i) {
  if (p.lines == 1) {
    l = 0, i = g;
  } else {
    l = g / p.n, i = g - l * p.n;
  }
}

// (value, index) order; indices >= n are padding, after every element.
__device__ __forceinline__ bool nf_before(const nf_t& va, long long ia, const nf_t& vb, long long ib,
                                          long long n) {
  if (ia >= n || ib >= n) return ia < ib;
  if (nf_sort_less(va, vb)) return true;
  if (nf_sort_less(vb, va)) return false;
  return ia < ib;
}

// Sorts each tile of NF_SORT_TILE elements of each line into vals_dst / idx_dst.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_tiles)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_tiles(const nf_sort_params p) {
  __shared__ nf_t sv[NF_SORT_TILE];
  __shared__ long long si[NF_SORT_TILE];
  const nf_t* in = static_cast<const nf_t*>(p.in);
  nf_t* dv = static_cast<nf_t*>(p.vals_dst);
  const long long per_line = (p.n + NF_SORT_TILE - 1) / NF_SORT_TILE;
  const long long tiles = per_line * p.lines;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long l = t / per_line;
    const long long start = (t - l * per_line) * NF_SORT_TILE;
    for (int k = threadIdx.x; k < NF_SORT_TILE; k += NF_SORT_THREADS) {
      const long long i = start + k;
      if (i < p.n) sv[k] = in[nf_sort_at(p, l, i)];
      si[k] = i < p.n ? i : p.n + k;
    }
    __syncthreads();
    for (int size = 2; size <= NF_SORT_TILE; size <<= 1) {
      for (int stride = size >> 1; stride > 0; stride >>= 1) {
        for (int k = threadIdx.x; k < NF_SORT_TILE / 2; k += NF_SORT_THREADS) {
          const int a = 2 * stride * (k / stride) + (k % stride);
          const int b = a + stride;
          const bool up = (a & size) == 0;
          if (nf_before(sv[b], si[b], sv[a], si[a], p.n) == up) {
            const nf_t tv = sv[a];
            sv[a] = sv[b];
            sv[b] = tv;
            const long long ti = si[a];
            si[a] = si[b];
            si[b] = ti;
          }
        }
        __syncthreads();
      }
    }
    for (int k = threadIdx.x; k < NF_SORT_TILE; k += NF_SORT_THREADS) {
      if (start + k < p.n) {
        dv[l * p.n + start + k] = sv[k];
        p.idx_dst[l * p.n + start + k] = si[k];
      }
    }
    __syncthreads();
  }
}
#endif

// One merge pass: runs of p.width become runs of 2 * p.width. Each thread writes
// NF_MERGE_ITEMS outputs, after a binary search for where its slice of the merge begins.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_merge)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_merge(const nf_sort_params p) {
  const nf_t* sv = static_cast<const nf_t*>(p.vals_src);
  nf_t* dv = static_cast<nf_t*>(p.vals_dst);
  const long long per_line = (p.n + NF_MERGE_ITEMS - 1) / NF_MERGE_ITEMS;
  const long long total = per_line * p.lines;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    const long long l = g / per_line;
    const long long d0 = (g - l * per_line) * NF_MERGE_ITEMS;
    const long long base = d0 / (2 * p.width) * (2 * p.width);
    const long long mid = min(base + p.width, p.n), hi = min(base + 2 * p.width, p.n);
    const nf_t* xv = sv + l * p.n + base;
    const long long* xi = p.idx_src + l * p.n + base;
    const nf_t* yv = sv + l * p.n + mid;
    const long long* yi = p.idx_src + l * p.n + mid;
    const long long m = mid - base, k = hi - mid;
    const long long d = d0 - base, dend = min(d + NF_MERGE_ITEMS, m + k);
    long long lo = max(0LL, d - k), up = min(d, m);
    while (lo < up) {
      const long long c = (lo + up) >> 1;
      if (!nf_before(yv[d - c - 1], yi[d - c - 1], xv[c], xi[c], p.n)) lo = c + 1;
      else up = c;
    }
    long long i = lo, j = d - lo;
    for (long long o = d; o < dend; ++o) {
      const bool take_y = i >= m || (j < k && nf_before(yv[j], yi[j], xv[i], xi[i], p.n));
      const long long at = l * p.n + base + o;
      if (take_y) {
        dv[at] = yv[j];
        p.idx_dst[at] = yi[j];
        ++j;
      } else {
        dv[at] = xv[i];
        p.idx_dst[at] = xi[i];
        ++i;
      }
    }
  }
}
#endif

// The sorted lines (vals_src, idx_src) into the outputs' layout.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_store)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_store(const nf_sort_params p) {
  const nf_t* sv = static_cast<const nf_t*>(p.vals_src);
  nf_t* ov = static_cast<nf_t*>(p.out_values);
  const long long total = p.n * p.lines;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    long long l, i;
    nf_line_of(p, g, l, i);
    const long long at = nf_sort_at(p, l, i);
    if (ov) ov[at] = sv[g];
    if (p.out_indices) p.out_indices[at] = p.idx_src[g];
  }
}
#endif

// Sorted indices (idx32_src, else idx_src, line-major) into the outputs: int64 indices, and the
// values gathered from the input by index.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_store_indexed)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_store_indexed(const nf_sort_params p) {
  const nf_t* in = static_cast<const nf_t*>(p.in);
  nf_t* ov = static_cast<nf_t*>(p.out_values);
  const long long total = p.n * p.lines;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    long long l, i;
    nf_line_of(p, g, l, i);
    const long long at = nf_sort_at(p, l, i);
    const long long src = p.idx32_src ? (long long)p.idx32_src[g] : p.idx_src[g];
    if (p.out_indices) p.out_indices[at] = src;
    if (ov) ov[at] = in[nf_sort_at(p, l, src)];
  }
}
#endif

// The segment offsets of line-major lines (every dtype: the complex64 radix path too): idx_dst[l] = l * n for l in [0, lines].
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_offsets)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_offsets(const nf_sort_params p) {
  for (long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x; l <= p.lines;
       l += (long long)gridDim.x * blockDim.x) {
    p.idx_dst[l] = l * p.n;
  }
}
#endif

#ifdef NF_SORT_COMPLEX_KEYS  // complex64: one 64-bit radix key in NumPy's order
// A float's radix key with -0.0 as 0.0 (not for NaNs): negative numbers with every bit flipped,
// others with the sign bit set; +inf's key, 0xFF800000, is the largest.
__device__ __forceinline__ unsigned nf_float_radix_key(float x) {
  unsigned b;
  memcpy(&b, &x, sizeof b);
  if ((b & 0x7fffffffu) == 0) b = 0;
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

// NumPy's complex order as (primary << 32 | secondary): finite-part numbers by (re, im); then the
// classes R+nanj (by re), nan+Rj (by im), nan+nanj, whose primaries lie above +inf's key.
__device__ __forceinline__ unsigned long long nf_complex_radix_key(const nf::complex64& z) {
  const bool rn = z.re != z.re, in = z.im != z.im;
  unsigned hi, lo;
  if (!rn && !in) hi = nf_float_radix_key(z.re), lo = nf_float_radix_key(z.im);
  else if (!rn) hi = 0xFF800001u, lo = nf_float_radix_key(z.re);
  else if (!in) hi = 0xFF800002u, lo = nf_float_radix_key(z.im);
  else hi = 0xFF800003u, lo = 0;
  return ((unsigned long long)hi << 32) | lo;
}

// Line-major 64-bit keys (vals_dst) and each element's 32-bit index in its line (idx32_dst).
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_make_complex_keys)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_make_complex_keys(const nf_sort_params p) {
  const nf_t* in = static_cast<const nf_t*>(p.in);
  unsigned long long* keys = static_cast<unsigned long long*>(p.vals_dst);
  const long long total = p.n * p.lines;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    long long l, i;
    nf_line_of(p, g, l, i);
    keys[g] = nf_complex_radix_key(in[nf_sort_at(p, l, i)]);
    p.idx32_dst[g] = (unsigned)i;
  }
}
#endif
#endif  // NF_SORT_COMPLEX_KEYS

struct nf_search_params {
  const void* a;            // the sorted 1-D array, contiguous
  const void* v;            // the values, contiguous
  const long long* sorter;  // or null
  long long* out;
  long long n, m, right;
};

// np.searchsorted: a thread per value, a binary search in NumPy's order.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_searchsorted)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_searchsorted(const nf_search_params p) {
  const nf_t* a = static_cast<const nf_t*>(p.a);
  const nf_t* v = static_cast<const nf_t*>(p.v);
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < p.m;
       g += (long long)gridDim.x * blockDim.x) {
    const nf_t x = v[g];
    long long lo = 0, hi = p.n;
    while (lo < hi) {
      const long long c = (lo + hi) >> 1;
      const nf_t y = a[p.sorter ? p.sorter[c] : c];
      if (p.right ? !nf_sort_less(x, y) : nf_sort_less(y, x)) lo = c + 1;
      else hi = c;
    }
    p.out[g] = lo;
  }
}
#endif

#ifndef NF_SORT_NO_KEYS  // complex dtypes: no radix key
// ---- Radix keys for CUB's radix sort (backend/cuda/cub_sort.cu): the unsigned integer whose
// order is NumPy's (the CPU's backend/cpu/sort_keys.h, the same mapping). Floats: negative
// numbers with every bit flipped, others with the sign bit set; every NaN the largest key;
// `canonical` keys make -0.0 equal 0.0 (argsort's stability). Not for complex numbers.
template <int B> struct nf_uint_of;
template <> struct nf_uint_of<1> { typedef unsigned char type; };
template <> struct nf_uint_of<2> { typedef unsigned short type; };
template <> struct nf_uint_of<4> { typedef unsigned int type; };
template <> struct nf_uint_of<8> { typedef unsigned long long type; };
typedef typename nf_uint_of<sizeof(nf_t)>::type nf_key_t;

template <class T>
__device__ __forceinline__ nf_key_t nf_bits_of(const T& x) {
  nf_key_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}
template <class T>
__device__ __forceinline__ bool nf_key_is_float() {
  return false;
}
template <> __device__ __forceinline__ bool nf_key_is_float<float>() { return true; }
template <> __device__ __forceinline__ bool nf_key_is_float<double>() { return true; }
template <> __device__ __forceinline__ bool nf_key_is_float<nf::half>() { return true; }
template <class T>
__device__ __forceinline__ bool nf_key_is_signed() {
  return T(-1) < T(0);
}
template <> __device__ __forceinline__ bool nf_key_is_signed<bool>() { return false; }
template <> __device__ __forceinline__ bool nf_key_is_signed<nf::half>() { return false; }

__device__ __forceinline__ nf_key_t nf_to_key(const nf_t& x, bool canonical) {
  const nf_key_t sign = nf_key_t(nf_key_t(1) << (sizeof(nf_key_t) * 8 - 1));
  nf_key_t b = nf_bits_of(x);
  if (nf_key_is_float<nf_t>()) {
    const float f = static_cast<float>(x);
    if (f != f) return nf_key_t(~nf_key_t(0));
    if (canonical && nf_key_t(b & nf_key_t(~sign)) == 0) b = 0;
    return (b & sign) ? nf_key_t(~b) : nf_key_t(b | sign);
  }
  return nf_key_is_signed<nf_t>() ? nf_key_t(b ^ sign) : b;
}

__device__ __forceinline__ nf_t nf_from_key(nf_key_t k) {
  const nf_key_t sign = nf_key_t(nf_key_t(1) << (sizeof(nf_key_t) * 8 - 1));
  nf_key_t b;
  if (nf_key_is_float<nf_t>()) b = (k & sign) ? nf_key_t(k & nf_key_t(~sign)) : nf_key_t(~k);
  else b = nf_key_is_signed<nf_t>() ? nf_key_t(k ^ sign) : k;
  nf_t x;
  memcpy(&x, &b, sizeof x);
  return x;
}

// Line-major keys (vals_dst as nf_key_t) and, for argsort, each element's index in its line
// (idx32_dst, else idx_dst, when not null); `canonical` keys make -0.0 equal 0.0.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_make_keys)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_make_keys(const nf_sort_params p) {
  const nf_t* in = static_cast<const nf_t*>(p.in);
  nf_key_t* keys = static_cast<nf_key_t*>(p.vals_dst);
  const bool canonical = p.canonical != 0;
  const long long total = p.n * p.lines;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    long long l, i;
    nf_line_of(p, g, l, i);
    keys[g] = nf_to_key(in[nf_sort_at(p, l, i)], canonical);
    if (p.idx32_dst) p.idx32_dst[g] = (unsigned)i;
    else if (p.idx_dst) p.idx_dst[g] = i;
  }
}
#endif

// Sorted keys (vals_src) and indices (idx_src, or null for a sort of values) into the outputs:
// values from the keys, or, for argsort, gathered from the input by index.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_store_keys)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_store_keys(const nf_sort_params p) {
  const nf_key_t* keys = static_cast<const nf_key_t*>(p.vals_src);
  const nf_t* in = static_cast<const nf_t*>(p.in);
  nf_t* ov = static_cast<nf_t*>(p.out_values);
  const long long total = p.n * p.lines;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    long long l, i;
    nf_line_of(p, g, l, i);
    const long long at = nf_sort_at(p, l, i);
    if (p.idx_src) {
      const long long src = p.idx_src[g];
      if (p.out_indices) p.out_indices[at] = src;
      if (ov) ov[at] = in[nf_sort_at(p, l, src)];
    } else {
      ov[at] = nf_from_key(keys[g]);
    }
  }
}
#endif

// A NaN with the sign bit set: CUB's float order puts these before -inf (flipping every bit of a
// negative float), and those without it after +inf; in CUB's order they are a prefix.
__device__ __forceinline__ bool nf_negative_nan(const nf_t& x) {
  const float f = static_cast<float>(x);
  return f != f && (nf_bits_of(x) >> (sizeof(nf_key_t) * 8 - 1)) != 0;
}

// The number of negative NaNs that begin v[0, n) (sorted by CUB's float order): a binary search,
// only when v[0] is one.
__device__ __forceinline__ long long nf_negative_nan_prefix(const nf_t* v, long long n) {
  if (!nf_negative_nan(v[0])) return 0;
  long long lo = 1, hi = n;
  while (lo < hi) {
    const long long c = (lo + hi) >> 1;
    if (nf_negative_nan(v[c])) lo = c + 1;
    else hi = c;
  }
  return lo;
}

// After CUB's own float sort of one line into out_values: NaNs with the sign bit set come first
// there. One thread counts them into *count.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_nan_front)
extern "C" __global__ void nf_sort_nan_front(const nf_sort_params p) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  *p.count = nf_negative_nan_prefix(static_cast<const nf_t*>(p.out_values), p.n);
}
#endif

// The line rotated left by *count (the leading NaNs to the end, as NumPy places them) into
// vals_dst; nothing when there is nothing to move. nf_sort_rotate_back copies it back.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_rotate_out)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_rotate_out(const nf_sort_params p) {
  const long long k = *p.count;
  if (k == 0 || k == p.n) return;
  const nf_t* v = static_cast<const nf_t*>(p.out_values);
  nf_t* d = static_cast<nf_t*>(p.vals_dst);
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < p.n;
       g += (long long)gridDim.x * blockDim.x) {
    const long long from = g + k;
    d[g] = v[from < p.n ? from : from - p.n];
  }
}
#endif

#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_sort_rotate_back)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_sort_rotate_back(const nf_sort_params p) {
  const long long k = *p.count;
  if (k == 0 || k == p.n) return;
  const nf_t* d = static_cast<const nf_t*>(p.vals_dst);
  nf_t* v = static_cast<nf_t*>(p.out_values);
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < p.n;
       g += (long long)gridDim.x * blockDim.x) {
    v[g] = d[g];
  }
}
#endif

// The length of run j of k runs of the n sorted values (`starts`: where each begins).
__device__ __forceinline__ long long nf_run_length(const nf_sort_params& p, long long j, long long k) {
  return (j + 1 < k ? p.starts[j + 1] : p.n) - p.starts[j];
}

// np.unique's counts (out_indices) from where each of the *count runs starts.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_unique_counts)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_unique_counts(const nf_sort_params p) {
  const long long k = *p.count;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < k;
       g += (long long)gridDim.x * blockDim.x) {
    p.out_indices[g] = nf_run_length(p, g, k);
  }
}
#endif

// np.unique of floats sorted by CUB's own order, after CUB's select (vals_src, *count of them):
// the negative NaNs came first there (one of them with `canonical`, equal_nan), and other NaNs may
// close the line. One thread counts the leading negative NaNs s and writes idx_dst[0] = s,
// idx_dst[1] = the count k; *count becomes the result's length: k, or k - 1 when equal_nan finds
// a NaN at both ends (one NaN stands for all). nf_unique_store_rotated writes vals_src rotated by s.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_unique_nan_fix)
extern "C" __global__ void nf_unique_nan_fix(const nf_sort_params p) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const nf_t* v = static_cast<const nf_t*>(p.vals_src);
  const long long k = *p.count;
  const long long s = nf_negative_nan_prefix(v, k);
  long long length = k;
  if (p.canonical && s > 0 && s < k) {
    const float last = static_cast<float>(v[k - 1]);
    if (last != last) length = k - 1;
  }
  p.idx_dst[0] = s;
  p.idx_dst[1] = k;
  *p.count = length;
}
#endif

// With out_indices (np.unique's counts): the length of each run, rotated as the values are; the
// NaN that stands for NaNs at both ends counts both runs.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_unique_store_rotated)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_unique_store_rotated(const nf_sort_params p) {
  const nf_t* v = static_cast<const nf_t*>(p.vals_src);
  nf_t* ov = static_cast<nf_t*>(p.out_values);
  const long long s = p.idx_src[0], k = p.idx_src[1], length = *p.count;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < length;
       g += (long long)gridDim.x * blockDim.x) {
    const long long from = g + s;
    const long long j = from < k ? from : from - k;
    ov[g] = v[j];
    if (p.out_indices) {
      long long c = nf_run_length(p, j, k);
      if (length < k && g == length - 1) c += nf_run_length(p, 0, k);
      p.out_indices[g] = c;
    }
  }
}
#endif

// np.unique's values: the first *count unique keys (vals_src, from CUB's select) turned back
// into values in out_values.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_unique_store)
extern "C" __global__ void __launch_bounds__(NF_SORT_THREADS) nf_unique_store(const nf_sort_params p) {
  const nf_key_t* keys = static_cast<const nf_key_t*>(p.vals_src);
  nf_t* ov = static_cast<nf_t*>(p.out_values);
  const long long k = *p.count;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < k;
       g += (long long)gridDim.x * blockDim.x) {
    ov[g] = nf_from_key(keys[g]);
  }
}
#endif
#endif  // NF_SORT_NO_KEYS
