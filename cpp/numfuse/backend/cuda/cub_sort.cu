// numfuse's CUB helper: CUB's device-wide radix sorts, built by nvcc into libnumfuse_cub.so
// (CUB's Device* algorithms are host code that launches its own kernels, which NVRTC cannot
// compile) and opened at run time by backend/cuda/sort_cuda.cpp. Keys are unsigned integers in
// NumPy's order (kernels/sort.cuh makes them), values int64 indices. The runtime API runs in the
// device's primary context, the one numfuse's driver calls use; `stream` is numfuse's CUstream.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>

namespace {

template <class K, class V = long long>
cudaError_t sort_typed(void* temp, size_t* temp_bytes, const void* kin, void* kout, const V* vin, V* vout,
                       long long n, int segments, const long long* offsets, int end_bit, cudaStream_t s) {
  const K* ki = static_cast<const K*>(kin);
  K* ko = static_cast<K*>(kout);
  if (segments <= 1) {
    if (vin) return cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, ki, ko, vin, vout, n, 0, end_bit, s);
    return cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, ki, ko, n, 0, end_bit, s);
  }
  const int items = static_cast<int>(n);
  if (vin) {
    return cub::DeviceSegmentedRadixSort::SortPairs(temp, *temp_bytes, ki, ko, vin, vout, items, segments,
                                                    offsets, offsets + 1, 0, end_bit, s);
  }
  return cub::DeviceSegmentedRadixSort::SortKeys(temp, *temp_bytes, ki, ko, items, segments, offsets,
                                                 offsets + 1, 0, end_bit, s);
}

}  // namespace

// Sorts n keys of key_bytes (1, 2, 4, 8) bytes, with their int64 values when vin is not null,
// stably, by their low end_bit bits; segments > 1 sorts each [offsets[i], offsets[i+1]) alone
// (n < 2^31 then). With temp null, only sets *temp_bytes. Returns a cudaError_t.
extern "C" int nf_cub_radix_sort(int key_bytes, void* temp, size_t* temp_bytes, const void* kin, void* kout,
                                 const long long* vin, long long* vout, long long n, int segments,
                                 const long long* offsets, int end_bit, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (key_bytes) {
    case 1: return sort_typed<unsigned char>(temp, temp_bytes, kin, kout, vin, vout, n, segments, offsets, end_bit, s);
    case 2: return sort_typed<unsigned short>(temp, temp_bytes, kin, kout, vin, vout, n, segments, offsets, end_bit, s);
    case 4: return sort_typed<unsigned int>(temp, temp_bytes, kin, kout, vin, vout, n, segments, offsets, end_bit, s);
    case 8: return sort_typed<unsigned long long>(temp, temp_bytes, kin, kout, vin, vout, n, segments, offsets, end_bit, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

// Sorts n float (key_bytes 4) or double (8) keys by CUB's own float order (-0.0 with +0.0, NaNs
// by their bits: the caller makes every NaN positive first). With temp null, only sets
// *temp_bytes. Returns a cudaError_t.
extern "C" int nf_cub_float_sort(int key_bytes, void* temp, size_t* temp_bytes, const void* kin, void* kout,
                                 long long n, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (key_bytes) {
    case 4:
      return cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, static_cast<const float*>(kin),
                                            static_cast<float*>(kout), n, 0, 32, s);
    case 8:
      return cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, static_cast<const double*>(kin),
                                            static_cast<double*>(kout), n, 0, 64, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

// nf_cub_radix_sort with the values' width chosen: value_bytes 4 (unsigned int indices, half the
// traffic of int64 ones when every index fits) or 8 (int64); vin null sorts keys alone.
extern "C" int nf_cub_radix_sort_v(int key_bytes, int value_bytes, void* temp, size_t* temp_bytes, const void* kin,
                                   void* kout, const void* vin, void* vout, long long n, int segments,
                                   const long long* offsets, int end_bit, void* stream) {
  if (value_bytes == 8 || !vin) {
    return nf_cub_radix_sort(key_bytes, temp, temp_bytes, kin, kout, static_cast<const long long*>(vin),
                             static_cast<long long*>(vout), n, segments, offsets, end_bit, stream);
  }
  if (value_bytes != 4) return static_cast<int>(cudaErrorInvalidValue);
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const unsigned* vi = static_cast<const unsigned*>(vin);
  unsigned* vo = static_cast<unsigned*>(vout);
  switch (key_bytes) {
    case 1: return sort_typed<unsigned char, unsigned>(temp, temp_bytes, kin, kout, vi, vo, n, segments, offsets, end_bit, s);
    case 2: return sort_typed<unsigned short, unsigned>(temp, temp_bytes, kin, kout, vi, vo, n, segments, offsets, end_bit, s);
    case 4: return sort_typed<unsigned int, unsigned>(temp, temp_bytes, kin, kout, vi, vo, n, segments, offsets, end_bit, s);
    case 8: return sort_typed<unsigned long long, unsigned>(temp, temp_bytes, kin, kout, vi, vo, n, segments, offsets, end_bit, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

namespace {

// Equal sorted keys, except that the all-ones key (every NaN's) differs from itself when
// `nan_distinct` (np.unique's equal_nan=False).
template <class K>
struct KeyEqual {
  bool nan_distinct;
  __host__ __device__ bool operator()(const K& a, const K& b) const {
    return a == b && !(nan_distinct && a == static_cast<K>(~K(0)));
  }
};

// The first element of every run of equal (by `eq`) sorted keys into kout, and, when `starts` is
// not null, the index in kin where each run starts (np.unique's counts come from them).
template <class K, class Eq>
cudaError_t select_runs(void* temp, size_t* temp_bytes, const K* kin, K* kout, long long* starts, long long* count,
                        long long n, Eq eq, cudaStream_t s) {
  if (starts) {
    return cub::DeviceSelect::UniqueByKey(temp, *temp_bytes, kin, thrust::counting_iterator<long long>(0), kout,
                                          starts, count, n, eq, s);
  }
  // The values ride along unread (a counting iterator) and are thrown away.
  return cub::DeviceSelect::UniqueByKey(temp, *temp_bytes, kin, thrust::counting_iterator<int>(0), kout,
                                        thrust::make_discard_iterator(), count, n, eq, s);
}

template <class K>
cudaError_t unique_typed(void* temp, size_t* temp_bytes, const void* kin, void* kout, long long* starts,
                         long long* count, long long n, bool nan_distinct, cudaStream_t s) {
  return select_runs(temp, temp_bytes, static_cast<const K*>(kin), static_cast<K*>(kout), starts, count, n,
                     KeyEqual<K>{nan_distinct}, s);
}

}  // namespace

// The first key of every run of equal keys in the n sorted keys of key_bytes bytes at kin, into
// kout, their number into *count (device memory), and where each run starts into `starts` when it
// is not null. nan_distinct: the all-ones key (a NaN's) is never equal to another. With temp null,
// only sets *temp_bytes. Returns a cudaError_t.
extern "C" int nf_cub_unique(int key_bytes, void* temp, size_t* temp_bytes, const void* kin, void* kout,
                             long long* starts, long long* count, long long n, int nan_distinct, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const bool d = nan_distinct != 0;
  switch (key_bytes) {
    case 1: return unique_typed<unsigned char>(temp, temp_bytes, kin, kout, starts, count, n, d, s);
    case 2: return unique_typed<unsigned short>(temp, temp_bytes, kin, kout, starts, count, n, d, s);
    case 4: return unique_typed<unsigned int>(temp, temp_bytes, kin, kout, starts, count, n, d, s);
    case 8: return unique_typed<unsigned long long>(temp, temp_bytes, kin, kout, starts, count, n, d, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

namespace {

template <class K>
cudaError_t int_sort_typed(void* temp, size_t* temp_bytes, const void* kin, void* kout, long long n, int segments,
                           const long long* offsets, cudaStream_t s) {
  const K* ki = static_cast<const K*>(kin);
  K* ko = static_cast<K*>(kout);
  constexpr int bits = static_cast<int>(sizeof(K) * 8);
  if (segments <= 1) return cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, ki, ko, n, 0, bits, s);
  return cub::DeviceSegmentedRadixSort::SortKeys(temp, *temp_bytes, ki, ko, static_cast<int>(n), segments, offsets,
                                                 offsets + 1, 0, bits, s);
}

}  // namespace

// Sorts n integers of key_bytes bytes (signed when is_signed; bool as unsigned bytes) by CUB's own
// integer order, which is NumPy's, from kin straight into kout; segments > 1 sorts each
// [offsets[i], offsets[i+1]) alone (n < 2^31 then). With temp null, only sets *temp_bytes.
// Returns a cudaError_t.
extern "C" int nf_cub_int_sort(int key_bytes, int is_signed, void* temp, size_t* temp_bytes, const void* kin,
                               void* kout, long long n, int segments, const long long* offsets, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (key_bytes * (is_signed ? -1 : 1)) {
    case 1: return int_sort_typed<unsigned char>(temp, temp_bytes, kin, kout, n, segments, offsets, s);
    case 2: return int_sort_typed<unsigned short>(temp, temp_bytes, kin, kout, n, segments, offsets, s);
    case 4: return int_sort_typed<unsigned int>(temp, temp_bytes, kin, kout, n, segments, offsets, s);
    case 8: return int_sort_typed<unsigned long long>(temp, temp_bytes, kin, kout, n, segments, offsets, s);
    case -1: return int_sort_typed<signed char>(temp, temp_bytes, kin, kout, n, segments, offsets, s);
    case -2: return int_sort_typed<short>(temp, temp_bytes, kin, kout, n, segments, offsets, s);
    case -4: return int_sort_typed<int>(temp, temp_bytes, kin, kout, n, segments, offsets, s);
    case -8: return int_sort_typed<long long>(temp, temp_bytes, kin, kout, n, segments, offsets, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

namespace {

// Floats equal by ==, -0.0 and 0.0 among them; NaNs equal to each other when equal_nan.
template <class F>
struct FloatEqual {
  bool equal_nan;
  __host__ __device__ bool operator()(const F& a, const F& b) const {
    return a == b || (equal_nan && a != a && b != b);
  }
};

template <class F>
cudaError_t float_unique_typed(void* temp, size_t* temp_bytes, const void* kin, void* kout, long long* starts,
                               long long* count, long long n, bool equal_nan, cudaStream_t s) {
  return select_runs(temp, temp_bytes, static_cast<const F*>(kin), static_cast<F*>(kout), starts, count, n,
                     FloatEqual<F>{equal_nan}, s);
}

}  // namespace

// The first of every run of equal values among n float (key_bytes 4) or double (8) values sorted
// by CUB's float order (nf_cub_float_sort), into kout, their number into *count (device memory),
// and where each run starts into `starts` when it is not null. With temp null, only sets
// *temp_bytes. Returns a cudaError_t.
extern "C" int nf_cub_float_unique(int key_bytes, void* temp, size_t* temp_bytes, const void* kin, void* kout,
                                   long long* starts, long long* count, long long n, int equal_nan, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (key_bytes) {
    case 4: return float_unique_typed<float>(temp, temp_bytes, kin, kout, starts, count, n, equal_nan != 0, s);
    case 8: return float_unique_typed<double>(temp, temp_bytes, kin, kout, starts, count, n, equal_nan != 0, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

// The runtime's name of an error this library returned.
extern "C" const char* nf_cub_error_string(int err) { return cudaGetErrorString(static_cast<cudaError_t>(err)); }
