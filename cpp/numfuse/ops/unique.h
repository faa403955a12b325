// np.unique's values of an array (axis None, no optional outputs): one UniqueNode (ir/unique.h),
// evaluated in the call, since the result's length is the data's.
#pragma once
#include "numfuse/ir/unique.h"

namespace nf {

// The sorted distinct values of `a` flattened (NaNs last; with equal_nan one NaN stands for
// all). Evaluates `a`; complex dtypes raise TypeError (python/numfuse/_sets.py composes their
// unique from sort and masks).
Array unique_values(const Array& a, bool equal_nan);

}  // namespace nf
