// np.unique's values (and counts) of an array, axis None: one UniqueNode (ir/unique.h), evaluated
// in the call, since the result's length is the data's.
#pragma once
#include <vector>

#include "numfuse/ir/unique.h"

namespace nf {

// The sorted distinct values of `a` flattened (NaNs last; with equal_nan one NaN stands for
// all), and with `counts` how often each occurs (int64). Evaluates `a`; complex dtypes raise
// TypeError (python/numfuse/_sets.py composes their unique from sort and masks).
std::vector<Array> unique_values(const Array& a, bool equal_nan, bool counts);

}  // namespace nf
