# NumPy side of tools/bench_cpu_loops.cpp: the same ops, inputs and sizes.
import numpy as np, time
n=10_000_000
for name in ['add','sin','cos','exp','log','sqrt','tanh']:
  for dt in [np.float32, np.float64]:
    i=np.arange(n)
    a=(np.abs(np.sin(i*0.001))*10+0.01).astype(dt); b=(1.5+(i%7)).astype(dt); o=np.empty(n,dt)
    f=getattr(np,name); best=1e9
    for r in range(10):
      t0=time.perf_counter()
      if name=='add': f(a,b,out=o)
      else: f(a,out=o)
      best=min(best,time.perf_counter()-t0)
    print(f"{name:8s} {np.dtype(dt).name:8s} {best*1e3:7.2f} ms")
