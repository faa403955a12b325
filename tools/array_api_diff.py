"""The tests of the Array API suite that numfuse fails and NumPy passes, from two JSON reports of
tools/array-api-conformance (the same version, the same run): the gap issue 12 closes.

    python tools/array_api_diff.py build/array-api/numpy-2023.12.json build/array-api/numfuse-2023.12.json
"""
import collections
import json
import sys


def outcomes(path):
    return {t["nodeid"]: t["outcome"] for t in json.load(open(path))["tests"]}


def main(numpy_report, numfuse_report):
    np_out, nf_out = outcomes(numpy_report), outcomes(numfuse_report)
    gap = sorted(t for t, o in nf_out.items() if o in ("failed", "error") and np_out.get(t) == "passed")
    by_file = collections.Counter(t.split("::")[0] for t in gap)
    for t in gap:
        print(t)
    print(f"\n{len(gap)} tests fail on numfuse and pass on NumPy; by file:")
    for f, n in by_file.most_common():
        print(f"  {n:4d}  {f}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
