#pragma once
// Definitions of owners/buffer.hpp (included at its end; not part of the API).

#include <gnndirect/detail/core/bits.hpp>

GNNDIRECT_NAMESPACE_BEGIN

template <class T>
buffer<T>::buffer(std::size_t size, memory_kind kind, resource_ref mr, host_resource_ref host_mr)
  : storage_(kind, checked_bytes(size), mr, host_mr),
    size_(size)
{
}

template <class T>
buffer<T>::buffer(std::size_t size, cudaStream_t stream, resource_ref mr)
  : storage_(checked_bytes(size), stream, mr),
    size_(size)
{
}

template <class T>
buffer<T>::buffer(std::size_t size, cudaStream_t stream, cudaMemPool_t pool)
  : storage_(checked_bytes(size), stream, pool),
    size_(size)
{
}

template <class T>
auto buffer<T>::checked_bytes(std::size_t size) -> std::size_t
{
  return detail::checked_product(size, sizeof(T), "buffer: size * sizeof(T)");
}

GNNDIRECT_NAMESPACE_END
