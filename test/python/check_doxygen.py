#!/usr/bin/env python3
"""Runs Doxygen on the public headers (docs/Doxyfile) and fails on any warning: an undocumented
public entity, a parameter without @param, a return value without @return, a malformed command.
Doxygen does not check template parameters, so this script also reads Doxygen's XML and fails
on any template parameter of a documented public template that has no @tparam.
Usage: check_doxygen.py <repo root> [output dir]. Exit 1 (with every problem printed) on a
warning, a missing @tparam, or when doxygen is not installed (Debian package `doxygen`;
scripts/install-deps installs it).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET



def template_problems(xml_dir):
    """(file, line, text) for each template parameter of a documented entity without @tparam."""
    out = []
    for name in sorted(os.listdir(xml_dir)):
        if not name.endswith(".xml") or name == "index.xml":
            continue
        root = ET.parse(os.path.join(xml_dir, name)).getroot()
        for node in root.iter():
            if node.tag not in ("compounddef", "memberdef"):
                continue
            if node.get("prot") == "private":  # not public API (Doxygen documents none of it)
                continue
            params = node.find("templateparamlist")
            if params is None:
                continue
            names = []
            for p in params.findall("param"):
                decl = p.findtext("declname") or ""
                if not decl:  # Doxygen puts an unnamed-in-declname parameter into its type
                    m = re.search(r"(\w+)\s*$", "".join(p.find("type").itertext()) if p.find("type") is not None else "")
                    decl = m.group(1) if m and m.group(1) not in ("class", "typename") else ""
                if decl:
                    names.append(decl)
            documented = set()
            for plist in node.iter("parameterlist"):
                if plist.get("kind") == "templateparam":
                    for pn in plist.iter("parametername"):
                        documented.add("".join(pn.itertext()).strip())
            missing = [n for n in names if n not in documented]
            if not missing:
                continue
            what = node.findtext("qualifiedname") or node.findtext("compoundname") or node.findtext("name")
            loc = node.find("location")
            file = loc.get("file", "?") if loc is not None else "?"
            line = loc.get("line", "1") if loc is not None else "1"
            out.append((file, line, f"template parameter(s) {', '.join(missing)} of {what} have no @tparam"))
    return out


def member_files(xml_dir):
    """Qualified member name -> headers declaring it, from the XML: Doxygen reports some members
    (inline bodies in a class) as `<name>:1:` without their file, which the report then adds."""
    out = {}
    if not os.path.isdir(xml_dir):
        return out
    for name in os.listdir(xml_dir):
        if name.endswith(".xml") and name != "index.xml":
            for m in ET.parse(os.path.join(xml_dir, name)).getroot().iter("memberdef"):
                loc = m.find("location")
                h = header_of(loc.get("file", "")) if loc is not None else None
                if h:
                    out.setdefault(m.findtext("qualifiedname"), set()).add(h)
    return out


def header_of(path):
    """include/gnndirect-relative header of a warning's file, or None."""
    m = re.search(r"(?:^|/)(gnndirect/\S+?\.(?:hpp|cuh))", path)
    return m.group(1) if m else None


def headers_of(warning, members):
    """Headers a warning belongs to (several for an overload set reported without a file)."""
    h = header_of(warning.split(":", 1)[0])
    if h:
        return {h}
    m = re.search(r"of member (\S+) ", warning)
    return members.get(m.group(1), set()) if m else set()


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    root = os.path.abspath(sys.argv[1])
    doxygen = shutil.which("doxygen")
    if not doxygen:
        print("check_doxygen: FAILED: doxygen is not installed (Debian package `doxygen`; "
              "scripts/install-deps installs it)")
        sys.exit(1)
    out = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="gnndirect-doxygen-")
    for stale in ("xml", "rtf"):  # Doxygen never deletes the files of entities that are gone
        shutil.rmtree(os.path.join(out, stale), ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, GNNDIRECT_DOXYGEN_OUT=out)
    run = subprocess.run([doxygen, os.path.join("docs", "Doxyfile")], cwd=root, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # One warning may span several lines (the parameter names follow it indented).
    warnings = []
    for line in run.stdout.splitlines():
        if re.match(r"^\S.*:\d+: ", line):
            warnings.append(line)
        elif warnings and line.strip():
            warnings[-1] += "\n" + line
        elif line.strip():
            warnings.append(line)
    warnings = list(dict.fromkeys(warnings))  # each output format repeats them
    xml_dir = os.path.join(out, "xml")
    if os.path.isdir(xml_dir):
        warnings += [f"{f}:{l}: error: {t}" for f, l, t in template_problems(xml_dir)]
    elif run.returncode == 0:
        warnings.append("no XML output from doxygen (docs/Doxyfile: GENERATE_XML)")
    failing = []
    members = member_files(xml_dir)
    for w in warnings:
        where = "" if header_of(w.split(":", 1)[0]) else ", ".join(sorted(headers_of(w, members)))
        failing.append(w + (f"   [in {where}]" if where else ""))
    if run.returncode != 0 and not warnings:
        failing.append(f"doxygen exited {run.returncode}:\n{run.stdout}")
    for w in failing:
        print(w)
    if failing:
        print(f"check_doxygen: FAILED: {len(failing)} problem(s) in the public headers' documentation")
        sys.exit(1)
    print(f"check_doxygen: OK: every public entity, parameter, return value and template parameter "
          f"is documented ({doxygen})")

if __name__ == "__main__":
    main()
