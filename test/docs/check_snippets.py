#!/usr/bin/env python3
"""Compiles every C++ code block of README.md and docs/*.md (test `docs_snippets`).

Convention (docs/CONVENTIONS.md, "Code in the docs"):
- A ```cpp / ```c++ / ```cuda block is a complete translation unit by default: it includes what
  it uses and declares its variables, so that a reader can copy it as it stands.
- A marker in an HTML comment on the line before the fence (invisible when rendered) changes that:
    <!-- snippet: fragment context=NAME -->  the block is a function body; its #include lines
        are moved to file scope, after test/docs/contexts/NAME.hpp, which declares the variables
        the prose around the block describes (e.g. `x`, a CPU torch::Tensor).
    <!-- snippet: consumer file=PATH -->      a file of the README's consumer project, built as a
        whole by the test `readme_consumer` (this script's --write-consumer writes it out).
    <!-- snippet: skip reason="..." -->       not compiled (a design sketch of an API that does not
        exist); the reason is printed on every run.
- nvcc compiles a block whose fence says cuda, or which (with its context) includes a .cuh header
  or <cooperative_groups.h>, or declares __global__ / __device__ code; the host compiler (syntax
  only) compiles the rest. `#line` directives make every diagnostic name the markdown file and
  line.
- A block without a language that mentions gnndirect:: or includes a gnndirect header is an error
  (label it), so that no C++ escapes the check by losing its label.
Exit status: 0 when every block compiles, 1 when one does not (or no block was found), 2 on a
malformed marker or an unlabelled gnndirect block.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shlex
import subprocess
import sys

CXX_LANGS = {"cpp", "c++", "cxx", "cuda", "cu"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$")
ATTR = re.compile(r'\s*([a-z_]+)(?:=(?:"([^"]*)"|(\S+)))?')
NVCC_HINT = re.compile(r'#\s*include\s*[<"][^>"]*(\.cuh|cooperative_groups\.h)[>"]|__global__|__device__')


class MarkerError(Exception):
    pass


def parse_marker(text, where):
    """'fragment context=torch' -> ('fragment', {'context': 'torch'})."""
    pos, kind, attrs = 0, None, {}
    while pos < len(text):
        m = ATTR.match(text, pos)
        if not m or m.end() == pos:
            raise MarkerError(f"{where}: cannot parse snippet marker '{text}' at '{text[pos:]}'")
        key, value = m.group(1), m.group(2) if m.group(2) is not None else m.group(3)
        if kind is None:
            if value is not None:
                raise MarkerError(f"{where}: snippet marker must start with a kind, got '{key}={value}'")
            kind = key
        else:
            attrs[key] = value
        pos = m.end()
    required = {"fragment": {"context"}, "consumer": {"file"}, "skip": {"reason"}}
    if kind not in required:
        raise MarkerError(f"{where}: unknown snippet kind '{kind}' (fragment, consumer or skip)")
    if set(attrs) != required[kind] or any(not v for v in attrs.values()):
        raise MarkerError(f"{where}: snippet marker '{kind}' takes exactly "
                          + ", ".join(f"{k}=..." for k in sorted(required[kind]))
                          + f", got '{text}'")
    return kind, attrs


def blocks_of(path, root):
    """Yields dicts (file, line, lang, code, kind, attrs) for every fenced block of `path`."""
    rel = os.path.relpath(path, root)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i, pending = 0, None  # pending: (line number, marker text) of a marker awaiting its fence
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        if m:
            if pending:
                raise MarkerError(f"{rel}:{pending[0]}: snippet marker not followed by a code block")
            pending = (i + 1, m.group(1))
            i += 1
            continue
        f = FENCE.match(line)
        if not f:
            if pending and line.strip():
                raise MarkerError(f"{rel}:{pending[0]}: snippet marker must be the line before a code block")
            i += 1
            continue
        indent, fence, lang = f.group(1), f.group(2), f.group(3).lower()
        start = i + 1  # 1-based line of the fence; code starts on the next line
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        if i == len(lines):
            raise MarkerError(f"{rel}:{start}: code block never closed")
        i += 1
        kind, attrs = "complete", {}
        if not lang and any("gnndirect::" in text or "#include <gnndirect/" in text for text in body):
            raise MarkerError(f"{rel}:{start}: a code block without a language uses gnndirect: label it "
                              "```cpp (or ```cuda) so that it is compiled, or ```text if it is not code")
        if pending:
            kind, attrs = parse_marker(pending[1], f"{rel}:{pending[0]}")
            pending = None
            if lang not in CXX_LANGS and kind != "consumer":
                raise MarkerError(f"{rel}:{start}: snippet marker '{kind}' on a '{lang or 'plain'}' block")
        yield {"file": rel, "line": start + 1, "lang": lang, "code": body, "kind": kind, "attrs": attrs}
    if pending:
        raise MarkerError(f"{rel}:{pending[0]}: snippet marker not followed by a code block")


def translation_unit(block, root, contexts_dir):
    """Source text of the block as a translation unit, with #line directives into the markdown."""
    path = block["file"].replace("\\", "/")  # relative: diagnostics read README.md(90): ...
    first = block["line"]
    if block["kind"] == "complete":
        return f'#line {first} "{path}"\n' + "\n".join(block["code"]) + "\n", ""
    context = os.path.join(contexts_dir, block["attrs"]["context"] + ".hpp")
    if not os.path.isfile(context):
        raise MarkerError(f"{block['file']}:{first - 1}: no snippet context {context}")
    with open(context, encoding="utf-8") as f:
        context_text = f.read()
    head, body = [], []
    for n, text in enumerate(block["code"]):
        target = head if re.match(r"\s*#\s*include\b", text) else body
        target.append(f'#line {first + n} "{path}"\n{text}')
    fn = f"gnndirect_snippet_{re.sub(r'[^A-Za-z0-9]', '_', block['file'])}_{first}"
    tu = (f'#include "{context}"\n' + "\n".join(head) + "\n"
          + f"[[maybe_unused]] static void {fn}()\n{{\n" + "\n".join(body) + "\n}\n")
    return tu, context_text


def compile_block(block, args):
    tu, context_text = translation_unit(block, args.root, args.contexts)
    use_nvcc = block["lang"] in ("cuda", "cu") or NVCC_HINT.search(tu) or NVCC_HINT.search(context_text)
    stem = f"{re.sub(r'[^A-Za-z0-9]', '_', block['file'])}_{block['line']}"
    src = os.path.join(args.work_dir, stem + (".cu" if use_nvcc else ".cpp"))
    with open(src, "w", encoding="utf-8") as f:
        f.write(tu)
    includes = [f"-I{d}" for d in args.include]
    if use_nvcc:
        cmd = [args.nvcc, "-std=c++17", f"-arch=sm_{args.arch}", "-c", src, "-o", src + ".o",
               "-Werror=all-warnings", "-diag-suppress=177,550", "--expt-relaxed-constexpr",
               "-Xcompiler=-Wall,-Wextra,-Wno-unused-variable,-Wno-unused-parameter,-Wno-unused-but-set-variable"] + includes
    else:
        cmd = [args.cxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
               "-Wno-unused-variable", "-Wno-unused-parameter", "-Wno-unused-but-set-variable", src] + includes
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return block, "nvcc" if use_nvcc else "c++", r.returncode, r.stdout, cmd


def write_consumer(blocks, out_dir):
    files = {}
    for b in blocks:
        if b["kind"] != "consumer":
            continue
        name = b["attrs"]["file"]
        if name in files or os.path.isabs(name) or ".." in name.split("/"):
            raise MarkerError(f"{b['file']}:{b['line'] - 1}: consumer file '{name}' given twice or not relative")
        files[name] = "\n".join(b["code"]) + "\n"
    if "CMakeLists.txt" not in files:
        raise MarkerError("no '<!-- snippet: consumer file=CMakeLists.txt -->' block found")
    for name, text in files.items():
        path = os.path.join(out_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"readme consumer: wrote {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", required=True, help="repository root")
    p.add_argument("--docs", nargs="*", default=None,
                   help="markdown files relative to the root (default README.md and docs/*.md)")
    p.add_argument("--cxx", default="c++", help="host compiler")
    p.add_argument("--nvcc", default="nvcc", help="CUDA compiler")
    p.add_argument("--arch", default="90", help="SM architecture for nvcc (default 90)")
    p.add_argument("-I", "--include", action="append", default=[], help="include directory")
    p.add_argument("--work-dir", help="where the translation units go (compile mode)")
    p.add_argument("--contexts", help="folder of the contexts (default test/docs/contexts)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--write-consumer", metavar="DIR", help="write the README's consumer project to DIR and exit")
    p.add_argument("--list", action="store_true", help="list the blocks and exit")
    args = p.parse_args()
    args.root = os.path.abspath(args.root)
    args.contexts = os.path.abspath(args.contexts or os.path.join(args.root, "test", "docs", "contexts"))
    docs = args.docs if args.docs is not None else (
        ["README.md"] + sorted(os.path.relpath(f, args.root) for f in glob.glob(os.path.join(args.root, "docs", "*.md"))))
    try:
        blocks = [b for d in docs for b in blocks_of(os.path.join(args.root, d), args.root)]
        if args.write_consumer:
            readme = [b for b in blocks if b["file"] == "README.md"]
            write_consumer(readme, args.write_consumer)
            return 0
        cxx_blocks = [b for b in blocks if b["lang"] in CXX_LANGS]
        if args.list:
            for b in cxx_blocks:
                print(f"{b['file']}:{b['line']}: {b['lang']} {b['kind']} {b['attrs']}")
            return 0
        if not args.work_dir:
            p.error("--work-dir is required to compile")
        os.makedirs(args.work_dir, exist_ok=True)
        to_compile = []
        for b in cxx_blocks:
            if b["kind"] == "skip":
                print(f"{b['file']}:{b['line']}: skipped ({b['attrs']['reason']})")
            elif b["kind"] == "consumer":
                print(f"{b['file']}:{b['line']}: built by the test readme_consumer ({b['attrs']['file']})")
            else:
                to_compile.append(b)
        if not to_compile:
            print("docs snippets: no C++ block to compile found: the extractor or the docs are broken")
            return 1
        failed = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for block, tool, rc, output, cmd in pool.map(lambda b: compile_block(b, args), to_compile):
                where = f"{block['file']}:{block['line']}"
                ctx = f", context {block['attrs']['context']}" if block["kind"] == "fragment" else ""
                if rc == 0:
                    print(f"{where}: compiles ({tool}, {block['kind']}{ctx})")
                else:
                    failed += 1
                    print(f"{where}: DOES NOT COMPILE ({tool}, {block['kind']}{ctx}); command:\n  "
                          + " ".join(shlex.quote(c) for c in cmd) + "\n" + output.rstrip())
        print(f"docs snippets: {len(to_compile) - failed} of {len(to_compile)} compile"
              + (f"; {failed} do not (errors above name the markdown file and line)" if failed else ""))
        return 1 if failed else 0
    except MarkerError as e:
        print(f"docs snippets: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
