// ---- Scatter: strided[target(i)] = contig[i], the last write in C order winning as in NumPy's
// in-order loop (after gather_common.cuh).
__device__ __forceinline__ unsigned long long nf_slot(const nf_gparams& p, long long key) {
  return ((unsigned long long)key * 0x9E3779B97F4A7C15ull) >> p.shift;
}
// Claim: each B position raises its target's owner to itself, so the largest position of a
// target wins: the last in C order. The owner is found directly (shift 0: the table is one owner
// per target of the indexed dims) or through an open-addressing table (the key inserted by
// atomicCAS into an empty slot, linear probing).
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_scatter_claim)
extern "C" __global__ void __launch_bounds__(256) nf_scatter_claim(const nf_gparams p) {
  unsigned long long* keys = static_cast<unsigned long long*>(p.table);
  long long* owners = static_cast<long long*>(p.table) + (p.shift ? p.slots : 0);
  const unsigned long long mask = (unsigned long long)p.slots - 1;
  NF_GRID_LOOP(b, p.nb) {
    long long off, key;
    if (!nf_target(p, b, off, key)) continue;
    if (!p.shift) {
      atomicMax(owners + key, (long long)b);
      continue;
    }
    unsigned long long h = nf_slot(p, key);
    for (;;) {
      const unsigned long long prev = atomicCAS(keys + h, ~0ull, (unsigned long long)key);
      if (prev == ~0ull || prev == (unsigned long long)key) {
        atomicMax(owners + h, (long long)b);
        break;
      }
      h = (h + 1) & mask;
    }
  }
}
#endif
// Write: an element is stored only by the owner of its target, so each target is written once.
#if !defined(NF_ONE_KERNEL) || defined(NF_KERNEL_nf_scatter_write)
extern "C" __global__ void __launch_bounds__(256) nf_scatter_write(const nf_gparams p) {
  const unsigned long long* keys = static_cast<const unsigned long long*>(p.table);
  const long long* owners = static_cast<const long long*>(p.table) + (p.shift ? p.slots : 0);
  const unsigned long long mask = (unsigned long long)p.slots - 1;
  nf_elem* dst = static_cast<nf_elem*>(p.strided);
  const nf_elem* vals = static_cast<const nf_elem*>(p.contig);
  NF_GRID_LOOP(i, p.n) {
    nf_ix b;
    const long long base = nf_split(p, i, b);
    long long off, key;
    if (!nf_target(p, b, off, key)) continue;
    if (!p.shift) {
      if (owners[key] == (long long)b) dst[base + off] = vals[i];
      continue;
    }
    unsigned long long h = nf_slot(p, key);
    while (keys[h] != (unsigned long long)key && keys[h] != ~0ull) h = (h + 1) & mask;
    if (keys[h] == (unsigned long long)key && owners[h] == (long long)b) dst[base + off] = vals[i];
  }
}
#endif
