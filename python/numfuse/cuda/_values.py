"""A translated expression (Val: C++ code and its type) and the conversions between scalar types.
Below both the expression translator and the call table (_calls)."""
import math

from ._types import BOOL, COMPLEX128, FLOAT64, INT64, cxx_type, is_complex


class Val:
    """A translated expression: C++ code and its type.

    weak: a Python literal (or arithmetic of literals only) whose type yields to the other
    operand's (NEP 50). nonneg: known >= 0 (index wrapping can be skipped). const: the Python
    value when known at translation (literals, global constants, static objects such as modules).
    items: the element Vals of a tuple. array: (ArrayType, C++ base name) of an array.
    low: a lower bound of an integer variable where an enclosing `if` guarantees one (`if 1 <= y:`
    makes `y - 1` nonneg), else None.
    """
    __slots__ = ("code", "ty", "weak", "nonneg", "const", "items", "array", "low")

    def __init__(self, code, ty, weak=False, nonneg=False, const=None, items=None, array=None,
                 low=None):
        self.code, self.ty, self.weak, self.nonneg = code, ty, weak, nonneg
        self.const, self.items, self.array, self.low = const, items, array, low


STATIC = "static"  # ty of a Val that is a Python object known at translation (module, function)
UNKNOWN = "unknown"  # ty during type inference of a variable not typed yet

def literal(value):
    """The Val of a Python constant."""
    if isinstance(value, bool):
        return Val("true" if value else "false", BOOL, nonneg=True, const=value)
    if isinstance(value, int):
        if not -2**63 <= value < 2**63:
            raise OverflowError(f"integer literal {value} does not fit in int64")
        code = f"{value}LL" if value != -2**63 else "(-9223372036854775807LL - 1)"
        return Val(code, INT64, weak=True, nonneg=value >= 0, const=value)
    if isinstance(value, float):
        if math.isnan(value):
            code = "__longlong_as_double(0x7ff8000000000000LL)"
        elif math.isinf(value):
            code = "__longlong_as_double(0x7ff0000000000000LL)" if value > 0 else \
                "__longlong_as_double((long long)0xfff0000000000000ULL)"
        else:
            code = repr(value)
            if "." not in code and "e" not in code:
                code += ".0"
        return Val(code, FLOAT64, weak=True, nonneg=value >= 0, const=value)
    if isinstance(value, complex):
        return Val(f"nf_c128({literal(value.real).code}, {literal(value.imag).code})", COMPLEX128,
                   weak=True, const=value)
    return None


def cast(v, ty):
    """Code of v converted to scalar type ty."""
    if v.ty == ty:
        return v.code
    if v.ty == BOOL and ty != BOOL:
        return f"(({cxx_type(ty)})({v.code} ? 1 : 0))"
    if ty == BOOL:
        return truth_code(v)
    if is_complex(v.ty) and not is_complex(ty):
        return f"(({cxx_type(ty)})({v.code}).re)"  # NumPy warns and drops the imaginary part
    return f"(({cxx_type(ty)})({v.code}))"


def truth_code(v):
    """C++ bool of a scalar Val (Python's truth of a number)."""
    if v.ty == BOOL:
        return v.code
    if is_complex(v.ty):
        return f"nf_nonzero({v.code})"
    return f"(({v.code}) != 0)"
