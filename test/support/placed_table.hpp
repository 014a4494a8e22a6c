#pragma once
// Test support: a table with given contents in any memory_kind, registered ones included.
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/owners/table.hpp>

#include "transfer.hpp"

#include <cstring>
#include <vector>

namespace gnndirect::test {

/// A table in `kind` (registered: a std::vector pinned in place) plus host-side access.
template <class T>
struct placed_table {
  std::vector<T> backing;  ///< caller-owned storage of a registered table
  table<T> owner;

  placed_table(memory_kind kind, std::int64_t rows, std::int64_t cols)
  {
    if (kind == memory_kind::registered) {
      backing.resize(static_cast<std::size_t>(rows * cols));
      owner = table<T>::adopt_by_registration(backing.data(), rows, cols);
    } else {
      owner = table<T>(rows, cols, kind);
    }
  }
  /// Copies `bytes` (owner.bytes() long) into the table, whatever its placement.
  void fill(const void* bytes)
  {
    copy_from_host(owner.view().data, bytes, owner.bytes());
  }
  /// Copies the whole table back to the host.
  std::vector<unsigned char> read() const
  {
    std::vector<unsigned char> out(owner.bytes());
    if (!out.empty()) {
      GNNDIRECT_CUDA_TRY(cudaMemcpy(out.data(), owner.view().data, out.size(), cudaMemcpyDefault));
    }
    return out;
  }
  table_view<T> view() const { return owner.view(); }
};

}  // namespace gnndirect::test
