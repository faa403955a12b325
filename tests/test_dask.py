"""numfuse arrays as Dask chunks, in one process (schedulers "sync" and "threads"): the dispatch
tables, dask.sizeof, the "numfuse" array backend, pickling and the distributed serializers, and
the worker pinning helpers. Every Dask program runs twice, on NumPy chunks and on numfuse chunks
(Dask's own code paths both times); the values must agree and the numfuse run must keep numfuse
chunks. The several-process run is tests/test_dask_cluster.py."""
import pickle

import numpy
import pytest

# Dask is in requirements-dev.txt; a machine without it (the GPU image) skips these tests.
dask = pytest.importorskip("dask")
pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
from dask.array import dispatch as dispatch_tables  # noqa: E402
from dask.array.utils import meta_from_array  # noqa: E402
from dask.sizeof import sizeof  # noqa: E402

import numfuse  # noqa: E402
import numfuse.dask  # noqa: E402
from numfuse.dask import workers  # noqa: E402
from device_trap import default_device_trapped  # noqa: E402


def nf_array(a, device):
    return numfuse.asarray(a, device=device)


def host(v):
    return numfuse.asnumpy(v) if isinstance(v, numfuse.ndarray) else numpy.asarray(v)


def pair(a, device, chunks):
    """The same data as a Dask array of NumPy chunks and one of numfuse chunks."""
    return (da.from_array(a, chunks=chunks),
            da.from_array(nf_array(a, device), chunks=chunks, asarray=False))


def check_same(expected, got, rtol=1e-12, atol=1e-12):
    """got (numfuse chunks' result) is a numfuse array with expected's (NumPy chunks') values."""
    assert isinstance(got, numfuse.ndarray), type(got)
    exp = numpy.asarray(expected)
    assert got.shape == exp.shape and got.dtype == exp.dtype, (got.shape, got.dtype, exp.shape, exp.dtype)
    numpy.testing.assert_allclose(host(got), exp, rtol=rtol, atol=atol)


MATRIX = numpy.random.default_rng(1).standard_normal((60, 12))
WITH_NANS = numpy.where(MATRIX > 1.2, numpy.nan, MATRIX)

# Dask programs over one 2-d array, each a path through dask.array's own code. Every operand is
# made from x (no da.ones or da.arange, whose chunks are NumPy's whatever x's are: a program
# mixing chunk types gets a meta that depends on NumPy's version).
PROGRAMS = {
    "sum_axis0": lambda x: x.sum(axis=0),
    "sum_all": lambda x: x.sum(),
    "mean_axis1": lambda x: x.mean(axis=1),
    "std_axis0": lambda x: x.std(axis=0),
    "var_ddof1": lambda x: x.var(axis=1, ddof=1),
    "std_all": lambda x: x.std(),
    "prod_keepdims": lambda x: (x / 2 + 1).prod(axis=0, keepdims=True),
    "min_max": lambda x: x.min(axis=0) + x.max(axis=1)[:12],
    "argmin_argmax": lambda x: x.argmin(axis=0) * 100 + x.argmax(axis=0),
    "any_all": lambda x: (x > 2).any(axis=0) & (x > -3).all(axis=0),
    "cumsum": lambda x: x.cumsum(axis=0),
    "cumprod": lambda x: (x / 4 + 1).cumprod(axis=1),
    "matmul": lambda x: x.T @ x,
    "dot_vector": lambda x: x.dot(x[0] * 0 + 1),
    "tensordot": lambda x: da.tensordot(x, x, axes=([0], [0])),
    "einsum": lambda x: da.einsum("ij,ij->j", x, x),
    "elementwise": lambda x: da.sin(x) * 2 + da.exp(-abs(x)),
    "where": lambda x: da.where(x > 0, x, -x * 3),
    "concatenate": lambda x: da.concatenate([x, x * 2], axis=0),
    "stack": lambda x: da.stack([x, x + 1]),
    "take": lambda x: x[[3, 17, 40, 59, 0]],
    "slicing": lambda x: x[5:50:3, ::-2],
    "boolean_mask": lambda x: x[x[:, 0] > 0],
    "transpose_reshape": lambda x: x.T.rechunk((-1, 20)).reshape(2, 6, 60) + 0,
    "ravel": lambda x: x.rechunk((15, -1)).ravel(),
    "rechunk": lambda x: x.rechunk((7, 5)) * 1,
    "map_overlap": lambda x: x.map_overlap(lambda b: b[:-2] + b[2:] if False else b * 1, depth=1,
                                           boundary="reflect"),
    "map_blocks": lambda x: x.map_blocks(lambda b: b ** 2 - b),
    "blockwise_outer": lambda x: da.blockwise(lambda a, b: a[:, None] * b[None, :], "ij",
                                              x[:, 0], "i", x[0], "j", dtype=x.dtype),
    # TSQR wants one column block
    "qr": lambda x: abs(da.linalg.qr(x.rechunk((15, -1)))[1]),
    "svd_s": lambda x: da.linalg.svd(x.rechunk((15, -1)))[1],
    "svd_uv": lambda x: abs(da.linalg.svd(x.rechunk((15, -1)))[0]).sum(axis=1),
    "tsqr_r": lambda x: abs(da.linalg.tsqr(x.rechunk((15, -1)))[1]),
    "diagonal_trace": lambda x: da.diagonal(x[:12]) + da.trace(x[:12]),
    "histogram": lambda x: da.histogram(x, bins=5, range=(-3, 3))[0],
    "bincount": lambda x: da.bincount((abs(x[:, 0]) * 3).astype("i8"), minlength=8),
    "astype": lambda x: (x * 10).astype("int32") // 3,
    "round_clip": lambda x: da.round(x, 2).clip(-1, 1),
    "isclose_allclose_sum": lambda x: da.isclose(x, x * (1 + 1e-12)).sum(axis=0),
    "diff": lambda x: da.diff(x, axis=0),
    "outer": lambda x: da.outer(x[:, 0], x[0]),
    "pad": lambda x: da.pad(x, 2, mode="constant"),
    "tile_repeat": lambda x: da.repeat(x[:4], 2, axis=0),
    "moment": lambda x: x.moment(3, axis=0),
    "nanmean_nanstd": lambda x: da.nanmean(da.where(x > 1.2, numpy.nan, x), axis=0)
    + da.nanstd(da.where(x > 1.2, numpy.nan, x), axis=0),
    "nansum_nanmax": lambda x: da.nansum(da.where(x > 1.2, numpy.nan, x), axis=1)
    + da.nanmax(da.where(x > 1.2, numpy.nan, x), axis=1),
    "nanvar_nancount": lambda x: da.nanvar(da.where(x > 1.2, numpy.nan, x))
    + da.count_nonzero(da.isnan(da.where(x > 1.2, numpy.nan, x))),
    "percentile": lambda x: da.percentile(x[:, 0], [5, 50, 95]),
    "median": lambda x: da.median(x, axis=0),
    "nanmedian": lambda x: da.nanmedian(da.where(x > 1.2, numpy.nan, x), axis=1),
    "fft_rfft2": lambda x: abs(da.fft.rfft2(x.rechunk((60, 12)))),
    "fft_ifft": lambda x: da.fft.ifft(x.rechunk((15, -1)), axis=1).imag,
    "topk_argtopk": lambda x: da.topk(x[:, 0], 5) + da.argtopk(x[:, 1], -5),
    "unique": lambda x: da.unique((x * 2).astype(int)),
    "cov_corrcoef": lambda x: da.cov(x.T) + da.corrcoef(x.T),
    "average_ptp": lambda x: da.average(x, axis=0, weights=abs(x[:, 0]) + 1) + da.ptp(x, axis=0),
    "searchsorted_digitize": lambda x: da.searchsorted(da.cumsum(abs(x[:9, 0])) - 3, x[:, 0])
    + da.digitize(x[:, 1], numpy.linspace(-2, 2, 9)),
    "isin": lambda x: da.isin((x * 2).astype(int), [0, 1, -1]),
    "tril_triu_flip_roll": lambda x: da.tril(x[:12]) + da.triu(da.roll(da.flip(x, 0), 7, 0)[:12], 1),
    "choose_select_piecewise": lambda x: da.choose((x > 0).astype(int), [x, -x])
    + da.select([x > 1, x < -1], [x, -x], 0.5)
    + da.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 2]),
    "compress_block": lambda x: da.block([[da.compress([True, False] * 6, x, axis=1)[:10],
                                           x[:10, :5]]]),
    "einsum_three_operands": lambda x: da.einsum("ij,jk,ik->i", x, x[:12], x),
    "matmul_batched": lambda x: da.matmul(x[:24].rechunk(12).reshape(2, 12, 12), x[:12]),
    "norm": lambda x: da.linalg.norm(x, axis=1) + da.linalg.norm(x.rechunk((15, -1))),
    "gradient": lambda x: da.gradient(x, axis=0),
    "coarsen": lambda x: da.coarsen(numpy.sum, x, {0: 3, 1: 2}),
    "apply_along_axis": lambda x: da.apply_along_axis(numpy.sort, 1, x),
    "shuffle": lambda x: x.shuffle([[5, 3, 1], [0, 2, 4] + list(range(6, 60))], axis=0),
    "complex_var": lambda x: (x * 1j + x).var(axis=0),
}


# Programs whose Dask array has a NumPy _meta although its chunks are numfuse arrays: Dask makes
# these metas from a NumPy scalar, which numfuse returns where NumPy does (a[()] of a 0-d array,
# the argmin of a 1-d one), so no chunk type can keep its meta there but one that breaks NumPy's
# scalar rules (CuPy's); or from a dtype alone, or by calling the function on NumPy arrays
# of its own (da.histogram, da.fft, gradient, coarsen, apply_along_axis, nanmedian), for every
# chunk type. The computed values are numfuse arrays all the same.
META_FROM_A_SCALAR = {"sum_all", "std_all", "argmin_argmax", "nanvar_nancount", "histogram",
                      "fft_rfft2", "fft_ifft", "norm", "gradient", "coarsen", "apply_along_axis",
                      "nanmedian"}


@pytest.mark.parametrize("scheduler", ["sync", "threads"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dask_program_keeps_numfuse_chunks(name, scheduler, device):
    x_np, x_nf = pair(MATRIX, device, chunks=(15, 6))
    program = PROGRAMS[name]
    expected = program(x_np).compute(scheduler=scheduler)
    lazy = program(x_nf)
    if name not in META_FROM_A_SCALAR:
        assert isinstance(lazy._meta, numfuse.ndarray), type(lazy._meta)
    check_same(expected, lazy.compute(scheduler=scheduler), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dask_program_creates_nothing_on_the_default_device(name, device):
    """Every program of chunks on one device, with the default device out of reach: whatever Dask
    or numfuse creates (metas, temporaries, results) follows the chunks (issue 15: on a GPU
    machine the default is cuda:0, and CPU chunks' programs mixed devices)."""
    x_np, x_nf = pair(MATRIX, device, chunks=(15, 6))
    program = PROGRAMS[name]
    expected = program(x_np).compute(scheduler="sync")
    with default_device_trapped():
        lazy = program(x_nf)
        got = lazy.compute(scheduler="sync")
    if name not in META_FROM_A_SCALAR:
        assert isinstance(lazy._meta, numfuse.ndarray), type(lazy._meta)
        assert lazy._meta.device == x_nf._meta.device
    check_same(expected, got, rtol=1e-10, atol=1e-10)
    assert got.device == x_nf._meta.device


def test_from_array_and_meta(device):
    a = nf_array(MATRIX, device)
    x = da.from_array(a, chunks=(20, 5), asarray=False)
    assert isinstance(x._meta, numfuse.ndarray) and x._meta.shape == (0, 0)
    assert x._meta.dtype == numpy.float64
    blocks = [b.compute(scheduler="sync") for b in x.blocks.ravel()]
    assert all(isinstance(b, numfuse.ndarray) and b.device == a.device for b in blocks)
    meta = meta_from_array(a, ndim=1, dtype="float32")
    assert isinstance(meta, numfuse.ndarray) and meta.shape == (0,) and meta.dtype == numpy.float32
    assert isinstance(meta_from_array(x), numfuse.ndarray)


@pytest.mark.parametrize("table", ["concatenate_lookup", "take_lookup", "tensordot_lookup",
                                   "einsum_lookup", "empty_lookup", "divide_lookup",
                                   "percentile_lookup", "numel_lookup", "nannumel_lookup",
                                   "to_numpy_dispatch", "to_cupy_dispatch"])
def test_every_dispatch_table_knows_numfuse(table):
    found = getattr(dispatch_tables, table)
    assert numfuse.ndarray in found._lookup  # registered for numfuse, not Dask's `object` default
    if table == "numel_lookup":  # Dask's "same chunk type" count, as registered for CuPy
        from dask.array.backends import _numel_arraylike
        assert found.dispatch(numfuse.ndarray) is _numel_arraylike


def test_dispatch_functions_give_numfuse_arrays(device):
    a = nf_array(MATRIX[:6, :4], device)
    d = dispatch_tables
    check_same(numpy.concatenate([MATRIX[:6, :4]] * 2, axis=1),
               d.concatenate_lookup.dispatch(numfuse.ndarray)([a, a], axis=1))
    check_same(numpy.take(MATRIX[:6, :4], [2, 0], axis=1),
               d.take_lookup.dispatch(numfuse.ndarray)(a, [2, 0], axis=1))
    check_same(numpy.tensordot(MATRIX[:6, :4], MATRIX[:6, :4], axes=((0,), (0,))),
               d.tensordot_lookup.dispatch(numfuse.ndarray)(a, a, axes=((0,), (0,))))
    check_same(numpy.einsum("ij,ik->jk", MATRIX[:6, :4], MATRIX[:6, :4]),
               d.einsum_lookup.dispatch(numfuse.ndarray)("ij,ik->jk", a, a, casting="safe",
                                                         order="K", dtype="float64"))
    # empty has the chunk type but no device to go by: host memory, which numfuse functions move
    # to their numfuse operands' device (python/numfuse/dask/dispatch.py says why)
    e = d.empty_lookup.dispatch(numfuse.ndarray)((3, 2), dtype="int16")
    assert isinstance(e, numpy.ndarray) and e.shape == (3, 2) and e.dtype == numpy.int16
    e[:] = 7
    joined = numpy.concatenate((e, nf_array(numpy.ones((1, 2), "int16"), device)))
    assert isinstance(joined, numfuse.ndarray) and joined.device == a.device
    check_same(numpy.concatenate((numpy.full((3, 2), 7, "int16"), numpy.ones((1, 2), "int16"))),
               joined)
    check_same(numpy.divide(MATRIX[:6, :4], 3.0).astype("float32"),
               d.divide_lookup.dispatch(numfuse.ndarray)(a, 3.0, dtype="float32"), rtol=1e-6)
    counts = d.numel_lookup.dispatch(numfuse.ndarray)(a, axis=0, keepdims=True)
    check_same(numpy.full((1, 4), 6.0), counts)
    nan_a = nf_array(WITH_NANS[:6, :4], device)
    check_same((~numpy.isnan(WITH_NANS[:6, :4])).sum(axis=1),
               d.nannumel_lookup.dispatch(numfuse.ndarray)(nan_a, axis=1))
    values, n = d.percentile_lookup.dispatch(numfuse.ndarray)(a[:, 0], [10, 90])
    assert n == 6
    check_same(numpy.percentile(MATRIX[:6, 0], [10, 90]), values)
    as_numpy = d.to_numpy_dispatch.dispatch(numfuse.ndarray)(a)
    assert type(as_numpy) is numpy.ndarray
    numpy.testing.assert_array_equal(as_numpy, MATRIX[:6, :4])


def test_sizeof_counts_the_data(device):
    a = numfuse.ones((300, 40), dtype="float32", device=device)
    assert sizeof(a) == 300 * 40 * 4
    assert sizeof(a[::2]) == a[::2].nbytes
    assert sizeof(numfuse.broadcast_to(numfuse.ones(7, device=device), (1000, 7))) == 7 * 8
    from numfuse._dask_sizeof import register, sizeof_numfuse
    seen = {}

    class Table:  # what the "dask.sizeof" entry point is handed
        def register(self, cls, fn):
            seen[cls] = fn
    register(Table())
    assert seen == {numfuse.ndarray: sizeof_numfuse}


def test_to_backend_both_ways(device):
    x_np = da.from_array(MATRIX, chunks=(20, 6))
    with numfuse_default(device):
        x_nf = x_np.to_backend("numfuse")
        assert isinstance(x_nf._meta, numfuse.ndarray)
        check_same(MATRIX, x_nf.compute(scheduler="sync"))
        back = x_nf.to_backend("numpy")
        assert type(back._meta) is numpy.ndarray
        got = back.compute(scheduler="sync")
        assert type(got) is numpy.ndarray
        numpy.testing.assert_array_equal(got, MATRIX)
        assert x_nf.to_backend("numfuse") is x_nf


class numfuse_default:
    """Makes `device` numfuse's default device for the block (the backend creates arrays there)."""

    def __init__(self, device):
        self.device = device

    def __enter__(self):
        self.saved = numfuse._core.default_device()
        numfuse._core.set_default_device(self.device)

    def __exit__(self, *exc):
        numfuse._core.set_default_device(self.saved)


CREATION = {
    "ones": (lambda: da.ones((10, 7), chunks=(4, 3), dtype="float32"),
             lambda: numpy.ones((10, 7), "float32")),
    "zeros": (lambda: da.zeros((9,), chunks=4, dtype="int32"), lambda: numpy.zeros(9, "int32")),
    "full": (lambda: da.full((5, 6), 2.5, chunks=2), lambda: numpy.full((5, 6), 2.5)),
    "arange": (lambda: da.arange(3, 40, 4, chunks=3), lambda: numpy.arange(3, 40, 4)),
    "arange_float": (lambda: da.arange(0.0, 2.0, 0.25, chunks=3),
                     lambda: numpy.arange(0.0, 2.0, 0.25)),
    "ones_like": (lambda: da.ones_like(da.zeros((4, 4), chunks=2)), lambda: numpy.ones((4, 4))),
}


@pytest.mark.parametrize("name", sorted(CREATION))
def test_backend_creation(name, device):
    make, expected = CREATION[name]
    with numfuse_default(device), dask.config.set({"array.backend": "numfuse"}):
        x = make()
        assert isinstance(x._meta, numfuse.ndarray)
        got = x.compute(scheduler="sync")
    check_same(expected(), got, rtol=0, atol=0)
    assert got.device == numfuse.asarray(0, device=device).device


def test_backend_empty(device):
    with numfuse_default(device), dask.config.set({"array.backend": "numfuse"}):
        x = da.empty((6, 4), chunks=3, dtype="int64")
        got = x.compute(scheduler="sync")
    assert isinstance(x._meta, numfuse.ndarray) and isinstance(got, numfuse.ndarray)
    assert got.shape == (6, 4) and got.dtype == numpy.int64


RANDOM = {
    "generator_random": lambda seed: da.random.default_rng(seed).random((40, 6), chunks=(15, 4)),
    "generator_normal": lambda seed: da.random.default_rng(seed).standard_normal((300,), chunks=70),
    "generator_integers": lambda seed: da.random.default_rng(seed).integers(0, 10, (50,), chunks=20),
    "legacy_random_sample": lambda seed: da.random.RandomState(seed).random_sample((40, 6),
                                                                                  chunks=(15, 4)),
    "legacy_normal": lambda seed: da.random.RandomState(seed).normal(3, 2, (300,), chunks=70),
    "legacy_uniform": lambda seed: da.random.RandomState(seed).uniform(-1, 1, (80,), chunks=30),
}


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_backend_random(name, device):
    with numfuse_default(device), dask.config.set({"array.backend": "numfuse"}):
        x = RANDOM[name](42)
        assert isinstance(x._meta, numfuse.ndarray)
        a = x.compute(scheduler="sync")
        again = RANDOM[name](42).compute(scheduler="threads")
        other = RANDOM[name](43).compute(scheduler="sync")
    with dask.config.set({"array.backend": "numpy"}):
        reference = RANDOM[name](42).compute(scheduler="sync")
    assert isinstance(a, numfuse.ndarray) and a.shape == reference.shape
    assert a.dtype == reference.dtype
    values = host(a)
    numpy.testing.assert_array_equal(values, host(again))  # a seed gives the same numbers
    assert not numpy.array_equal(values, host(other))
    blocks = [host(b.compute(scheduler="sync")) for b in x.blocks.ravel()]
    assert not numpy.array_equal(blocks[0].ravel()[:5], blocks[1].ravel()[:5])  # one stream a chunk
    if "integers" in name:
        assert values.min() >= 0 and values.max() < 10
    elif "normal" in name:
        assert abs(values.mean() - reference.mean()) < 0.4 and 0.5 < values.std() / reference.std() < 1.5
    elif "uniform" in name:
        assert values.min() >= -1 and values.max() < 1
    else:
        assert values.min() >= 0 and values.max() < 1


def test_backend_is_registered_and_declared():
    from dask.array.backends import array_creation_dispatch
    assert isinstance(array_creation_dispatch.dispatch("numfuse"), numfuse.dask.NumfuseBackendEntrypoint)
    import pathlib
    import tomllib
    pyproject = pathlib.Path(__file__).resolve().parent.parent / "pyproject.toml"
    eps = tomllib.loads(pyproject.read_text())["project"]["entry-points"]
    assert eps["dask.array.backends"]["numfuse"] == "numfuse.dask.backend:NumfuseBackendEntrypoint"
    assert eps["dask.sizeof"]["numfuse"] == "numfuse._dask_sizeof:register"


def test_entry_points_load_as_installed(tmp_path):
    # An installed numfuse's entry points, as pip writes them from pyproject.toml, found by
    # Dask in a process that never imports numfuse.dask itself.
    import os
    import pathlib
    import subprocess
    import sys
    import tomllib
    pyproject = pathlib.Path(__file__).resolve().parent.parent / "pyproject.toml"
    eps = tomllib.loads(pyproject.read_text())["project"]["entry-points"]
    info = tmp_path / "numfuse_entry_points-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: numfuse-entry-points\nVersion: 0\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in names.items()) for group, names in eps.items()))
    code = ("import sys, dask, dask.array as da\n"
            "from dask.sizeof import sizeof\n"
            "with dask.config.set({'array.backend': 'numfuse'}):\n"
            "    x = da.ones((6,), chunks=3)\n"
            "import numfuse\n"
            "from importlib.metadata import entry_points\n"
            "loaded = [e.load().__name__ for g in ('dask.array.backends', 'dask.sizeof')\n"
            "          for e in entry_points(group=g) if e.name == 'numfuse']\n"
            "print(type(x._meta).__module__, type(x.compute(scheduler='sync')).__module__, "
            "sizeof(numfuse.ones(100)), *loaded)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path), NUMFUSE_DEVICE="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["numfuse._core", "numfuse._core", "800", "NumfuseBackendEntrypoint", "register"]


def test_importing_numfuse_after_dask_registers(tmp_path):
    import os
    import subprocess
    import sys
    code = ("import dask.array, numfuse\n"
            "from dask.array.dispatch import percentile_lookup\n"
            "from dask.array.backends import array_creation_dispatch\n"
            "print(percentile_lookup.dispatch(numfuse.ndarray).__module__, "
            "type(array_creation_dispatch.dispatch('numfuse')).__name__)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), NUMFUSE_DEVICE="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["numfuse.dask.dispatch", "NumfuseBackendEntrypoint"]


# ---- pickling and the distributed serializers ------------------------------------------------

def layouts(device):
    base = nf_array(numpy.arange(60.0).reshape(6, 10), device)
    return {
        "c": base, "f": numfuse.asfortranarray(base), "transposed": base.T,
        "strided": base[::2, 1::3], "zero_d": nf_array(numpy.float32(2.5), device),
        "empty": numfuse.zeros((0, 3), dtype="int16", device=device),
        "bool": base > 20, "complex": base * (1 + 2j), "uint8": (base % 200).astype("uint8"),
        "broadcast": numfuse.broadcast_to(nf_array(numpy.arange(3), device), (4, 3)),
    }


def assert_same_array(original, got):
    assert isinstance(got, numfuse.ndarray)
    assert got.shape == original.shape and got.dtype == original.dtype
    assert got.device == original.device
    numpy.testing.assert_array_equal(host(got), host(original))


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trip(protocol, device):
    for name, a in layouts(device).items():
        assert_same_array(a, pickle.loads(pickle.dumps(a, protocol=protocol)))


def test_pickle_protocol_5_data_out_of_band(device):
    a = nf_array(numpy.arange(1000.0), device)
    buffers = []
    payload = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and buffers[0].raw().nbytes == a.nbytes
    assert len(payload) < 1000  # the 8000 data bytes are not in the stream
    if device == "cpu":  # a CPU array's buffer is its own memory, not a copy
        assert numpy.shares_memory(numpy.asarray(buffers[0].raw()).view(a.dtype),
                                   numfuse.asnumpy(a))
    assert_same_array(a, pickle.loads(payload, buffers=buffers))


@pytest.mark.parametrize("family", ["dask", "cuda", "pickle"])
def test_distributed_serializers_round_trip(family, device):
    from distributed.protocol import deserialize, serialize
    for name, a in layouts(device).items():
        header, frames = serialize(a, serializers=[family])
        assert header["serializer"] == family, (name, header)
        assert_same_array(a, deserialize(header, frames))


def test_cuda_family_device_frames_round_trip(device):
    # The form a device array takes in the "cuda" family (its bytes where it lives), made of
    # arrays on `device`: on the CPU this runs the code path a GPU array takes.
    from numfuse.dask.serialize import cuda_deserialize_numfuse, device_frames
    for name, a in layouts(device).items():
        header, frames = device_frames(a)
        assert len(frames) == 1 and frames[0].dtype == numpy.uint8 and frames[0].ndim == 1
        assert frames[0].nbytes == a.size * a.itemsize and frames[0].device == a.device
        assert_same_array(a, cuda_deserialize_numfuse(header, frames))
        # a transport that staged the frame in host memory hands back bytes
        staged = [memoryview(numfuse.asnumpy(frames[0]).tobytes())]
        assert_same_array(a, cuda_deserialize_numfuse(header, staged))


def test_dask_family_sends_a_cpu_array_without_copy():
    from distributed.protocol import serialize
    a = numfuse.arange(4000.0, device="cpu")
    header, frames = serialize(a, serializers=["dask"])
    data = [f for f in frames if memoryview(f).nbytes == a.nbytes]
    assert len(data) == 1
    assert numpy.shares_memory(numpy.asarray(memoryview(data[0])), numfuse.asnumpy(a))


def test_serialized_message_of_numfuse_chunks():
    # What a worker sends: a message holding chunks, through distributed's framing.
    from distributed.protocol import dumps, loads
    chunks = {"x": numfuse.arange(100.0, device="cpu"), "y": numfuse.ones((3, 4), device="cpu")}
    got = loads(dumps({"data": chunks}, serializers=["dask", "pickle"]),
                deserializers=["dask", "pickle"])["data"]
    for k, v in chunks.items():
        assert_same_array(v, got[k])


def test_evaluated_chunks_are_computed_when_the_task_ends(device):
    # chunks big enough to stay lazy (small results are computed at once: NUMFUSE_IMMEDIATE_MAX)
    big = numpy.random.default_rng(2).standard_normal((4000, 100))
    x = da.from_array(nf_array(big, device), chunks=(2000, 100), asarray=False)
    seen = []

    def record(block):
        seen.append(block._pending)
        return block
    # meta= given: Dask would otherwise call record on its own 0- and 1-element probe arrays,
    # which are not chunks (and stay pending on a GPU, where no express lane computes them)
    z = x * 2 + 1
    z.map_blocks(record, meta=z._meta).compute(scheduler="sync")
    assert len(seen) == 2 and any(seen)  # numfuse chunks leave their tasks pending
    seen.clear()
    y = numfuse.dask.evaluated(x * 2 + 1)
    assert isinstance(y._meta, numfuse.ndarray)
    y.map_blocks(record, meta=y._meta).compute(scheduler="sync")
    assert len(seen) == 2 and not any(seen)
    check_same(big * 2 + 1, y.compute(scheduler="sync"))
    assert numfuse.dask.evaluate_block(MATRIX) is MATRIX  # other chunk types pass through


# ---- one worker per GPU -------------------------------------------------------------------------

def test_cuda_visible_devices_rotates_like_dask_cuda():
    assert [workers.cuda_visible_devices(i, [0, 1, 2, 3]) for i in range(5)] == \
        ["0,1,2,3", "1,2,3,0", "2,3,0,1", "3,0,1,2", "0,1,2,3"]
    assert workers.worker_env(1, ["4", "6"]) == {"CUDA_VISIBLE_DEVICES": "6,4",
                                                  "NUMFUSE_DEVICE": "cuda:0"}


def test_choose_device():
    assert workers.choose_device(3, env={"NUMFUSE_DEVICE": "cuda:1"}, gpu_count=4) == "cuda:1"
    assert workers.choose_device(5, env={}, gpu_count=4) == "cuda:1"
    assert workers.choose_device("5", env={}, gpu_count=2) == "cuda:1"
    assert workers.choose_device("tcp-worker", env={}, gpu_count=2) == "cuda:0"
    assert workers.choose_device(2, env={}, gpu_count=0) == "cpu"


def test_gpu_cluster_without_gpus_says_so():
    with pytest.raises(RuntimeError, match="no GPU"):
        workers.gpu_cluster(gpus=[])


def test_gpu_cluster_spec_pins_one_worker_per_gpu():
    from distributed import Nanny
    spec = workers.gpu_cluster_spec(gpus=["2", "5", "7"], threads_per_worker=2)
    assert sorted(spec) == [0, 1, 2]
    assert all(w["cls"] is Nanny and w["options"]["nthreads"] == 2 for w in spec.values())
    assert [spec[i]["options"]["env"]["CUDA_VISIBLE_DEVICES"] for i in range(3)] == \
        ["2,5,7", "5,7,2", "7,2,5"]
    assert {w["options"]["env"]["NUMFUSE_DEVICE"] for w in spec.values()} == {"cuda:0"}
    assert sorted(workers.gpu_cluster_spec(n_workers=2, gpus=[0, 1, 2, 3])) == [0, 1]
