#include "numfuse/ir/gather.h"

namespace nf {

GatherGeometry gather_geometry(const Array& view, const std::vector<int>& adv_dims,
                               const std::vector<int>& adv_axes, std::vector<Array> indices,
                               const Shape& bshape, bool adjacent) {
  GatherGeometry g;
  std::vector<bool> is_adv(view.ndim(), false);
  for (int d : adv_dims) is_adv[d] = true;
  const int first = adv_dims.empty() ? 0 : adv_dims.front();
  for (int d = 0; d < view.ndim(); ++d) {
    if (is_adv[d]) continue;
    bool outer = adjacent && d < first;
    (outer ? g.outer_shape : g.inner_shape).push_back(view.shape[d]);
    (outer ? g.outer_strides : g.inner_strides).push_back(view.strides[d]);
  }
  for (int d : adv_dims) {
    g.adv_sizes.push_back(view.shape[d]);
    g.adv_strides.push_back(view.strides[d]);
  }
  g.adv_axes = adv_axes;
  g.bshape = bshape;
  g.indices = std::move(indices);
  return g;
}

}  // namespace nf
