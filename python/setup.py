"""Build the gnndirect PyTorch extension (gnndirect_torch._C) against the installed torch.

    pip install --no-build-isolation ./python      # or: pip wheel --no-build-isolation ./python
    cd python && python setup.py build_ext --inplace   # a development build, used from the tree

Needs torch with CUDA (>= 2.4) already installed in the same environment, nvcc (CUDA 12+),
ninja (parallel compilation of the .cu files; MAX_JOBS bounds it) and, with setuptools older
than 70.1, the `wheel` package. --no-build-isolation because the extension must be compiled
against the very torch it will run with: pip's default isolated build environment has no torch,
or another one. Without torch or `wheel` the build stops at once (before pip resolves anything)
with the command to run; torch is deliberately not a declared dependency, so pip never downloads
one by itself.

GPU architectures: torch's own selection (TORCH_CUDA_ARCH_LIST when set, e.g. "8.0;9.0";
otherwise the GPUs visible at build time, or torch's default list when there is none).

The gnndirect headers travel inside the package (gnndirect_torch/include): built from the
repository, this script copies ../include/gnndirect there first, so that an sdist or a wheel
is self-contained; built from an sdist, they are already there. The version is the one of
include/gnndirect/core/version.hpp, the project's single version number.
"""
import glob
import os
import re
import shutil
import sys

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
REPO_INCLUDE = os.path.join(REPO, "include")
PACKAGE_INCLUDE = os.path.join(HERE, "gnndirect_torch", "include")
CSRC = os.path.join("gnndirect_torch", "csrc")

# Options that only report metadata: with one of them nothing is compiled or copied.
INFO_ONLY = {"--version", "--name", "--fullname", "--help", "-h", "--help-commands"}
# Commands that compile the extension (and need torch); sdist works without it.
COMPILING = {"build", "build_ext", "bdist_wheel", "bdist_egg", "bdist", "install", "develop",
             "editable_wheel"}
# Metadata, as pip asks for it before anything else (setuptools < 70.1 runs bdist_wheel for
# dist_info): checking torch and wheel here makes a build without them stop first, with one clear
# message, rather than after pip has resolved anything.
METADATA = {"dist_info", "egg_info"}
# Commands that need bdist_wheel.
NEEDS_WHEEL = {"bdist_wheel", "dist_info", "editable_wheel"}


def in_repository():
    """True when this file is python/setup.py of a gnndirect checkout (not an unpacked sdist)."""
    return (os.path.isfile(os.path.join(REPO_INCLUDE, "gnndirect", "core", "version.hpp"))
            and os.path.isfile(os.path.join(REPO, "CMakeLists.txt")))


def include_dir():
    """Where the gnndirect headers are read from: the repository's, else the packaged copy."""
    return REPO_INCLUDE if in_repository() else PACKAGE_INCLUDE


def copy_headers_into_package():
    """Refreshes gnndirect_torch/include and the license files from the repository (no-op in an
    unpacked sdist, which carries them)."""
    if not in_repository():
        return
    shutil.rmtree(os.path.join(PACKAGE_INCLUDE, "gnndirect"), ignore_errors=True)
    shutil.copytree(os.path.join(REPO_INCLUDE, "gnndirect"), os.path.join(PACKAGE_INCLUDE, "gnndirect"))
    for name in ("LICENSE", "NOTICE"):
        shutil.copyfile(os.path.join(REPO, name), os.path.join(HERE, name))


def read_version():
    """major.minor.patch from include/gnndirect/core/version.hpp."""
    path = os.path.join(include_dir(), "gnndirect", "core", "version.hpp")
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as error:
        raise SystemExit(f"gnndirect_torch: cannot read the gnndirect headers ({path}): build from a "
                         "gnndirect checkout (pip >= 21.3 builds ./python in place) or from an sdist") from error
    parts = [re.search(rf"#define GNNDIRECT_VERSION_{p} (\d+)", text) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        raise SystemExit(f"gnndirect_torch: no GNNDIRECT_VERSION_MAJOR/MINOR/PATCH in {path}")
    return ".".join(m.group(1) for m in parts)


MIN_TORCH = (2, 4)
INSTALL = "pip install --no-build-isolation ./python"  # from the repository root


def in_isolated_build():
    """True inside pip's isolated build environment (its prefixes are on sys.path)."""
    return any("pip-build-env-" in entry for entry in sys.path)


def require_wheel():
    """Exits with the command to run when bdist_wheel is missing: setuptools >= 70.1 has its own;
    older ones need the `wheel` package, which pip does not install with --no-build-isolation
    (the failure would otherwise be setuptools' "invalid command 'bdist_wheel'")."""
    try:
        import setuptools.command.bdist_wheel  # noqa: F401  (setuptools >= 70.1)
        return
    except ImportError:
        pass
    try:
        import wheel  # noqa: F401
    except ImportError:
        import setuptools
        raise SystemExit(
            f"gnndirect_torch: building a wheel needs the 'wheel' package (setuptools "
            f"{setuptools.__version__} < 70.1 has no bdist_wheel of its own), and pip installs no build "
            f"requirements with --no-build-isolation. Run:\n"
            f"    {sys.executable} -m pip install wheel\n"
            f"    {INSTALL}") from None


def require_torch():
    """Exits with what to do when torch cannot be imported or is older than MIN_TORCH, before
    anything is compiled or resolved."""
    try:
        import torch
    except ImportError as error:
        if in_isolated_build():
            raise SystemExit(
                "gnndirect_torch compiles against the PyTorch it will run with, but pip is building it in "
                "an isolated environment, which has no torch. Build it in your environment instead:\n"
                f"    {INSTALL}") from error
        raise SystemExit(
            f"gnndirect_torch compiles against the PyTorch it will run with, and {sys.executable} cannot "
            f"import torch ({error}). Install PyTorch with CUDA (>= {MIN_TORCH[0]}.{MIN_TORCH[1]}) into "
            "this environment first (https://pytorch.org/get-started/locally/ gives the command for your "
            f"CUDA version; gnndirect_torch never installs torch itself), then run again:\n"
            f"    {INSTALL}") from error
    found = tuple(int(part) for part in re.findall(r"\d+", torch.__version__)[:2])
    if found < MIN_TORCH:
        raise SystemExit(f"gnndirect_torch needs torch >= {MIN_TORCH[0]}.{MIN_TORCH[1]}; "
                         f"{sys.executable} has torch {torch.__version__}. Upgrade it, then run again:\n"
                         f"    {INSTALL}")


def extension_modules():
    """The CUDA extension (torch is importable: require_torch ran)."""
    from torch.utils.cpp_extension import BuildExtension, CUDAExtension

    # GNNDIRECT_TORCH_VISIBILITY=default builds with default symbol visibility (a diagnostic switch).
    visibility = "-fvisibility=" + os.environ.get("GNNDIRECT_TORCH_VISIBILITY", "hidden")
    # Keep symbols of static archives out of the extension's dynamic symbol table. A compiler that
    # links libstdc++ statically (seen on the H200 machine: /opt/gcc) otherwise leaves the static
    # copy's data symbols (locale facet ids) interposable by the libstdc++.so that torch loaded: the
    # copy then mixes two libraries' locale state and the first number it formats (an error message
    # with a shape) dereferences a null facet. With the flag the static copy binds to itself; with a
    # shared libstdc++ (the usual case) it changes nothing.
    link_args = ["-Wl,--exclude-libs,ALL"]
    sources = sorted(glob.glob(os.path.join(CSRC, "*.cpp")) + glob.glob(os.path.join(CSRC, "*.cu")))
    # CUDA 13 keeps CCCL (libcu++'s <cuda/stream_ref>, used by the memory-resource concept) under
    # include/cccl, which nvcc finds by itself but the host compiler of the .cpp files does not.
    from torch.utils.cpp_extension import CUDA_HOME
    cccl = [d for d in [os.path.join(CUDA_HOME or "", "include", "cccl")] if os.path.isdir(d)]
    extension = CUDAExtension(
        name="gnndirect_torch._C",
        sources=sources,
        include_dirs=[include_dir(), os.path.join(HERE, CSRC)] + cccl,
        extra_compile_args={
            # hidden visibility: the extension's types and gnndirect's kernels stay private
            # to this module (two frameworks embedding gnndirect never clash)
            "cxx": ["-O3", "-std=c++17", visibility],
            "nvcc": ["-O3", "-std=c++17", "--expt-relaxed-constexpr", "-lineinfo",
                     "-Xcompiler=" + visibility],
        },
        extra_link_args=link_args,
    )
    return [extension], {"build_ext": BuildExtension}


def main():
    os.chdir(HERE)  # relative source paths, also when run as python python/setup.py ...
    arguments = set(sys.argv[1:])
    if arguments & INFO_ONLY:
        arguments = set()
    # Checked before anything is written: a build that cannot succeed stops first.
    if arguments & NEEDS_WHEEL:
        require_wheel()
    if arguments & (COMPILING | METADATA) and "sdist" not in arguments:
        require_torch()
    if arguments:
        copy_headers_into_package()
    ext_modules, cmdclass = [], {}
    if arguments & COMPILING:
        ext_modules, cmdclass = extension_modules()
    setup(
        version=read_version(),
        packages=["gnndirect_torch"],
        # The headers, for extensions built on top of this one (not needed at run time).
        package_data={"gnndirect_torch": ["include/gnndirect/*.hpp", "include/gnndirect/*.cuh",
                                          "include/gnndirect/**/*.hpp", "include/gnndirect/**/*.cuh"]},
        include_package_data=False,
        license_files=["LICENSE", "NOTICE"],
        ext_modules=ext_modules,
        cmdclass=cmdclass,
    )


main()
