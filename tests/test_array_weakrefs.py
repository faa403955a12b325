"""numfuse.ndarray is no GC type, as NumPy's ndarray is not, and keeps weak references of its own
(python/src/untracked_arrays.cpp, issue 11): every way of making an array gives one that is
weak-referenceable, whose references die with it, whose callbacks run, and that the cycle
collector does not track; reused instances (nanobind's pool) carry no reference of the array
that was there before."""
import gc
import random
import tempfile
import weakref

import numpy
import pytest

from harness import numfuse_module


def _makers(nf, device):
    a = nf.asarray(numpy.arange(12.0).reshape(3, 4), device=device)
    return {
        "asarray": lambda: nf.asarray(numpy.arange(6.0), device=device),
        "pending": lambda: a * 2.0 + 1.0,
        "view": lambda: a[1],
        "transpose": lambda: a.T,
        "reduction": lambda: a.sum(axis=0),
        "ndarray()": lambda: nf.ndarray((2, 3)) if device == "cpu" else a.copy(),
        "copy": lambda: a.copy(),
    }


@pytest.mark.parametrize("kind", ["asarray", "pending", "view", "transpose", "reduction",
                                  "ndarray()", "copy"])
def test_weak_references_of_every_kind_of_array(device, kind):
    nf = numfuse_module()
    make = _makers(nf, device)[kind]
    x = make()
    assert gc.is_tracked(x) == gc.is_tracked(numpy.arange(3.0)) == False  # noqa: E712
    called = []
    r = weakref.ref(x, lambda ref: called.append(ref))
    r2 = weakref.ref(x)
    fin = weakref.finalize(x, called.append, "finalized")
    proxy = weakref.proxy(x)
    assert r() is x and r2() is x and proxy.shape == x.shape
    table = weakref.WeakValueDictionary({"x": x})
    del x
    assert r() is None and r2() is None and "x" not in table and not fin.alive
    assert called == [r, "finalized"] or called == ["finalized", r]
    with pytest.raises(ReferenceError):
        proxy.shape


def test_reused_instances_carry_no_old_references():
    """Arrays made and dropped in random order, some weakly referenced: each reference follows its
    own array only, whatever instance memory nanobind reuses."""
    nf = numfuse_module()
    rng = random.Random(0)
    base = nf.asarray(numpy.arange(40.0).reshape(4, 10))
    live, refs = {}, []
    for step in range(3000):
        if live and rng.random() < 0.5:
            del live[rng.choice(list(live))]
        else:
            live[step] = base[rng.randrange(4)] if rng.random() < 0.5 else base + float(step)
            if rng.random() < 0.5:
                refs.append((step, weakref.ref(live[step])))
        for key, r in refs[-20:]:
            assert (r() is None) == (key not in live)
            if key in live:
                assert r() is live[key]
    live.clear()
    assert all(r() is None for _, r in refs)


def test_instances_seen_before_init():
    """ndarray.__new__ gives an instance before its array exists: a weak reference taken then
    survives __init__, and dies with the instance, initialised or not."""
    nf = numfuse_module()
    x = nf.ndarray.__new__(nf.ndarray)
    r = weakref.ref(x)
    x.__init__((2, 2))
    assert r() is x and x.shape == (2, 2)
    del x
    assert r() is None
    y = nf.ndarray.__new__(nf.ndarray)
    r = weakref.ref(y)
    del y
    assert r() is None
    with pytest.raises(TypeError):
        nf.ndarray("not a shape")
    gc.collect()


def test_subclass_instances(tmp_path):
    """Python subclasses (memmap) are GC types of their own, as NumPy's subclasses are; their
    weak references work as the base type's do."""
    nf = numfuse_module()
    path = tmp_path / "m.bin"
    numpy.arange(8.0).tofile(path)
    m = nf.memmap(path, dtype=numpy.float64, mode="r", shape=(8,))
    r = weakref.ref(m)
    assert r() is m and float(m[3]) == 3.0
    del m
    gc.collect()
    assert r() is None
