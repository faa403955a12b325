"""Seeded fuzz tests (issue 10): random index expressions read and written, and random chains of
broadcast/reshape/transpose calls, on pending and materialised bases, NumPy as the oracle
(values, dtypes and exception classes).

CI runs NUMFUSE_FUZZ_INDEX_CASES (default 5000) index expressions and NUMFUSE_FUZZ_SHAPE_CASES
(default 2000) shape chains per device; raise them for a longer hunt. NUMFUSE_FUZZ_SEED moves the
whole run to other seeds. A failure prints the seed of each failing case: `_index_case(seed)` and
`_shape_case(seed)` rebuild it.
"""
import os
import random

import numpy
import pytest

from harness import OracleMismatch, numfuse_module, run_both

INDEX_CASES = int(os.environ.get("NUMFUSE_FUZZ_INDEX_CASES", "5000"))
SHAPE_CASES = int(os.environ.get("NUMFUSE_FUZZ_SHAPE_CASES", "2000"))
FIRST_SEED = int(os.environ.get("NUMFUSE_FUZZ_SEED", "0"))
BASES = ["materialised", "pending", "generator", "reversed", "transposed"]


def _base(xp, kind, shape):
    a = _make_base(xp, kind, shape)
    return numpy.asarray(a) if xp.is_numpy else a  # NumPy's 0-d arithmetic gives scalars


def _make_base(xp, kind, shape):
    n = int(numpy.prod(shape))
    data = numpy.arange(n, dtype=numpy.float64).reshape(shape) * 1.5 - 3
    if kind == "generator":
        return xp.arange(float(n)).reshape(shape) * 1.5 - 3
    if kind == "pending":
        return xp.asarray(data) * 1
    if kind == "reversed" and shape:
        return xp.asarray(numpy.ascontiguousarray(data[::-1]))[::-1]
    if kind == "transposed":
        return xp.asarray(numpy.array(data.T, order="C")).T
    a = xp.asarray(data)
    if not xp.is_numpy:  # materialised now: no pending producer
        xp.eval(a)
    return a


def _random_shape(r, max_rank=4, max_dim=5):
    return tuple(r.choice([0, 1, 1, 2, 3, 4, 5][: max_dim + 2]) for _ in range(r.randint(0, max_rank)))


def _slice(r, n):
    def bound():
        return None if r.random() < 0.3 else r.randint(-n - 3, n + 3)
    step = None if r.random() < 0.3 else r.choice([-7, -3, -2, -1, 1, 1, 2, 3, 7])
    return slice(bound(), bound(), step)


def _key(r, shape):
    """A random key: basic items mixed with integer and boolean arrays, sometimes invalid."""
    items, dim = [], 0
    used_ellipsis = False
    n_items = r.randint(0, len(shape) + 2)
    for _ in range(n_items):
        kind = r.choice(["int", "slice", "slice", "none", "ellipsis", "intarr", "boolarr", "pybool"])
        n = shape[dim] if 0 <= dim < len(shape) else 0
        if kind == "int":
            items.append(r.randint(-n - 1, n) if n else r.randint(-1, 1))
            dim += 1
        elif kind == "slice":
            items.append(_slice(r, n))
            dim += 1
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis":
            if used_ellipsis and r.random() < 0.8:
                continue
            used_ellipsis = True
            items.append(Ellipsis)
            dim = max(dim, len(shape) - (n_items - len(items)))
        elif kind == "intarr":
            ishape = _random_shape(r, max_rank=2, max_dim=3)
            lo, hi = (-n, n - 1) if n else (0, 0)
            if r.random() < 0.1:
                lo, hi = -n - 2, n + 2
            vals = [r.randint(lo, hi) for _ in range(int(numpy.prod(ishape)))]
            items.append(numpy.array(vals, dtype=r.choice(["int64", "int32", "uint8", "intp"])
                                     if lo >= 0 else "int64").reshape(ishape))
            dim += 1
        elif kind == "boolarr":
            k = r.randint(1, 2)
            mshape = tuple(shape[dim:dim + k])
            if r.random() < 0.1 or not mshape:
                mshape = _random_shape(r, max_rank=2, max_dim=3)
            vals = [r.random() < 0.5 for _ in range(int(numpy.prod(mshape)))]
            items.append(numpy.array(vals, dtype=bool).reshape(mshape))
            dim += len(mshape)
        else:
            items.append(r.random() < 0.5)
    if len(items) == 1 and r.random() < 0.5:
        return items[0]
    return tuple(items)


def _as_xp_key(xp, key):
    """Index arrays become arrays of the module under test (half of the time on numfuse, else
    NumPy arrays, which numfuse must accept too)."""
    def conv(k):
        if isinstance(k, numpy.ndarray) and not xp.is_numpy and hash(k.tobytes()) % 2 == 0:
            return xp.asarray(k)
        return k
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


def _index_case(seed):
    r = random.Random(seed)
    shape = _random_shape(r)
    base = r.choice(BASES)
    key = _key(r, shape)
    write = r.random() < 0.5
    value_kind = r.choice(["scalar", "full", "broadcast", "wrong", "pending"])
    try:
        with numpy.errstate(all="ignore"):
            target_shape = numpy.empty(shape)[key].shape
    except Exception:
        target_shape = ()
    if value_kind == "broadcast" and target_shape:
        vshape = tuple(1 if r.random() < 0.5 else s for s in target_shape[r.randint(0, len(target_shape)):])
    elif value_kind == "wrong":
        vshape = _random_shape(r, max_rank=2, max_dim=4)
    else:
        vshape = target_shape

    def body(xp):
        a = _base(xp, base, shape)
        k = _as_xp_key(xp, key)
        if not write:
            return a[k]
        if value_kind == "scalar":
            a[k] = -7.25
        elif value_kind == "pending":
            a[k] = xp.asarray(numpy.arange(int(numpy.prod(vshape)), dtype=float).reshape(vshape)) * 2 + 1
        else:
            a[k] = xp.asarray(numpy.arange(int(numpy.prod(vshape)), dtype=float).reshape(vshape) + 100)
        return a

    return f"seed={seed} shape={shape} base={base} key={key!r} write={write} value={value_kind}{vshape}", body


def _shape_op(r, shape):
    """One random shape call and its description; `shape` is its input's shape."""
    nd = len(shape)
    kind = r.choice(["reshape", "reshape", "transpose", "broadcast_to", "swapaxes", "moveaxis",
                     "expand_dims", "squeeze", "ravel", "T", "broadcast_arrays", "flip"])
    if kind == "reshape":
        n = int(numpy.prod(shape))
        divisors = [d for d in range(1, n + 1) if n % d == 0] or [1]
        d = r.choice(divisors)
        new = [d, n // d] if n else [0, r.randint(0, 3)]
        r.shuffle(new)
        if r.random() < 0.3:
            new[r.randrange(len(new))] = -1
        if r.random() < 0.1:
            new.append(r.choice([2, -1, 0]))  # often invalid
        order = r.choice(["C", "C", "F"])
        return kind, lambda xp, a: xp.reshape(a, tuple(new), order=order)
    if kind == "transpose":
        axes = list(range(nd))
        r.shuffle(axes)
        if r.random() < 0.1 and nd:
            axes[0] = r.choice([nd, -1, axes[-1]])  # out of range, negative or repeated
        if r.random() < 0.2:
            return kind, lambda xp, a: xp.transpose(a)
        return kind, lambda xp, a: xp.transpose(a, tuple(axes))
    if kind == "broadcast_to":
        target = [1 if (s == 1 and r.random() < 0.5) else s for s in shape]
        target = [r.randint(0, 3) if s == 1 else s for s in target]
        target = [r.randint(1, 3) for _ in range(r.randint(0, 2))] + target
        if r.random() < 0.1:
            target = list(_random_shape(r))
        return kind, lambda xp, a: xp.broadcast_to(a, tuple(target))
    if kind == "swapaxes":
        i, j = r.randint(-nd - 1, nd), r.randint(-nd - 1, nd)
        return kind, lambda xp, a: xp.swapaxes(a, i, j)
    if kind == "moveaxis":
        i, j = r.randint(-nd - 1, nd), r.randint(-nd - 1, nd)
        return kind, lambda xp, a: xp.moveaxis(a, i, j)
    if kind == "expand_dims":
        ax = r.randint(-nd - 2, nd + 1)
        return kind, lambda xp, a: xp.expand_dims(a, ax)
    if kind == "squeeze":
        ones = [i for i, s in enumerate(shape) if s == 1]
        if ones and r.random() < 0.5:
            ax = r.choice(ones)
            return kind, lambda xp, a: xp.squeeze(a, axis=ax)
        if r.random() < 0.1 and nd:
            ax = r.randrange(nd)
            return kind, lambda xp, a: xp.squeeze(a, axis=ax)  # maybe not of size 1
        return kind, lambda xp, a: xp.squeeze(a)
    if kind == "ravel":
        return kind, lambda xp, a: xp.ravel(a)
    if kind == "T":
        return kind, lambda xp, a: a.T
    if kind == "flip":
        ax = r.randint(-nd, nd - 1) if nd else None
        return kind, lambda xp, a: xp.flip(a, ax)
    other = _random_shape(r, max_rank=3)
    return kind, lambda xp, a: xp.broadcast_arrays(a, xp.zeros(other))[0]


def _shape_case(seed):
    r = random.Random(seed)
    shape = _random_shape(r)
    base = r.choice(BASES)
    ops = []
    cur = numpy.empty(shape)
    scalar_seen = False  # NumPy turned a 0-d result into a scalar: a copy, not a view
    for _ in range(r.randint(1, 3)):
        name, fn = _shape_op(r, cur.shape)
        ops.append((name, fn))
        try:
            cur = fn(numpy, cur)
        except Exception:
            break
        scalar_seen |= isinstance(cur, numpy.generic)
        cur = numpy.asarray(cur)
    then = r.choice(["read", "compute", "write_view"])

    names = [o[0] for o in ops]

    def body(xp):
        a = _base(xp, base, shape)
        v = a
        for _, fn in ops:
            v = fn(xp, v)
        if then == "compute":
            return v * 2 + 1
        # NumPy deprecates writes through broadcast_arrays' views (numfuse refuses them), and
        # some of its 0-d results are scalars: neither is written.
        if then == "write_view" and v.size and not scalar_seen and "broadcast_arrays" not in names:
            idx = (0,) * v.ndim
            v[idx] = 99.0
            return a, v
        return v

    return f"seed={seed} shape={shape} base={base} ops={[o[0] for o in ops]} then={then}", body


def _run(device, make_case, first_seed, count):
    if numfuse_module() is None:
        pytest.fail("numfuse cannot be imported")
    failures = []
    for seed in range(first_seed, first_seed + count):
        desc, body = make_case(seed)
        try:
            run_both(body, device=device)
        except OracleMismatch as e:
            failures.append(f"{desc}: {str(e)[:240]}")
    assert not failures, (f"{len(failures)} of {count} cases differ from NumPy:\n" + "\n".join(failures[:12]))


def test_fuzz_index_expressions(device):
    _run(device, _index_case, FIRST_SEED, INDEX_CASES)


def test_fuzz_shape_calls(device):
    _run(device, _shape_case, FIRST_SEED + 10_000_000, SHAPE_CASES)
