#include <memory>
#include <mutex>

#include "numfuse/graph/eval.h"
#include "numfuse/ir/node.h"

namespace nf {

bool writable_now(const Array& a) {
  const Storage* s = a.storage.get();
  if (!a.writeable || s->producer || s->constant || !s->buffer || !s->device.is_cpu()) return false;
  // Readers are added when a node is recorded, by a thread that holds the interpreter lock as
  // this one does: none can appear meanwhile, and an empty list needs no graph lock. Otherwise
  // they are checked under that lock, never waited for here.
  if (s->readers.empty()) return true;
  std::unique_lock<std::recursive_mutex> lock(graph_mutex(), std::try_to_lock);
  if (!lock.owns_lock()) return false;
  for (const auto& w : s->readers) {
    std::shared_ptr<Node> reader = w.lock();
    if (reader && !reader->done) return false;
  }
  // Every reader is gone or evaluated: forget them, so that the next write skips the lock.
  const_cast<Storage*>(s)->readers.clear();
  return true;
}

}  // namespace nf
