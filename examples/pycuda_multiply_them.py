"""PyCUDA's introductory program run by numfuse: only the import lines differ from PyCUDA's
(`import pycuda.autoinit`, `import pycuda.driver as drv`, `from pycuda.compiler import
SourceModule`). Needs a CUDA GPU.

    PYTHONPATH=python python examples/pycuda_multiply_them.py
"""
import numfuse.cuda as drv
import numpy
from numfuse.cuda import SourceModule

mod = SourceModule("""
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
""")

multiply_them = mod.get_function("multiply_them")

a = numpy.random.randn(400).astype(numpy.float32)
b = numpy.random.randn(400).astype(numpy.float32)

dest = numpy.zeros_like(a)
multiply_them(
        drv.Out(dest), drv.In(a), drv.In(b),
        block=(400, 1, 1), grid=(1, 1))

print(dest-a*b)
