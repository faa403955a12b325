// ---- nf_vec<T, N>: N elements of T moved as one aligned word (the 16-byte loads of contiguous
// kernels). Embedded as text by CMakeLists.txt; the code generators append it to their kernels.
template <class T, int N> struct alignas(sizeof(T) * N) nf_vec { T v[N]; };
