"""Build the gnndirect PyTorch extension (gnndirect_torch._C) against the installed torch.

    cd python && MAX_JOBS=16 python setup.py build_ext --inplace

Needs torch with CUDA, nvcc (CUDA 12+) and ninja (parallel compilation of the .cu files).
TORCH_CUDA_ARCH_LIST selects the GPU architectures (default here: 9.0, H100/H200).
"""
import glob
import os

from setuptools import setup

try:
    from torch.utils.cpp_extension import BuildExtension, CUDAExtension
except ImportError as error:  # pragma: no cover - build-time message
    raise SystemExit("building gnndirect_torch needs PyTorch: pip install torch") from error

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(os.path.dirname(HERE), "include")
CSRC = os.path.join("gnndirect_torch", "csrc")

os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")

# GNNDIRECT_TORCH_VISIBILITY=default builds with default symbol visibility (a diagnostic switch).
VISIBILITY = ["-fvisibility=" + os.environ.get("GNNDIRECT_TORCH_VISIBILITY", "hidden")]

# Keep symbols of static archives out of the extension's dynamic symbol table. A compiler that
# links libstdc++ statically (seen on the H200 machine: /opt/gcc) otherwise leaves the static
# copy's data symbols (locale facet ids) interposable by the libstdc++.so that torch loaded: the
# copy then mixes two libraries' locale state and the first number it formats (an error message
# with a shape) dereferences a null facet. With the flag the static copy binds to itself; with a
# shared libstdc++ (the usual case) it changes nothing.
LINK_ARGS = ["-Wl,--exclude-libs,ALL"]

sources = sorted(glob.glob(os.path.join(CSRC, "*.cpp")) + glob.glob(os.path.join(CSRC, "*.cu")))

setup(
    name="gnndirect_torch",
    version="0.1.0",
    description="PyTorch/PyG integration of gnndirect (GPU-centric graph data access)",
    packages=["gnndirect_torch"],
    ext_modules=[
        CUDAExtension(
            name="gnndirect_torch._C",
            sources=sources,
            include_dirs=[INCLUDE, os.path.join(HERE, CSRC)],
            extra_compile_args={
                # hidden visibility: the extension's types and gnndirect's kernels stay private
                # to this module (two frameworks embedding gnndirect never clash)
                "cxx": ["-O3", "-std=c++17"] + VISIBILITY,
                "nvcc": ["-O3", "-std=c++17", "--expt-relaxed-constexpr", "-lineinfo",
                         "-Xcompiler=" + VISIBILITY[0]],
            },
            extra_link_args=LINK_ARGS,
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
