"""NumPy's bit generators (MT19937, PCG64, PCG64DXSM, SFC64) in numfuse.random: NumPy's exact
streams, drawn on the host.

numfuse's own generator is counter-based Philox computed where the numbers are used (random.py).
A program that names one of NumPy's bit generators asks for NumPy's numbers: Generator(PCG64(s))
and RandomState(MT19937(s)) here are NumPy's Generator and RandomState over that very bit
generator object, and every draw is NumPy's own, moved to a numfuse array on the default device
(docs/decisions.md, "bit generators"). So seeds, state get/set, spawn, jumped and advance, and
every distribution's values are NumPy's, bit for bit; the cost is the host's speed and a copy.

The two mixins below are combined with random.Generator and random.RandomState there, so that
isinstance(g, numfuse.random.Generator) holds for either kind of generator.
"""
import numpy as _np

from . import _core
from ._core import ndarray
from ._creation import asarray, asnumpy

MT19937, PCG64, PCG64DXSM, SFC64 = (_np.random.MT19937, _np.random.PCG64, _np.random.PCG64DXSM,
                                    _np.random.SFC64)
NumpyBitGenerator = _np.random.BitGenerator
bit_generator = _np.random.bit_generator


def _to_host(v):
    return asnumpy(v) if isinstance(v, ndarray) else v


def _to_numfuse(res):
    if not isinstance(res, _np.ndarray):
        return res  # Python and NumPy scalars, bytes: as NumPy returns them
    if (res.size and res.flags.c_contiguous and res.flags.writeable
            and _core.default_device() == "cpu"):
        # A fresh NumPy result nothing else holds: the numfuse array takes its memory, no copy
        # (bind_memmap.cpp keeps the buffer alive with the array).
        try:
            return _core._wrap_host_memory(res, res.dtype).reshape(res.shape)
        except TypeError:  # a dtype numfuse does not hold: asarray says which
            pass
    return asarray(res)


def _delegate(name):
    def method(self, *args, **kwargs):
        out = kwargs.pop("out", None)
        if isinstance(out, ndarray):  # NumPy fills a NumPy out=; a numfuse one is written after
            kwargs["size"] = tuple(out.shape)
            out[...] = getattr(self._host, name)(*[_to_host(a) for a in args],
                                                 **{k: _to_host(v) for k, v in kwargs.items()})
            return out
        if out is not None:
            kwargs["out"] = out
        res = getattr(self._host, name)(*[_to_host(a) for a in args],
                                        **{k: _to_host(v) for k, v in kwargs.items()})
        return _to_numfuse(res)
    method.__name__ = method.__qualname__ = name
    return method


def _in_place(name):
    """shuffle(x) and permuted(x, out=x): NumPy permutes a host copy, written back into x."""
    def method(self, x, *args, **kwargs):
        out = kwargs.get("out")
        if isinstance(out, ndarray):
            kwargs["out"] = None
            res = getattr(self._host, name)(_to_host(x), *args, **kwargs)
            out[...] = res
            return out
        if name == "shuffle" and isinstance(x, ndarray):
            host = asnumpy(x).copy()
            self._host.shuffle(host, *args, **kwargs)
            x[...] = host
            return None
        return _to_numfuse(getattr(self._host, name)(_to_host(x), *args, **kwargs))
    method.__name__ = method.__qualname__ = name
    return method


_SKIP = {"bit_generator", "spawn", "shuffle", "permuted", "seed", "get_state", "set_state"}


class HostGeneratorDraws:
    """numpy.random.Generator over a NumPy bit generator; numfuse arrays in and out."""

    def __init__(self, seed=None, stream=0):
        if stream:
            raise TypeError(f"{type(seed).__name__}: stream= is for numfuse's Philox only")
        bg = seed.bit_generator if isinstance(seed, _np.random.Generator) else seed
        self._host = _np.random.Generator(bg)

    @property
    def bit_generator(self):
        return self._host.bit_generator

    @property
    def state(self):
        return self._host.bit_generator.state

    @state.setter
    def state(self, value):
        self._host.bit_generator.state = value

    def spawn(self, n_children):
        return [type(self)(bg) for bg in self._host.bit_generator.spawn(n_children)]

    def __repr__(self):
        return f"Generator({type(self._host.bit_generator).__name__}) at 0x{id(self):X}"

    def __reduce__(self):  # pickle and deepcopy: the bit generator with its state
        return (type(self), (self._host.bit_generator,))

    shuffle = _in_place("shuffle")
    permuted = _in_place("permuted")


class HostRandomStateDraws:
    """numpy.random.RandomState over a NumPy bit generator; numfuse arrays in and out."""

    def __init__(self, seed=None):
        self._host = _np.random.RandomState(seed)

    def seed(self, seed=None):
        self._host.seed(seed)

    def get_state(self, legacy=True):
        return self._host.get_state(legacy=legacy)

    def set_state(self, state):
        self._host.set_state(state)

    @property
    def bit_generator(self):
        return self._host._bit_generator

    def __repr__(self):
        return f"RandomState({type(self.bit_generator).__name__}) at 0x{id(self):X}"

    def __reduce__(self):
        return (type(self), (self.bit_generator,))

    shuffle = _in_place("shuffle")


for _name in dir(_np.random.Generator):
    if not _name.startswith("_") and _name not in _SKIP:
        setattr(HostGeneratorDraws, _name, _delegate(_name))
for _name in dir(_np.random.RandomState):
    if not _name.startswith("_") and _name not in _SKIP:
        setattr(HostRandomStateDraws, _name, _delegate(_name))
del _name
