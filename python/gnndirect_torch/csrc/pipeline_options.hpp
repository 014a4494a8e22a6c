#pragma once
/// @file pipeline_options.hpp
/// @brief gnndirect::pipeline_options as the binding holds it: a box around the library's own
/// struct whose members Python reads and writes by name (host-compilable; the struct is defined
/// in a CUDA header, so the names are mapped onto its members in pipeline_options.cu, the one
/// table of the options the binding exposes).

#include <gnndirect/core/version.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

GNNDIRECT_NAMESPACE_BEGIN
struct pipeline_options;
GNNDIRECT_NAMESPACE_END

namespace gnndirect_torch {

/// One option's value as Python passes it: a flag, an integer (counts, bytes; seeds as the
/// int64 with their bits) or a list of integers (fanouts).
using option_value = std::variant<bool, std::int64_t, std::vector<std::int64_t>>;

/// A gnndirect::pipeline_options (the library's defaults at construction) with the members the
/// binding exposes readable and writable by name. Copyable; not thread-safe.
class pipeline_options_box {
 public:
  /// The library's defaults (gnndirect::pipeline_options{}).
  pipeline_options_box();
  /// A copy of `other`'s options.  @param other the box to copy
  pipeline_options_box(const pipeline_options_box& other);
  /// Copies `other`'s options.  @param other the box to copy  @return this box
  pipeline_options_box& operator=(const pipeline_options_box& other);
  ~pipeline_options_box();

  /// The names the binding exposes, in the table's order (the Python class
  /// gnndirect_torch.PipelineOptions has one field of each name).
  /// @return the names
  static const std::vector<std::string>& names();
  /// The option `name`.  @param name one of names()  @return its value
  /// @throws c10::ValueError for an unknown name.
  option_value get(const std::string& name) const;
  /// Sets the option `name`.  @param name one of names()  @param value its new value
  /// @throws c10::ValueError for an unknown name, a negative count or one out of the member's
  /// range; c10::TypeError for a value of the wrong kind (a list for a count, ...).
  void set(const std::string& name, const option_value& value);
  /// The library's struct (for the pipeline's construction).  @return the options
  const gnndirect::pipeline_options& options() const noexcept { return *options_; }

 private:
  std::unique_ptr<gnndirect::pipeline_options> options_;
};

}  // namespace gnndirect_torch
