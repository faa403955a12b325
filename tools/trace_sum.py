"""Summarises the host times that NUMFUSE_TRACE=1 prints per evaluation.

Usage: NUMFUSE_TRACE=1 python3 bench/chain_probe.py cuda 2> trace.txt
       python3 tools/trace_sum.py trace.txt [MIN_NODES]

Prints, over the evaluations of at least MIN_NODES nodes (default 200: a loop's depth-limit
flushes), the median host time spent walking and planning the graph and running its groups
(building programs, launching kernels or interpreting them, detaching nodes).
"""
import re
import statistics
import sys

HOST = re.compile(r"host time: walk and plan ([\d.]+) us, groups ([\d.]+) us")
EVAL = re.compile(r"eval \(.*\): (\d+) nodes in (\d+) groups")


def main(path, min_nodes=200):
    evals = []  # (nodes, groups, walk and plan us, groups us)
    pending = None
    for line in open(path):
        m = EVAL.search(line)
        if m:
            pending = (int(m[1]), int(m[2]))
            continue
        m = HOST.search(line)
        if m and pending:
            evals.append(pending + (float(m[1]), float(m[2])))
            pending = None
    big = [e for e in evals if e[0] >= min_nodes]
    if not big:
        print(f"{len(evals)} evaluations, none of {min_nodes}+ nodes")
        return
    print(f"{len(evals)} evaluations, {len(big)} of {min_nodes}+ nodes: median walk and plan "
          f"{statistics.median(e[2] for e in big):.1f} us, groups {statistics.median(e[3] for e in big):.1f} us "
          f"(median {statistics.median(e[1] for e in big):.0f} groups per evaluation)")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200)
