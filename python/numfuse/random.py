"""numfuse.random: NumPy's random API over counter-based Philox4x32-10 numbers.

The numbers are numfuse's own, not NumPy's: a generator is (seed, stream, offset), the offset
counting 64-bit words of the Philox stream of (seed, stream): element i of a uniform draw is word
(offset + i), and the offset grows by n; normals and integers take a whole block each
(cpp/numfuse/kernels/philox.h). A draw is a lazy Source node, computed in parallel where it is
used, identical on the CPU and the GPU. Seeds go through numpy.random.SeedSequence, so every
seed NumPy accepts (ints, sequences of ints, None for fresh entropy) gives a distinct stream.

Shapes, dtypes, return types (a Python float for ``rand()``, a NumPy scalar for
``Generator.integers()`` ...) and errors follow NumPy. The other distributions (beta ... zipf) are
in _random_dists.py, the multivariate draws, permutations and choice(p=, replace=False) in
_random_multi.py; SeedSequence is NumPy's own class (the same entropy gives the same state).
"""
import abc
import inspect
import math
import operator
import threading

import numpy as _np

from . import _core
from ._core import ndarray
from ._creation import asarray, follows_operands
from ._random_dists import Distributions
from ._random_multi import Multivariate
from ._random_bitgen import (MT19937, PCG64, PCG64DXSM, SFC64, HostGeneratorDraws,
                             HostRandomStateDraws, NumpyBitGenerator, bit_generator)

# The distributions RandomState and the module share with Generator (their legacy functions).
_LEGACY_FORWARDED = [
    "beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma", "geometric",
    "gumbel", "hypergeometric", "laplace", "logistic", "lognormal", "logseries", "multinomial",
    "multivariate_normal", "negative_binomial", "noncentral_chisquare", "noncentral_f", "pareto",
    "permutation", "poisson", "power", "rayleigh", "shuffle", "standard_cauchy",
    "standard_exponential", "standard_gamma", "standard_t", "triangular", "vonmises", "wald",
    "weibull", "zipf", "bytes"]

__all__ = ["Generator", "RandomState", "SeedSequence", "BitGenerator", "Philox", "default_rng",
           "seed", "random", "rand", "randn", "uniform", "normal", "randint", "random_integers",
           "standard_normal", "random_sample", "sample", "ranf", "choice", "get_state",
           "set_state", "MT19937", "PCG64", "PCG64DXSM", "SFC64", "bit_generator",
           "get_bit_generator", "set_bit_generator"] + _LEGACY_FORWARDED

SeedSequence = _np.random.SeedSequence  # NumPy's algorithm itself

_MASK64 = (1 << 64) - 1
_MAX_DIM = (1 << 63) - 1


def _seed_to_u64(seed):
    ss = seed if isinstance(seed, _np.random.SeedSequence) else _np.random.SeedSequence(seed)
    words = ss.generate_state(2, _np.uint32)
    return int(words[0]) | (int(words[1]) << 32)


def _size_tuple(size):
    if size is None:
        return None
    return tuple(_core._shape(size))  # NumPy's reading of a shape: bools refused, 1-d arrays


def _integers_size_tuple(size, choice=False):
    """size for the integer draws (integers, choice, randint): NumPy's take np.prod(size) first
    (UFuncTypeError for a string, ValueError for a ragged tuple); choice converts that product to
    a C long (OverflowError for ints past int64)."""
    if size is not None:
        if not isinstance(_np.prod(size), _np.generic) and choice:
            raise OverflowError("Python int too large to convert to C long")
    return _size_tuple(size)


def _is_scalar(x):
    return _np.ndim(x) == 0 and not isinstance(x, ndarray)


def _host(x):
    """A parameter array on the host, for validation (parameters are small)."""
    return _np.asarray(x._host_read() if isinstance(x, ndarray) else x, dtype=_np.float64)


class BitGenerator(abc.ABC):
    """The base of numfuse's bit generators: Philox, and NumPy's (registered below), so that
    isinstance(PCG64(), numfuse.random.BitGenerator) holds as in NumPy."""


BitGenerator.register(NumpyBitGenerator)


class Philox(BitGenerator):
    """numfuse's counter-based bit generator: Philox4x32-10 at (seed, stream, offset), the offset
    counting 64-bit words (kernels/philox.h). `seed` is anything SeedSequence takes, or one."""

    def __init__(self, seed=None, *, stream=0):
        ss = seed if isinstance(seed, SeedSequence) else SeedSequence(seed)
        self.seed_seq = ss
        self._seed = _seed_to_u64(ss)
        self._stream = int(stream) & _MASK64
        self._offset = 0
        self._lock = threading.Lock()

    def __repr__(self):
        return f"Philox at 0x{id(self):X}"

    # NumPy's private name for it, which dask.array.random spawns one child per chunk from.
    _seed_seq = property(lambda self: self.seed_seq)

    def __getstate__(self):
        with self._lock:
            return {"seed": self._seed, "stream": self._stream, "offset": self._offset}

    def __setstate__(self, state):
        self._lock = threading.Lock()
        self.seed_seq = None
        self._seed, self._stream, self._offset = state["seed"], state["stream"], state["offset"]

    @property
    def state(self):
        with self._lock:
            return {"bit_generator": "Philox",
                    "state": {"seed": self._seed, "stream": self._stream, "offset": self._offset}}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox":
            raise ValueError("state must be for a Philox bit generator")
        st = value["state"]
        with self._lock:
            self._seed = int(st["seed"]) & _MASK64
            self._stream = int(st["stream"]) & _MASK64
            self._offset = int(st["offset"]) & _MASK64

    def spawn(self, n_children):
        """Independent bit generators: the same seed on the next streams."""
        kids = []
        for i in range(n_children):
            bg = Philox.__new__(Philox)
            bg.__setstate__({"seed": self._seed, "stream": (self._stream + 1 + i) & _MASK64,
                             "offset": 0})
            kids.append(bg)
        return kids


def _forward(attr):
    """A Generator attribute kept by its bit generator."""
    return property(lambda self: getattr(self._bit_generator, attr),
                    lambda self, v: setattr(self._bit_generator, attr, v))


class Generator(Distributions, Multivariate):
    """numpy.random.Generator's interface over a Philox (seed, stream, offset) state."""

    _seed = _forward("_seed")
    _stream = _forward("_stream")
    _offset = _forward("_offset")
    _lock = _forward("_lock")

    def __new__(cls, seed=None, stream=0):
        # NumPy's bit generators give NumPy's own streams, drawn on the host (_random_bitgen.py)
        if cls is Generator and isinstance(seed, (NumpyBitGenerator, _np.random.Generator)):
            cls = _HostGenerator
        return super().__new__(cls)

    def __init__(self, seed=None, stream=0):
        self._bit_generator = seed if isinstance(seed, Philox) else Philox(seed, stream=stream)

    @property
    def bit_generator(self):
        return self._bit_generator

    def __repr__(self):
        return f"Generator(Philox) at 0x{id(self):X}"

    # pickle and copy.deepcopy: the state, without the lock (a new one on the other side)
    def __getstate__(self):
        return self._bit_generator.__getstate__()

    def __setstate__(self, state):
        self._bit_generator = Philox.__new__(Philox)
        self._bit_generator.__setstate__(state)

    # ---- the state ------------------------------------------------------------------------------

    @property
    def state(self):
        return {"seed": self._seed, "stream": self._stream, "offset": self._offset}

    @state.setter
    def state(self, value):
        with self._lock:
            self._seed = int(value["seed"]) & _MASK64
            self._stream = int(value["stream"]) & _MASK64
            self._offset = int(value["offset"]) & _MASK64

    def spawn(self, n_children):
        """Independent generators: the same seed on the next streams."""
        return [Generator(bg) for bg in self._bit_generator.spawn(n_children)]

    def _reserve_blocks(self, n):
        """The first of n whole Philox blocks, reserved (kernels/philox.h: the next whole block
        at or after the offset; the offset moves past the last)."""
        with self._lock:
            offset = ((self._offset + 1) >> 1) & (_MASK64 >> 1)
            self._offset = (2 * (offset + n)) & _MASK64
        return offset

    def _draw(self, shape, dtype, dist, a=0.0, b=1.0, low=0, rng=0):
        # Checked before the state moves: a refused draw leaves the generator as it was.
        if any(s < 0 for s in shape):
            raise ValueError("negative dimensions are not allowed")
        if any(s > _MAX_DIM for s in shape):
            raise ValueError("Maximum allowed dimension exceeded")
        n = math.prod(shape)
        # The offset counts 64-bit words of the Philox stream (kernels/philox.h): a uniform
        # takes one word, a normal or an integer one whole block (two words, block-aligned).
        if dist == "uniform":
            with self._lock:
                offset = self._offset
                self._offset = (self._offset + n) & _MASK64
        else:
            offset = self._reserve_blocks(n)
        return _core.random_draw(list(shape), dtype, dist, self._seed, self._stream, offset,
                                 float(a), float(b), low & _MASK64, rng & _MASK64)

    def _floats(self, size, dtype, dist, a, b, name):
        dtype = _np.dtype(dtype)
        if dtype not in (_np.float32, _np.float64):
            raise TypeError(f"Unsupported dtype {dtype!r} for {name}")
        shape = _size_tuple(size)
        if shape is None:
            return self._draw((), dtype, dist, a, b).item()
        return self._draw(shape, dtype, dist, a, b)

    # ---- distributions --------------------------------------------------------------------------

    def random(self, size=None, dtype=_np.float64, out=None):
        res = self._floats(size if out is None else out.shape, dtype, "uniform", 0.0, 1.0,
                           "random")
        return _into(res, out)

    def standard_normal(self, size=None, dtype=_np.float64, out=None):
        res = self._floats(size if out is None else out.shape, dtype, "normal", 0.0, 1.0,
                           "standard_normal")
        return _into(res, out)

    def uniform(self, low=0.0, high=1.0, size=None):
        return self._uniform(low, high, size, legacy=False)

    def _uniform(self, low, high, size, legacy):
        if _is_scalar(low) and _is_scalar(high):
            lo, hi = float(low), float(high)
            if not legacy and hi - lo < 0:
                raise ValueError("high - low < 0")
            if not math.isfinite(hi - lo):
                raise OverflowError("Range exceeds valid bounds" if legacy else
                                    "high - low range exceeds valid bounds")
            shape = _size_tuple(size)
            if shape is None:
                return self._draw((), _np.float64, "uniform", lo, hi).item()
            return self._draw(shape, _np.float64, "uniform", lo, hi)
        hl, hh = _host(low), _host(high)
        if not legacy and _np.any(hh - hl < 0):
            raise ValueError("high - low < 0")
        if not _np.all(_np.isfinite(hh - hl)):
            raise OverflowError("Range exceeds valid bounds" if legacy else
                                "high - low range exceeds valid bounds")
        shape = _size_tuple(size) or _np.broadcast_shapes(hl.shape, hh.shape)
        lo, hi = asarray(low, _np.float64), asarray(high, _np.float64)
        u = self._draw(shape, _np.float64, "uniform")
        return lo + (hi - lo) * u

    def normal(self, loc=0.0, scale=1.0, size=None):
        if _is_scalar(loc) and _is_scalar(scale):
            if float(scale) < 0:
                raise ValueError("scale < 0")
            shape = _size_tuple(size)
            if shape is None:
                return self._draw((), _np.float64, "normal", float(loc), float(scale)).item()
            return self._draw(shape, _np.float64, "normal", float(loc), float(scale))
        hl, hs = _host(loc), _host(scale)
        if _np.any(hs < 0):
            raise ValueError("scale < 0")
        shape = _size_tuple(size) or _np.broadcast_shapes(hl.shape, hs.shape)
        z = self._draw(shape, _np.float64, "normal")
        return asarray(loc, _np.float64) + asarray(scale, _np.float64) * z

    def integers(self, low, high=None, size=None, dtype=_np.int64, endpoint=False):
        return self._integers(low, high, size, dtype, endpoint, "integers")

    def _integers(self, low, high, size, dtype, endpoint, name):
        py_type = dtype if dtype in (int, bool) else None
        dt = _np.dtype(dtype)
        if dt.kind not in "iub":
            raise TypeError(f"Unsupported dtype {dt!r} for {name}")
        if not (_is_scalar(low) and (high is None or _is_scalar(high))):
            raise NotImplementedError(f"numfuse.random: array bounds for {name} are not "
                                      "supported yet")
        if high is None:
            low, high = 0, low
            lo, hi = 0, int(high)
            if (hi < 0) if endpoint else (hi <= 0):
                raise ValueError("high < 0" if endpoint else "high <= 0")
        else:
            lo, hi = int(low), int(high)
        if dt.kind == "b":
            imin, imax = 0, 1
        else:
            info = _np.iinfo(dt)
            imin, imax = int(info.min), int(info.max)
        hi_incl = hi if endpoint else hi - 1
        if lo < imin:
            raise ValueError(f"low is out of bounds for {dt}")
        if hi_incl > imax:
            raise ValueError(f"high is out of bounds for {dt}")
        if lo > hi_incl:
            raise ValueError("low > high" if endpoint else "low >= high")
        shape = _integers_size_tuple(size)
        res = self._draw(() if shape is None else shape, dt, "integers", low=lo,
                         rng=hi_incl - lo + 1)
        if shape is None:
            v = res.item()
            return py_type(v) if py_type is not None else dt.type(v)
        return res

    def _choice_uniform(self, a, size, axis=0):
        """choice with replacement and equal probabilities (Multivariate.choice does the rest)."""
        pool = a if isinstance(a, ndarray) else _np.asarray(a)
        if pool.ndim == 0:  # NumPy: a population size, read through __index__
            try:
                n = operator.index(pool.item())
            except TypeError as exc:
                raise ValueError("a must be a sequence or an integer, not a 0-d array") from exc
            if n - 1 > _np.iinfo(_np.int64).max:  # NumPy draws integers(0, n)
                raise ValueError("high is out of bounds for int64")
            pool = None
        else:
            axis = _np.lib.array_utils.normalize_axis_index(axis, pool.ndim)
            n = pool.shape[axis]
        shape = _integers_size_tuple(size, choice=True)
        if n <= 0 and (shape is None or math.prod(shape) != 0):
            raise ValueError("a must be greater than 0 unless no samples are taken")
        idx = self._draw(() if shape is None else shape, _np.int64, "integers", low=0, rng=n)
        if pool is None:
            return _np.int64(idx.item()) if shape is None else idx
        key = (slice(None),) * axis
        if shape is None:
            return pool[key + (idx.item(),)] if axis else pool[idx.item()]
        return asarray(pool)[key + (idx,)]


def _into(res, out):
    if out is None:
        return res
    out[...] = res
    return out


def default_rng(seed=None):
    """A Generator seeded from `seed` (an int, a sequence of ints, a SeedSequence, a Philox bit
    generator, a Generator, or None)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, BitGenerator) and not isinstance(seed, (Philox, NumpyBitGenerator)):
        raise TypeError(f"numfuse.random has no bit generator {type(seed).__name__}")
    return Generator(seed)


class RandomState:
    """numpy.random's legacy interface (RandomState) over the same Philox generator."""

    def __new__(cls, seed=None):
        if cls is RandomState and isinstance(seed, NumpyBitGenerator):
            cls = _HostRandomState  # NumPy's legacy stream over NumPy's bit generator
        return super().__new__(cls)

    def __init__(self, seed=None):
        if isinstance(seed, Philox):  # set_bit_generator(Philox(...))
            self._gen = Generator(seed)
            return
        self._gen = Generator(None)
        self.seed(seed)

    @property
    def bit_generator(self):
        return self._gen.bit_generator

    def seed(self, seed=None):
        if seed is not None:
            vals = _np.asarray(seed)
            if vals.dtype.kind not in "iub" and vals.size:
                raise TypeError("Cannot cast scalar from dtype('float64') to dtype('int64') "
                                "according to the rule 'safe'")
            if vals.size and (vals.min() < 0 or vals.max() > 2 ** 32 - 1):
                raise ValueError("Seed must be between 0 and 2**32 - 1")
            seed = [int(v) for v in vals.ravel()] if vals.ndim else int(vals)
        self._gen._seed = _seed_to_u64(seed)
        self._gen._stream = 0
        self._gen._offset = 0

    def random_sample(self, size=None):
        return self._gen.random(size)

    random = ranf = sample = random_sample

    def rand(self, *shape):
        return self._gen.random(shape if shape else None)

    def randn(self, *shape):
        return self._gen.standard_normal(shape if shape else None)

    def standard_normal(self, size=None):
        return self._gen.standard_normal(size)

    def uniform(self, low=0.0, high=1.0, size=None):
        return self._gen._uniform(low, high, size, legacy=True)

    def normal(self, loc=0.0, scale=1.0, size=None):
        return self._gen.normal(loc, scale, size)

    def randint(self, low, high=None, size=None, dtype=int):
        return self._gen._integers(low, high, size, dtype, False, "randint")

    def random_integers(self, low, high=None, size=None):
        if high is None:
            low, high = 1, low
        return self._gen._integers(low, high, size, int, True, "random_integers")

    def choice(self, a, size=None, replace=True, p=None):
        res = self._gen.choice(a, size, replace, p)
        return int(res) if isinstance(res, _np.int64) else res

    # ---- the state: numfuse's Philox (seed, stream, offset), not NumPy's MT19937 ----------------

    def get_state(self, legacy=True):
        """The generator's state: with legacy=True a tuple shaped as NumPy's ('Philox', the uint64
        words (seed, stream, offset), 0, 0, 0.0), else the bit generator's state dict. Either goes
        back through set_state, which then replays the same numbers."""
        st = self._gen.bit_generator.state
        if not legacy:
            return st
        w = st["state"]
        return ("Philox", _np.array([w["seed"], w["stream"], w["offset"]], dtype=_np.uint64), 0, 0,
                0.0)

    def set_state(self, state):
        if isinstance(state, dict):
            if state.get("bit_generator") != "Philox" or "state" not in state:
                raise ValueError("state must be a numfuse Philox state (from get_state); "
                                 "NumPy's MT19937 states cannot be converted")
            self._gen.bit_generator.state = state
            return
        if not isinstance(state, (tuple, list)) or len(state) not in (3, 5) or state[0] != "Philox":
            raise ValueError("state must be a numfuse Philox state (from get_state); NumPy's "
                             "MT19937 states cannot be converted")
        words = _np.asarray(state[1], dtype=_np.uint64)
        if words.shape != (3,):
            raise ValueError("state must be a numfuse Philox state (from get_state)")
        self._gen.bit_generator.state = {"bit_generator": "Philox", "state": {
            "seed": int(words[0]), "stream": int(words[1]), "offset": int(words[2])}}


def _legacy(name):
    def method(self, *args, **kwargs):
        return getattr(self._gen, name)(*args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"numpy.random.RandomState.{name} (numfuse's Philox numbers)."
    return method


for _name in _LEGACY_FORWARDED:
    setattr(RandomState, _name, _legacy(_name))


class _HostGenerator(HostGeneratorDraws, Generator):
    """Generator(PCG64(seed)) and friends: NumPy's Generator on the host (_random_bitgen.py)."""


class _HostRandomState(HostRandomStateDraws, RandomState):
    """RandomState(MT19937(seed)) and friends: NumPy's RandomState on the host."""


_global = RandomState()


def get_bit_generator():
    """The bit generator of the module's global RandomState (numfuse's Philox unless
    set_bit_generator gave another)."""
    return _global.bit_generator


def set_bit_generator(bitgen):
    """The module's functions (rand, normal, seed ...) draw from `bitgen` from now on: a numfuse
    Philox, or one of NumPy's bit generators (then NumPy's legacy streams, on the host)."""
    global _global
    if not isinstance(bitgen, (Philox, NumpyBitGenerator)):
        raise TypeError(f"set_bit_generator needs a bit generator, got {type(bitgen).__name__}")
    _global = RandomState(bitgen)


def _follow_operands_in_draws(classes):
    """Every public draw of the generators follows the device of its array parameters (a normal of
    a CPU loc is drawn on the CPU, not on the default device beside it: NumPy's rule for numfuse);
    draws of numbers alone keep the default device."""
    seen = set()
    for cls in classes:
        for klass in cls.__mro__[:-1]:
            for name, fn in list(vars(klass).items()):
                if name.startswith("_") or not inspect.isfunction(fn) or (klass, name) in seen:
                    continue
                seen.add((klass, name))
                setattr(klass, name, follows_operands(fn))


_follow_operands_in_draws([Generator, RandomState, _HostGenerator, _HostRandomState])

_GLOBAL_FUNCTIONS = ["seed", "random", "random_sample", "ranf", "sample", "rand", "randn",
                     "standard_normal", "uniform", "normal", "randint", "random_integers", "choice",
                     "get_state", "set_state"] + _LEGACY_FORWARDED


def _global_function(name):
    # Looked up at each call: set_bit_generator replaces the global RandomState, and a function
    # imported before (from numfuse.random import rand) must follow it, as NumPy's does.
    def function(*args, **kwargs):
        return getattr(_global, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = getattr(RandomState, name).__doc__
    return function


globals().update({_name: _global_function(_name) for _name in _GLOBAL_FUNCTIONS})
