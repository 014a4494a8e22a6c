// gather_alloc is the allocation study (gather_alloc/...): the same 1M random rows
// (64, 128, 512 B, default policy) from a 16 GiB table (--alloc-gib) allocated in
// several ways, since how host memory is allocated may decide the GPU page size that maps it, and
// 64-B rows from large tables are translation-bound: managed_host (cudaMallocManaged, advised,
// filled by the CPU) and three other ways of populating managed memory (see managed_allocate), pinned
// (cudaHostAlloc), host_pool / host_numa_pool (pinned memory from a CUDA memory pool located on
// the host, the virtual-memory-management path), thp_registered (anonymous memory advised to
// transparent huge pages, then cudaHostRegister). Each checks its first 4096 gathered rows
// against the host's bytes.
#include "base.cuh"

#include <gnndirect/algorithms/gather.cuh>
#include <gnndirect/core/cuda_error.hpp>
#include <gnndirect/owners/buffer.hpp>
#include <gnndirect/owners/registration.hpp>

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gnndirect::bench::gather {
namespace {

namespace gb = gnndirect::bench;

/// A host-resident table of the allocation study, allocated and populated in one of the ways the
/// study compares (the question: does any of them get the GPU fewer translations per byte).
class study_table {
 public:
  study_table(const std::string& how, std::size_t bytes) : how_(how), bytes_(bytes)
  {
    if (how.rfind("managed", 0) == 0) {
      data_ = managed_allocate(how);
    } else if (how == "pinned") {
      owned_ = gnndirect::buffer<std::byte>(bytes, memory_kind::pinned);
      data_ = owned_.host_data();
    } else if (how == "host_pool" || how == "host_numa_pool") {
      data_ = pool_allocate(how == "host_pool" ? cudaMemLocationTypeHost : cudaMemLocationTypeHostNuma);
    } else if (how == "thp_registered") {
      data_ = thp_allocate();
    } else {
      throw std::invalid_argument("alloc study: unknown allocation '" + how + "'");
    }
    if (how == "managed_gpu_fill") {
      fill_pattern_gpu(data_, bytes);
      GNNDIRECT_CUDA_TRY(cudaDeviceSynchronize());
    } else {
      fill_pattern(data_, bytes);
    }
    if (how == "managed_advise_after_fill") { advise_host_preferred(data_, bytes); }
    if (how == "thp_registered") { registered_ = gnndirect::host_registration(data_, bytes); }
  }
  study_table(const study_table&) = delete;
  study_table& operator=(const study_table&) = delete;
  ~study_table()
  {
    registered_ = gnndirect::host_registration{};
    if (pool_ != nullptr) {
      (void)cudaFreeAsync(data_, nullptr);
      (void)cudaStreamSynchronize(nullptr);
      (void)cudaMemPoolDestroy(pool_);
    }
    if (mapped_ != nullptr) { munmap(mapped_, mapped_bytes_); }
    if (managed_raw_ != nullptr) { (void)cudaFree(managed_raw_); }
  }

  /// Device-visible address of the bytes.
  const void* device_data() const
  {
    if (how_ == "thp_registered") { return registered_.device_data(); }
    return owned_.size() > 0 ? static_cast<const void*>(owned_.data()) : data_;
  }
  /// Host address of the same bytes (for filling and checking).
  const void* host_data() const { return data_; }
  /// The view kind the library sees (every host-resident kind takes the same gather policy).
  memory_kind kind() const { return how_.rfind("managed", 0) == 0 ? memory_kind::managed_host : memory_kind::pinned; }
  const std::string& how() const { return how_; }
  std::size_t bytes() const { return bytes_; }
  /// Kernel-reported huge-page share of the process's anonymous memory (THP), for the log.
  static std::string anon_huge_pages()
  {
    std::FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
    if (f == nullptr) { return "?"; }
    char line[256];
    std::string out = "?";
    while (std::fgets(line, sizeof line, f) != nullptr) {
      if (std::strncmp(line, "AnonHugePages:", 14) == 0) { out = line + 14; }
    }
    std::fclose(f);
    return out;
  }

 private:
  /// Managed memory, populated three ways (the pages' CPU chunks, hence the GPU mappings, depend
  /// on which fault path allocates them): managed_host as the library allocates it (advised, then
  /// filled by the CPU); managed_gpu_fill (advised, then filled by a GPU kernel: pages allocated on
  /// GPU faults); managed_prefetch_fill (advised, prefetched to the host, then filled);
  /// managed_advise_after_fill (filled by the CPU first, advised afterwards).
  void* managed_allocate(const std::string& how)
  {
    if (how == "managed_advise_after_fill") {
      void* ptr = nullptr;
      GNNDIRECT_CUDA_TRY(cudaMallocManaged(&ptr, bytes_, cudaMemAttachGlobal));
      managed_raw_ = ptr;
      return ptr;
    }
    owned_ = gnndirect::buffer<std::byte>(bytes_, memory_kind::managed_host);
    if (how == "managed_prefetch_fill") {
      cudaMemLocation host{};
      host.type = cudaMemLocationTypeHost;
      GNNDIRECT_CUDA_TRY(cudaMemPrefetchAsync(owned_.host_data(), bytes_, host, 0, nullptr));
      GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(nullptr));
    }
    return owned_.host_data();
  }
  /// The library's managed_host advice: preferred location the host, accessed by device 0.
  static void advise_host_preferred(void* ptr, std::size_t bytes)
  {
    cudaMemLocation host{};
    host.type = cudaMemLocationTypeHost;
    cudaMemLocation gpu{};
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = 0;
    GNNDIRECT_CUDA_TRY(cudaMemAdvise(ptr, bytes, cudaMemAdviseSetPreferredLocation, host));
    GNNDIRECT_CUDA_TRY(cudaMemAdvise(ptr, bytes, cudaMemAdviseSetAccessedBy, gpu));
  }
  /// Pinned host memory from a CUDA memory pool (the VMM path), made accessible to device 0.
  void* pool_allocate(cudaMemLocationType type)
  {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = type;
    props.location.id = 0;
    props.maxSize = bytes_;
    GNNDIRECT_CUDA_TRY(cudaMemPoolCreate(&pool_, &props));
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = 0;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    GNNDIRECT_CUDA_TRY(cudaMemPoolSetAccess(pool_, &access, 1));
    void* ptr = nullptr;
    GNNDIRECT_CUDA_TRY(cudaMallocFromPoolAsync(&ptr, bytes_, pool_, nullptr));
    GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(nullptr));
    return ptr;
  }
  /// Anonymous memory advised to transparent huge pages, 2-MiB aligned (pinned later).
  void* thp_allocate()
  {
    constexpr std::size_t huge = std::size_t{2} << 20;
    mapped_bytes_ = bytes_ + huge;
    mapped_ = mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped_ == MAP_FAILED) { throw std::runtime_error("alloc study: mmap failed"); }
    auto const base = (reinterpret_cast<std::uintptr_t>(mapped_) + huge - 1) & ~(huge - 1);
    void* aligned = reinterpret_cast<void*>(base);
    if (madvise(aligned, bytes_, MADV_HUGEPAGE) != 0) { std::fprintf(stderr, "alloc study: madvise(MADV_HUGEPAGE) failed\n"); }
    return aligned;
  }

  std::string how_;
  std::size_t bytes_;
  gnndirect::buffer<std::byte> owned_;
  gnndirect::host_registration registered_;
  cudaMemPool_t pool_{nullptr};
  void* managed_raw_{nullptr};  // managed_advise_after_fill's allocation (no owner type for it)
  void* mapped_{nullptr};
  std::size_t mapped_bytes_{0};
  void* data_{nullptr};
};

/// Compares the first rows of the last gather with the host's view of the study table, so that a
/// mis-mapped allocation cannot pass for a fast one. @throws std::runtime_error on a mismatch.
void check_last_rows(const study_table& t, const gnndirect::buffer<std::int64_t>& indices,
                     const gnndirect::buffer<float>& out, std::int64_t count, std::size_t row_bytes)
{
  std::int64_t const checked = std::min<std::int64_t>(count, 4096);
  std::vector<std::int64_t> idx(static_cast<std::size_t>(checked));
  std::vector<unsigned char> got(static_cast<std::size_t>(checked) * row_bytes);
  GNNDIRECT_CUDA_TRY(cudaMemcpy(idx.data(), indices.data(), idx.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  GNNDIRECT_CUDA_TRY(cudaMemcpy(got.data(), out.data(), got.size(), cudaMemcpyDeviceToHost));
  auto const* host = static_cast<const unsigned char*>(t.host_data());
  for (std::int64_t i = 0; i < checked; ++i) {
    if (std::memcmp(got.data() + i * row_bytes, host + idx[i] * row_bytes, row_bytes) != 0) {
      throw std::runtime_error("alloc study: " + t.how() + " gathered row " + std::to_string(idx[i]) +
                               " differs from the host's bytes");
    }
  }
}

std::unique_ptr<study_table>& study_table_slot()
{
  static std::unique_ptr<study_table> table;
  return table;
}

/// The allocation study's table `how` of --alloc-gib GiB (default 16), replacing
/// any other table first (one large table at a time).
study_table& alloc_table(const std::string& how)
{
  auto& table = study_table_slot();
  if (!table || table->how() != how) {
    table.reset();
    current_tables().reset();
    sparse_table_slot().reset();
    auto const bytes = static_cast<std::size_t>(options().alloc_gib * (1ull << 30));
    table = std::make_unique<study_table>(how, bytes);
    std::fprintf(stderr, "alloc study: %s %zu GiB, AnonHugePages %s", how.c_str(), bytes >> 30,
                 study_table::anon_huge_pages().c_str());
  }
  return *table;
}

/// 1M random rows of `row_bytes` gathered from the study table `how` with the default policy.
void bm_gather_alloc(benchmark::State& state, const std::string& key, const std::string& how, std::size_t row_bytes)
{
  study_table& t = alloc_table(how);
  std::int64_t const cols = static_cast<std::int64_t>(row_bytes / sizeof(float));
  std::int64_t const rows = static_cast<std::int64_t>(t.bytes() / row_bytes);
  std::int64_t const count = batch_rows(row_bytes);
  gnndirect::table_view<const float> const src(static_cast<const float*>(t.device_data()), rows, cols, cols, t.kind());
  gnndirect::buffer<float> out(static_cast<std::size_t>(count * cols), memory_kind::device);
  gnndirect::buffer<std::int64_t> indices(static_cast<std::size_t>(count), memory_kind::device);
  gnndirect::table_view<float> const dst(out.data(), count, cols, cols, memory_kind::device);
  gnndirect::gather_policy const policy;
  gnndirect::buffer<std::byte> ws(gnndirect::gather_workspace_bytes<std::int64_t>(count, rows, src.kind, row_bytes, policy),
                                  memory_kind::device);
  gb::event_timer timer;
  std::vector<double> times;
  std::uint64_t seed = 4242;
  for (auto _ : state) {
    gb::fill_random_indices(nullptr, indices.data(), count, rows, ++seed);
    timer.start(nullptr);
    gnndirect::gather_async(cudaStream_t{}, src, indices.data(), count, dst, {ws.data(), ws.bytes()}, policy);
    timer.stop(nullptr);
    times.push_back(timer.seconds());
    state.SetIterationTime(times.back());
  }
  gnndirect::gather_check(nullptr, {ws.data(), ws.bytes()}, rows);
  check_last_rows(t, indices, out, count, row_bytes);
  gb::record_rate(state, key, static_cast<double>(count) * row_bytes / gb::median(times) * 1e-9);
}
}  // namespace

void register_alloc_study()
{
  for (const char* how : {"managed_host", "managed_gpu_fill", "managed_prefetch_fill", "managed_advise_after_fill",
                          "pinned", "host_pool", "host_numa_pool", "thp_registered"}) {
    for (std::size_t row_bytes : {64, 128, 512}) {
      std::string const key = std::string("gather_alloc/") + how + "/row_bytes:" + std::to_string(row_bytes);
      benchmark::RegisterBenchmark(key.c_str(), [=](benchmark::State& s) { bm_gather_alloc(s, key, how, row_bytes); })
        ->UseManualTime()->Iterations(11)->Unit(benchmark::kMillisecond);
    }
  }
}

void release_alloc_tables() { study_table_slot().reset(); }

}  // namespace gnndirect::bench::gather
