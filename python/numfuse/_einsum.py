"""numpy.einsum as views and matrix products; nothing is computed on the host.

Each operand first loses its repeated labels (diagonal views) and the labels no other operand or
the output needs (summed by a product with a vector of ones, so that bool sums are logical ors and
integers wrap, as NumPy's einsum does). Operands are then combined left to right: two operands
meet as one batched matrix product (batch = labels both keep, contracted = labels both have that
nothing later needs), or as a broadcast multiply when nothing is contracted. A last transpose
orders the output labels. Every einsum form is covered this way; `optimize=` is accepted and the
order is always left to right.
"""
import numpy as _np

from . import _core
from . import _ufuncs as _u
from ._core import ndarray
from ._creation import asarray, ones

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _sublist_to_str(sub):
    parts = []
    for s in sub:
        if s is Ellipsis:
            parts.append("...")
        else:
            i = int(s)
            if not 0 <= i < 52:
                raise ValueError("subscript is not within the valid range [0, 52)")
            parts.append(_LETTERS[i])
    return "".join(parts)


def _interleaved(args):
    """einsum(op0, sub0, op1, sub1, ..., [subout]) -> ('sub0,sub1->subout', [op0, op1, ...])."""
    args = list(args)
    ops, subs = [], []
    while len(args) >= 2:
        ops.append(args.pop(0))
        subs.append(_sublist_to_str(args.pop(0)))
    s = ",".join(subs)
    if args:
        s += "->" + _sublist_to_str(args[0])
    return s, ops


def _parse_term(term, ndim, index):
    """Labels of one operand: letters, and ints for its ellipsis dims (right-aligned later)."""
    if term.count("...") > 1 or term.replace("...", "").count("."):
        raise ValueError("einstein sum subscripts string contains a '.' that is not part of "
                         "an ellipsis ('...')")
    for c in term.replace("...", ""):
        if not c.isalpha() or not c.isascii():
            raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, "
                             "subscripts must be letters")
    if "..." in term:
        left, right = term.split("...")
        ne = ndim - len(left) - len(right)
        if ne < 0:
            raise ValueError("einstein sum subscripts string contains too many subscripts for "
                             f"operand {index}")
        return list(left), ne, list(right)
    if len(term) > ndim:
        raise ValueError("einstein sum subscripts string contains too many subscripts for "
                         f"operand {index}")
    if len(term) < ndim:
        raise ValueError("operand has more dimensions than subscripts given in einstein sum, "
                         "but no '...' ellipsis provided to broadcast the extra dimensions.")
    return list(term), 0, []


def _parse(subscripts, ops):
    subscripts = subscripts.replace(" ", "")
    if subscripts.count("->") > 1 or ("-" in subscripts.replace("->", "")) or (
            ">" in subscripts.replace("->", "")):
        raise ValueError("einstein sum subscript string does not contain proper '->' output "
                         "specified")
    lhs, arrow, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    # NumPy's messages, word for word (they name the other side of the comparison).
    if len(terms) > len(ops):
        raise ValueError("more operands provided to einstein sum function than specified in the "
                         "subscripts string")
    if len(terms) < len(ops):
        raise ValueError("fewer operands provided to einstein sum function than specified in "
                         "the subscripts string")
    parsed = [_parse_term(t, op.ndim, i) for i, (t, op) in enumerate(zip(terms, ops))]
    max_ne = max((p[1] for p in parsed), default=0)
    labels = []
    for left, ne, right in parsed:
        labels.append(left + list(range(max_ne - ne, max_ne)) + right)
    if arrow:
        if "..." in rhs:
            left, right = rhs.split("...", 1)
        else:
            left, right = rhs, ""
            if any(p[1] for p in parsed):
                raise ValueError("output has more dimensions than subscripts given in einstein "
                                 "sum, but no '...' ellipsis provided to broadcast the extra "
                                 "dimensions.")
        for c in left + right:
            if c == ".":
                raise ValueError("einstein sum subscripts string contains a '.' that is not "
                                 "part of an ellipsis ('...')")
            if not c.isalpha():
                raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, "
                                 "subscripts must be letters")
        out = list(left) + (list(range(max_ne)) if "..." in rhs else []) + list(right)
        seen = set()
        for c in left + right:
            if c in seen:
                raise ValueError(f"einstein sum subscripts string includes output subscript "
                                 f"'{c}' multiple times")
            seen.add(c)
            if not any(c in lab for lab in labels):
                raise ValueError(f"einstein sum subscripts string included output subscript "
                                 f"'{c}' which never appeared in an input")
    else:
        counts = {}
        for lab in labels:
            for c in lab:
                if isinstance(c, str):
                    counts[c] = counts.get(c, 0) + 1
        out = list(range(max_ne)) + sorted(c for c, n in counts.items() if n == 1)
    return labels, out


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _sum_out(x, labels, gone):
    """Sums the axes labelled in `gone` (a product with ones: NumPy's einsum sum semantics)."""
    if not gone:
        return x, labels
    kept = [i for i, l in enumerate(labels) if l not in gone]
    summed = [i for i, l in enumerate(labels) if l in gone]
    kshape = [x.shape[i] for i in kept]
    s = _prod(x.shape[i] for i in summed)
    x = x.transpose(kept + summed).reshape(kshape + [s])
    x = _core.matmul(x, ones(s, x.dtype, device=x.device))
    return x, [labels[i] for i in kept]


def _take_diagonals(x, labels, index):
    labels = list(labels)
    while True:
        dup = next((l for l in labels if labels.count(l) > 1), None)
        if dup is None:
            return x, labels
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        if x.shape[i] != x.shape[j]:
            name = dup if isinstance(dup, str) else "..."
            raise ValueError(f"dimensions in operand {index} for collapsing index '{name}' "
                             f"don't match ({x.shape[i]} != {x.shape[j]})")
        x = x.diagonal(0, i, j)
        labels = [l for k, l in enumerate(labels) if k not in (i, j)] + [dup]


def _pair(x, lx, y, ly, keep):
    """The einsum of two operands, keeping the labels in `keep`."""
    x, lx = _sum_out(x, lx, {l for l in lx if l not in ly and l not in keep})
    y, ly = _sum_out(y, ly, {l for l in ly if l not in lx and l not in keep})
    size_x = dict(zip(lx, x.shape))
    size_y = dict(zip(ly, y.shape))
    contracted = [l for l in lx if l in size_y and l not in keep]
    # A contracted label of size 1 on one side: sum it on the other side alone first.
    for l in [l for l in contracted if size_x[l] != size_y[l]]:
        if size_x[l] == 1:
            y, ly = _sum_out(y, ly, {l})
            keep_x = [k for k in lx if k != l]
            x = x.reshape([size_x[k] for k in keep_x])
            lx = keep_x
        else:
            x, lx = _sum_out(x, lx, {l})
            keep_y = [k for k in ly if k != l]
            y = y.reshape([size_y[k] for k in keep_y])
            ly = keep_y
        contracted.remove(l)
    size_x = dict(zip(lx, x.shape))
    size_y = dict(zip(ly, y.shape))
    batch = [l for l in lx if l in size_y and l not in contracted]
    xfree = [l for l in lx if l not in size_y]
    yfree = [l for l in ly if l not in size_x]
    if not contracted:
        # A broadcast multiply: fusable, and no 1 x 1 matrix products.
        xv = x.transpose([lx.index(l) for l in batch + xfree])
        xv = xv.reshape([size_x[l] for l in batch + xfree] + [1] * len(yfree))
        yv = y.transpose([ly.index(l) for l in batch + yfree])
        yv = yv.reshape([size_y[l] for l in batch] + [1] * len(xfree) +
                        [size_y[l] for l in yfree])
        return _u.multiply(xv, yv), batch + xfree + yfree
    xb = [size_x[l] for l in batch]
    yb = [size_y[l] for l in batch]
    xm = [size_x[l] for l in xfree]
    yn = [size_y[l] for l in yfree]
    k = _prod(size_x[l] for l in contracted)
    xv = x.transpose([lx.index(l) for l in batch + xfree + contracted]).reshape(
        xb + [_prod(xm), k])
    yv = y.transpose([ly.index(l) for l in batch + contracted + yfree]).reshape(
        yb + [k, _prod(yn)])
    r = _core.matmul(xv, yv)
    return r.reshape(list(r.shape[:len(batch)]) + xm + yn), batch + xfree + yfree


def einsum(*operands, out=None, dtype=None, casting="safe"):
    if not operands:
        raise ValueError("must specify the einstein sum subscripts string and at least one "
                         "operand")
    if isinstance(operands[0], str):
        subscripts, ops = operands[0], list(operands[1:])
    else:
        subscripts, ops = _interleaved(operands)
    if not ops:
        raise ValueError("must specify the einstein sum subscripts string and at least one "
                         "operand")
    ops = [o if isinstance(o, ndarray) else asarray(o) for o in ops]
    if out is not None and not isinstance(out, _core.ndarray):
        raise TypeError("keyword parameter out must be an array for einsum")
    labels, out_labels = _parse(subscripts, ops)
    # Sizes: equal, or 1 (broadcast), per label across operands.
    sizes = {}
    for i, (op, lab) in enumerate(zip(ops, labels)):
        own = {}
        for l, s in zip(lab, op.shape):
            if l in own and own[l] != s:
                name = l if isinstance(l, str) else "..."
                raise ValueError(f"dimensions in operand {i} for collapsing index '{name}' "
                                 f"don't match ({own[l]} != {s})")
            own[l] = s
        for l, s in zip(lab, op.shape):
            if l in sizes and sizes[l] != s and s != 1 and sizes[l] != 1:
                shapes = " ".join("(" + ",".join(map(str, o.shape)) + ")" for o in ops)
                raise ValueError("operands could not be broadcast together with remapped shapes "
                                 f"[original->remapped]: {shapes}")
            sizes[l] = s if l not in sizes or sizes[l] == 1 else sizes[l]
    rdtype = _np.dtype(dtype) if dtype is not None else _np.result_type(*[o.dtype for o in ops])
    cast = []
    for o in ops:
        if o.dtype != rdtype and not _np.can_cast(o.dtype, rdtype, casting):
            raise TypeError(f"Cannot cast array data from {o.dtype!r} to {rdtype!r} according "
                            f"to the rule '{casting}'")
        cast.append(o.astype(rdtype, copy=False))
    ops = cast
    prepared = []
    for i, (op, lab) in enumerate(zip(ops, labels)):
        op, lab = _take_diagonals(op, lab, i)
        elsewhere = set(out_labels)
        for j, other in enumerate(labels):
            if j != i:
                elsewhere.update(other)
        op, lab = _sum_out(op, lab, {l for l in lab if l not in elsewhere})
        prepared.append((op, lab))
    cur, cl = prepared[0]
    for i in range(1, len(prepared)):
        keep = set(out_labels)
        for _, later in prepared[i + 1:]:
            keep.update(later)
        cur, cl = _pair(cur, cl, prepared[i][0], prepared[i][1], keep)
    # Output labels the operands broadcast (size 1 here, larger in the output) cannot occur:
    # every output label is kept by each product, so its size is the broadcast one already.
    res = cur.transpose([cl.index(l) for l in out_labels]) if cl != out_labels else cur
    if out is not None:
        if not _np.can_cast(res.dtype, out.dtype, casting):  # NumPy's iterator casts out= so
            raise TypeError(f"Iterator requested dtype could not be cast from {res.dtype!r} to "
                            f"{out.dtype!r}, the operand 0 dtype, according to the rule '{casting}'")
        if tuple(out.shape) != tuple(res.shape):
            raise ValueError(f"output operand has shape {tuple(out.shape)}, the einsum has shape "
                             f"{tuple(res.shape)}")
        out[...] = res
        return out
    return res
