"""The extension's instantiation units, generated at build time from one list (run by setup.py
before it compiles; ``python generated_units.py DIR`` writes them into DIR by hand).

Each unit instantiates one template of the extension for one type, so that the instantiations
compile in parallel (ninja, one nvcc per unit). They used to be 14 hand-copied files that differed
in a type name; here each is a row of :data:`UNITS`: its file name, the header that defines the
template, a one-line description and the instantiation. Files are rewritten only when their text
changes, so that ninja does not recompile an unchanged unit. The output folder
(gnndirect_torch/csrc/generated/, ignored by git and left out of the sdist, which carries this
script instead) is on the compiler's include path after csrc/, whose headers the units include.

No torch needed: setup.py and the host check (test/python/check_python.py) import it as a plain
file.
"""

import os
import sys

#: The codecs whose encoded gathers are compiled: (file suffix, gnndirect::codecs type).
CODECS = (("fp32", "fp32"), ("fp16", "fp16"), ("bf16", "bf16"), ("int8", "int8_affine"),
          ("fp8", "fp8_e4m3"), ("int4", "int4_affine"))

#: Node id types of the pipeline and the sampling ops: (file suffix, C++ type).
INDEX_TYPES = (("32", "std::int32_t"), ("64", "std::int64_t"))

#: Plain feature widths of the pipeline: (bytes, the unsigned type that moves them).
FEATURE_WIDTHS = ((2, "std::uint16_t"), (4, "std::uint32_t"))

_SAMPLE_ARGS_NEIGHBORS = ("const at::Tensor&, const at::Tensor&, const at::Tensor&, int, int, std::int64_t, bool,\n"
                          "  const std::optional<at::Tensor>&, bool")
_SAMPLE_ARGS_BLOCKS = ("const at::Tensor&, const at::Tensor&, const at::Tensor&, const std::vector<int>&, std::int64_t, "
                       "bool,\n  const std::optional<at::Tensor>&, bool")
_PIPELINE_ARGS = ("const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& features,\n"
                  "  const at::Tensor& labels, const at::Tensor& train_ids, const gnndirect::pipeline_options& options,\n"
                  "  const pipeline_sampling& sampling")
_ENCODED_ARGS = ("const at::Tensor& indptr, const at::Tensor& indices, const at::Tensor& codes, const at::Tensor& labels,\n"
                 "  const at::Tensor& train_ids, const gnndirect::pipeline_options& options,\n"
                 "  const pipeline_sampling& sampling, const encoded_features& encoded")


def _units():
    """(file name, header, description, body inside namespace gnndirect_torch) per unit."""
    out = []
    for suffix, codec in CODECS:
        out.append((f"codec_cuda_{suffix}.cu", "codec_cuda_impl.cuh",
                    f"gather_encoded's CUDA kernels for gnndirect::codecs::{codec} (see codec_cuda_impl.cuh).",
                    f"template void run_encoded_gather<gnndirect::codecs::{codec}>(const encoded_gather_call&);\n"))
    for suffix, offset in INDEX_TYPES:
        body = ""
        for _, index in INDEX_TYPES:
            body += (f"template std::tuple<at::Tensor, at::Tensor, at::Tensor> "
                     f"sample_neighbors_cuda_typed<{offset}, {index}>(\n  {_SAMPLE_ARGS_NEIGHBORS});\n")
        for _, index in INDEX_TYPES:
            body += (f"template std::vector<at::Tensor> sample_blocks_cuda_typed<{offset}, {index}>(\n"
                     f"  {_SAMPLE_ARGS_BLOCKS});\n")
        out.append((f"sample_cuda_o{suffix}.cu", "sample_cuda_impl.cuh",
                    f"The CUDA sampling kernels for int{suffix} indptr (int32 and int64 indices).", body))
    for suffix, index in INDEX_TYPES:
        for width, moved in FEATURE_WIDTHS:
            out.append((f"pipeline_cuda_i{suffix}_f{width}.cu", "pipeline_impl.cuh",
                        f"minibatch_pipeline for int{suffix} node ids and {width}-byte features "
                        f"({'fp16, bf16' if width == 2 else 'fp32'}).",
                        f"template <>\nstd::unique_ptr<pipeline_base> make_pipeline_for<{index}, {width}>(\n"
                        f"  {_PIPELINE_ARGS})\n{{\n  return detail::make_typed<{index}, {moved}>(indptr, indices, features, "
                        f"labels, train_ids, options, sampling);\n}}\n"))
        out.append((f"pipeline_cuda_i{suffix}_codecs.cu", "pipeline_impl.cuh",
                    f"minibatch_pipeline for int{suffix} node ids over encoded features, every lossy codec "
                    "in one unit (the sampling kernels they share compile once: faster on few cores than a "
                    "unit per codec), decoded to float32 inside the feature gather.",
                    f"template <>\nstd::unique_ptr<pipeline_base> make_encoded_pipeline_for<{index}>(\n"
                    f"  {_ENCODED_ARGS})\n{{\n  return detail::make_encoded<{index}>(indptr, indices, codes, labels, "
                    "train_ids, options, sampling, encoded);\n}\n"))
    for suffix, offset in INDEX_TYPES:
        body = "".join(f"template std::vector<at::Tensor> sample_typed_blocks_cuda_typed<{offset}, {index}>(\n"
                       f"  const typed_args&, const at::Tensor&, std::int64_t, bool, bool);\n"
                       for _, index in INDEX_TYPES)
        out.append((f"typed_cuda_o{suffix}.cu", "typed_cuda_impl.cuh",
                    f"The CUDA kernel of sample_typed_blocks for int{suffix} indptr (int32 and int64 indices).",
                    body))
    for suffix, offset in INDEX_TYPES:
        body = "".join(f"template std::vector<at::Tensor> sample_typed_temporal_blocks_cuda_typed<{offset}, {index}>(\n"
                       f"  const typed_temporal_args&, std::int64_t, bool);\n" for _, index in INDEX_TYPES)
        out.append((f"typed_temporal_cuda_o{suffix}.cu", "typed_temporal_cuda_impl.cuh",
                    f"The CUDA kernel of sample_typed_temporal_blocks for int{suffix} indptr (int32 and int64 "
                    "indices).", body))
    temporal_args = ("const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const std::vector<int>&,\n"
                     "  const at::Tensor&, const std::string&, const std::string&, std::int64_t, "
                     "const std::optional<at::Tensor>&, bool")
    for suffix, offset in INDEX_TYPES:
        body = "".join(f"template std::vector<at::Tensor> sample_temporal_blocks_cuda_typed<{offset}, {index}>(\n"
                       f"  {temporal_args});\n" for _, index in INDEX_TYPES)
        out.append((f"temporal_cuda_o{suffix}.cu", "temporal_cuda_impl.cuh",
                    f"The CUDA temporal-blocks kernel for int{suffix} indptr (int32 and int64 indices).", body))
    return out


#: Every generated unit: (file name, header, description, body).
UNITS = tuple(_units())


def unit_text(name, header, description, body):
    """The source text of one unit."""
    return (f"// Generated by python/generated_units.py (edit the list there, not this file).\n"
            f"/// @file {name}\n/// @brief {description}\n\n#include \"{header}\"\n\n"
            f"namespace gnndirect_torch {{\n{body}}}  // namespace gnndirect_torch\n")


def write_units(folder):
    """Writes every unit into ``folder`` (created if needed), rewriting only changed files, and
    removes .cu files there that are no longer in the list. Returns the units' paths, sorted."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, header, description, body in UNITS:
        path = os.path.join(folder, name)
        text = unit_text(name, header, description, body)
        try:
            with open(path, encoding="utf-8") as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        paths.append(path)
    wanted = {name for name, *_ in UNITS}
    for stale in os.listdir(folder):
        if stale.endswith(".cu") and stale not in wanted:
            os.remove(os.path.join(folder, stale))
    return sorted(paths)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: generated_units.py OUTPUT_DIR")
    for written in write_units(sys.argv[1]):
        print(written)
