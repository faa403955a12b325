"""numfuse.typing: numpy.typing's names (NDArray, ArrayLike, DTypeLike, NBitBase). Annotations
only: a numfuse array is accepted wherever a program's checker takes ArrayLike through
__array__; NDArray names numpy.ndarray, as in NumPy."""
from numpy.typing import ArrayLike, DTypeLike, NBitBase, NDArray

__all__ = ["ArrayLike", "DTypeLike", "NBitBase", "NDArray"]
