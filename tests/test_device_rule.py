"""NumPy's rule for numfuse, for functions of two or more arrays (issue 15): a function of arrays
on device D creates its temporaries and its result on D, whatever the default device is; operands
that are not numfuse arrays (NumPy arrays, lists) join the numfuse operands' device; numfuse
operands on two devices raise the ValueError of mixing devices ("arrays are on different
devices"), never a silent copy, and never a kernel launched on the other device's memory (a CPU
operand read by a GPU kernel was CUDA_ERROR_ILLEGAL_ADDRESS under Dask).

CASES lists the functions of NumPy's namespace that take several arrays, each called on fixed data.
Here (no GPU) every case runs with the default device trapped (tests/device_trap.py), with each
operand in turn given as a NumPy array, against NumPy; on a GPU machine every case also runs with
one operand on the CPU and the others on the GPU, and must raise. The listing check keeps CASES
complete: every public function whose signature names two array parameters is a case or is
exempted below with the reason.
"""
import inspect

import numpy
import pytest

import harness
from device_trap import default_device_trapped

nf = harness.numfuse_module()
pytestmark = pytest.mark.skipif(nf is None, reason="numfuse not importable")

R = numpy.random.default_rng(15)
V = R.standard_normal(8)
W = abs(R.standard_normal(8)) + 0.5
S = numpy.sort(R.standard_normal(8))
M = R.standard_normal((4, 4)) + 4 * numpy.eye(4)
I4 = numpy.array([3, 0, 7, 2])
N8 = numpy.array([0, 2, 1, 2, 5, 0, 3, 1])
B8 = V > 0
Q = numpy.array([10.0, 50.0, 90.0])


def _put(xp, a, i, v):
    a = a.copy()
    xp.put(a, i, v)
    return a


def _put_along_axis(xp, a, i, v):
    a = a.copy()
    xp.put_along_axis(a, i, v, axis=0)
    return a


def _place(xp, a, mask, vals):
    a = a.copy()
    xp.place(a, mask, vals)
    return a


def _putmask(xp, a, mask, vals):
    a = a.copy()
    xp.putmask(a, mask, vals)
    return a


def _at(xp, a, i, b):
    a = a.copy()
    xp.add.at(a, i, b)
    return a


def _copyto(xp, dst, src):
    dst = dst.copy()
    xp.copyto(dst, src)
    return dst


# name -> (call(xp, *operands), operands as NumPy data[, the positions of the operands written to,
# which must be numfuse arrays])
CASES = {
    "allclose": (lambda xp, a, b: xp.allclose(a, b), (V, V + 1e-12)),
    "append": (lambda xp, a, b: xp.append(a, b), (V, W)),
    "array_equal": (lambda xp, a, b: xp.array_equal(a, b), (V, V.copy())),
    "array_equiv": (lambda xp, a, b: xp.array_equiv(a, b), (V, V.copy())),
    "average": (lambda xp, a, w: xp.average(a, weights=w), (V, W)),
    "bincount": (lambda xp, x, w: xp.bincount(x, weights=w), (N8, W)),
    "block": (lambda xp, a, b: xp.block([a, b]), (V, W)),
    "choose": (lambda xp, i, a, b: xp.choose(i, [a, b]), (B8.astype(numpy.int64), V, W)),
    "clip": (lambda xp, a, lo, hi: xp.clip(a, lo, hi), (V, -W / 4, W / 4)),
    "compress": (lambda xp, c, a: xp.compress(c, a), (B8, V)),
    "concat": (lambda xp, a, b: xp.concat([a, b]), (V, W)),
    "concatenate": (lambda xp, a, b: xp.concatenate([a, b]), (V, W)),
    "convolve": (lambda xp, a, v: xp.convolve(a, v), (V, W[:3])),
    "copyto": (_copyto, (V, W), {0}),
    "corrcoef": (lambda xp, x, y: xp.corrcoef(x, y), (V, W)),
    "correlate": (lambda xp, a, v: xp.correlate(a, v, "full"), (V, W[:3])),
    "cov": (lambda xp, m, y: xp.cov(m, y), (V, W)),
    "cross": (lambda xp, a, b: xp.cross(a, b), (V[:3], W[:3])),
    "diff": (lambda xp, a, p, q: xp.diff(a, prepend=p, append=q), (V, W[:2], W[2:4])),
    "digitize": (lambda xp, x, bins: xp.digitize(x, bins), (V, S)),
    "dot": (lambda xp, a, b: xp.dot(a, b), (M, V[:4])),
    "ediff1d": (lambda xp, a, e, b: xp.ediff1d(a, to_end=e, to_begin=b), (V, W[:2], W[2:3])),
    "extract": (lambda xp, c, a: xp.extract(c, a), (B8, V)),
    "histogram": (lambda xp, a, e, w: xp.histogram(a, bins=e, weights=w)[0], (V, S[::2], W)),
    "histogram2d": (lambda xp, x, y, w: xp.histogram2d(x, y, bins=3, weights=w)[0], (V, W, W)),
    "histogram_bin_edges": (lambda xp, a, e: xp.histogram_bin_edges(a, bins=e), (V, S)),
    "histogramdd": (lambda xp, a, w: xp.histogramdd(a, bins=3, weights=w)[0],
                    (numpy.stack([V, W], axis=1), W)),
    "inner": (lambda xp, a, b: xp.inner(a, b), (V, W)),
    "insert": (lambda xp, a, i, v: xp.insert(a, i, v), (V, I4, W[:4])),
    "interp": (lambda xp, x, p, f: xp.interp(x, p, f), (V, S, W)),
    "intersect1d": (lambda xp, a, b: xp.intersect1d(a, b), (N8, I4)),
    "isclose": (lambda xp, a, b: xp.isclose(a, b), (V, W)),
    "isin": (lambda xp, e, t: xp.isin(e, t), (N8, I4)),
    "kron": (lambda xp, a, b: xp.kron(a, b), (V[:3], W[:3])),
    "matmul": (lambda xp, a, b: xp.matmul(a, b), (M, M.T)),
    "matvec": (lambda xp, a, b: xp.matvec(a, b), (M, V[:4])),
    "nanpercentile": (lambda xp, a, q: xp.nanpercentile(a, q), (V, Q)),
    "nanquantile": (lambda xp, a, q: xp.nanquantile(a, q), (V, Q / 100)),
    "outer": (lambda xp, a, b: xp.outer(a, b), (V, W)),
    "percentile": (lambda xp, a, q: xp.percentile(a, q), (V, Q)),
    "piecewise": (lambda xp, x, c: xp.piecewise(x, [c], [lambda v: -v, lambda v: v * 2]), (V, B8)),
    "place": (_place, (V, B8, W[:3]), {0}),
    "polyadd": (lambda xp, a, b: xp.polyadd(a, b), (V[:3], W[:4])),
    "polydiv": (lambda xp, u, v: xp.polydiv(u, v)[0], (V[:5], W[:2])),
    "polyfit": (lambda xp, x, y, w: xp.polyfit(x, y, 2, w=w), (V, W, W)),
    "polymul": (lambda xp, a, b: xp.polymul(a, b), (V[:3], W[:4])),
    "polysub": (lambda xp, a, b: xp.polysub(a, b), (V[:3], W[:4])),
    "polyval": (lambda xp, p, x: xp.polyval(p, x), (W[:3], V)),
    "put": (_put, (V, I4, W[:4]), {0}),
    "put_along_axis": (_put_along_axis, (V, I4, W[:4]), {0}),
    "putmask": (_putmask, (V, B8, W), {0}),
    "quantile": (lambda xp, a, q: xp.quantile(a, q), (V, Q / 100)),
    "searchsorted": (lambda xp, a, v, s: xp.searchsorted(a, v, sorter=s), (V, S, numpy.argsort(V))),
    "select": (lambda xp, c, a, d: xp.select([c], [a], d), (B8, V, W)),
    "setdiff1d": (lambda xp, a, b: xp.setdiff1d(a, b), (N8, I4)),
    "setxor1d": (lambda xp, a, b: xp.setxor1d(a, b), (N8, I4)),
    "stack": (lambda xp, a, b: xp.stack([a, b]), (V, W)),
    "take": (lambda xp, a, i: xp.take(a, i), (V, I4)),
    "take_along_axis": (lambda xp, a, i: xp.take_along_axis(a, i, axis=0), (V, I4)),
    "tensordot": (lambda xp, a, b: xp.tensordot(a, b, axes=1), (M, V[:4])),
    "trapezoid": (lambda xp, y, x: xp.trapezoid(y, x), (V, S)),
    "union1d": (lambda xp, a, b: xp.union1d(a, b), (N8, I4)),
    "vdot": (lambda xp, a, b: xp.vdot(a, b), (V, W)),
    "vecdot": (lambda xp, a, b: xp.vecdot(a, b), (V, W)),
    "vecmat": (lambda xp, a, b: xp.vecmat(a, b), (V[:4], M)),
    "where": (lambda xp, c, x, y: xp.where(c, x, y), (B8, V, W)),
    "linalg.cross": (lambda xp, a, b: xp.linalg.cross(a, b), (V[:3], W[:3])),
    "linalg.lstsq": (lambda xp, a, b: xp.linalg.lstsq(a, b)[0], (M, V[:4])),
    "linalg.matmul": (lambda xp, a, b: xp.linalg.matmul(a, b), (M, M.T)),
    "linalg.multi_dot": (lambda xp, a, b, c: xp.linalg.multi_dot([a, b, c]), (M, M.T, V[:4])),
    "linalg.outer": (lambda xp, a, b: xp.linalg.outer(a, b), (V, W)),
    "linalg.solve": (lambda xp, a, b: xp.linalg.solve(a, b), (M, V[:4])),
    "linalg.tensordot": (lambda xp, a, b: xp.linalg.tensordot(a, b, axes=1), (M, V[:4])),
    "linalg.tensorsolve": (lambda xp, a, b: xp.linalg.tensorsolve(a, b), (M, V[:4])),
    "linalg.vdot": (lambda xp, a, b: (xp.vdot if xp is numpy else xp.linalg.vdot)(a, b), (V, W)),
    "linalg.vecdot": (lambda xp, a, b: xp.linalg.vecdot(a, b), (V, W)),
    "einsum": (lambda xp, a, b: xp.einsum("ij,j->i", a, b), (M, V[:4])),
    "broadcast_arrays": (lambda xp, a, b: xp.broadcast_arrays(a, b[:, None])[1], (V, W)),
    "meshgrid": (lambda xp, a, b: xp.meshgrid(a, b)[0], (V, W[:5])),
    "gradient": (lambda xp, f, x: xp.gradient(f, x), (V, S)),
    "hstack": (lambda xp, a, b: xp.hstack([a, b]), (V, W)),
    "vstack": (lambda xp, a, b: xp.vstack([a, b]), (V, W)),
    "dstack": (lambda xp, a, b: xp.dstack([a, b]), (V, W)),
    "column_stack": (lambda xp, a, b: xp.column_stack([a, b]), (V, W)),
    "lexsort": (lambda xp, a, b: xp.lexsort((a, b)), (N8, V)),
    "ravel_multi_index": (lambda xp, i, j: xp.ravel_multi_index((i, j), (8, 8)), (I4, N8[:4])),
    "ix_": (lambda xp, a, b: xp.ix_(a, b)[1], (I4, N8)),
    "r_": (lambda xp, a, b: xp.r_[a, b], (V, W)),
    "c_": (lambda xp, a, b: xp.c_[a, b], (V, W)),
    "ufunc.outer": (lambda xp, a, b: xp.add.outer(a, b), (V, W)),
    "ufunc.reduceat": (lambda xp, a, i: xp.add.reduceat(a, i), (V, numpy.array([0, 3, 5]))),
    "ufunc.at": (lambda xp, a, i, b: _at(xp, a, i, b), (V, I4, W[:4]), {0}),
    "fft.fft_out": (lambda xp, a, o: xp.fft.fft(a, out=o), (V, V.astype(complex)), {1}),
    "add_out": (lambda xp, a, b, o: xp.add(a, b, out=o), (V, W, V.copy()), {2}),
    "sum_out": (lambda xp, a, o: xp.sum(a.reshape(2, 4), axis=0, out=o), (V, W[:4]), {1}),
}

# Cases whose result is a Python bool, as NumPy's
SCALAR_RESULTS = {"allclose", "array_equal", "array_equiv"}
# Products NumPy returns as a scalar (of two vectors, here): NumPy's scalar on the CPU, a 0-d
# array on the operands' device elsewhere (as CuPy's).
CPU_SCALAR_RESULTS = {"inner", "vdot", "linalg.vdot"}

# Public functions whose signature names two array parameters but that are not cases, and why.
EXEMPT = {
    "common_type": "reads dtypes only",
    "may_share_memory": "compares memory ranges, computes nothing (False across devices)",
    "shares_memory": "compares memory ranges, computes nothing (False across devices)",
    "polyder": "m is an order, not an array",
    "polyint": "m is an order, k constants on the host",
    "linalg.cond": "p is an order, not an array",
    "linalg.tensorinv": "ind is a number",
    "linalg.einsum": "numfuse.einsum itself (a case)",
    "row_stack": "numfuse.vstack itself (a case); NumPy 2 has no row_stack",
    "einsum_path": "returns a plan, no array",
    "apply_along_axis": "its *args go to the user's function",
    "genfromtxt": "reads a file",
    "savez": "writes a file",
    "savez_compressed": "writes a file",
    "get_array_module": "returns a module",
    "eval": "computes each array where it lives, combines none (a signature under newer nanobind)",
    "pending_node_count": "counts graph nodes, computes nothing",
    "nditer": "NumPy's iterator over host views",
    "printoptions": "sets printing options",
    "test": "runs a test suite",
}

# Functions of *args that take one array at a time (their own call is a function of one array).
ONE_ARRAY_EACH = {"atleast_1d", "atleast_2d", "atleast_3d", "result_type", "min_scalar_type",
                  "broadcast_shapes", "promote_types"}

# Parameter names that hold arrays in NumPy's signatures (out= and where= are cases of their own:
# every out= is written through the same assignment, which checks devices).
ARRAY_PARAMETERS = {
    "a", "b", "x", "y", "x1", "x2", "v", "weights", "xp", "fp", "condlist", "choicelist",
    "choices", "condition", "indices", "ind", "values", "vals", "mask", "sorter", "bins", "m",
    "arr", "ar1", "ar2", "element", "test_elements", "p", "q", "dst", "src", "a_min", "a_max",
    "to_end", "to_begin", "prepend", "append", "arrays", "a1", "a2", "u", "tup", "keys",
    "multi_index",
}
SEQUENCE_PARAMETERS = {"arrays", "condlist", "choicelist", "choices", "tup", "keys", "multi_index"}


def _function(name):
    obj = nf
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _functions_of_two_arrays():
    found = []
    for prefix, module in (("", nf), ("linalg.", nf.linalg), ("fft.", nf.fft)):
        for name in dir(module):
            f = getattr(module, name)
            if name.startswith("_") or not callable(f) or isinstance(f, (type, nf.ufunc)):
                continue
            try:
                params = inspect.signature(f).parameters
            except (TypeError, ValueError):
                continue
            arrays = [p for p in params if p in ARRAY_PARAMETERS]
            many = [p for p, v in params.items() if v.kind is inspect.Parameter.VAR_POSITIONAL
                    and name not in ONE_ARRAY_EACH]
            if len(arrays) >= 2 or many or (arrays and SEQUENCE_PARAMETERS & set(params)):
                found.append(prefix + name)
    return found


def test_every_function_of_two_arrays_is_a_case():
    listed = {name.split("_out")[0] if name.endswith("_out") else name for name in CASES}
    missing = [n for n in _functions_of_two_arrays() if n not in listed and n not in EXEMPT]
    assert not missing, f"functions of several arrays with no device case: {missing}"
    for name in list(CASES) + list(EXEMPT):  # no stale entry
        base = name[:-4] if name.endswith("_out") else name
        if base == "row_stack" and not hasattr(numpy, "row_stack"):
            continue  # numfuse has row_stack where the installed NumPy does (NumPy 2.5 has not)
        if not base.startswith("ufunc."):
            assert _function(base) is not None, name


def _case(name):
    entry = CASES[name]
    return entry[0], entry[1], (entry[2] if len(entry) > 2 else set())


def _host(x):
    return nf.asnumpy(x) if isinstance(x, nf.ndarray) else numpy.asarray(x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_results_follow_the_operands_device(name, device):
    """All operands on `device`, and each in turn a NumPy array: the values are NumPy's, the
    result is on `device`, and the default device is never asked for (it is trapped)."""
    call, data, written = _case(name)
    expected = _host(call(numpy, *[d.copy() for d in data]))
    for host_position in [None] + [i for i in range(len(data)) if i not in written]:
        ops = [d.copy() if i == host_position else nf.asarray(d, device=device)
               for i, d in enumerate(data)]
        with default_device_trapped():
            got = call(nf, *ops)
        if name in CPU_SCALAR_RESULTS and nf.asarray(data[0], device=device).device == "cpu":
            assert isinstance(got, numpy.generic), (name, host_position, type(got))
        elif name not in SCALAR_RESULTS:
            assert isinstance(got, nf.ndarray), (name, host_position, type(got))
            assert got.device == nf.asarray(data[0], device=device).device, (name, host_position)
        numpy.testing.assert_allclose(_host(got), expected, rtol=1e-9, atol=1e-12,
                                      err_msg=f"{name}, operand {host_position} from NumPy")


@pytest.mark.cuda
@pytest.mark.skipif(nf is None or not harness.cuda_available(nf), reason="needs a GPU")
@pytest.mark.parametrize("name", sorted(CASES))
def test_operands_on_two_devices_raise(name):
    """One operand on the CPU, the others on the GPU (and the reverse): the ValueError of mixing
    devices at the call, and the GPU still works afterwards (no illegal address)."""
    call, data, _ = _case(name)
    for position in range(len(data)):
        for here, there in (("cuda", "cpu"), ("cpu", "cuda")):
            ops = [nf.asarray(d, device=there if i == position else here)
                   for i, d in enumerate(data)]
            with pytest.raises(ValueError, match="different devices"):
                out = call(nf, *ops)
                nf.asnumpy(out)  # an error deferred to evaluation counts too
    ok = nf.asarray(V, device="cuda") * 2
    numpy.testing.assert_allclose(nf.asnumpy(ok), V * 2)


# Functions of one array in the namespace, swept: called with one numfuse array (what they accept
# without a trap), each must run with the default device trapped. Functions that take a shape
# (an array of numbers is a shape to them) create on the default device by design; the others
# print, read or write files, or set global state.
SHAPE_TAKERS = {"empty", "zeros", "ones", "indices"}
NOT_SWEPT = {"info", "show_config", "show_runtime", "set_printoptions", "seterr", "seterrcall",
             "setbufsize", "load", "save", "savez", "savez_compressed", "savetxt", "loadtxt",
             "genfromtxt", "fromfile", "memmap", "tofile", "printoptions", "errstate"}
SWEEP_INPUTS = (numpy.random.default_rng(3).standard_normal((4, 4)) + 4 * numpy.eye(4),
                numpy.array([3.0, -1.0, 2.5, 0.5]), numpy.array([3, 1, 2, 0, 1]))


def _public_functions():
    for prefix, module in (("", nf), ("linalg.", nf.linalg), ("fft.", nf.fft)):
        for name in sorted(dir(module)):
            f = getattr(module, name)
            if name.startswith("_") or not callable(f) or isinstance(f, type):
                continue
            if name in NOT_SWEPT or name in SHAPE_TAKERS:
                continue
            yield prefix + name, f


@pytest.mark.filterwarnings("ignore")
def test_functions_of_one_array_create_nothing_on_the_default_device():
    # On the CPU only: the device of the trapped call is not what is tested, and on a GPU the
    # sweep would compile a kernel for most of the namespace.
    device = "cpu"
    trapped = {}
    swept = 0
    for name, f in _public_functions():
        for data in SWEEP_INPUTS:
            a = nf.asarray(data, device=device)
            try:
                f(a)
            except Exception:  # not a function of this array (or of one argument)
                continue
            swept += 1
            try:
                with default_device_trapped():
                    r = f(a)
                    if isinstance(r, nf.ndarray):
                        nf.asnumpy(r)
            except RuntimeError as e:
                if "set_default_device_trap" in str(e):
                    trapped[name] = str(e)[:60]
            except Exception:  # noqa: S110 - errors of the function itself are other tests' matter
                pass
            break
    assert swept > 200  # the sweep reached the namespace
    assert not trapped, f"functions of one array that use the default device: {sorted(trapped)}"


def test_random_draws_follow_their_array_parameters(device):
    """A draw with array parameters is made on their device (values are numfuse's own stream, so
    shapes, devices and a sanity check of the values are what is compared)."""
    loc = nf.asarray(V * 100, device=device)
    p = nf.asarray(W / W.sum(), device=device)
    with default_device_trapped():
        for rng in (nf.random.default_rng(7), nf.random.RandomState(7)):
            z = rng.normal(loc, 1e-3)
            assert z.device == loc.device and z.shape == loc.shape
            numpy.testing.assert_allclose(nf.asnumpy(z), V * 100, atol=0.1)
        c = nf.random.default_rng(7).choice(loc, 5, p=p)
        assert c.device == loc.device and c.shape == (5,)
        assert numpy.isin(nf.asnumpy(c), V * 100).all()
