"""PyCUDA's tutorial program (device memory with mem_alloc, memcpy_htod / memcpy_dtoh, a
SourceModule kernel called with block=) run by numfuse: only the import lines differ from
PyCUDA's. Needs a CUDA GPU.

    PYTHONPATH=python python examples/pycuda_mem_alloc.py
"""
import numfuse.cuda as cuda
import numpy
from numfuse.cuda import SourceModule

a = numpy.random.randn(4, 4)
a = a.astype(numpy.float32)

a_gpu = cuda.mem_alloc(a.nbytes)
cuda.memcpy_htod(a_gpu, a)

mod = SourceModule("""
  __global__ void doublify(float *a)
  {
    int idx = threadIdx.x + threadIdx.y*4;
    a[idx] *= 2;
  }
  """)

func = mod.get_function("doublify")
func(a_gpu, block=(4, 4, 1))

a_doubled = numpy.empty_like(a)
cuda.memcpy_dtoh(a_doubled, a_gpu)
print(a_doubled)
print(a)

scale = SourceModule("""
  __global__ void scale(float *a, float s, int n)
  {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) a[idx] *= s;
  }
  """).get_function("scale")
scale(a_gpu, numpy.float32(0.5), numpy.int32(16), block=(32, 1, 1), grid=(1, 1))
cuda.memcpy_dtoh(a_doubled, a_gpu)
print("back to a:", numpy.array_equal(a_doubled, a))
