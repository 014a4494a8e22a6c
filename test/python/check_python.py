#!/usr/bin/env python3
"""Host check of the Python parts (no torch, no GPU needed): byte-compiles every .py file of the
repository, unit-tests the pure-Python helpers of gnndirect_torch (python/gnndirect_torch/_util.py,
loaded on its own), checks the package's import behaviour (a clear ImportError without torch, and
no CUDA initialisation at import when torch is installed) and the README's Python parts without
running them (the two commands first, the PyG quickstart compiles and takes the CPU path without
a GPU; scripts/test runs it) and the counts the docs quote (the extension's translation units;
the docs quote no pytest count, which changes with every test).

    python3 test/python/check_python.py [REPO_ROOT]

Prints one line per check and a closing "N passed, M failed" line; exits 1 on any failure.
"""

import importlib.util
import os
import subprocess
import sys
import unittest

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
SKIP_DIRS = {".git", "build", "dist", "__pycache__", ".pytest_cache", "node_modules"}


def python_files():
    """Every tracked-looking .py file under the repository (build folders skipped)."""
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")
                   and not d.startswith(".")]
        for name in files:
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def load_util():
    """python/gnndirect_torch/_util.py as a standalone module (it imports nothing of torch)."""
    path = os.path.join(ROOT, "python", "gnndirect_torch", "_util.py")
    spec = importlib.util.spec_from_file_location("gnndirect_torch_util", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


util = load_util()


class UtilTest(unittest.TestCase):
    """The pure helpers (mirrors python/tests/test_util.py, without pytest)."""

    def test_placements(self):
        self.assertEqual(util.normalize_placement("Managed"), "managed_host")
        self.assertEqual(util.normalize_placement(" pinned "), "pinned")
        with self.assertRaisesRegex(ValueError, "registered"):
            util.normalize_placement("gpu")
        with self.assertRaises(TypeError):
            util.normalize_placement(3)

    def test_cache_bytes(self):
        self.assertEqual(util.cache_bytes_for(100, 40), 0)
        self.assertEqual(util.cache_bytes_for(100, 40, cache_bytes=1010), 1000)
        self.assertEqual(util.cache_bytes_for(100, 40, cache_bytes=10**9), 4000)
        self.assertEqual(util.cache_bytes_for(100, 40, cache_fraction=0.25), 1000)
        self.assertEqual(util.cache_bytes_for(100, 0, cache_fraction=0.5), 0)
        with self.assertRaises(ValueError):
            util.cache_bytes_for(100, 40, cache_bytes=1, cache_fraction=0.1)
        with self.assertRaises(ValueError):
            util.cache_bytes_for(100, 40, cache_fraction=float("nan"))
        with self.assertRaises(ValueError):
            util.cache_bytes_for(100, 40, cache_bytes=-1)

    def test_fanouts_and_batches(self):
        self.assertEqual(util.check_fanouts((15, 10, 5)), [15, 10, 5])
        for bad in ([], [-1], [2**31]):
            with self.assertRaises(ValueError):
                util.check_fanouts(bad)
        with self.assertRaises(TypeError):
            util.check_fanouts(["3"])
        self.assertEqual(util.num_batches(10, 3), 4)
        self.assertEqual(util.num_batches(10, 3, drop_last=True), 3)
        self.assertEqual(util.num_batches(0, 3), 0)
        with self.assertRaises(ValueError):
            util.num_batches(10, 0)

    def test_pyg_counts_round_trip(self):
        nodes, edges = util.pyg_counts(4, [10, 25, 25], [12, 30, 0])
        self.assertEqual(nodes, [4, 6, 15, 0])
        self.assertEqual(edges, [12, 30, 0])
        slices = util.layer_slices(nodes, edges)
        self.assertEqual([(s["num_dst"], s["num_src"], s["edge_begin"], s["edge_end"]) for s in slices],
                         [(4, 10, 0, 12), (10, 25, 12, 42), (25, 25, 42, 42)])
        with self.assertRaises(ValueError):
            util.pyg_counts(4, [3], [1])
        with self.assertRaises(ValueError):
            util.layer_slices([1, 2], [3, 4])

    def test_locations_leave_the_messages(self):
        path = "/build/x/include/gnndirect/detail/owners/allocation.hpp:31"
        self.assertEqual(util.split_location(path + ": cannot allocate 8 bytes"),
                         ("cannot allocate 8 bytes", path))
        self.assertEqual(util.split_location(util.ALLOCATION_TAG + "core/error.hpp:7: boom"),
                         (util.ALLOCATION_TAG + "boom", "core/error.hpp:7"))
        self.assertEqual(util.memory_error_message(util.ALLOCATION_TAG + path + ": no room at a.hpp:3: x"),
                         "no room at a.hpp:3: x")  # only the leading location goes
        for kept in ("gnndirect: indices[3] = 100 is out of range [0, 100)", "ratio 1:2: bad", ""):
            self.assertEqual(util.split_location(kept), (kept, None))

    def test_messages_and_formatting(self):
        self.assertEqual(util.memory_error_message("x " + util.ALLOCATION_TAG + "boom"), "boom")
        self.assertIsNone(util.memory_error_message("other"))
        table = util.format_table(["path", "s"], [["cpu", 1.23456], ["gnndirect", 2]])
        self.assertIn("1.235", table)
        self.assertEqual(len(table.splitlines()), 4)
        self.assertEqual(util.speedup(10.0, 2.5), 4.0)
        self.assertEqual(util.speedup(1.0, 0), float("inf"))

    def test_papers100m_shape_and_sweep_warmup(self):
        full = util.papers100m_shape()
        self.assertEqual((full["num_nodes"], full["num_edges"], full["num_features"]), (111_059_956, 1_615_685_872, 128))
        self.assertEqual((full["num_train"], full["num_val"], full["num_test"]), (1_207_179, 125_265, 200_000))
        self.assertEqual(util.papers100m_shape(0.25)["num_train"], 301_794)
        with self.assertRaises(ValueError):
            util.papers100m_shape(0)
        self.assertEqual(util.sweep_warmup(8, 48, 16, 193), 64)
        self.assertEqual(util.sweep_warmup(8, 48, 0, 193), 8)
        self.assertEqual(util.sweep_warmup(8, 48, 16, 100), 52)
        self.assertEqual(util.sweep_warmup(8, 48, 16, 40), 0)

    def test_reddit_and_twitter_shapes(self):
        reddit = util.reddit_shape()
        self.assertEqual((reddit["num_nodes"], reddit["num_edges"], reddit["num_features"]), (232_965, 114_615_892, 602))
        self.assertEqual((reddit["num_train"], reddit["num_val"], reddit["num_test"]), (153_431, 23_831, 55_703))
        twitter = util.twitter_shape(0.25)
        self.assertEqual((twitter["num_nodes"], twitter["num_edges"]), (10_413_058, 367_091_296))
        self.assertEqual((twitter["num_train"], twitter["num_test"], twitter["degree_sigma"]), (1_041_305, 200_000, 2.0))
        self.assertEqual(set(util.SHAPES), {"products", "papers100m", "reddit", "twitter"})
        with self.assertRaises(ValueError):
            util.reddit_shape(-1)

    def test_products_shape(self):
        full = util.products_shape()
        self.assertEqual((full["num_nodes"], full["num_features"], full["num_classes"]), (2_449_029, 100, 47))
        self.assertEqual(full["num_edges"], 61_859_140)
        small = util.products_shape(0.01)
        self.assertLess(small["num_nodes"], full["num_nodes"])
        self.assertLessEqual(small["num_train"] + small["num_val"] + small["num_test"], small["num_nodes"])
        with self.assertRaises(ValueError):
            util.products_shape(0)


def check_import_behaviour():
    """(ok, message): without torch the package raises a clear ImportError; with torch it
    imports without initialising CUDA and without loading the extension."""
    code = (
        "import sys\n"
        "try:\n"
        "    import torch\n"
        "except ImportError:\n"
        "    try:\n"
        "        import gnndirect_torch\n"
        "    except ImportError as e:\n"
        "        assert 'needs PyTorch' in str(e), str(e)\n"
        "        print('no torch: clear ImportError')\n"
        "        sys.exit(0)\n"
        "    sys.exit('gnndirect_torch imported without torch')\n"
        "import gnndirect_torch, gnndirect_torch._extension as extension\n"
        "assert not torch.cuda.is_initialized(), 'CUDA initialised at import'\n"
        "assert extension._loaded is None, 'extension loaded at import'\n"
        "assert 'gnndirect_torch._C' not in sys.modules\n"
        "print('torch present: import has no side effects')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), PYTHONDONTWRITEBYTECODE="1")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                            timeout=300)
    return result.returncode == 0, (result.stdout + result.stderr).strip()


def check_readme():
    """(ok, message): README.md starts with the two commands, and its PyG quickstart block (which
    scripts/test runs with torch: test/python/check_readme_quickstart.py) compiles, chooses the
    CPU without a GPU and hands that device to both stores."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        head = f.read().split("\n")[:6]
    if head[:3] != ["# gnndirect", "", "```sh"] or not head[3].startswith("scripts/demo ") \
            or not head[4].startswith("scripts/test ") or head[5] != "```":
        return False, "README.md must start with the scripts/demo and scripts/test commands: " + repr(head)
    quickstart = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "check_readme_quickstart.py"),
                                 ROOT, "--extract"], capture_output=True, text=True, timeout=60)
    if quickstart.returncode != 0:
        return False, quickstart.stdout.strip()
    code = quickstart.stdout
    try:
        compile(code, "README.md (PyG quickstart)", "exec", dont_inherit=True)
    except SyntaxError as error:
        return False, f"the PyG quickstart does not compile: {error}"
    for needed in ('else "cpu"', "GnnDirectFeatureStore(", "GnnDirectGraphStore(", "GnnDirectSampler(",
                   "NodeLoader(", "optimizer.step()"):
        if needed not in code:
            return False, f"the PyG quickstart lacks {needed!r}"
    if code.count("device=device") < 2:
        return False, "the PyG quickstart must give device=device to both stores (the CPU path in CI)"
    return True, f"README: the two commands first; PyG quickstart ({len(code.splitlines())} lines) compiles"


def check_doc_counts():
    """(ok, message): counts the docs quote about the Python package match the tree. Today one:
    the extension's translation units (docs/integration-pytorch.md, "N units"), which the build's
    progress lines count ("[3/N]")."""
    import glob
    import re
    csrc = os.path.join(ROOT, "python", "gnndirect_torch", "csrc")
    written = len(glob.glob(os.path.join(csrc, "*.cpp")) + glob.glob(os.path.join(csrc, "*.cu")))
    generated = len(load_generated_units().UNITS)  # setup.py compiles both
    units = written + generated
    with open(os.path.join(ROOT, "docs", "integration-pytorch.md"), encoding="utf-8") as f:
        text = f.read()
    quoted = [int(n) for n in re.findall(r"\b(\d+) units\b", text)]
    if not quoted:
        return False, "docs/integration-pytorch.md quotes no 'N units' (the check needs updating)"
    wrong = [n for n in quoted if n != units]
    if wrong:
        return False, (f"docs/integration-pytorch.md quotes {wrong} units; the extension has {units} "
                       f"({written} in python/gnndirect_torch/csrc, {generated} generated)")
    quoted_generated = [int(n) for n in re.findall(r"\b(\d+) generated\b", text)]
    if any(n != generated for n in quoted_generated):
        return False, f"docs/integration-pytorch.md quotes {quoted_generated} generated units; the list has {generated}"
    return True, f"docs: the extension's {units} translation units ({generated} generated) as quoted"


def load_generated_units():
    """python/generated_units.py as a standalone module (no torch)."""
    path = os.path.join(ROOT, "python", "generated_units.py")
    spec = importlib.util.spec_from_file_location("gnndirect_generated_units", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_generated_units():
    """(ok, message): every generated unit includes a header of csrc/ and has a unique name, no
    hand-written copy of one is left in csrc/, and the sdist carries the generator."""
    units = load_generated_units().UNITS
    csrc = os.path.join(ROOT, "python", "gnndirect_torch", "csrc")
    names = [name for name, *_ in units]
    if len(set(names)) != len(names):
        return False, f"generated_units.py lists a unit twice: {sorted(names)}"
    missing = sorted({header for _, header, _, _ in units if not os.path.isfile(os.path.join(csrc, header))})
    if missing:
        return False, f"generated units include headers csrc/ lacks: {missing}"
    copies = sorted(set(names) & set(os.listdir(csrc)))
    if copies:
        return False, f"hand-written copies of generated units in csrc/: {copies}"
    with open(os.path.join(ROOT, "python", "MANIFEST.in"), encoding="utf-8") as f:
        manifest = f.read()
    if "generated_units.py" not in manifest or "prune gnndirect_torch/csrc/generated" not in manifest:
        return False, "python/MANIFEST.in must include generated_units.py and prune csrc/generated"
    return True, f"generated units: {len(units)} from one list, carried by the sdist"


def check_pipeline_options_table():
    """(ok, message): the Python PipelineOptions has exactly the fields of the binding's one table
    (GNNDIRECT_TORCH_PIPELINE_OPTIONS in csrc/pipeline_options.cu), in its order."""
    import ast
    import re
    with open(os.path.join(ROOT, "python", "gnndirect_torch", "csrc", "pipeline_options.cu"), encoding="utf-8") as f:
        source = f.read()
    table = re.search(r"#define GNNDIRECT_TORCH_PIPELINE_OPTIONS\(X\)((?:[^\n]*\\\n)*[^\n]*)", source)
    if table is None:
        return False, "csrc/pipeline_options.cu has no GNNDIRECT_TORCH_PIPELINE_OPTIONS(X) table"
    bound = re.findall(r"X\((\w+),", table.group(1))
    with open(os.path.join(ROOT, "python", "gnndirect_torch", "_options.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    fields = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "PipelineOptions":
            fields = [item.target.id for item in node.body
                      if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)]
    if not bound or fields != bound:
        return False, f"PipelineOptions fields {fields} differ from the binding's table {bound}"
    return True, f"pipeline options: PipelineOptions mirrors the binding's table ({len(bound)} names)"


def main():
    passed = failed = 0
    for path in sorted(python_files()):
        try:
            with open(path, "rb") as source:
                compile(source.read(), path, "exec", dont_inherit=True)
            passed += 1
        except SyntaxError as error:
            failed += 1
            print(f"FAIL compile {os.path.relpath(path, ROOT)}: {error}")
    print(f"byte-compiled {passed} .py files")
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(UtilTest)
    outcome = unittest.TextTestRunner(stream=sys.stdout, verbosity=1).run(suite)
    unit_failed = len(outcome.failures) + len(outcome.errors)
    passed += outcome.testsRun - unit_failed
    failed += unit_failed
    ok, message = check_import_behaviour()
    print(("ok   " if ok else "FAIL ") + "import behaviour: " + message)
    passed, failed = passed + ok, failed + (not ok)
    for check in (check_readme, check_doc_counts, check_generated_units, check_pipeline_options_table):
        ok, message = check()
        print(("ok   " if ok else "FAIL ") + message)
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
