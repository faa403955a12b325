"""The promotion, casting and ufunc-resolution tables compiled into numfuse are NumPy's: the
checker re-derives every table from the NumPy installed here and diffs it with the committed
cpp/numfuse/core/generated/dtype_tables.inc."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_generated_tables_match_installed_numpy():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "check_dtype_tables.py")],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
