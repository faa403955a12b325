"""numfuse.lib.array_utils: NumPy's own functions. normalize_axis_index and normalize_axis_tuple
read no data; byte_bounds reads __array_interface__, which numfuse arrays on the CPU give with
their memory's real addresses (so overlap checks between numfuse and NumPy arrays work)."""
from numpy.lib.array_utils import byte_bounds, normalize_axis_index, normalize_axis_tuple

__all__ = ["byte_bounds", "normalize_axis_index", "normalize_axis_tuple"]
