#!/usr/bin/env python3
"""Test python_build_errors: python/setup.py stops at once, before writing anything, naming
everything that is missing with the command for each, when the build cannot succeed (README
"PyTorch and PyG"):
  - torch missing                         -> "cannot import it" + the install commands
  - torch older than 2.4                  -> "torch >= 2.4 (found 2.3.1+cu121)"
  - a CPU-only torch                      -> "CPU-only build"
  - inside pip's isolated build env       -> says so + the --no-build-isolation command
  - no compiler, no ninja, no nvcc and no torch at once -> all four in one message
  - nvcc of another CUDA major than torch's -> names both versions
and (imported, not run) its pure helpers: the C++ standard read from torch's ATen.h, and the
architecture list (the caller's TORCH_CUDA_ARCH_LIST, the visible GPUs, else sm_80/sm_90+PTX).
torch and nvcc are replaced by stand-ins (a module on PYTHONPATH, a script as CUDA_HOME/bin/nvcc),
so the test needs neither and behaves the same with or without them installed. With a setuptools
older than 77 every case also names setuptools (checked too).
    check_python_build_errors.py REPO_ROOT WORK_DIR
"""
import importlib.util
import os
import stat
import subprocess
import sys

INSTALL = "pip install -v --no-build-isolation ./python"


def snapshot(path):
    """Every file under path with its size and mtime: the check that nothing was written."""
    out = {}
    for folder, _, files in os.walk(path):
        for name in files:
            full = os.path.join(folder, name)
            st = os.stat(full)
            out[full] = (st.st_size, st.st_mtime_ns)
    return out


def stand_in_torch(root, text):
    """A folder with a stand-in `torch` package (its __init__.py is `text`)."""
    os.makedirs(os.path.join(root, "torch"), exist_ok=True)
    with open(os.path.join(root, "torch", "__init__.py"), "w", encoding="utf-8") as f:
        f.write(text)
    return root


def stand_in_cuda(root, release):
    """A CUDA_HOME whose bin/nvcc prints `release` as nvcc --version does."""
    os.makedirs(os.path.join(root, "bin"), exist_ok=True)
    nvcc = os.path.join(root, "bin", "nvcc")
    with open(nvcc, "w", encoding="utf-8") as f:
        f.write(f"#!/bin/sh\necho 'Cuda compilation tools, release {release}, V{release}.0'\n")
    os.chmod(nvcc, os.stat(nvcc).st_mode | stat.S_IXUSR)
    return root


def setuptools_is_old():
    import setuptools
    return tuple(int(p) for p in setuptools.__version__.split(".")[:1]) < (77,)


def run_case(name, python_dir, path_dir, command, expected, env_extra=None):
    before = snapshot(python_dir)
    env = dict(os.environ, PYTHONPATH=path_dir, PYTHONDONTWRITEBYTECODE="1")
    env.update(env_extra or {})
    if setuptools_is_old():
        expected = list(expected) + ["setuptools >= 77"]
    r = subprocess.run([sys.executable, "setup.py", command], cwd=python_dir, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    problems = []
    if r.returncode == 0:
        problems.append("setup.py succeeded")
    for text in expected:
        if text not in r.stdout:
            problems.append(f"no '{text}' in its output")
    written = sorted(set(snapshot(python_dir).items()) - set(before.items()))
    if written:
        problems.append("it wrote " + ", ".join(p for p, _ in written[:5]))
    if problems:
        print(f"FAIL {name}: " + "; ".join(problems) + "\n--- output:\n" + r.stdout)
        return False
    print(f"ok   {name}: {r.stdout.strip().splitlines()[0][:110]}")
    return True


def load_setup(python_dir):
    """python/setup.py as a module (its main() runs only as __main__)."""
    spec = importlib.util.spec_from_file_location("gnndirect_setup", os.path.join(python_dir, "setup.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_helpers(python_dir, work):
    """cxx_standard and choose_arch_list against known answers."""
    setup = load_setup(python_dir)
    problems = []
    headers = {"cxx20": "#error C++20 or later compatible compiler is required to use ATen.\n",
               "cxx17": "#error C++17 or later compatible compiler is required to use ATen.\n",
               "none": "#pragma once\n"}
    for name, text in headers.items():
        os.makedirs(os.path.join(work, "include-" + name, "ATen"), exist_ok=True)
        with open(os.path.join(work, "include-" + name, "ATen", "ATen.h"), "w", encoding="utf-8") as f:
            f.write(text)
    cases = [((["/nonexistent", os.path.join(work, "include-cxx20")], "2.11.0"), "c++20"),
             (([os.path.join(work, "include-cxx17")], "2.15.0"), "c++17"),
             (([os.path.join(work, "include-none")], "2.15.0"), "c++17"),
             ((["/nonexistent"], "2.15.0+cu132"), "c++20"),
             ((["/nonexistent"], "2.11.0"), "c++17")]
    for (dirs, version), want in cases:
        got = setup.cxx_standard(dirs, version)
        if got != want:
            problems.append(f"cxx_standard({dirs}, {version!r}) = {got!r}, want {want!r}")
    chosen, line = setup.choose_arch_list({}, 0)
    if chosen != "8.0;9.0+PTX" or "no GPU visible" not in line or "TORCH_CUDA_ARCH_LIST" not in line:
        problems.append(f"no GPU, no list: {chosen!r}, {line!r}")
    for environ, gpus in (({"TORCH_CUDA_ARCH_LIST": "9.0"}, 0), ({"TORCH_CUDA_ARCH_LIST": "9.0"}, 2), ({}, 1),
                          ({"TORCH_CUDA_ARCH_LIST": "native"}, 1)):
        chosen, line = setup.choose_arch_list(environ, gpus)
        if chosen is not None or not line:
            problems.append(f"choose_arch_list({environ}, {gpus}) = {chosen!r} (torch's own choice expected)")
    chosen, _ = setup.choose_arch_list({"TORCH_CUDA_ARCH_LIST": " "}, 0)
    if chosen != "8.0;9.0+PTX":
        problems.append(f"a blank TORCH_CUDA_ARCH_LIST without GPU: {chosen!r}")
    if problems:
        print("FAIL helpers: " + "; ".join(problems))
        return False
    print("ok   helpers: C++ standard from ATen.h (C++20 / C++17 / the version), arch list defaults")
    return True


def main():
    repo, work = sys.argv[1], sys.argv[2]
    python_dir = os.path.join(repo, "python")
    no_torch = "raise ImportError(\"No module named 'torch' (a stand-in of the test)\")\n"
    old_torch = "__version__ = '2.3.1+cu121'\n"
    cpu_torch = "__version__ = '2.15.0+cpu'\nclass version:\n    cuda = None\n"
    cuda_torch = "__version__ = '2.15.0+cu132'\nclass version:\n    cuda = '13.2'\n"
    cuda13 = {"CUDA_HOME": stand_in_cuda(os.path.join(work, "cuda-13"), "13.0")}
    ok = True
    ok &= run_case("torch missing", python_dir, stand_in_torch(os.path.join(work, "no-torch"), no_torch),
                   "dist_info", ["cannot import it", "-m pip install torch", INSTALL], cuda13)
    ok &= run_case("torch missing, build_ext", python_dir, os.path.join(work, "no-torch"),
                   "build_ext", ["cannot import it", INSTALL], cuda13)
    ok &= run_case("torch too old", python_dir, stand_in_torch(os.path.join(work, "old-torch"), old_torch),
                   "dist_info", ["torch >= 2.4", "2.3.1+cu121", "-m pip install -U torch", INSTALL], cuda13)
    ok &= run_case("CPU-only torch", python_dir, stand_in_torch(os.path.join(work, "cpu-torch"), cpu_torch),
                   "build_ext", ["CPU-only build", "2.15.0+cpu", INSTALL], cuda13)
    ok &= run_case("isolated build", python_dir,
                   stand_in_torch(os.path.join(work, "pip-build-env-stand-in"), no_torch),
                   "dist_info", ["isolated build environment", INSTALL], cuda13)
    empty = os.path.join(work, "empty-path")
    os.makedirs(empty, exist_ok=True)
    ok &= run_case("everything missing at once", python_dir, os.path.join(work, "no-torch"), "build_ext",
                   ["prerequisite(s) missing", "a C++ compiler", "ninja", "nvcc", "cannot import it",
                    "-m pip install ninja", INSTALL],
                   {"PATH": empty, "CUDA_HOME": os.path.join(work, "no-cuda"), "CXX": "c++"})
    ok &= run_case("nvcc of another CUDA major", python_dir,
                   stand_in_torch(os.path.join(work, "cuda-torch"), cuda_torch), "build_ext",
                   ["CUDA 13.2", "is 12.4", INSTALL],
                   {"CUDA_HOME": stand_in_cuda(os.path.join(work, "cuda-12"), "12.4")})
    ok &= check_helpers(python_dir, work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
