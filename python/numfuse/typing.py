"""numfuse.typing: numpy.typing's names (NDArray, ArrayLike, DTypeLike ...). Annotations only: a
numfuse array is accepted wherever a program's checker takes ArrayLike through __array__;
NDArray names numpy.ndarray, as in NumPy."""
import numpy.typing as _npt

__all__ = list(_npt.__all__)
globals().update({_name: getattr(_npt, _name) for _name in __all__})
