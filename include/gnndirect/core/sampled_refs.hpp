#pragma once
/// @file sampled_refs.hpp
/// @brief Deprecated (0.2): the 0.1 path of core/sampled_views.hpp, which it includes; kept for one
/// release so that 0.1 sources compile. Include core/sampled_views.hpp instead (scripts/migrate-0.2
/// rewrites the include).

#include <gnndirect/core/sampled_views.hpp>
