#!/usr/bin/env python3
"""Checks the imports of the Python package gnndirect_torch (issue #32): its modules form layers.
No torch needed: every module is parsed with `ast`, nothing is imported.

    check_python_imports.py <repo root>     check python/gnndirect_torch
    check_python_imports.py --selftest      check the checker on fabricated packages

Rules (exit 1 on a violation, naming it):
  cycle     the graph of the package's imports of its own modules is acyclic, counting every
            import: module level (also under `try`, `if TYPE_CHECKING` and in class bodies) and
            function level, relative and absolute, and importlib.import_module / __import__
            with a constant name. `from . import m` (m a submodule) imports m; `from . import
            name` (name defined in __init__) or `import pkg` imports the package's __init__;
            the implicit import of a module's parent packages is not counted (it would make
            every module depend on __init__).
  function  no function imports a module of the package (the layers are then visible at the
            top of each module), except the allowlisted compiled extension `_C`, which
            `_extension.load_extension` imports on first use so that importing the package
            neither needs the built extension nor loads it.
On success it prints the layers: each module's depth above the modules it imports.
"""
import ast
import io
import os
import subprocess
import sys
import tempfile

#: Modules (relative to the package) a function may import: the compiled extension, loaded lazily.
ALLOWED_IN_FUNCTIONS = {"_C"}


def package_modules(package_dir):
    """{dotted module name: (path, is a package's __init__)} of the package in ``package_dir``
    (folders without __init__.py, e.g. csrc/, are not part of it)."""
    package = os.path.basename(os.path.normpath(package_dir))
    found = {}
    for folder, dirs, files in os.walk(package_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__"
                         and os.path.isfile(os.path.join(folder, d, "__init__.py")))
        rel = os.path.relpath(folder, package_dir)
        prefix = package if rel == "." else package + "." + rel.replace(os.sep, ".")
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            if name == "__init__.py":
                found[prefix] = (path, True)
            else:
                found[prefix + "." + name[:-3]] = (path, False)
    return found


class _Imports(ast.NodeVisitor):
    """Collects (dotted name, names imported from it or None, line, enclosing function or None)."""

    def __init__(self):
        self.found = []
        self._scopes = []  # (name, is a function) of the enclosing classes and functions

    def _visit_scope(self, node, name, is_function):
        self._scopes.append((name, is_function))
        self.generic_visit(node)
        self._scopes.pop()

    def visit_FunctionDef(self, node):
        self._visit_scope(node, node.name, True)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._visit_scope(node, "<lambda>", True)

    def visit_ClassDef(self, node):  # a class body runs at import: module level
        self._visit_scope(node, node.name, False)

    def _where(self):
        """The qualified name of the enclosing function, None at module level."""
        if not any(is_function for _, is_function in self._scopes):
            return None
        return ".".join(name for name, _ in self._scopes)

    def visit_Import(self, node):
        for alias in node.names:
            self.found.append((0, alias.name, None, node.lineno, self._where()))

    def visit_ImportFrom(self, node):
        self.found.append((node.level, node.module or "", [a.name for a in node.names],
                           node.lineno, self._where()))

    def visit_Call(self, node):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if (name in ("import_module", "__import__") and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            target = node.args[0].value
            level = len(target) - len(target.lstrip("."))
            self.found.append((level, target[level:], None, node.lineno, self._where()))
        self.generic_visit(node)


def _absolute(module, is_package, level, name):
    """The dotted name ``level`` dots and ``name`` mean inside ``module``."""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[:len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def _is_ancestor(package, module):
    return module == package or module.startswith(package + ".")


def import_edges(package_dir):
    """(edges, problems): edges {module: {imported module: (line, function or None)}} between the
    package's modules, and the function-level imports that break the rule."""
    package = os.path.basename(os.path.normpath(package_dir))
    modules = package_modules(package_dir)
    allowed = {package + "." + name for name in ALLOWED_IN_FUNCTIONS}
    edges = {name: {} for name in modules}
    problems = []
    for module, (path, is_package) in modules.items():
        rel = os.path.relpath(path, os.path.dirname(os.path.normpath(package_dir)))
        try:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
        except SyntaxError as error:
            problems.append(f"{rel}: [syntax] {error}")
            continue
        visitor = _Imports()
        visitor.visit(tree)
        for level, name, names, line, function in visitor.found:
            base = _absolute(module, is_package, level, name) if level else name
            if not (base == package or base.startswith(package + ".")):
                continue  # not the package's own
            targets = []
            if names is None:  # import a.b.c / import_module: the named module itself
                targets.append(base)
            else:  # from base import names: submodules, else attributes of base
                for imported in names:
                    full = base + "." + imported
                    if full in modules or full in allowed:
                        targets.append(full)
                    elif base not in targets:
                        targets.append(base)
                if base in modules and not _is_ancestor(base, module) and base not in targets:
                    targets.append(base)  # from .sub import m also runs sub's __init__
            for target in targets:
                if function is not None and target not in allowed:
                    problems.append(f"{rel}:{line}: [function] {function}() imports {target} "
                                    "(import it at the top of the module; a function-level "
                                    "import hides a layer violation)")
                if target in modules and target != module:
                    edges[module].setdefault(target, (rel, line, function))
    return edges, problems


def find_cycles(edges):
    """(cycle, component) per strongly connected component of more than one module (Tarjan's
    algorithm): a shortest cycle through its first module (list, first == last) and the set of
    the component's modules."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def strongconnect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(set(component))

    for v in sorted(edges):
        if v not in index:
            strongconnect(v)
    cycles = []
    for component in components:
        start = min(component)
        # breadth-first from start back to start inside the component: a shortest cycle
        previous, frontier, cycle = {start: None}, [start], None
        while frontier and cycle is None:
            following = []
            for v in frontier:
                for w in sorted(edges[v]):
                    if w not in component:
                        continue
                    if w == start:  # v's path from start, closed by v -> start
                        path = [v]
                        while previous[path[-1]] is not None:
                            path.append(previous[path[-1]])
                        cycle = path[::-1] + [start]
                        break
                    if w not in previous:
                        previous[w] = v
                        following.append(w)
                if cycle is not None:
                    break
            frontier = following
        cycles.append((cycle, component))
    return cycles


def describe_cycle(cycle, edges):
    """'a -> b (a.py:3) -> a (b.py:7, in f())'."""
    text = cycle[0]
    for a, b in zip(cycle, cycle[1:]):
        rel, line, function = edges[a][b]
        text += f" -> {b} ({rel}:{line}{', in ' + function + '()' if function else ''})"
    return text


def layers(edges):
    """{module: depth}: 0 for modules importing none of the package, else 1 + the deepest import."""
    depth = {}

    def of(v):
        if v not in depth:
            depth[v] = 0  # acyclic here, so never read before it is final
            depth[v] = 1 + max((of(w) for w in edges[v]), default=-1)
        return depth[v]

    for v in edges:
        of(v)
    return depth


def check(package_dir, out=sys.stdout):
    """Checks the package in ``package_dir``; prints the violations (or the layers); returns the
    number of violations."""
    edges, problems = import_edges(package_dir)
    for cycle, component in find_cycles(edges):
        others = sorted(component - set(cycle))
        problems.append(f"[cycle] {describe_cycle(cycle, edges)}"
                        + (f" (the set of mutually importing modules also holds {', '.join(others)})" if others else ""))
    for problem in problems:
        print(problem, file=out)
    if not problems:
        depth = layers(edges)
        for level in range(max(depth.values(), default=-1) + 1):
            names = sorted(m for m, d in depth.items() if d == level)
            print(f"layer {level}: {', '.join(names)}", file=out)
    print(f"{len(edges)} modules checked, {len(problems)} violations", file=out)
    return len(problems)


#: Fabricated packages for --selftest: (name, {path: source}, expected rule tags with counts).
SELFTEST_CASES = [
    ("clean: layers, a lazy _C, stdlib imports in functions", {
        "__init__.py": "from .b import g\nfrom .a import f\n",
        "_base.py": "import os\nVALUE = 1\n",
        "a.py": "from . import _base\nfrom ._base import VALUE\n\ndef f():\n    import json\n    return VALUE\n",
        "b.py": "import pkg.a\nfrom .a import f\n\ndef g():\n    from . import _C\n    from ._C import op\n    return f()\n",
        "csrc/notes.py": "from .. import b\n",  # not a package folder: ignored
    }, {}),
    ("module-level cycle, relative and absolute", {
        "__init__.py": "",
        "a.py": "from .b import x\n",
        "b.py": "import pkg.c\nx = 1\n",
        "c.py": "from pkg import a\n",
    }, {"[cycle] pkg.a -> pkg.b (pkg/a.py:1) -> pkg.c (pkg/b.py:1) -> pkg.a (pkg/c.py:1)": 1}),
    ("cycle closed by a function-level import", {
        "__init__.py": "",
        "a.py": "from . import b\n",
        "b.py": "def f():\n    from .a import y\n    return y\n",
    }, {"[cycle] pkg.a -> pkg.b (pkg/a.py:1) -> pkg.a (pkg/b.py:2, in f())": 1,
        "pkg/b.py:2: [function] f() imports pkg.a": 1}),
    ("function-level import without a cycle", {
        "__init__.py": "",
        "a.py": "class A:\n    def m(self):\n        from . import b\n        return b\n",
        "b.py": "",
    }, {"pkg/a.py:3: [function] A.m() imports pkg.b": 1}),
    ("cycle through __init__ (a name defined there)", {
        "__init__.py": "from .a import f\nHELPER = 1\n",
        "a.py": "from . import HELPER\n\ndef f():\n    return HELPER\n",
    }, {"[cycle] pkg -> pkg.a (pkg/__init__.py:1) -> pkg (pkg/a.py:1)": 1}),
    ("cycle through importlib and a subpackage", {
        "__init__.py": "",
        "a.py": "from .sub import x\n",
        "sub/__init__.py": "",
        "sub/x.py": "import importlib\nmod = importlib.import_module('..a', __package__)\n"
                    "def later():\n    return __import__('pkg.a')\n",
    }, {"[cycle] pkg.a -> pkg.sub.x (pkg/a.py:1) -> pkg.a (pkg/sub/x.py:2)": 1,
        "pkg/sub/x.py:4: [function] later() imports pkg.a": 1}),
]


def selftest():
    """Runs the checker on SELFTEST_CASES and on one case through the command line; returns the
    number of failed cases."""
    failed = 0
    with tempfile.TemporaryDirectory() as temp:
        for number, (title, files, expected) in enumerate(SELFTEST_CASES):
            package_dir = os.path.join(temp, str(number), "pkg")
            for rel, source in files.items():
                path = os.path.join(package_dir, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(source)
            out = io.StringIO()
            violations = check(package_dir, out)
            text = out.getvalue()
            wrong = [f"expected {count}x {tag!r}" for tag, count in expected.items()
                     if text.count(tag) != count]
            if violations != sum(expected.values()):
                wrong.append(f"{violations} violations, expected {sum(expected.values())}")
            print(("ok   " if not wrong else "FAIL ") + title)
            if wrong:
                failed += 1
                print("     " + "; ".join(wrong) + "\n     output:\n" + text)
        # The command line on <root>/python/gnndirect_torch: exit 1 naming the cycle for case 1,
        # exit 0 for the clean case.
        for number, code in ((1, 1), (0, 0)):
            root = os.path.join(temp, "cli" + str(number))
            for rel, source in SELFTEST_CASES[number][1].items():
                path = os.path.join(root, "python", "gnndirect_torch", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(source.replace("pkg", "gnndirect_torch"))
            result = subprocess.run([sys.executable, os.path.abspath(__file__), root],
                                    capture_output=True, text=True, timeout=60)
            ok = result.returncode == code and (code == 0 or "[cycle]" in result.stdout)
            print(("ok   " if ok else "FAIL ") + f"command line exits {code}")
            if not ok:
                failed += 1
                print(result.stdout + result.stderr)
    print(f"{len(SELFTEST_CASES) + 2 - failed} passed, {failed} failed")
    return failed


def main():
    args = sys.argv[1:]
    if args == ["--selftest"]:
        return 1 if selftest() else 0
    if len(args) != 1 or args[0].startswith("-"):
        print(__doc__)
        return 2
    package_dir = os.path.join(args[0], "python", "gnndirect_torch")
    return 1 if check(package_dir) else 0


if __name__ == "__main__":
    sys.exit(main())
