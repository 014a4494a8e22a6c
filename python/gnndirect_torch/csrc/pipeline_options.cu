/// @file pipeline_options.cu
/// @brief The one table of the pipeline options the binding exposes: each Python name and the
/// gnndirect::pipeline_options member it reads and writes (see pipeline_options.hpp). A CUDA
/// unit because the struct is defined in a CUDA header; it compiles no kernel.

#include "pipeline_options.hpp"

#include <gnndirect/pipeline/gnn_preparer.cuh>

#include <c10/util/Exception.h>

#include <cstdint>
#include <limits>
#include <type_traits>

// THE mapping between the Python names (gnndirect_torch.PipelineOptions, the NeighborLoader's
// keywords) and the library's members: X(python name, member of gnndirect::pipeline_options,
// kind). When a member is renamed in the library, change its second column here; the first
// column is the Python API (test/python/check_python.py checks that PipelineOptions has exactly
// these fields). Kinds: count (an integer >= 0 that fits the member), key (a 64-bit random key:
// any int64, its bits kept), flag (a bool), counts (a list of counts).
#define GNNDIRECT_TORCH_PIPELINE_OPTIONS(X)         \
  X(fanouts, fanouts, counts)                       \
  X(batch_size, batch_size, count)                  \
  X(drop_last, drop_last, flag)                     \
  X(seed, seed, key)                                \
  X(depth, depth, count)                            \
  X(workers, workers, count)                        \
  X(sampling_max_blocks, sampling.max_blocks, count) \
  X(gather_max_blocks, gather.max_blocks, count)    \
  X(reserve_bytes, reserve_bytes, count)            \
  X(cache_bytes, cache_bytes, count)

namespace gnndirect_torch {
namespace {

/// `value` as a count for a member of type T. @throws c10::TypeError, c10::ValueError.
template <class T>
T to_count(const option_value& value, const char* name)
{
  const auto* number = std::get_if<std::int64_t>(&value);
  TORCH_CHECK_TYPE(number != nullptr, "gnndirect: pipeline option ", name, " must be an integer");
  TORCH_CHECK_VALUE(*number >= 0 && static_cast<std::uint64_t>(*number) <=
                                      static_cast<std::uint64_t>(std::numeric_limits<T>::max()),
                    "gnndirect: pipeline option ", name, " must be in [0, ",
                    static_cast<std::uint64_t>(std::numeric_limits<T>::max()), "], got ", *number);
  return static_cast<T>(*number);
}

template <class T>
void assign(T& member, const option_value& value, const char* name, std::integral_constant<int, 0> /*count*/)
{
  member = to_count<T>(value, name);
}

template <class T>
void assign(T& member, const option_value& value, const char* name, std::integral_constant<int, 1> /*key*/)
{
  const auto* number = std::get_if<std::int64_t>(&value);
  TORCH_CHECK_TYPE(number != nullptr, "gnndirect: pipeline option ", name, " must be an integer");
  member = static_cast<T>(static_cast<std::uint64_t>(*number));
}

void assign(bool& member, const option_value& value, const char* name, std::integral_constant<int, 2> /*flag*/)
{
  const auto* flag = std::get_if<bool>(&value);
  TORCH_CHECK_TYPE(flag != nullptr, "gnndirect: pipeline option ", name, " must be a bool");
  member = *flag;
}

template <class T>
void assign(std::vector<T>& member, const option_value& value, const char* name,
            std::integral_constant<int, 3> /*counts*/)
{
  const auto* list = std::get_if<std::vector<std::int64_t>>(&value);
  TORCH_CHECK_TYPE(list != nullptr, "gnndirect: pipeline option ", name, " must be a list of integers");
  std::vector<T> out;
  for (std::int64_t v : *list) { out.push_back(to_count<T>(option_value{v}, name)); }
  member = std::move(out);
}

template <class T>
option_value read(const T& member, std::integral_constant<int, 0> /*count*/)
{
  return static_cast<std::int64_t>(member);
}
template <class T>
option_value read(const T& member, std::integral_constant<int, 1> /*key*/)
{
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(member));
}
option_value read(bool member, std::integral_constant<int, 2> /*flag*/) { return member; }
template <class T>
option_value read(const std::vector<T>& member, std::integral_constant<int, 3> /*counts*/)
{
  return std::vector<std::int64_t>(member.begin(), member.end());
}

using count = std::integral_constant<int, 0>;
using key = std::integral_constant<int, 1>;
using flag = std::integral_constant<int, 2>;
using counts = std::integral_constant<int, 3>;

}  // namespace

pipeline_options_box::pipeline_options_box() : options_(std::make_unique<gnndirect::pipeline_options>()) {}
pipeline_options_box::pipeline_options_box(const pipeline_options_box& other)
  : options_(std::make_unique<gnndirect::pipeline_options>(*other.options_))
{
}
pipeline_options_box& pipeline_options_box::operator=(const pipeline_options_box& other)
{
  *options_ = *other.options_;
  return *this;
}
pipeline_options_box::~pipeline_options_box() = default;

const std::vector<std::string>& pipeline_options_box::names()
{
#define GNNDIRECT_TORCH_OPTION_NAME(name, member, kind) #name,
  static const std::vector<std::string> all{GNNDIRECT_TORCH_PIPELINE_OPTIONS(GNNDIRECT_TORCH_OPTION_NAME)};
#undef GNNDIRECT_TORCH_OPTION_NAME
  return all;
}

option_value pipeline_options_box::get(const std::string& name) const
{
#define GNNDIRECT_TORCH_OPTION_GET(option, member, kind) \
  if (name == #option) { return read(options_->member, kind{}); }
  GNNDIRECT_TORCH_PIPELINE_OPTIONS(GNNDIRECT_TORCH_OPTION_GET)
#undef GNNDIRECT_TORCH_OPTION_GET
  TORCH_CHECK_VALUE(false, "gnndirect: no pipeline option named '", name, "'");
  return option_value{};  // not reached
}

void pipeline_options_box::set(const std::string& name, const option_value& value)
{
#define GNNDIRECT_TORCH_OPTION_SET(option, member, kind) \
  if (name == #option) {                                  \
    assign(options_->member, value, #option, kind{});     \
    return;                                               \
  }
  GNNDIRECT_TORCH_PIPELINE_OPTIONS(GNNDIRECT_TORCH_OPTION_SET)
#undef GNNDIRECT_TORCH_OPTION_SET
  TORCH_CHECK_VALUE(false, "gnndirect: no pipeline option named '", name, "'");
}

}  // namespace gnndirect_torch
