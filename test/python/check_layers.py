#!/usr/bin/env python3
"""Checks the structure of include/gnndirect (issue #32): public headers form layers, internals
live in detail/<component>/ and never reach up, and the umbrella lists every public header.
Usage: check_layers.py <repo root> [--component NAME] [--skip RULE,...]. Exit 1 on a violation.
       check_layers.py --selftest   (each rule on fabricated headers: it must catch every one)

Layers (a header includes only its own layer or lower ones):
  0 core/, util/        config, errors, memory kinds, views, policies, Philox, resources; threading
  1 device/             primitives inlined into any kernel
  2 owners/             RAII memory: allocation, buffer, table, registration, placement, coo
  3 algorithms/         the stream-first bulk API
    reference/, host/   host references (the oracles) and the CPU data path
  4 graph/, cache/      graph owners and builders; the cache tier (view, sources, hot set, owner)
  5 io/, pipeline/      loaders; the batch scheduler and its preparers
  6 gnndirect.cuh       the umbrella

Rules:
  layers     no header includes a header of a higher layer; detail/<c>/ has the layer of <c>
  components every internal header sits in detail/<component>/ of an existing component
  internals  a public header holds no `namespace detail` (its internals go to detail/<c>/)
  private    a public header of component c includes detail/ only of c or of core (the shared
             plumbing: launch, error flags, bit tricks)
  host-only  a .hpp (host-compilable) header includes no .cuh
  umbrella   gnndirect.cuh includes every public header
"""
import os
import re
import sys

RANK = {"core": 0, "util": 0, "device": 1, "owners": 2, "algorithms": 3, "reference": 3, "host": 3,
        "graph": 4, "cache": 4, "io": 5, "pipeline": 5, "": 6}
INCLUDE = re.compile(r'\s*#\s*include\s*<gnndirect/([^>]+)>')
DETAIL_NAMESPACE = re.compile(r'^\s*namespace\s+detail\b')


def component(rel):
    """The component of a header path relative to include/gnndirect ('' for the umbrella)."""
    parts = rel.split("/")
    if parts[0] == "detail":
        return parts[1] if len(parts) > 2 else "detail"
    return parts[0] if len(parts) > 1 else ""


def is_internal(rel):
    return rel.startswith("detail/")


def check_header(rel, text):
    """The violations of one header."""
    problems = []
    mine = component(rel)
    if mine not in RANK:
        where = "detail/ directly" if mine == "detail" else f"folder '{mine}'"
        return [f"{rel}: [components] {where} is no component (move it to detail/<component>/ "
                f"or add the component to check_layers.py)"]
    for number, line in enumerate(text.split("\n"), 1):
        if not is_internal(rel) and DETAIL_NAMESPACE.match(line):
            problems.append(f"{rel}:{number}: [internals] a public header holds namespace detail "
                            f"(move it to detail/{mine}/)")
        match = INCLUDE.match(line)
        if not match:
            continue
        target = match.group(1)
        theirs = component(target)
        if RANK.get(theirs, 99) > RANK[mine]:
            problems.append(f"{rel}:{number}: [layers] '{mine or 'top'}' includes '{target}' of the "
                            f"higher layer '{theirs}'")
        if (not is_internal(rel) and is_internal(target) and mine != ""
                and theirs not in (mine, "core")):
            problems.append(f"{rel}:{number}: [private] a public '{mine}' header includes the "
                            f"internals of '{theirs}' ({target})")
        if rel.endswith(".hpp") and target.endswith(".cuh"):
            problems.append(f"{rel}:{number}: [host-only] a .hpp header includes the .cuh '{target}'")
    return problems


def public_headers(root):
    for directory, _, files in os.walk(root):
        for name in files:
            rel = os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/")
            if not is_internal(rel) and rel != "gnndirect.cuh":
                yield rel


SELFTEST = {
    # header -> (text, rule it breaks or None)
    "core/ok.hpp": ("#include <gnndirect/core/config.hpp>\n#include <gnndirect/detail/core/bits.hpp>\n", None),
    "detail/device/ok.cuh": ("#include <gnndirect/core/config.hpp>\n#include <gnndirect/detail/core/launch.cuh>\n", None),
    "core/up.hpp": ("#include <gnndirect/device/row_source.hpp>\n", "layers"),
    "detail/core/up.hpp": ("#include <gnndirect/owners/buffer.hpp>\n", "layers"),
    "detail/loose.hpp": ("\n", "components"),
    "gadgets/thing.hpp": ("\n", "components"),
    "device/inline.cuh": ("namespace detail {\n}\n", "internals"),
    "graph/peek.cuh": ("#include <gnndirect/detail/algorithms/csr_rules.hpp>\n", "private"),
    "core/cuda.hpp": ("#include <gnndirect/detail/core/launch.cuh>\n", "host-only"),
}


def selftest():
    """Runs check_header on headers that each break one rule (or none); 0 when all are caught."""
    failures = 0
    for rel, (text, rule) in SELFTEST.items():
        found = check_header(rel, text)
        caught = [p for p in found if rule is not None and f"[{rule}]" in p]
        ok = (not found) if rule is None else (len(caught) >= 1)
        if not ok:
            failures += 1
            print(f"selftest: {rel}: expected {rule or 'no violation'}, got {found}")
    print(f"selftest: {len(SELFTEST)} fabricated headers, {failures} missed")
    return 1 if failures else 0


def main():
    args = sys.argv[1:]
    if args == ["--selftest"]:
        return selftest()
    only = None
    if "--component" in args:
        only = args[args.index("--component") + 1]
    skip = set(args[args.index("--skip") + 1].split(",")) if "--skip" in args else set()
    root = os.path.join(args[0], "include", "gnndirect")
    problems, checked = [], 0
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if only is not None and component(rel) != only:
                continue
            checked += 1
            with open(path, encoding="utf-8") as f:
                problems += check_header(rel, f.read())
    if only is None:
        with open(os.path.join(root, "gnndirect.cuh"), encoding="utf-8") as f:
            listed = set(INCLUDE.findall(f.read()))
        for rel in sorted(set(public_headers(root)) - listed):
            problems.append(f"gnndirect.cuh: [umbrella] does not include '{rel}'")
    problems = [p for p in problems if not any(f"[{rule}]" in p for rule in skip)]
    for p in problems:
        print(p)
    print(f"{checked} headers checked, {len(problems)} violations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
