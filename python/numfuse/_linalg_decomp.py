"""numpy.linalg's factorizations, solves and decompositions over LAPACK (cuSOLVER on CUDA).

Each function handles its arguments as numpy/linalg/_linalg.py does (the same checks in the same
order, the same messages), then calls one C++ operation (`_core.linalg_decomp`, a LinalgNode)
and evaluates it at once, so that a singular matrix raises LinAlgError at the call as in NumPy
rather than when the result is first read. As NumPy does, every computation runs in float64 or
complex128 and the results are cast back to the inputs' precision (float32 in, float32 out).
"""
import functools

import numpy as _np

from ._creation import follows_operands
from . import _core
from . import _creation as _c
from . import _indexing as _ix
from . import _ranges as _rg
from . import _shape as _s
from . import _ufuncs as _u
from ._core import ndarray

LinAlgError = _np.linalg.LinAlgError

try:  # NumPy's own result types, so that fields and reprs are NumPy's
    from numpy.linalg._linalg import (EigResult, EighResult, QRResult, SlogdetResult,
                                      SVDResult)
except ImportError:  # pragma: no cover - NumPy < 2
    from collections import namedtuple
    EigResult = namedtuple("EigResult", "eigenvalues eigenvectors")
    EighResult = namedtuple("EighResult", "eigenvalues eigenvectors")
    QRResult = namedtuple("QRResult", "Q R")
    SlogdetResult = namedtuple("SlogdetResult", "sign logabsdet")
    SVDResult = namedtuple("SVDResult", "U S Vh")



def _arr(a):
    return a if isinstance(a, ndarray) else _c.asarray(a)


# ---- NumPy's argument checks -------------------------------------------------------------------

_COMMON_TYPES = {}  # dtypes of the operands -> _common_type's answer (13 us a call uncached)


def _common_type(*arrays):
    """NumPy's _commonType: (computation dtype, result dtype). float16 and longdouble refused."""
    key = tuple(a.dtype for a in arrays)
    hit = _COMMON_TYPES.get(key)
    if hit is None:
        hit = _COMMON_TYPES[key] = _common_type_of(arrays)
    return hit


def _common_type_of(arrays):
    single = True
    cplx = False
    for a in arrays:
        dt = _np.dtype(a.dtype)
        if dt.kind in "fc":
            if dt.kind == "c":
                cplx = True
            if dt in (_np.float64, _np.complex128):
                single = False
            elif dt not in (_np.float32, _np.complex64):
                raise TypeError(f"array type {dt.name} is unsupported in linalg")
        else:
            single = False
    if cplx:
        return _np.dtype(_np.complex128), _np.dtype(_np.complex64 if single else _np.complex128)
    return _np.dtype(_np.float64), _np.dtype(_np.float32 if single else _np.float64)


def _real(dt):
    return _np.dtype(dt.char.lower()) if dt.kind == "c" else dt


def _complex(dt):
    return _np.dtype(_np.complex64 if dt in (_np.float32, _np.complex64) else _np.complex128)


def _assert_2d(*arrays):
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")


def _assert_stacked_2d(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                              "two-dimensional")


def _assert_stacked_square(*arrays):
    for a in arrays:
        _assert_stacked_2d(a)
        if a.shape[-1] != a.shape[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def _assert_finite(*arrays):
    for a in arrays:
        if not bool(_u.isfinite(a).all()):
            raise LinAlgError("Array must not contain infs or NaNs")


def _run(op, inputs, t, result_t=None, **spec):
    """The outputs of LAPACK operation `op` on `inputs` cast to `t`, evaluated now (in the same
    call into C++: now=True). With the result's dtype `result_t` (whose precision the caller
    casts the outputs to) single precision and every input of that dtype, the node is asked to
    compute in `t` itself (widen): the backend converts as it loads and stores, with no cast
    passes over the stack before and after (CUDA's small-matrix kernels) or casts internally
    (elsewhere), and its outputs are already in single precision."""
    if result_t is not None and result_t != t and all(x.dtype == result_t for x in inputs):
        return _core.linalg_decomp(op, list(inputs), widen=True, now=True, **spec)
    return _core.linalg_decomp(op, [x if x.dtype == t else x.astype(t) for x in inputs], now=True,
                               **spec)


def _cast(x, dt):
    return x if x.dtype == dt else x.astype(dt)  # the call alone costs ~0.4 us


def transpose(a):
    """numpy.linalg's transpose of each matrix of a stack."""
    a = _arr(a)
    _assert_stacked_2d(a)
    return a.swapaxes(-1, -2)


# ---- solves and inverses -----------------------------------------------------------------------

_FLOAT64 = _np.dtype(_np.float64)


def inv(a):
    """numpy.linalg.inv: the inverse of each matrix of the stack (LAPACK gesv against I)."""
    # The common call, a float64 numfuse stack of square matrices, straight to the node: the
    # general path's checks and dtype resolution cost ~1 us of a small stack's call (issue 13).
    if type(a) is ndarray and a.dtype == _FLOAT64:
        s = a.shape
        if len(s) >= 2 and s[-1] == s[-2]:
            return _core.linalg_decomp("inv", [a], now=True)[0]
    a = _arr(a)
    _assert_stacked_square(a)
    t, result_t = _common_type(a)
    return _cast(_run("inv", [a], t, result_t)[0], result_t)


def solve(a, b):
    """numpy.linalg.solve: b is a vector only when it is 1-D (NumPy 2's rule); batch dims of a
    and b broadcast."""
    # The common call, float64 numfuse stacks of one batch shape on one device, straight to the
    # node (what the general path computes for them, without its ~2 us of checks, dtype resolution
    # and device scope: issue 13).
    if type(a) is ndarray and type(b) is ndarray and a.dtype == _FLOAT64 and b.dtype == _FLOAT64:
        sa, sb = a.shape, b.shape
        if (len(sa) >= 2 and len(sb) == len(sa) and sa[-1] == sa[-2] == sb[-2]
                and sa[:-2] == sb[:-2] and a.device == b.device):
            return _core.linalg_decomp("solve", [a, b], now=True)[0]
    return _solve_general(a, b)


@follows_operands
def _solve_general(a, b):
    a = _arr(a)
    _assert_stacked_square(a)
    b = _arr(b)
    t, result_t = _common_type(a, b)
    n = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != n:
            raise ValueError("solve1: Input operand 1 has a mismatch in its core dimension 0, with "
                             f"gufunc signature (m,m),(m)->(m) (size {b.shape[0]} is different "
                             f"from {n})")
        b2 = _s.broadcast_to(b.reshape(n, 1), a.shape[:-2] + (n, 1))
        return _cast(_run("solve", [a, b2], t, result_t)[0][..., 0], result_t)
    if b.ndim == 0:
        raise ValueError("solve: Input operand 1 does not have enough dimensions (has 0, gufunc "
                         "core with signature (m,m),(m,n)->(m,n) requires 2)")
    if b.shape[-2] != n:
        raise ValueError("solve: Input operand 1 has a mismatch in its core dimension 0, with "
                         f"gufunc signature (m,m),(m,n)->(m,n) (size {b.shape[-2]} is different "
                         f"from {n})")
    if a.shape[:-2] == b.shape[:-2]:  # nothing to broadcast: broadcast_to and broadcast_shapes
        return _cast(_run("solve", [a, b], t, result_t)[0], result_t)  # cost ~10 us a call
    try:
        batch = _np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        def remap(s):
            return ("(" + ",".join(str(d) for d in s[:-2]) + ",newaxis,newaxis)",
                    "(" + ",".join(str(d) for d in s) + ")")
        (ra, oa), (rb, ob) = remap(a.shape), remap(b.shape)
        raise ValueError("operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {oa}->{ra} {ob}->{rb}  and requested shape "
                         f"({n},{b.shape[-1]})") from None
    a2 = a if a.shape[:-2] == batch else _s.broadcast_to(a, batch + a.shape[-2:])
    b2 = b if b.shape[:-2] == batch else _s.broadcast_to(b, batch + b.shape[-2:])
    return _cast(_run("solve", [a2, b2], t, result_t)[0], result_t)


def det(a):
    """numpy.linalg.det (LU; a singular matrix gives 0)."""
    a = _arr(a)
    _assert_stacked_square(a)
    t, result_t = _common_type(a)
    return _cast(_run("det", [a], t, result_t)[0], result_t)


def slogdet(a):
    """numpy.linalg.slogdet: (sign, log|det|); a singular matrix gives (0, -inf)."""
    a = _arr(a)
    _assert_stacked_square(a)
    t, result_t = _common_type(a)
    sign, logdet = _run("slogdet", [a], t, result_t)
    return SlogdetResult(_cast(sign, result_t), _cast(logdet, _real(result_t)))


def cholesky(a, /, *, upper=False):
    """numpy.linalg.cholesky: L with a = L L^H (or U with a = U^H U); only that triangle read."""
    a = _arr(a)
    _assert_stacked_square(a)
    t, result_t = _common_type(a)
    # Both backends write zeros over the other triangle (CUDA: in the copy that feeds potrf).
    r = _run("cholesky", [a], t, result_t, upper=bool(upper))[0]
    return _cast(r, result_t)


# ---- QR ----------------------------------------------------------------------------------------

def qr(a, mode="reduced"):
    """numpy.linalg.qr: modes 'reduced', 'complete', 'r', 'raw' (geqrf, then orgqr/ungqr)."""
    import warnings
    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full"):
            warnings.warn("The 'full' option is deprecated in favor of 'reduced'.\n"
                          "For backward compatibility let mode default.", DeprecationWarning,
                          stacklevel=2)
            mode = "reduced"
        elif mode in ("e", "economic"):
            warnings.warn("The 'economic' option is deprecated.", DeprecationWarning,
                          stacklevel=2)
            mode = "economic"
        else:
            raise ValueError(f"Unrecognized mode '{mode}'")
    a = _arr(a)
    _assert_stacked_2d(a)
    m, n = a.shape[-2:]
    t, result_t = _common_type(a)
    mn = min(m, n)
    h, tau = _run("qr", [a], t)
    triu = _rg.triu
    if mode == "r":
        return _cast(triu(h[..., :mn, :]), result_t)
    if mode == "raw":
        return _cast(h.swapaxes(-1, -2), result_t), _cast(tau, result_t)
    if mode == "economic":
        return _cast(h, result_t)
    mc = m if mode == "complete" and m > n else mn
    q = _run("qr(q)", [h, tau], t, cols=mc)[0]
    return QRResult(_cast(q, result_t), _cast(triu(h[..., :mc, :]), result_t))


# ---- eigenvalues -------------------------------------------------------------------------------

def _uplo(UPLO):
    UPLO = UPLO.upper()
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "U"


def eigh(a, UPLO="L"):
    """numpy.linalg.eigh: ascending real eigenvalues and orthonormal eigenvectors (syevd/heevd)."""
    upper = _uplo(UPLO)
    a = _arr(a)
    _assert_stacked_square(a)
    t, result_t = _common_type(a)
    w, v = _run("eigh", [a], t, result_t, upper=upper)
    return EighResult(_cast(w, _real(result_t)), _cast(v, result_t))


def eigvalsh(a, UPLO="L"):
    """numpy.linalg.eigvalsh: the ascending real eigenvalues of a Hermitian stack."""
    upper = _uplo(UPLO)
    a = _arr(a)
    _assert_stacked_square(a)
    t, result_t = _common_type(a)
    return _cast(_run("eigvalsh", [a], t, result_t, upper=upper)[0], _real(result_t))


@functools.cache
def _eig_always_complex():
    """NumPy up to 2.4 gives eig of real input real results when every eigenvalue is real; later
    versions give complex results always. The rule of the NumPy installed beside numfuse is kept
    (asked once, at the first eig, not at import)."""
    return _np.linalg.eigvals(_np.eye(1)).dtype.kind == "c"


def _real_if_all_real(t, result_t, *outs):
    """NumPy's rule for eig of real input (see _eig_always_complex)."""
    if not _eig_always_complex() and t.kind != "c" and bool((outs[0].imag == 0).all()):
        return _real(result_t), [o.real for o in outs]
    return _complex(result_t), list(outs)


# The smallest order whose eig/eigvals run on the GPU (cusolverDnXgeev); smaller matrices go to the
# host's LAPACK, a copy there and back. Xgeev costs 0.3-0.8 ms a call even for a 1x1 and 3-5 ms at
# 64 (H100, CUDA 13.0), looped over a stack; LAPACK's geev is faster there and Xgeev only wins
# from a few hundred up (1000^2 float64: 219 ms against NumPy's 653 ms on 16 cores). See
# docs/decisions.md (issue 13, helper G). Tests set it to 0 to run Xgeev at every size.
_GEEV_DEVICE_MIN_N = 384


def _geev_on_host(call, a):
    """call(a) where a lives, or on the host's LAPACK (a copy there and back) when a is small
    (_GEEV_DEVICE_MIN_N) or a's device cannot run geev: the CUDA backend raises
    NotImplementedError naming cusolverDnXgeev when the loaded cuSOLVER lacks it (before CUDA
    12.6), the documented fallback of issue 13."""
    if a.device == "cpu":
        return call(a)
    if not (a.ndim >= 2 and a.shape[-1] < _GEEV_DEVICE_MIN_N):
        try:
            return call(a)
        except NotImplementedError as e:
            if "cusolverDnXgeev" not in str(e):
                raise
    r = call(a.to_device("cpu"))
    return type(r)(*(x.to_device(a.device) for x in r)) if isinstance(r, tuple) else \
        r.to_device(a.device)


def _eig_here(a):
    _assert_stacked_square(a)
    _assert_finite(a)
    t, result_t = _common_type(a)
    w, v = _run("eig", [a], t)
    rt, (w, v) = _real_if_all_real(t, result_t, w, v)
    return EigResult(_cast(w, rt), _cast(v, rt))


def _eigvals_here(a):
    _assert_stacked_square(a)
    _assert_finite(a)
    t, result_t = _common_type(a)
    w = _run("eigvals", [a], t)[0]
    rt, (w,) = _real_if_all_real(t, result_t, w)
    return _cast(w, rt)


def eig(a):
    """numpy.linalg.eig (geev): complex results unless the input is real and so are all the
    eigenvalues of the stack (NumPy up to 2.4)."""
    return _geev_on_host(_eig_here, _arr(a))


def eigvals(a):
    """numpy.linalg.eigvals (geev without vectors)."""
    return _geev_on_host(_eigvals_here, _arr(a))


# ---- SVD ---------------------------------------------------------------------------------------

def _hermitian_svd(a, compute_uv):
    """svd(hermitian=True) through eigh, ordered as NumPy's: |eigenvalues| descending, their
    signs moved into vh. The order is found on the host (numfuse has no argsort yet)."""
    if not compute_uv:
        s = _u.absolute(eigvalsh(a))
        order = _np.argsort(_c.asnumpy(s), axis=-1, kind="stable")[..., ::-1].copy()
        return _ix.take_along_axis(s, _c.asarray(order, device=s.device), axis=-1)
    s, u = eigh(a)
    sgn = _u.sign(s)
    s = _u.absolute(s)
    order = _np.argsort(_c.asnumpy(s), axis=-1, kind="stable")[..., ::-1].copy()
    sidx = _c.asarray(order, device=s.device)
    sgn = _ix.take_along_axis(sgn, sidx, axis=-1)
    s = _ix.take_along_axis(s, sidx, axis=-1)
    u = _ix.take_along_axis(u, sidx[..., None, :], axis=-1)
    vt = _u.conjugate((u * sgn[..., None, :]).swapaxes(-1, -2))
    return SVDResult(u, s, vt)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """numpy.linalg.svd (gesdd): (U, S, Vh) with S descending, or S alone."""
    a = _arr(a)
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    _assert_stacked_2d(a)
    t, result_t = _common_type(a)
    if compute_uv:
        s, u, vh = _run("svd", [a], t, full_matrices=bool(full_matrices))
        return SVDResult(_cast(u, result_t), _cast(s, _real(result_t)), _cast(vh, result_t))
    return _cast(_run("svdvals", [a], t)[0], _real(result_t))


def svdvals(x, /):
    """numpy.linalg.svdvals: the singular values, descending."""
    return svd(x, compute_uv=False, hermitian=False)


def _inv_or_nan(x, t):
    """inv of each matrix, NaN where singular (NumPy's inv gufunc under errstate ignore)."""
    return _run("inv", [x], t, raise_on_failure=False)[0]
