# Compares /tmp/complex_dump output (tools/complex_dump.cpp) with NumPy, value and sign of zero:
#   /tmp/complex_dump > /tmp/complex_dump.txt && python tools/check_complex_math.py
# Known difference: log1p of tiny z, where NumPy (log of hypot(1+x, y)) rounds to 0.
import numpy as np, warnings, sys, collections
warnings.simplefilter('ignore')
bad=collections.defaultdict(list); tot=collections.Counter()
for line in open('/tmp/complex_dump.txt'):
    n,x,y,re,im=line.split(); x,y,re,im=map(float,(x,y,re,im))
    z=complex(x,y)
    if n=='power': e=np.power(np.complex128(z), np.complex128(2.5+0.5j))
    elif n=='power3': e=np.power(np.complex128(0.5+0.75j), np.complex128(z))
    else: e=getattr(np,n)(np.complex128(z))
    tot[n]+=1
    def ok(a,b):
        if np.isnan(a) and np.isnan(b): return True
        if np.isinf(a) or np.isinf(b): return a==b
        if a==0 and b==0: return np.signbit(a)==np.signbit(b)
        return abs(a-b) <= 1e-13*max(abs(a),abs(b)) or abs(a-b)<1e-300
    if not (ok(re,e.real) and ok(im,e.imag)):
        bad[n].append((x,y,(re,im),(e.real,e.imag)))
for n in tot:
    print(n, len(bad[n]), '/', tot[n])
    for b in bad[n][:6]: print('   ', b)
