/// @file module.cpp
/// @brief The Python module gnndirect_torch._C: registration handles, host-resident allocation,
/// placement queries, the row-codec encoder and the mini-batch pipeline (the custom ops are registered with
/// TORCH_LIBRARY in the other files and reached through torch.ops.gnndirect).
///
/// Exceptions: gnndirect and c10 errors become IndexError / ValueError / TypeError /
/// MemoryError / RuntimeError with the library's message (local translator of this module).

#include "codec.hpp"
#include "common.hpp"
#include "memory.hpp"
#include "pipeline.hpp"
#include "validate.hpp"

#include <gnndirect/core/version.hpp>

#include <c10/util/Exception.h>
#include <torch/extension.h>

#include <cstring>
#include <string>

namespace py = pybind11;

namespace gnndirect_torch {

std::unique_ptr<pipeline_base> make_pipeline(const at::Tensor& indptr, const at::Tensor& indices,
                                             const at::Tensor& features, const at::Tensor& labels,
                                             const at::Tensor& train_ids, const pipeline_config& config,
                                             const std::optional<std::string>& codec,
                                             const std::optional<at::Tensor>& meta, std::int64_t cols)
{
  TORCH_CHECK_TYPE(indptr.scalar_type() == at::kLong, "gnndirect: the pipeline needs int64 indptr, got ",
                   indptr.scalar_type());
  check_index_tensor(indices, "indices");
  check_index_tensor(train_ids, "train_ids");
  TORCH_CHECK_VALUE(indptr.dim() == 1 && indptr.numel() >= 1 && indptr.is_contiguous() &&
                      indices.is_contiguous(),
                    "gnndirect: indptr (num_nodes + 1) and indices must be contiguous 1-D tensors");
  TORCH_CHECK_TYPE(train_ids.scalar_type() == indices.scalar_type(), "gnndirect: train_ids (",
                   train_ids.scalar_type(), ") must have the dtype of indices (",
                   indices.scalar_type(), ")");
  TORCH_CHECK_VALUE(!train_ids.is_cuda(), "gnndirect: train_ids must be a CPU tensor");
  check_table_tensor(features, "features");
  TORCH_CHECK_TYPE(labels.scalar_type() == at::kLong, "gnndirect: labels must be int64, got ",
                   labels.scalar_type());
  TORCH_CHECK_VALUE(labels.dim() == 1 && labels.is_contiguous() && labels.size(0) >= indptr.size(0) - 1,
                    "gnndirect: labels must be a contiguous 1-D tensor with one label per node");
  TORCH_CHECK_VALUE(!config.fanouts.empty(), "gnndirect: at least one fanout is needed");
  check_indptr_end(indptr, indices);
  bool const narrow = indices.scalar_type() == at::kInt;
  if (codec.has_value()) {
    check_encoded_args(features, meta, cols, *codec, true);
    // The pipeline's tier of encoded rows copies whole strides; Python keeps it coherent with
    // Table.scatter by writing codes rows into it, which needs the two widths to agree.
    TORCH_CHECK_VALUE(features.stride(0) == features.size(1),
                      "gnndirect: the pipeline needs encoded rows that are packed (stride == row bytes)");
    encoded_features const encoded{*codec, meta, cols};
    return narrow ? make_encoded_pipeline_for<std::int32_t>(indptr, indices, features, labels, train_ids, config, encoded)
                  : make_encoded_pipeline_for<std::int64_t>(indptr, indices, features, labels, train_ids, config, encoded);
  }
  TORCH_CHECK_VALUE(!meta.has_value(), "gnndirect: meta is for encoded features: pass codec too");
  switch (features.element_size()) {
    case 2:
      return narrow ? make_pipeline_for<std::int32_t, 2>(indptr, indices, features, labels, train_ids, config)
                    : make_pipeline_for<std::int64_t, 2>(indptr, indices, features, labels, train_ids, config);
    case 4:
      return narrow ? make_pipeline_for<std::int32_t, 4>(indptr, indices, features, labels, train_ids, config)
                    : make_pipeline_for<std::int64_t, 4>(indptr, indices, features, labels, train_ids, config);
    default: break;
  }
  TORCH_CHECK_TYPE(false, "gnndirect: the pipeline supports 2- and 4-byte features (fp16, bf16, "
                          "fp32), got ", features.scalar_type());
}

namespace {

/// Raises `type` with `message` on the Python side.
void set_error(PyObject* type, const char* message) { PyErr_SetString(type, message); }

/// Maps C++ exceptions escaping this module's functions to Python exceptions.
void translate(std::exception_ptr error)
{
  try {
    if (error) { std::rethrow_exception(error); }
  } catch (const gnndirect::index_out_of_range& e) {
    set_error(PyExc_IndexError, e.what());
  } catch (const gnndirect::invalid_argument& e) {
    set_error(PyExc_ValueError, e.what());
  } catch (const gnndirect::allocation_error& e) {
    set_error(PyExc_MemoryError, e.what());
  } catch (const gnndirect::error& e) {
    set_error(PyExc_RuntimeError, e.what());
  } catch (const c10::IndexError& e) {
    set_error(PyExc_IndexError, e.what_without_backtrace());
  } catch (const c10::ValueError& e) {
    set_error(PyExc_ValueError, e.what_without_backtrace());
  } catch (const c10::TypeError& e) {
    set_error(PyExc_TypeError, e.what_without_backtrace());
  } catch (const c10::Error& e) {
    const char* message = e.what_without_backtrace();
    std::size_t const tag = std::strlen(allocation_error_tag);
    if (std::strncmp(message, allocation_error_tag, tag) == 0) {
      set_error(PyExc_MemoryError, message + tag);
    } else {
      set_error(PyExc_RuntimeError, message);
    }
  }
}

}  // namespace
}  // namespace gnndirect_torch

PYBIND11_MODULE(_C, m)
{
  using namespace gnndirect_torch;
  m.doc() = "gnndirect PyTorch extension (custom ops are under torch.ops.gnndirect)";
  py::register_local_exception_translator(&translate);
  m.attr("library_version") = std::to_string(GNNDIRECT_VERSION_MAJOR) + "." +
                              std::to_string(GNNDIRECT_VERSION_MINOR) + "." +
                              std::to_string(GNNDIRECT_VERSION_PATCH);

  py::class_<registration>(m, "Registration",
                           "A CPU tensor pinned in place (cudaHostRegister); holds the tensor.")
    .def(py::init<const at::Tensor&>(), py::arg("tensor"),
         "Registers the tensor's bytes (synchronous). Raises ValueError, MemoryError.")
    .def("close", &registration::close, "Unregisters now (idempotent).")
    .def_property_readonly("active", &registration::active, "True until close().")
    .def_property_readonly("nbytes", &registration::bytes, "Registered bytes.")
    .def_property_readonly("tensor", &registration::tensor, "The registered tensor.");

  m.def("allocate_host_tensor", &allocate_host_tensor, py::arg("sizes"), py::arg("dtype"),
        py::arg("placement"),
        "New uninitialised CPU tensor in 'pinned' or 'managed_host' memory that owns its "
        "allocation. Raises ValueError, MemoryError.");
  m.def("placement_name", &placement_name, py::arg("tensor"),
        "Where the tensor's bytes live: 'device', 'pinned', 'managed_host' or 'pageable'.");
  m.def("validate_csr", &validate_csr, py::arg("indptr"), py::arg("indices"),
        py::arg("weights") = py::none(), py::arg("device") = -1,
        "Full CSR check (gnndirect::validate): on the GPU `device` (device-visible arrays), or "
        "on the host with device=-1. Raises ValueError naming the first bad array, position and "
        "value; synchronises.");
  m.def("device_copy_bytes", &device_copy_bytes,
        "Device-to-device bytes the extension copied between buffers (only batches of a "
        "NeighborLoader detached while held: new epoch, close, every slot held) since start or "
        "the last reset.");
  m.def("reset_device_copy_bytes", &reset_device_copy_bytes, "Sets device_copy_bytes() to 0.");
  m.def("resource_self_check", &resource_self_check, py::arg("device"), py::arg("bytes"),
        "Allocates a gnndirect buffer through the torch caching-allocator resource and returns "
        "torch's allocated bytes [before, during, after] (a test hook).");
  m.def("auto_placement", &auto_placement, "Placement gnndirect's auto choice picks on this device.");
  m.def("auto_placement_reason", &auto_placement_reason, "Why auto_placement() picked it.");
  m.def("auto_placement_for", &auto_placement_for, py::arg("bytes"),
        "auto placement for a table of `bytes` bytes on the current device.");
  m.def("host_memory_info", &host_memory_info,
        "What the host can give now and its ceiling: dict(known, available, source, "
        "cgroup_headroom, mem_available, limit, limit_source).");
  m.def("npy_header", &npy_header, py::arg("path"), "(shape, descr) of a .npy file's header.");
  m.def("fill_from_npy", &fill_from_npy, py::arg("target"), py::arg("path"),
        py::call_guard<py::gil_scoped_release>(),  // long copies: other Python threads run
        "Streams a .npy file into a contiguous tensor of the same size in bounded chunks (all "
        "cores). Synchronous; releases the GIL. Raises ValueError.");

  m.def("codec_layout", &codec_layout, py::arg("codec"), py::arg("cols"),
        "(canonical name, encoded row stride bytes, metadata floats per row, payload bytes per "
        "row) of a row codec for rows of `cols` values. Raises ValueError (unknown codec).");
  m.def("encode_rows", &encode_rows, py::arg("x"), py::arg("codec"), py::arg("codes"), py::arg("meta"),
        py::arg("stats"), py::arg("row_offset") = 0,
        py::call_guard<py::gil_scoped_release>(),  // all cores encode: other Python threads run
        "Encodes CPU rows x (fp32/fp16/bf16) with a row codec on all cores into codes (uint8 "
        "[rows, stride]) and meta (float32 [rows, meta floats]), accumulating the error into "
        "stats (float64 [3, cols]: max abs, sum abs, max |x|). Synchronous; releases the GIL. "
        "Raises ValueError naming the row and column of a value the codec cannot encode.");

  py::class_<pipeline_config>(m, "PipelineConfig", "Options of a Pipeline (see pipeline_options).")
    .def(py::init<>())
    .def_readwrite("fanouts", &pipeline_config::fanouts)
    .def_readwrite("batch_size", &pipeline_config::batch_size)
    .def_readwrite("drop_last", &pipeline_config::drop_last)
    .def_readwrite("seed", &pipeline_config::seed)
    .def_readwrite("replace", &pipeline_config::replace)
    .def_readwrite("depth", &pipeline_config::depth)
    .def_readwrite("workers", &pipeline_config::workers)
    .def_readwrite("sampling_max_blocks", &pipeline_config::sampling_max_blocks)
    .def_readwrite("gather_max_blocks", &pipeline_config::gather_max_blocks)
    .def_readwrite("reserve_bytes", &pipeline_config::reserve_bytes)
    .def_readwrite("cache_bytes", &pipeline_config::cache_bytes);

  py::class_<batch_tensors>(m, "BatchTensors", "One prepared batch as tensors.")
    .def_readonly("epoch", &batch_tensors::epoch)
    .def_readonly("index", &batch_tensors::index)
    .def_readonly("num_seeds", &batch_tensors::num_seeds)
    .def_readonly("sampling_seed", &batch_tensors::sampling_seed)
    .def_readonly("layers", &batch_tensors::layers)
    .def_readonly("x", &batch_tensors::x)
    .def_readonly("y", &batch_tensors::y);

  py::class_<pipeline_counters>(m, "PipelineCounters", "Counters of a Pipeline.")
    .def_readonly("batches_prepared", &pipeline_counters::batches_prepared)
    .def_readonly("feature_bytes", &pipeline_counters::feature_bytes)
    .def_readonly("prepare_seconds", &pipeline_counters::prepare_seconds)
    .def_readonly("batches_ready", &pipeline_counters::batches_ready);

  py::class_<pipeline_base>(m, "Pipeline", "gnndirect::minibatch_pipeline over tensors.")
    .def(py::init(&make_pipeline), py::arg("indptr"), py::arg("indices"), py::arg("features"),
         py::arg("labels"), py::arg("train_ids"), py::arg("config"), py::kw_only(),
         py::arg("codec") = py::none(), py::arg("meta") = py::none(), py::arg("cols") = 0,
         "Builds the pipeline (synchronous). With codec (and meta, cols) features are the codes of "
         "an encoded table (uint8 [rows, stride], packed rows) and batches hold float32 rows "
         "decoded inside the pipeline's feature gather; config.cache_bytes then sizes a tier of "
         "encoded rows. Raises TypeError, ValueError, MemoryError.")
    // Detaching re-points the storages of tensors Python holds: done with the GIL; the waits
    // (worker stop, batch preparation) without it.
    .def(
      "start_epoch",
      [](pipeline_base& self, std::int64_t epoch) {
        self.detach_held(true);
        py::gil_scoped_release const unlocked;
        self.start_epoch(epoch);
      },
      py::arg("epoch"),
      "Shuffles and starts preparing epoch `epoch`; batches still held are detached (copied) first.")
    .def(
      "next",
      [](pipeline_base& self) {
        self.detach_held(false);
        py::gil_scoped_release const unlocked;
        return self.next();
      },
      "Next batch on the current stream (views of the pipeline's memory), or None at the end of "
      "the epoch (blocks without the GIL). When every slot is held, the oldest held batch is "
      "detached (copied) first.")
    .def("detach_held", &pipeline_base::detach_held, py::arg("all") = true,
         "Copies the batches still held out of the pipeline's memory (their tensors stay valid) "
         "and gives their slots back; returns how many.")
    .def_property_readonly("held_batches", &pipeline_base::held_batches,
                           "Batches handed out whose tensors are still alive.")
    .def("counters", &pipeline_base::counters, "Counters snapshot.")
    .def_property_readonly("cached_rows", &pipeline_base::cached_rows, "Rows in the device cache tier.")
    .def("cache_tensors", &pipeline_base::cache_tensors,
         "Non-owning [cache rows, slot_of] tensors of the device tier ([] without one); valid "
         "while the pipeline lives (for keeping cached copies coherent with table writes).");
}
