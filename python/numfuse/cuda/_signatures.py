"""Numba's signature strings: "void(float32[:], float32[:, ::1], int64)" -> translator types."""
import re

import numpy as np

from ._types import ArrayType

_NAMES = {"boolean": "bool", "b1": "bool", "bool_": "bool", "intp": "int64", "uintp": "uint64",
          "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "u1": "uint8", "u2": "uint16",
          "u4": "uint32", "u8": "uint64", "f4": "float32", "f8": "float64", "c8": "complex64",
          "c16": "complex128", "double": "float64", "float": "float32"}
_ITEM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\[([^\]]*)\])?\s*$")


def _dtype(name, sig):
    try:
        return np.dtype(_NAMES.get(name, name))
    except TypeError:
        raise TypeError(f"unknown type {name!r} in signature {sig!r}") from None


def _split(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def parse_signature(sig):
    """(argument types, return type name or None) of a Numba signature string."""
    if not isinstance(sig, str):
        raise TypeError(f"signatures are strings such as 'void(float32[:], int64)', got {sig!r}")
    m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)?\s*\((.*)\)\s*$", sig)
    if not m:
        raise TypeError(f"cannot parse the signature {sig!r}")
    returns = m.group(1)
    types = []
    for item in _split(m.group(2)):
        im = _ITEM.match(item)
        if not im:
            raise TypeError(f"cannot parse {item.strip()!r} in signature {sig!r}")
        dt = _dtype(im.group(1), sig)
        if im.group(2) is None:
            types.append(dt)
            continue
        dims = [d.strip() for d in im.group(3).split(",")]
        if not all(d in (":", "::1") for d in dims):
            raise TypeError(f"array dimensions are ':' or '::1' in signature {sig!r}")
        contiguous = dims[-1] == "::1"
        types.append(ArrayType(dt, len(dims), "C" if contiguous else "A"))
    if returns is not None and returns != "void":
        _dtype(returns, sig)
    return types, returns
