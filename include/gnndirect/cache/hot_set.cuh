#pragma once
/// @file hot_set.cuh
/// @brief Choosing the rows worth caching in device memory: by degree, or by access counts from
/// pre-sampling (a few epochs' worth of batches counted on the GPU).

#include <gnndirect/core/config.hpp>
#include <gnndirect/core/csr_view.hpp>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/host_wait.hpp>
#include <gnndirect/detail/core/launch.cuh>
#include <gnndirect/detail/core/pointer_checks.hpp>
#include <gnndirect/core/resource.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/detail/cache/hot_set.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

GNNDIRECT_NAMESPACE_BEGIN

/// The `k` highest-degree nodes of `csr` (device-visible, any placement), highest first, as
/// device ids. Degree is the usual proxy for how often a node's features are gathered in
/// neighbour sampling. The result and the sort's temporaries (about 24 bytes per node) come
/// stream-ordered on `stream` from `mr` (default: the device's default pool); the result is
/// returned to `mr` on `stream`, so both must outlive it. Synchronous.
/// @param stream stream for the work  @param csr the graph
/// @param k how many (clamped to [0, num_nodes])
/// @param mr resource of the result and temporaries  @return the node ids
/// @throws cuda_error, allocation_error (or what `mr` throws).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
buffer<std::int64_t> hot_rows_by_degree(cudaStream_t stream, const csr_view<Offset, Index>& csr, std::int64_t k,
                                        resource_ref mr = {});

/// Adds one to counts[id] for each of the `n` device-visible ids (pre-sampling: call on the input
/// nodes of a few epochs' worth of sampled batches). Ids outside [0, num_rows) are ignored.
/// Enqueued on `stream`. @throws cuda_error.
/// @param stream stream to enqueue on  @param ids the ids  @param n their number
/// @param num_rows the counters' size
/// @param counts num_rows device counters (zeroed by the caller)
/// @tparam Index node id type
template <class Index>
void count_accesses_async(cudaStream_t stream, const Index* ids, std::int64_t n, std::int64_t num_rows,
                          std::uint32_t* counts);

/// The `k` most accessed rows according to `counts` (num_rows device counters), most first; ties
/// by smaller id. For graph nodes prefer the overload with the graph, which breaks ties by
/// degree. Memory as hot_rows_by_degree (from `mr` on `stream`). Synchronous.
/// @param stream stream for the work  @param counts, num_rows the counters
/// @param k how many (clamped to [0, num_rows])
/// @param mr resource of the result and temporaries  @return the row ids
/// @throws cuda_error, allocation_error (or what `mr` throws).
inline buffer<std::int64_t> hot_rows_by_count(cudaStream_t stream, const std::uint32_t* counts,
                                              std::int64_t num_rows, std::int64_t k, resource_ref mr = {});

/// The `k` most accessed nodes of `csr` according to `counts` (csr.num_nodes device counters),
/// most first, ties broken by degree (then smaller id). A few pre-sampled epochs reach only part
/// of a large graph; with this tie-break the rest of the budget goes to hubs rather than to low
/// ids (on the papers100M-shaped graph: docs/performance.md §3). Memory as hot_rows_by_degree
/// (from `mr` on `stream`, about 32 bytes per node). Synchronous.
/// @param stream stream for the work  @param counts the counters  @param csr the graph
/// @param k how many (clamped to [0, num_nodes])
/// @param mr resource of the result and temporaries  @return the node ids
/// @throws cuda_error, allocation_error (or what `mr` throws).
/// @tparam Offset, Index the graph's offset (and edge id) and node id types
template <class Offset, class Index>
buffer<std::int64_t> hot_rows_by_count(cudaStream_t stream, const std::uint32_t* counts,
                                       const csr_view<Offset, Index>& csr, std::int64_t k,
                                       resource_ref mr = {});

GNNDIRECT_NAMESPACE_END

#include <gnndirect/detail/cache/hot_set.inl>
