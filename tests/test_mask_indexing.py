"""Boolean-mask reads and writes (issue 11: a[mask] and a[mask] = v run on the CPU in one pass
over the mask, in blocks of 64 mask bytes): NumPy's order, dtype, shape and errors for masks of
every density and length around the block size, over leading dims of arrays of every item size,
contiguous or strided, pending or materialised, with scalar, per-True and broadcast values.
"""
import os
import random

import numpy
import pytest

from harness import ALL_DTYPES, dtype_params, make_array, oracle, run_seeded_programs

CASES = int(os.environ.get("NUMFUSE_MASK_CASES", "200"))
LENGTHS = [0, 1, 7, 63, 64, 65, 128, 200, 1000]
DENSITIES = [0.0, 0.1, 0.5, 0.95, 1.0]


def _mask(shape, density, seed):
    rng = numpy.random.default_rng(seed)
    return rng.random(shape) < density


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("density", DENSITIES)
@dtype_params()
@oracle()
def test_mask_read_and_write_1d(xp, dtype, density, n, device):
    a = xp.asarray(make_array((n,), dtype, seed=n))
    m = xp.asarray(_mask((n,), density, seed=n + 1))
    got = a[m]
    b = a.copy()
    b[m] = make_array((), dtype, seed=3)[()]
    c = a.copy()
    c[m] = got[::-1] if got.shape[0] else got  # one value per True, in C order
    return [got, b, c]


@pytest.mark.parametrize("shape,k", [((5, 70), 1), ((5, 70), 2), ((3, 4, 5), 1), ((3, 4, 5), 2),
                                     ((9, 8), 2), ((2, 65), 2), ((130, 3), 1)])
@dtype_params([numpy.dtype(t) for t in ("bool", "uint8", "int16", "float32", "float64", "complex128")])
@oracle()
def test_mask_over_leading_dims(xp, dtype, shape, k, device):
    a = xp.asarray(make_array(shape, dtype, seed=4))
    m = xp.asarray(_mask(shape[:k], 0.4, seed=5))
    got = a[m]
    b = a.copy()
    b[m] = make_array(shape[k:], dtype, seed=6) if k < len(shape) else make_array((), dtype, seed=6)[()]
    c = a.copy()
    c[m] = got * 1 if dtype != numpy.bool_ else ~got
    return [got, b, c]


@oracle()
def test_mask_of_strided_and_pending_inputs(xp, device):
    base = xp.asarray(numpy.arange(300.0).reshape(20, 15))
    a = base[::2, ::-1]  # strided view: written through to base
    m = a > 150.0  # pending
    got = a[m]
    a[m] = -1.0
    pend = (xp.asarray(numpy.arange(50.0)) * 3)  # a pending target
    pend[pend > 60] = 0.0
    return [got, base, pend]


def _nonbinary_mask_program(xp):
    u8 = xp.asarray(numpy.array([0, 2, 0, 255, 1, 0, 0, 7] * 9, dtype=numpy.uint8))
    nb = u8.view(numpy.bool_)  # bytes other than 0 and 1 are True, as NumPy reads them
    v = xp.asarray(numpy.arange(72.0))
    w = v.copy()
    w[nb] = 5.0
    return [v[nb], w]


@oracle()
def test_mask_of_nonbinary_bytes(xp, device):
    if device == "cuda":
        # Generated CUDA kernels load bool bytes as C++ bool (README "Not yet"): a mask viewed
        # from other bytes needs a normalising load there.
        pytest.xfail("CUDA kernels read bool bytes other than 0/1 as C++ bool")
    return _nonbinary_mask_program(xp)


@oracle()
def test_mask_that_is_the_array_itself(xp, device):
    a = xp.asarray(_mask((130,), 0.5, seed=8))
    b = a.copy()
    b[b] = False  # the mask is the memory being written
    c = a.copy()
    c[c[::-1].copy()] = True
    return [b, c, a[a]]


BAD = {
    "short_mask": lambda xp, a: a[xp.asarray(numpy.ones(9, bool))],
    "long_mask": lambda xp, a: a[xp.asarray(numpy.ones(11, bool))],
    "second_axis": lambda xp, a: a.reshape(2, 5)[xp.asarray(numpy.ones((2, 4), bool))],
    "write_short_mask": lambda xp, a: a.__setitem__(xp.asarray(numpy.ones(9, bool)), 1.0),
    "write_count": lambda xp, a: a.__setitem__(a > 4, xp.asarray(numpy.ones(3))),
    "write_2d_value": lambda xp, a: a.__setitem__(a > 4, xp.asarray(numpy.ones((5, 1)))),
    "write_overflow": lambda xp, a: a.astype(numpy.int8).__setitem__(a > 4, 300),
    "read_only": lambda xp, a: xp.broadcast_to(a, (2, 10)).__setitem__(xp.asarray(numpy.ones((2, 10), bool)), 1.0),
}


@pytest.mark.parametrize("case", list(BAD), ids=str)
@oracle()
def test_mask_errors(xp, case, device):
    a = xp.asarray(numpy.arange(10.0))
    try:
        BAD[case](xp, a)
    except Exception as e:
        return type(e).__name__ + ": " + str(e)
    return "no error"


def _program(xp, seed):
    """Random mask reads and writes in a loop, as user programs write them."""
    rng = random.Random(seed)
    dtype = rng.choice(["float64", "float32", "int32", "uint8", "bool", "complex64", "int16"])
    shape = rng.choice([(rng.randint(0, 300),), (rng.randint(1, 9), rng.randint(1, 80)),
                        (rng.randint(1, 4), rng.randint(1, 5), rng.randint(1, 40))])
    a = xp.asarray(make_array(shape, dtype, seed=seed))
    if rng.random() < 0.3:
        a = a * 1 if dtype != "bool" else a & True  # pending
    seen = []
    for _ in range(rng.randint(2, 8)):
        k = rng.randint(1, len(shape))
        m = xp.asarray(_mask(shape[:k], rng.choice(DENSITIES), seed=rng.randrange(10 ** 6)))
        op = rng.choice(["read", "scalar", "per_true", "block"])
        if op == "read":
            seen.append(a[m])
        elif op == "scalar":
            a[m] = make_array((), dtype, seed=rng.randrange(100))[()]
        elif op == "per_true":
            a[m] = a[m][::-1].copy()
        elif op == "block":
            a[m] = xp.asarray(make_array(shape[k:], dtype, seed=rng.randrange(100)))
    return [a, seen]


@pytest.mark.parametrize("batch", range(4))
def test_mask_programs_match_numpy(batch, device):
    run_seeded_programs(_program, range(batch * CASES // 4, (batch + 1) * CASES // 4), device)
