// numfuse._core.cuda's NCCL calls (numfuse/cuda/nccl.py holds the Python API): a communicator
// object and the group brackets; array memory reaches them as device addresses.
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "numfuse/backend/cuda/nccl.h"

namespace nf::py {

void bind_nccl(nb::module_& m) {
  using cuda::NcclComm;
  m.def("nccl_available", [] {
    std::string why;
    return cuda::nccl_available(&why) ? std::string() : why;  // "" when available
  });
  m.def("nccl_version", &cuda::nccl_version);
  m.def("nccl_unique_id", [] {
    const std::string id = cuda::nccl_unique_id();
    return nb::bytes(id.data(), id.size());
  });
  m.def("nccl_group_start", &cuda::nccl_group_start);
  // Posts the group's transfers; does not wait for them.
  m.def("nccl_group_end", &cuda::nccl_group_end, nb::call_guard<nb::gil_scoped_release>());
  nb::class_<NcclComm>(m, "_NcclComm")
      .def(
          "__init__",
          [](NcclComm* self, int nranks, nb::bytes id, int rank, int device) {
            const std::string uid(id.c_str(), id.size());
            nb::gil_scoped_release release;  // waits for every rank to join
            new (self) NcclComm(nranks, uid, rank, device);
          },
          nb::arg("nranks"), nb::arg("unique_id"), nb::arg("rank"), nb::arg("device"))
      .def_prop_ro("nranks", &NcclComm::nranks)
      .def_prop_ro("rank", &NcclComm::rank)
      .def_prop_ro("device", &NcclComm::device)
      .def("send", &NcclComm::send, nb::arg("ptr"), nb::arg("nbytes"), nb::arg("peer"))
      .def("recv", &NcclComm::recv, nb::arg("ptr"), nb::arg("nbytes"), nb::arg("peer"))
      .def("destroy", &NcclComm::destroy);
}

}  // namespace nf::py
