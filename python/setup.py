"""Build the gnndirect PyTorch extension (gnndirect_torch._C) against the installed torch.

    pip install -v --no-build-isolation ./python    # -v shows the progress: a line per compiled unit
    pip wheel -v --no-build-isolation --no-deps ./python -w dist   # or a self-contained wheel
    cd python && python setup.py build_ext --inplace   # a development build, used from the tree

Needs, installed first: torch with CUDA (>= 2.4; tested with 2.11 and the newest on PyPI), nvcc
of torch's CUDA major version (12+), ninja (parallel compilation of the .cu files; MAX_JOBS
bounds it), a C++ compiler and setuptools >= 77. --no-build-isolation because the extension must
be compiled against the very torch it will run with: pip's default isolated build environment
has no torch, or another one, and pip then installs no build requirements. Everything missing is
reported at once, before pip resolves anything or anything is compiled, with the command for
each; torch is deliberately not a declared dependency, so pip never downloads one by itself.

C++ standard: the one torch's headers require (ATen.h: C++20 from torch 2.14 on, else C++17);
gnndirect itself is C++17 and its own CMake builds stay there.

GPU architectures: TORCH_CUDA_ARCH_LIST when set (e.g. "8.0;9.0"); otherwise the GPUs visible at
build time (torch's selection), or, with none visible, DEFAULT_ARCH_LIST (sm_80, sm_90 and PTX),
said in one line of output.

The gnndirect headers travel inside the package (gnndirect_torch/include): built from the
repository, this script copies ../include/gnndirect there first, so that an sdist or a wheel
is self-contained; built from an sdist, they are already there. The version is the one of
include/gnndirect/core/version.hpp, the project's single version number.
"""
import glob
import importlib.util
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
# The instantiation units generated from one list (generated_units.py) before compiling.
GENERATED = os.path.join(CSRC, "generated")

# Options that only report metadata: with one of them nothing is compiled or copied.
INFO_ONLY = {"--version", "--name", "--fullname", "--help", "-h", "--help-commands"}
# Commands that compile the extension (and need torch); sdist works without it.
COMPILING = {"build", "build_ext", "bdist_wheel", "bdist_egg", "bdist", "install", "develop",
             "editable_wheel"}
# Metadata, as pip asks for it before anything else: checking the prerequisites here makes a
# build without them stop first, with one message naming all of them, rather than after pip has
# resolved anything or 18 minutes into the compilation.
METADATA = {"dist_info", "egg_info"}


def in_repository():
    """True when this file is python/setup.py of a gnndirect checkout (not an unpacked sdist)."""
    return (os.path.isfile(os.path.join(REPO_INCLUDE, "gnndirect", "core", "version.hpp"))
            and os.path.isfile(os.path.join(REPO, "CMakeLists.txt")))


def include_dir():
    """Where the gnndirect headers are read from: the repository's, else the packaged copy."""
    return REPO_INCLUDE if in_repository() else PACKAGE_INCLUDE


def copy_license_files():
    """Refreshes python/LICENSE and python/NOTICE (pyproject's license-files) from the repository
    (no-op in an unpacked sdist, which carries them)."""
    if in_repository():
        for name in ("LICENSE", "NOTICE"):
            shutil.copyfile(os.path.join(REPO, name), os.path.join(HERE, name))


def copy_headers_into_package():
    """Refreshes gnndirect_torch/include from the repository (no-op in an unpacked sdist, which
    carries it)."""
    if not in_repository():
        return
    shutil.rmtree(os.path.join(PACKAGE_INCLUDE, "gnndirect"), ignore_errors=True)
    shutil.copytree(os.path.join(REPO_INCLUDE, "gnndirect"), os.path.join(PACKAGE_INCLUDE, "gnndirect"))


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


MIN_TORCH = (2, 4)  # torch.library.register_fake (the fake kernels of _extension.py)
MIN_SETUPTOOLS = (77, 0)  # pyproject's SPDX `license` string and `license-files`
INSTALL = "pip install -v --no-build-isolation ./python"  # from the repository root
# Architectures compiled when no GPU is visible at build time and TORCH_CUDA_ARCH_LIST is unset
# (torch's own selection has nothing to go by there): A100, H100/H200, and PTX of sm_90 that the
# driver compiles for newer GPUs.
DEFAULT_ARCH_LIST = "8.0;9.0+PTX"


def say(message):
    """One line of build output, flushed at once (pip -v shows it while the build runs)."""
    print(f"gnndirect_torch: {message}", flush=True)


def version_tuple(text):
    """(major, minor) of a version string such as '2.15.0+cu130' or '13.0'."""
    return tuple(int(part) for part in re.findall(r"\d+", text)[:2])


def in_isolated_build():
    """True inside pip's isolated build environment (its prefixes are on sys.path)."""
    return any("pip-build-env-" in entry for entry in sys.path)


def nvcc_release(nvcc):
    """(major, minor) that `nvcc --version` reports, or None when it cannot be run."""
    import subprocess
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"release (\d+)\.(\d+)", out)
    return (int(match.group(1)), int(match.group(2))) if match else None


def missing_prerequisites(compiling):
    """What stops the build, as (what, how to fix) pairs, all found at once: setuptools >= 77,
    and with `compiling` torch (>= MIN_TORCH, with CUDA), nvcc of torch's CUDA major version,
    ninja and a C++ compiler. Empty when nothing is missing."""
    missing = []
    import setuptools
    if version_tuple(setuptools.__version__) < MIN_SETUPTOOLS:
        missing.append((f"setuptools >= {MIN_SETUPTOOLS[0]} (found {setuptools.__version__})",
                        f"{sys.executable} -m pip install -U 'setuptools>={MIN_SETUPTOOLS[0]}'"))
    if not compiling:
        return missing
    if shutil.which(os.environ.get("CXX", "c++")) is None:
        missing.append((f"a C++ compiler ({os.environ.get('CXX', 'c++')} is not on PATH)",
                        "install g++ (e.g. apt-get install g++), or set CXX"))
    if shutil.which("ninja") is None:
        missing.append(("ninja (the parallel build of the .cu files)", f"{sys.executable} -m pip install ninja"))
    try:
        import torch
    except ImportError as error:
        if in_isolated_build():
            missing.append(("torch, inside pip's isolated build environment",
                            f"build in your environment instead: {INSTALL}"))
        else:
            missing.append((f"torch ({sys.executable} cannot import it: {error})",
                            f"{sys.executable} -m pip install torch   (Linux wheels come with CUDA; "
                            "https://pytorch.org/get-started/locally/ for other CUDA versions)"))
        torch = None
    if torch is not None and version_tuple(torch.__version__) < MIN_TORCH:
        missing.append((f"torch >= {MIN_TORCH[0]}.{MIN_TORCH[1]} (found {torch.__version__})",
                        f"{sys.executable} -m pip install -U torch"))
        torch = None
    torch_cuda = getattr(getattr(torch, "version", None), "cuda", None) if torch is not None else None
    if torch is not None and torch_cuda is None:
        missing.append((f"torch with CUDA (torch {torch.__version__} is a CPU-only build)",
                        f"{sys.executable} -m pip install --force-reinstall torch   (the default Linux wheel has "
                        "CUDA; not the download.pytorch.org/whl/cpu one)"))
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    nvcc = os.path.join(cuda_home, "bin", "nvcc") if cuda_home else shutil.which("nvcc")
    if nvcc is None and os.path.isfile("/usr/local/cuda/bin/nvcc"):
        nvcc = "/usr/local/cuda/bin/nvcc"  # where torch looks too
    release = nvcc_release(nvcc) if nvcc else None
    if release is None:
        missing.append(("nvcc (the CUDA Toolkit, 12 or newer)" + (f": {nvcc} does not run" if nvcc else ""),
                        "install the CUDA Toolkit" + (f" {torch_cuda.split('.')[0]}" if torch_cuda else "")
                        + " and put its bin/ on PATH (or set CUDA_HOME)"))
    elif release < (12, 0):
        missing.append((f"nvcc 12 or newer (found {release[0]}.{release[1]} at {nvcc})",
                        "install CUDA Toolkit 12 or newer (or set CUDA_HOME to one)"))
    elif torch_cuda is not None and version_tuple(torch_cuda)[0] != release[0]:
        missing.append((f"nvcc of torch's CUDA major version (torch {torch.__version__} was built with CUDA "
                        f"{torch_cuda}, {nvcc} is {release[0]}.{release[1]})",
                        f"set CUDA_HOME to a CUDA Toolkit {version_tuple(torch_cuda)[0]}, or install the torch "
                        f"wheel for CUDA {release[0]} (https://pytorch.org/get-started/locally/)"))
    return missing


def require_prerequisites(compiling):
    """Exits, before anything is compiled, written or resolved, with everything that is missing
    and the command for each."""
    missing = missing_prerequisites(compiling)
    if not missing:
        return
    lines = [f"gnndirect_torch cannot be built: {len(missing)} prerequisite(s) missing "
             "(pip installs none of them with --no-build-isolation):"]
    for what, fix in missing:
        lines += [f"  - {what}", f"      {fix}"]
    lines += ["then, from the repository root:", f"    {INSTALL}"]
    raise SystemExit("\n".join(lines))


def cxx_standard(torch_include_dirs, torch_version):
    """The C++ standard the torch headers require: the one ATen.h's `#error C++NN or later`
    names (C++20 from torch 2.14 on), C++17 for headers without one; from the version when the
    header cannot be read. gnndirect itself is C++17 and compiles in both."""
    for folder in torch_include_dirs:
        try:
            text = open(os.path.join(folder, "ATen", "ATen.h"), encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        found = re.search(r"#\s*error\s+C\+\+\s*(\d+) or later", text)
        return f"c++{found.group(1)}" if found else "c++17"
    return "c++20" if version_tuple(torch_version) >= (2, 14) else "c++17"


def choose_arch_list(environ, visible_gpus):
    """(TORCH_CUDA_ARCH_LIST to set or None, one line saying what is compiled): the caller's
    list when set, torch's choice of the visible GPUs, else DEFAULT_ARCH_LIST."""
    chosen = environ.get("TORCH_CUDA_ARCH_LIST", "").strip()
    if chosen and chosen != "native":
        return None, f"compiling for TORCH_CUDA_ARCH_LIST={chosen}"
    if visible_gpus > 0:
        return None, (f"compiling for the {visible_gpus} GPU(s) visible now "
                      "(TORCH_CUDA_ARCH_LIST=\"8.0;9.0\" chooses others)")
    return DEFAULT_ARCH_LIST, (f"no GPU visible and TORCH_CUDA_ARCH_LIST unset: compiling for "
                               f"TORCH_CUDA_ARCH_LIST=\"{DEFAULT_ARCH_LIST}\" (sm_80, sm_90, PTX for newer GPUs; "
                               "set it to choose others, e.g. \"9.0\" builds in half the time)")


def source_of(command):
    """The source file a ninja compile command compiles (its .cpp/.cu argument), or the command's
    first word."""
    words = command.split()
    sources = [w for w in words if w.endswith((".cpp", ".cu", ".cc", ".c"))]
    return os.path.basename(sources[-1]) if sources else (words[0] if words else command)


def install_progress_runner():
    """Makes torch's ninja build print one short line per compiled unit as it finishes ("[3/25]
    gather_cuda.cu (done at 95 s)") instead of nothing (torch runs ninja silently unless verbose) or full compiler
    command lines; the compilers' own messages pass through. Wraps the private
    torch.utils.cpp_extension._run_ninja_build; torch's own runs when its signature differs."""
    import inspect
    import subprocess
    import time
    from torch.utils import cpp_extension

    original = getattr(cpp_extension, "_run_ninja_build", None)
    if original is None or list(inspect.signature(original).parameters)[:3] != [
            "build_directory", "verbose", "error_prefix"]:
        return

    def run_ninja(build_directory, verbose, error_prefix, *args, **kwargs):
        if args or kwargs:
            return original(build_directory, verbose, error_prefix, *args, **kwargs)
        command = ["ninja", "-v"]
        jobs = os.environ.get("MAX_JOBS", "")
        if jobs.isdigit():
            command += ["-j", jobs]
        say(f"compiling with {' '.join(command)} in {build_directory} "
            f"({'MAX_JOBS=' + jobs if jobs.isdigit() else 'ninja chooses the parallelism; MAX_JOBS=N bounds it'}); "
            "a line as each unit finishes (a few minutes each on 2 cores)")
        start = time.monotonic()
        sys.stdout.flush()
        with subprocess.Popen(command, cwd=build_directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace", bufsize=1) as process:
            for line in process.stdout:
                found = re.match(r"\[(\d+)/(\d+)\] (.*)", line)
                if found:
                    # ninja prints an edge's status when it finishes (output not a terminal)
                    say(f"[{found.group(1)}/{found.group(2)}] {source_of(found.group(3))} "
                        f"(done at {time.monotonic() - start:.0f} s)")
                else:
                    print(line, end="", flush=True)
        if process.returncode != 0:
            raise RuntimeError(f"{error_prefix}: ninja exited with status {process.returncode} "
                               "(the compiler's messages are above)")
        say(f"compiled in {time.monotonic() - start:.0f} s")

    cpp_extension._run_ninja_build = run_ninja


def generated_units():
    """Writes the instantiation units of generated_units.py into GENERATED and returns their
    paths (relative, sorted); unchanged units are not rewritten (ninja keeps their objects)."""
    spec = importlib.util.spec_from_file_location("generated_units", os.path.join(HERE, "generated_units.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [os.path.relpath(p, HERE) for p in module.write_units(os.path.join(HERE, GENERATED))]


def extension_modules():
    """The CUDA extension (torch is importable: require_prerequisites ran)."""
    import torch
    from torch.utils.cpp_extension import BuildExtension, CUDAExtension, include_paths

    # GNNDIRECT_TORCH_VISIBILITY=default builds with default symbol visibility (a diagnostic switch).
    visibility = "-fvisibility=" + os.environ.get("GNNDIRECT_TORCH_VISIBILITY", "hidden")
    # Keep symbols of static archives out of the extension's dynamic symbol table. A compiler that
    # links libstdc++ statically (seen on the H200 machine: /opt/gcc) otherwise leaves the static
    # copy's data symbols (locale facet ids) interposable by the libstdc++.so that torch loaded: the
    # copy then mixes two libraries' locale state and the first number it formats (an error message
    # with a shape) dereferences a null facet. With the flag the static copy binds to itself; with a
    # shared libstdc++ (the usual case) it changes nothing.
    link_args = ["-Wl,--exclude-libs,ALL"]
    sources = sorted(glob.glob(os.path.join(CSRC, "*.cpp")) + glob.glob(os.path.join(CSRC, "*.cu"))) \
        + generated_units()
    # CUDA 13 keeps CCCL (libcu++'s <cuda/stream_ref>, used by the memory-resource concept) under
    # include/cccl, which nvcc finds by itself but the host compiler of the .cpp files does not.
    from torch.utils.cpp_extension import CUDA_HOME
    cccl = [d for d in [os.path.join(CUDA_HOME or "", "include", "cccl")] if os.path.isdir(d)]
    # The torch headers decide the standard (C++20 from torch 2.14 on); gnndirect is C++17-clean
    # and its own CMake builds stay at C++17.
    std = "-std=" + cxx_standard(include_paths(), torch.__version__)
    arch_list, arch_line = choose_arch_list(os.environ, torch.cuda.device_count())
    if arch_list is not None:
        os.environ["TORCH_CUDA_ARCH_LIST"] = arch_list
    say(f"torch {torch.__version__} (CUDA {torch.version.cuda}), {std}, {len(sources)} translation units "
        f"({len(sources) - len(glob.glob(os.path.join(GENERATED, '*.cu')))} in csrc/, the others generated)")
    say(arch_line)
    install_progress_runner()
    extension = CUDAExtension(
        name="gnndirect_torch._C",
        sources=sources,
        include_dirs=[include_dir(), os.path.join(HERE, CSRC)] + cccl,
        extra_compile_args={
            # hidden visibility: the extension's types and gnndirect's kernels stay private
            # to this module (two frameworks embedding gnndirect never clash)
            "cxx": ["-O3", std, visibility],
            "nvcc": ["-O3", std, "--expt-relaxed-constexpr", "-lineinfo",
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
    # Checked before anything is written: a build that cannot succeed stops first, naming
    # everything that is missing at once (setuptools also for --version: it reads pyproject).
    require_prerequisites(bool(arguments & (COMPILING | METADATA)) and "sdist" not in arguments)
    copy_license_files()
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
        ext_modules=ext_modules,
        cmdclass=cmdclass,
    )


# setuptools (pip's build backend) and `python setup.py` both run this file as __main__; the
# test python_build_errors imports it to check the pure helpers (cxx_standard, choose_arch_list).
if __name__ == "__main__":
    main()
