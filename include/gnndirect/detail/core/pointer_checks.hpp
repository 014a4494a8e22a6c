#pragma once
/// @file pointer_checks.hpp
/// @brief Up-front checks that a pointer handed to a kernel is reachable from the current GPU and
/// suitably aligned (host-compilable).
///
/// Why: a kernel that dereferences pageable host memory on a GPU without pageable-memory access,
/// or an int64 array at a 4-byte-aligned address, faults with a *sticky* error (illegal address,
/// misaligned address) and the whole CUDA context is lost. One cudaPointerGetAttributes per
/// argument before the launch turns that into an invalid_argument naming the argument.

#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/core/version.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

GNNDIRECT_NAMESPACE_BEGIN
namespace detail {

/// What cudaPointerGetAttributes reported about an address (the inputs of the decision, so that
/// the decision itself is a pure function that host tests exercise without a GPU).
struct pointer_facts {
  cudaMemoryType type{cudaMemoryTypeUnregistered};  ///< kind of memory the address lies in
  int device{-1};                                   ///< owning device (device / managed memory)
  const void* device_pointer{nullptr};              ///< address kernels use for these bytes
};

/// The properties of the current device that decide access (host tests set them freely).
struct access_context {
  int current_device{0};        ///< device the kernel will run on
  bool pageable_access{false};  ///< cudaDevAttrPageableMemoryAccess of the current device
  bool peer_access{false};      ///< current device can access the owner of device memory
};

/// "0x..." for messages.
inline std::string address_text(const void* p)
{
  char text[2 + 2 * sizeof(std::uintptr_t) + 1];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)));
  return text;
}

/// Alignment part of the check (pure): "" when `p` is a multiple of `alignment` (0 or 1: none),
/// else the reason naming the argument. @throws invalid_argument for a non-power-of-two alignment.
inline std::string alignment_problem(const void* p, std::size_t alignment, const char* name)
{
  GNNDIRECT_EXPECTS(alignment == 0 || (alignment & (alignment - 1)) == 0,
                    "alignment must be a power of two, got " + std::to_string(alignment));
  if (alignment <= 1) { return {}; }
  auto const past = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(p) % alignment);
  if (past == 0) { return {}; }
  return std::string(name) + " at " + address_text(p) + " is not " + std::to_string(alignment) +
         "-byte aligned (" + std::to_string(past) + " bytes past a boundary); its element type "
         "or the API requires that alignment";
}

/// Access part of the check (pure): "" when the current device can read `p` as reported by
/// `facts`, else the reason naming the argument and what to do about it.
inline std::string access_problem(const void* p, const pointer_facts& facts,
                                  const access_context& ctx, const char* name)
{
  std::string const who = std::string(name) + " (" + address_text(p) + ")";
  switch (facts.type) {
    case cudaMemoryTypeManaged: return {};
    case cudaMemoryTypeDevice:
      if (facts.device == ctx.current_device || ctx.peer_access) { return {}; }
      return who + " is memory of device " + std::to_string(facts.device) + ", which the current "
             "device " + std::to_string(ctx.current_device) + " cannot access (no peer access); "
             "call on that device or copy the data";
    case cudaMemoryTypeHost:
      if (facts.device_pointer == nullptr) {
        return who + " is page-locked host memory that is not mapped for the GPU; register it "
               "with cudaHostRegisterMapped (gnndirect::host_registration does)";
      }
      if (facts.device_pointer != p) {
        return who + " is the host address of page-locked memory whose device address differs (" +
               address_text(facts.device_pointer) + "); pass the address from "
               "cudaHostGetDevicePointer (table::view() and host_registration::device_data() do)";
      }
      return {};
    default:
      if (ctx.pageable_access) { return {}; }
      return who + " is pageable host memory, which device " + std::to_string(ctx.current_device) +
             " cannot access (no cudaDevAttrPageableMemoryAccess); copy it to device memory or "
             "pin it (gnndirect::host_registration, cudaHostRegister, tensor.pin_memory())";
  }
}

/// Test hook: -1 (default) asks the device for cudaDevAttrPageableMemoryAccess; 0 or 1 pretends
/// the device lacks / has it, so that GPUs with HMM can exercise the rejection path.
inline std::atomic<int>& pageable_access_override() noexcept
{
  static std::atomic<int> value{-1};
  return value;
}

/// cudaPointerGetAttributes as facts; unknown addresses (older runtimes answer
/// cudaErrorInvalidValue) count as pageable. @throws no_device_error, cuda_error.
inline pointer_facts query_pointer(const void* p)
{
  cudaPointerAttributes attributes{};
  cudaError_t const status = cudaPointerGetAttributes(&attributes, p);
  if (status == cudaErrorInvalidValue) {
    (void)cudaGetLastError();
    return {};
  }
  GNNDIRECT_CUDA_TRY(status);
  return {attributes.type, attributes.device, attributes.devicePointer};
}

/// The access context of the current device for memory described by `facts` (queries only what
/// the decision needs: pageable access for unregistered memory, peer access for a foreign device).
inline access_context query_access_context(const pointer_facts& facts)
{
  access_context ctx;
  GNNDIRECT_CUDA_TRY(cudaGetDevice(&ctx.current_device));
  if (facts.type == cudaMemoryTypeUnregistered) {
    int const forced = pageable_access_override().load();
    int value = forced;
    if (forced < 0) {
      GNNDIRECT_CUDA_TRY(
        cudaDeviceGetAttribute(&value, cudaDevAttrPageableMemoryAccess, ctx.current_device));
    }
    ctx.pageable_access = value != 0;
  } else if (facts.type == cudaMemoryTypeDevice && facts.device != ctx.current_device) {
    int can = 0;
    GNNDIRECT_CUDA_TRY(cudaDeviceCanAccessPeer(&can, ctx.current_device, facts.device));
    ctx.peer_access = can != 0;
  }
  return ctx;
}

/// Checks, before any launch, that a kernel on the current device may read or write `bytes`
/// bytes at `p` (bytes 0: empty or extent unknown) and that `p` is `alignment`-aligned.
///
/// Accepts device memory of the current device (or of a peer it can access), managed memory,
/// mapped page-locked host memory passed by its device address (cudaHostAlloc, cudaHostRegister
/// with Mapped), and pageable host memory only when the device reports
/// cudaDevAttrPageableMemoryAccess (HMM / ATS systems). A null `p` is accepted only with
/// bytes == 0. For page-locked host memory the last byte of the range is checked too (a range
/// running past its registration). Costs one cudaPointerGetAttributes (two for host ranges);
/// enqueues nothing, never synchronises; allowed during (relaxed) stream capture.
/// @param name the argument's name, used in the message
/// @throws invalid_argument naming `name` and the reason; no_device_error, cuda_error.
inline void check_device_accessible(const void* p, std::size_t bytes, std::size_t alignment,
                                    const char* name)
{
  if (p == nullptr) {
    GNNDIRECT_EXPECTS(bytes == 0, std::string(name) + " is null but " + std::to_string(bytes) +
                                    " bytes would be accessed");
    return;
  }
  std::string problem = alignment_problem(p, alignment, name);
  if (!problem.empty()) { throw invalid_argument(__FILE__, __LINE__, problem); }
  auto const begin = reinterpret_cast<std::uintptr_t>(p);
  GNNDIRECT_EXPECTS(bytes == 0 || begin + (bytes - 1) >= begin,
                    std::string(name) + ": range of " + std::to_string(bytes) +
                      " bytes wraps around the address space");
  pointer_facts const facts = query_pointer(p);
  problem = access_problem(p, facts, query_access_context(facts), name);
  if (!problem.empty()) { throw invalid_argument(__FILE__, __LINE__, problem); }
  if (facts.type == cudaMemoryTypeHost && bytes > 1) {
    void const* const last = reinterpret_cast<const void*>(begin + (bytes - 1));
    GNNDIRECT_EXPECTS(query_pointer(last).type == cudaMemoryTypeHost,
                      std::string(name) + " (" + address_text(p) + ", " + std::to_string(bytes) +
                        " bytes) runs past the end of its page-locked region");
  }
}

}  // namespace detail
GNNDIRECT_NAMESPACE_END
