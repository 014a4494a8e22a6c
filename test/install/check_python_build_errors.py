#!/usr/bin/env python3
"""Test python_build_errors: python/setup.py stops at once, before writing anything, with the
command to run, when the build cannot succeed (README "PyTorch and PyG"):
  - torch missing                         -> "cannot import torch" + the install command
  - torch older than 2.4                  -> "needs torch >= 2.4"
  - inside pip's isolated build env       -> says so + the --no-build-isolation command
  - no bdist_wheel (setuptools < 70.1 without the wheel package; only where setuptools is that old)
torch and wheel are replaced by stand-in modules on PYTHONPATH, so the test needs neither and
behaves the same with or without them installed.
    check_python_build_errors.py REPO_ROOT WORK_DIR
"""
import os
import subprocess
import sys

INSTALL = "pip install --no-build-isolation ./python"


def snapshot(path):
    """Every file under path with its size and mtime: the check that nothing was written."""
    out = {}
    for folder, _, files in os.walk(path):
        for name in files:
            full = os.path.join(folder, name)
            st = os.stat(full)
            out[full] = (st.st_size, st.st_mtime_ns)
    return out


def stand_ins(root, torch_init, wheel_init):
    """A folder with stand-in `torch` and `wheel` packages (None: no stand-in)."""
    os.makedirs(root, exist_ok=True)
    for name, text in (("torch", torch_init), ("wheel", wheel_init)):
        if text is not None:
            os.makedirs(os.path.join(root, name), exist_ok=True)
            with open(os.path.join(root, name, "__init__.py"), "w", encoding="utf-8") as f:
                f.write(text)
    return root


def run_case(name, python_dir, path_dir, command, expected):
    before = snapshot(python_dir)
    env = dict(os.environ, PYTHONPATH=path_dir, PYTHONDONTWRITEBYTECODE="1")
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


def main():
    repo, work = sys.argv[1], sys.argv[2]
    python_dir = os.path.join(repo, "python")
    no_torch = "raise ImportError(\"No module named 'torch' (a stand-in of the test)\")\n"
    old_torch = "__version__ = '2.3.1+cu121'\n"
    have_wheel = "__version__ = '0.0-stand-in'\n"
    ok = True
    ok &= run_case("torch missing", python_dir, stand_ins(os.path.join(work, "no-torch"), no_torch, have_wheel),
                   "dist_info", ["cannot import torch", INSTALL])
    ok &= run_case("torch missing, build_ext", python_dir, os.path.join(work, "no-torch"),
                   "build_ext", ["cannot import torch", INSTALL])
    ok &= run_case("torch too old", python_dir, stand_ins(os.path.join(work, "old-torch"), old_torch, have_wheel),
                   "dist_info", ["needs torch >= 2.4", "2.3.1+cu121", INSTALL])
    ok &= run_case("isolated build", python_dir,
                   stand_ins(os.path.join(work, "pip-build-env-stand-in"), no_torch, have_wheel),
                   "dist_info", ["isolated environment", INSTALL])
    try:
        import setuptools.command.bdist_wheel  # noqa: F401
        print("skip no bdist_wheel: this setuptools (>= 70.1) has its own")
    except ImportError:
        no_wheel = "raise ImportError(\"No module named 'wheel' (a stand-in of the test)\")\n"
        ok &= run_case("no bdist_wheel", python_dir, stand_ins(os.path.join(work, "no-wheel"), old_torch, no_wheel),
                       "dist_info", ["'wheel' package", "-m pip install wheel", INSTALL])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
