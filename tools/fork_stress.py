#!/usr/bin/env python3
# Usage: PYTHONPATH=python python3 tools/fork_stress.py [ROUNDS] [N] [cuda]  (cuda: a CUDA context in the parent)
"""Forks while other threads evaluate, many times at random moments; the child evaluates the
array the parent's thread was evaluating. Prints how many children crashed or were wrong."""
import os, random, sys, threading, time
import numpy
import numfuse as nf
N = int(sys.argv[2]) if len(sys.argv) > 2 else 3_000_000
def fr(xp, n, k):
    x = xp.arange(n, dtype=xp.float64) * (1e-6 * k)
    return (xp.sin(x) * xp.cos(x) + x).sum()
if len(sys.argv) > 3 and sys.argv[3] == 'cuda':  # a CUDA context in the parent, as in the suite
    float(nf.arange(1000.0, device='cuda').sum()); nf._core.set_default_device('cpu')
want = float(fr(numpy, 4 * N, 3)); own = float(fr(numpy, N, 5))
stop = threading.Event()
def busy():
    while not stop.is_set(): float(fr(nf, N, 4))
bt = threading.Thread(target=busy); bt.start()
bad = {}
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 50
for i in range(rounds):
    shared = fr(nf, 4 * N, 3)
    t = threading.Thread(target=lambda: float(shared)); t.start()
    time.sleep(random.random() * 0.03)
    pid = os.fork()
    if pid == 0:
        ok = abs(float(shared) - want) <= 1e-9 * abs(want) and abs(float(fr(nf, N, 5)) - own) <= 1e-9 * abs(own)
        os._exit(0 if ok else 3)
    _, st = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(st)
    if code: bad[code] = bad.get(code, 0) + 1
    t.join()
stop.set(); bt.join()
print("fork stress:", rounds, "rounds, bad exits:", bad)
