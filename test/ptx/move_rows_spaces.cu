// Instances of the library's row-move kernel, compiled to PTX by the ptx_global_row_access test:
// every row load and store in them must use the .global state space (see the test's script).
#include <gnndirect/cache/tiered_source.hpp>
#include <gnndirect/detail/algorithms/move_rows.cuh>

using gnndirect::table_source;
using gnndirect::tiered_source;
using gnndirect::detail::move_direction;
using gnndirect::detail::move_rows_args;

template __global__ void gnndirect::detail::move_rows_kernel<move_direction::gather, table_source<const float>,
                                                             long, 8, 1>(table_source<const float>, move_rows_args<long>);
template __global__ void gnndirect::detail::move_rows_kernel<move_direction::gather, table_source<const float>,
                                                             int, 16, 4>(table_source<const float>, move_rows_args<int>);
template __global__ void gnndirect::detail::move_rows_kernel<move_direction::gather, tiered_source<const float>,
                                                             long, 16, 2>(tiered_source<const float>, move_rows_args<long>);
template __global__ void gnndirect::detail::move_rows_kernel<move_direction::scatter, table_source<float>,
                                                             long, 16, 1>(table_source<float>, move_rows_args<long>);

// The decoding gather (codecs): its encoded-row loads and decoded-row stores must be .global too.
#include <gnndirect/device/codecs.hpp>

using gnndirect::encoded_source;
using gnndirect::tiered_encoded_source;
namespace codecs = gnndirect::codecs;

template __global__ void gnndirect::detail::decode_rows_kernel<encoded_source<codecs::int8_affine>, float, long, 16, 16, 4>(
  encoded_source<codecs::int8_affine>, move_rows_args<long>);
template __global__ void gnndirect::detail::decode_rows_kernel<tiered_encoded_source<codecs::int4_affine>, __half, long, 16,
                                                               16, 2>(tiered_encoded_source<codecs::int4_affine>,
                                                                      move_rows_args<long>);
template __global__ void gnndirect::detail::decode_rows_kernel<encoded_source<codecs::fp16>, float, long, 16, 16, 1>(
  encoded_source<codecs::fp16>, move_rows_args<long>);
template __global__ void gnndirect::detail::decode_rows_kernel<encoded_source<codecs::fp8_e4m3>, __nv_bfloat16, int, 16,
                                                               16, 4>(encoded_source<codecs::fp8_e4m3>, move_rows_args<int>);
