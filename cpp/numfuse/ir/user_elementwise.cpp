#include "numfuse/ir/user_elementwise.h"

#include <map>
#include <memory>
#include <mutex>

namespace nf {

namespace {

// Everything that makes two definitions generate different code, as one string.
std::string identity(const UserElementwiseDef& d) {
  std::string s = d.name + '\0' + d.operation + '\0' + d.preamble + '\0' + d.loop_prep + '\0';
  for (const auto& a : d.args) {
    s += std::to_string(static_cast<int>(a.role)) + ',' + a.name + ',' +
         std::to_string(static_cast<int>(a.raw_dtype)) + ';';
  }
  s += '\0';
  for (const auto& o : d.out_names) s += o + ';';
  s += '\0';
  for (const auto& t : d.typedefs) s += t.first + '=' + std::to_string(static_cast<int>(t.second)) + ';';
  return s;
}

}  // namespace

const UserElementwiseDef* intern_user_elementwise(UserElementwiseDef def) {
  static std::mutex mutex;
  static auto* known = new std::map<std::string, std::unique_ptr<UserElementwiseDef>>();  // until exit
  std::string key = identity(def);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known->find(key);
  if (it != known->end()) return it->second.get();
  def.id = static_cast<int>(known->size()) + 1;
  auto owned = std::make_unique<UserElementwiseDef>(std::move(def));
  const UserElementwiseDef* p = owned.get();
  known->emplace(std::move(key), std::move(owned));
  return p;
}

}  // namespace nf
