"""ndarray.base and the lifetime of view owners (issue 11, sixth session): every view of an owner
object shares one counted link kept by the owner's Array (cpp/numfuse/core/base_ref.h), which
references the owner from its first live view to its last, whichever of the owner and its views
goes first. Seeded random programs of owners, views of views, pending readers, writes and drops
run under NumPy and numfuse side by side: each view's base must be the same object (by label),
the values the same, an owner that NumPy has freed must be freed by numfuse once nothing pending
reads it, and one NumPy keeps alive must be alive.
"""
import gc
import os
import random
import sys
import threading
import weakref

import numpy
import pytest

from harness import compare, numfuse_module

CASES = int(os.environ.get("NUMFUSE_VIEW_BASE_CASES", "60"))
INDEXES = [lambda x: x[1], lambda x: x[1:3], lambda x: x.T, lambda x: x[:, -1],
           lambda x: x[::-1], lambda x: x[..., 1:], lambda x: x[None, :, ::2]]


def _settle():
    """Releases handed to the interpreter by evaluation threads run between bytecodes."""
    for _ in range(3):
        sum(range(100))


class World:
    """One module's side of a program: live objects by label, and weak references to all."""

    def __init__(self, xp):
        self.xp, self.live, self.refs = xp, {}, {}

    def add(self, label, obj):
        self.live[label] = obj
        self.refs[label] = weakref.ref(obj)

    def label_of(self, obj):
        if obj is None:
            return None
        found = [k for k, r in self.refs.items() if r() is obj]
        assert len(found) == 1, found
        return found[0]


def _run_program(nf, seed):
    rng = random.Random(seed)
    worlds = [World(numpy), World(nf)]
    pending = []  # labels of numfuse results that may still be pending
    for step in range(40):
        op = rng.choice(["owner", "view", "view", "view", "reader", "write", "drop", "drop", "eval"])
        labels = sorted(worlds[0].live)
        label = f"o{step}"
        if op == "owner" or not labels:
            data = numpy.arange(24.0).reshape(4, 6) * (step + 1)
            lazy = rng.random() < 0.5  # pending (a node produces it) or materialised
            for w in worlds:
                w.add(label, w.xp.asarray(data) * 1.0 if lazy else w.xp.array(data))
        elif op == "view":
            src, index = rng.choice(labels), rng.choice(INDEXES)
            if worlds[0].live[src].ndim < 2 or min(worlds[0].live[src].shape) < 2:
                index = INDEXES[4]  # x[::-1]: a view of any array these programs make
            for w in worlds:
                w.add(label, index(w.live[src]))
        elif op == "reader":  # a pending node holds a copy of the view's Array (and its base)
            src = rng.choice(labels)
            for w in worlds:
                w.add(label, w.live[src] * 2.0 + 1.0)
            pending.append(label)
        elif op == "write":  # seen through every view of the memory
            src = rng.choice(labels)
            for w in worlds:
                w.live[src][..., :1] = -float(step)
        elif op == "drop":
            src = rng.choice(labels)
            for w in worlds:
                del w.live[src]
        else:
            nf.eval(*worlds[1].live.values())
        for label in worlds[0].live:
            bases = [w.label_of(w.live[label].base) for w in worlds]
            assert bases[0] == bases[1], (seed, step, label, bases)
    for label, a in worlds[0].live.items():
        compare(a, worlds[1].live[label], path=f"seed {seed} {label}")
    # Nothing pending any more: numfuse frees what NumPy freed, and keeps what NumPy keeps.
    nf.eval(*worlds[1].live.values())
    _settle()
    for label, ref in worlds[0].refs.items():
        assert (ref() is None) == (worlds[1].refs[label]() is None), (seed, label)
    for w in worlds:
        w.live.clear()
    _settle()
    assert all(r() is None for r in worlds[1].refs.values()), seed


@pytest.mark.parametrize("seed", range(CASES))
def test_view_bases_and_owner_lifetimes(seed):
    nf = numfuse_module()
    if nf is None:
        pytest.skip("numfuse not importable")
    _run_program(nf, seed)


def test_owner_reference_count_returns_to_baseline(device):
    """The views of an owner hold one reference to it together: it comes back to the baseline
    after the last view, whatever the order of their release."""
    nf = numfuse_module()
    a = nf.asarray(numpy.arange(12.0).reshape(3, 4), device=device)
    baseline = sys.getrefcount(a)
    rng = random.Random(0)
    for _ in range(20):
        views = [a[1], a.T, a[:, 1], a[1:][::-1]]
        views += [v[...] for v in views]  # views of views: the same base
        assert all(v.base is a for v in views)
        assert sys.getrefcount(a) > baseline
        rng.shuffle(views)
        while views:
            views.pop()
        assert sys.getrefcount(a) == baseline


def test_view_outlives_its_owner(device):
    """A view keeps its owner (and so its memory) alive; the owner goes with the last view."""
    nf = numfuse_module()
    a = nf.asarray(numpy.arange(12.0).reshape(3, 4), device=device)
    owner = weakref.ref(a)
    v = a[1:]
    w = v.T
    del a
    gc.collect()
    assert owner() is not None and v.base is owner() and w.base is owner()
    v[0, 0] = 100.0
    assert float(w[0, 0]) == 100.0 and float(owner()[1, 0]) == 100.0
    del v
    assert owner() is not None
    del w
    assert owner() is None


def test_replaced_contents_keep_the_views_base(device):
    """An owner whose contents are replaced in place (ndarray.resize) stays the base of the
    views made before and after."""
    nf = numfuse_module()
    a = nf.asarray(numpy.arange(6.0), device=device)
    owner = weakref.ref(a)
    before = a[1:3].copy()
    v = a[1:3]
    a.resize((12,), refcheck=False)
    after = a[2:4]
    assert v.base is a and after.base is a
    compare(before, v)
    del a, v
    assert owner() is not None
    del after
    assert owner() is None


def test_views_made_while_evaluation_threads_release_them():
    """The main thread makes and drops views of one owner while other threads evaluate
    expressions over views of it (released by the evaluating thread, without the GIL): the
    owner's count ends balanced, the owner is freed, and every value is NumPy's."""
    nf = numfuse_module()
    data = numpy.arange(1 << 16, dtype=numpy.float64).reshape(256, 256)
    a = nf.asarray(data)
    owner = weakref.ref(a)
    baseline = sys.getrefcount(a)
    errors = []

    def work():
        try:
            for k in range(30):
                r = a[k:] * 2.0 + 1.0  # > 4096 elements: evaluated with the GIL released
                nf.eval(r)
                assert float(r[0, 0]) == 2.0 * data[k, 0] + 1.0
        except Exception as e:  # noqa: BLE001: reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for i in range(20000):
        v = a[i % 100]
        assert v.base is a
    del v
    for t in threads:
        t.join()
    assert not errors, errors
    _settle()
    assert sys.getrefcount(a) == baseline
    del a
    _settle()
    assert owner() is None
