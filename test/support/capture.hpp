#pragma once
// Test support: running one enqueueing call under CUDA stream capture.
//  - capture_census(call): what call(stream) enqueued into a captured graph (nodes, kernels) and
//    the exception it threw; capture always ends, also when the call throws.
//  - check_refused_before_enqueue<E>(call, text): the call throws exactly E naming `text` and the
//    capture holds zero nodes (the library's rule: every argument check before the first enqueue).
//  - check_capture_matches(poison, call, snapshot): the call run plainly and then captured,
//    instantiated and launched gives the same bytes (outputs poisoned before each run).
// GPU tests only (needs a device); doctest assertions.
#include <gnndirect/core/cuda_error.hpp>

#include <doctest/doctest.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <exception>
#include <string>
#include <typeinfo>
#include <vector>

namespace gnndirect::test {

/// An owned non-blocking stream.
struct capture_stream {
  cudaStream_t stream{};
  capture_stream() { GNNDIRECT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~capture_stream() { GNNDIRECT_CUDA_TRY_NOTHROW(cudaStreamDestroy(stream)); }
  capture_stream(const capture_stream&) = delete;
  capture_stream& operator=(const capture_stream&) = delete;
};

/// What a call enqueued, seen through stream capture.
struct capture_result {
  std::size_t nodes{0};        ///< graph nodes of every kind
  std::size_t kernels{0};      ///< kernel nodes among them
  std::exception_ptr error;    ///< what the call threw, if anything
};

/// Runs call(stream) while capturing `stream` (relaxed mode: the library may query pointer and
/// device attributes during its checks) and counts the graph's nodes. When `graph_out` is not
/// null the graph is handed over (the caller destroys it) instead of destroyed.
template <class Call>
capture_result capture_census(cudaStream_t stream, Call&& call, cudaGraph_t* graph_out = nullptr)
{
  capture_result result;
  GNNDIRECT_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  try {
    call(stream);
  } catch (...) {
    result.error = std::current_exception();
  }
  cudaGraph_t graph = nullptr;
  cudaError_t const ended = cudaStreamEndCapture(stream, &graph);
  REQUIRE(ended == cudaSuccess);
  std::size_t count = 0;
  GNNDIRECT_CUDA_TRY(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) { GNNDIRECT_CUDA_TRY(cudaGraphGetNodes(graph, nodes.data(), &count)); }
  result.nodes = count;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    GNNDIRECT_CUDA_TRY(cudaGraphNodeGetType(node, &type));
    result.kernels += type == cudaGraphNodeTypeKernel ? 1 : 0;
  }
  if (graph_out != nullptr) {
    *graph_out = graph;
  } else {
    GNNDIRECT_CUDA_TRY(cudaGraphDestroy(graph));
  }
  return result;
}

/// The same on a fresh stream of its own.
template <class Call>
capture_result capture_census(Call&& call)
{
  capture_stream const s;
  return capture_census(s.stream, call);
}

/// Checks that call(stream) throws exactly E (typeid) whose what() contains `text`, and that it
/// enqueued nothing at all (zero captured nodes); the context stays clean.
template <class E, class Call>
void check_refused_before_enqueue(Call&& call, const std::string& text)
{
  capture_result const c = capture_census(call);
  CHECK(c.nodes == 0);
  REQUIRE(c.error);
  try {
    std::rethrow_exception(c.error);
  } catch (const std::exception& e) {
    CAPTURE(e.what());
    CHECK(typeid(e) == typeid(E));
    CHECK(std::string(e.what()).find(text) != std::string::npos);
  }
  CHECK(cudaGetLastError() == cudaSuccess);
}

/// Runs call(stream) plainly, then captured into a graph that is instantiated and launched, each
/// time after poison(stream); snapshot() (host bytes of every output, after a synchronisation)
/// must be equal. The capture must succeed and hold at least one kernel node.
template <class Poison, class Call, class Snapshot>
void check_capture_matches(Poison&& poison, Call&& call, Snapshot&& snapshot)
{
  capture_stream const s;
  poison(s.stream);
  call(s.stream);
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(s.stream));
  auto const plain = snapshot();
  poison(s.stream);
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(s.stream));
  cudaGraph_t graph = nullptr;
  capture_result const c = capture_census(s.stream, call, &graph);
  if (c.error) {
    GNNDIRECT_CUDA_TRY(cudaGraphDestroy(graph));
    std::rethrow_exception(c.error);
  }
  CHECK(c.kernels > 0);
  cudaGraphExec_t exec = nullptr;
  GNNDIRECT_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
  GNNDIRECT_CUDA_TRY(cudaGraphLaunch(exec, s.stream));
  GNNDIRECT_CUDA_TRY(cudaStreamSynchronize(s.stream));
  GNNDIRECT_CUDA_TRY(cudaGraphExecDestroy(exec));
  GNNDIRECT_CUDA_TRY(cudaGraphDestroy(graph));
  CHECK(snapshot() == plain);
  CHECK(cudaGetLastError() == cudaSuccess);
}

}  // namespace gnndirect::test
