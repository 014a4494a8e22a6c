#!/usr/bin/env python3
"""Tests scripts/ without a GPU and without building anything:
- scripts/ holds only the durable tools, and each answers --help (also every `scripts/gpu`
  command) with exit 0 and a usage line, creating no build directory;
- the retired scripts are named nowhere outside bench/results/ (records of past runs);
- `scripts/gpu check` on carried test executables (stand-ins, no CMake tree): pass, skip (77)
  and fail counted, the memory-measuring suites run after the others, exit 1 on a failure;
- `scripts/gpu demo` and `bench` on carried executables (no build, the carried benchmark library
  on the loader path);
- `scripts/gpu sanitize` with a stand-in compute-sanitizer: the jobs it schedules (split per
  test case, racecheck's case exclusions, test_gpu_resource_faults last, SANITIZE_ONLY,
  DEADLINE);
- `scripts/gpu compare` with stand-in benchmarks of prebuilt old/new folders: old and new
  alternate in every round, and the medians and new/old come out right;
- `scripts/gpu paper demo` with a stand-in demo: its arguments per shape and its outputs;
- `scripts/gpu overlap` with stand-in bench_gather and epoch: their arguments, the timeline
  summaries and the tables it prints last;
- scripts/results.py table and compare on fabricated JSON with known answers, and table on a
  committed bench/results JSON; plot gather and plot headline where matplotlib imports.
usage: check_scripts.py REPO_ROOT   (exit 0: passed; 1: a check failed)
"""
import json
import os
import re
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
GPU = os.path.join(ROOT, "scripts", "gpu")
RESULTS = os.path.join(ROOT, "scripts", "results.py")
DURABLE = {"api_doc.py", "demo", "fuzz", "gpu", "install-deps", "migrate-0.2", "results.py", "test"}
RETIRED = ["gpu-check", "gpu-session", "gpu-compare", "gpu-torch-paper", "prebuild-carry", "torch-check",
           "build-torch-sparse", "paper-table", "paper_table.py", "bench_table.py", "compare_bench.py",
           "plot_gather.py", "plot_headline.py"]
GPU_COMMANDS = ["check", "sanitize", "bench", "all", "demo", "session", "compare", "torch", "torch-sparse",
                "paper", "prebuild", "overlap"]
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAILED: " + what)


def write_exe(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def run(cmd, env_extra, cwd=ROOT):
    env = dict(os.environ)
    env.update(env_extra)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def check_help(tmp):
    names = sorted(n for n in os.listdir(os.path.join(ROOT, "scripts")) if not n.startswith("."))
    check(set(names) == DURABLE, "scripts/ holds %s, expected exactly %s" % (names, sorted(DURABLE)))
    nowhere = os.path.join(tmp, "no-such-build")
    env = {"BUILD_DIR": nowhere, "GNNDIRECT_BUILD_DIR": nowhere, "FUZZ_BUILD_DIR": nowhere,
           "OUT": os.path.join(tmp, "help-out")}
    calls = [[os.path.join(ROOT, "scripts", n), "--help"] for n in names]
    calls += [[GPU, c, "--help"] for c in GPU_COMMANDS] + [[RESULTS, c, "--help"] for c in ("table", "compare", "paper", "timeline", "overlap", "link")]
    for cmd in calls:
        proc = run(cmd, env)
        what = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
        check(proc.returncode == 0, "%s: exit %d (%s)" % (what, proc.returncode, proc.stderr[-300:]))
        check(re.search(r"(?im)^usage: ", proc.stdout) is not None, "%s: no usage line in %r" % (what, proc.stdout[:200]))
        check(not os.path.exists(nowhere), "%s created the build directory" % what)
    proc = run([GPU, "no-such-command"], env)
    check(proc.returncode == 2, "scripts/gpu no-such-command: exit %d, expected 2" % proc.returncode)
    proc = run([GPU, "check", "no-such-stage"], env)
    check(proc.returncode == 2 and "unknown stage" in proc.stderr, "scripts/gpu check no-such-stage: exit %d" % proc.returncode)
    proc = run([GPU, "prebuild", "no-such-stage"], env)
    check(proc.returncode == 2 and not os.path.exists(nowhere), "scripts/gpu prebuild no-such-stage: exit %d" % proc.returncode)


def check_references():
    """The retired scripts' names appear in no file that tells a reader what to run."""
    places = ["README.md", ".ci", "docs", "examples", "python", "test", "bench", "CMakeLists.txt", "cmake", "scripts"]
    pattern = re.compile(r"scripts/(%s)\b" % "|".join(re.escape(n) for n in RETIRED))
    for place in places:
        top = os.path.join(ROOT, place)
        files = [top] if os.path.isfile(top) else [os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs]
        for path in files:
            rel = os.path.relpath(path, ROOT)
            if rel.startswith(os.path.join("bench", "results")) or rel == os.path.join("test", "python", "check_scripts.py"):
                continue  # records of past runs name what ran then; this file names them to forbid them
            try:
                text = open(path, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                check(False, "%s:%d names the retired %s" % (rel, line, m.group(0)))


def fake_build(tmp):
    """A BUILD_DIR with stand-in GPU test executables (no CMake tree) and a stand-in sanitizer."""
    build = os.path.join(tmp, "carried")
    log = os.path.join(tmp, "order.log")
    body = '#!/bin/sh\necho "$(basename "$0") $*" >> %s\n' % log
    write_exe(os.path.join(build, "test", "test_gpu_a"), body + "exit 0\n")
    write_exe(os.path.join(build, "test", "test_gpu_b"), body + "exit 77\n")
    write_exe(os.path.join(build, "test", "test_gpu_memory"), body + "exit 0\n")
    write_exe(os.path.join(build, "test", "test_gpu_resource_faults"), body + "exit 0\n")
    write_exe(os.path.join(build, "test", "test_gpu_pipeline"),
              '#!/bin/sh\nif [ "$1" = --list-test-cases ]; then\n'
              '  printf "[doctest] doctest version\\n=====\\ncase one\\ncase, it\'s two\\n=====\\n[doctest] 2 cases\\n"; exit 0\nfi\n'
              + body + "exit 0\n")
    write_exe(os.path.join(build, "test", "not_a_gpu_test"), "#!/bin/sh\nexit 1\n")
    bindir = os.path.join(tmp, "bin")
    # compute-sanitizer --tool T [--leak-check full] --error-exitcode 99 EXE ARGS...
    write_exe(os.path.join(bindir, "compute-sanitizer"),
              '#!/bin/sh\ntool=$2\nwhile [ "$1" != --error-exitcode ]; do shift; done; shift 2\n'
              'exe=$1; shift\necho "sanitizer $tool $(basename "$exe") $*" >> %s\n"$exe" "$@"; rc=$?\n'
              '[ $rc = 0 ] || [ $rc = 77 ] || exit 99\n' % log)
    return build, bindir, log


def read(path):
    with open(path) as f:
        return f.read()


def check_gpu_check(tmp):
    build, bindir, log = fake_build(tmp)
    out = os.path.join(tmp, "check-out")
    env = {"BUILD_DIR": build, "OUT": out, "PATH": bindir + os.pathsep + os.environ["PATH"]}
    proc = run([GPU, "check", "build", "test"], env)
    summary = read(os.path.join(out, "summary.txt"))
    check(proc.returncode == 0, "check on carried executables: exit %d\n%s" % (proc.returncode, proc.stdout[-800:]))
    check("skipped: " in summary and "carried executables" in summary, "check: build not skipped without a CMake tree:\n" + summary)
    check(re.search(r"tests -E \S+ 1 passed, 1 skipped, 0 failed", summary) is not None, "check: counts of the parallel part:\n" + summary)
    check(re.search(r"tests -R \S+ 3 passed, 0 skipped, 0 failed", summary) is not None, "check: counts of the serial part:\n" + summary)
    order = [l.split()[0] for l in read(log).splitlines()]
    check(order.index("test_gpu_memory") > max(order.index("test_gpu_a"), order.index("test_gpu_b")),
          "check: the memory-measuring suites did not run after the others: %s" % order)
    check("not_a_gpu_test" not in order, "check ran an executable that is not test_gpu_*")
    # a failing suite: exit 1 and named
    write_exe(os.path.join(build, "test", "test_gpu_b"), "#!/bin/sh\nexit 3\n")
    proc = run([GPU, "check", "test"], env)
    summary = read(os.path.join(out, "summary.txt"))
    check(proc.returncode == 1, "check with a failing suite: exit %d, expected 1" % proc.returncode)
    check("test_gpu_b(rc=3)" in summary, "check: the failing suite is not named:\n" + summary)
    check("==== scripts/gpu check summary" in proc.stdout.splitlines()[-len(summary.splitlines()) - 1],
          "check: the summary table is not printed last:\n" + proc.stdout[-600:])
    write_exe(os.path.join(build, "test", "test_gpu_b"), "#!/bin/sh\nexit 77\n")


def check_gpu_demo_bench(tmp):
    """Carried demo and benchmark executables run without a build; the carried Google Benchmark
    library folder is on the loader path."""
    build = os.path.join(tmp, "carried-demo")
    write_exe(os.path.join(build, "bench", "epoch"), '#!/bin/sh\necho "demo $*"\n')
    write_exe(os.path.join(build, "bench", "bench_y"),
              '#!/bin/sh\nfor a; do case $a in --benchmark_out=*) f=${a#*=};; esac; done\n'
              'echo "{\\"ld\\": \\"$LD_LIBRARY_PATH\\"}" > "$f"\n')
    os.makedirs(os.path.join(build, "benchlib"))
    out = os.path.join(tmp, "demo-out")
    proc = run([GPU, "demo", "--preset small;--preset products --epochs 2"], {"BUILD_DIR": build, "OUT": out})
    summary = read(os.path.join(out, "summary.txt"))
    check(proc.returncode == 0 and "carried executables" in summary, "demo on a carried executable: exit %d\n%s" % (proc.returncode, summary))
    check(read(os.path.join(out, "demo-2.txt")).strip() == "demo --preset products --epochs 2 --json %s" % os.path.join(out, "demo-2.json"),
          "demo: the second argument list: %r" % read(os.path.join(out, "demo-2.txt")))
    proc = run([GPU, "bench", "bench_y"], {"BUILD_DIR": build, "OUT": out})
    ld = json.loads(read(os.path.join(out, "bench_y.json")))["ld"]
    check(proc.returncode == 0 and ld.startswith(os.path.join(build, "benchlib") + ":"),
          "bench on a carried executable: exit %d, LD_LIBRARY_PATH %r" % (proc.returncode, ld))


def check_gpu_paper(tmp):
    """`scripts/gpu paper demo` runs the demo per shape with the demo part's arguments, packs the raw
    logs and joins them (scripts/results.py paper), without a GPU or power log."""
    log = os.path.join(tmp, "paper-args.log")
    demo = os.path.join(tmp, "paper-demo")
    write_exe(demo, '#!/bin/sh\necho "$*" >> %s\n' % log)
    out = os.path.join(tmp, "paper-out")
    proc = run([GPU, "paper", "demo"], {"DEMO_BIN": demo, "OUT": out, "SHAPES": "reddit papers100m",
                                        "PATH": os.path.join(tmp, "no-smi") + os.pathsep + os.environ["PATH"]})
    lines = read(log).splitlines() if os.path.exists(log) else []
    want = ["--preset reddit --epochs 5 --paths gnndirect,cpu,transfer --cpu-max-batches 0 --json %s/demo/raw/reddit.json" % out,
            "--preset papers100m --paths gnndirect,cpu,transfer,graph-hbm,cached,cached-graph-hbm,gpu "
            "--cpu-max-batches 0 --json %s/demo/raw/papers100m.json" % out]
    check(lines == want, "paper demo: demo runs %r, expected %r" % (lines, want))
    for name in ("paper-table.md", "paper-table.json", "paper-table-raw.tgz"):
        check(os.path.exists(os.path.join(out, "demo", name)), "paper demo: no demo/%s" % name)
    summary = read(os.path.join(out, "summary.txt"))
    check("paper demo papers100m" in summary and "paper table" in summary, "paper demo: summary:\n" + summary)


def check_gpu_overlap(tmp):
    """`scripts/gpu overlap` on stand-in executables (no build): bench_gather with the link study's
    filter, bench/epoch once per codec with the overlap sweep and timelines, then the summaries."""
    log = os.path.join(tmp, "overlap-args.log")
    gather = os.path.join(tmp, "overlap-gather")
    write_exe(gather, '#!/bin/sh\necho "gather $*" >> %s\n'
              'for a; do case $a in --benchmark_out=*) f=${a#*=};; esac; done\n'
              'echo \'{"benchmarks": [{"name": "link_peak/iterations:1/manual_time", "GBps": 10.0}, '
              '{"name": "link_peak_zero_copy/iterations:7/manual_time", "GBps": 8.0}, '
              '{"name": "gather_link/pinned/row_bytes:512/warp_per_row/iterations:7/manual_time", "GBps": 7.0}, '
              '{"name": "gather_link/pinned/row_bytes:512/gnndirect/iterations:7/manual_time", "GBps": 5.0}, '
              '{"name": "gather_link/pinned/row_bytes:512/blocks:64/rows:2/tile:32/iterations:7/manual_time", "GBps": 6.0}]}\' '
              '> "$f"\n' % log)
    demo = os.path.join(tmp, "overlap-demo")
    write_exe(demo, '#!/bin/sh\necho "demo $*" >> %s\n'
              'while [ $# -gt 0 ]; do case $1 in --json) j=$2;; --timeline) t=$2;; --codec) c=$2;; esac; shift; done\n'
              'echo \'{"codec": "\'$c\'", "overlap": [{"variant": "prio", "path": "graph-in-hbm", "epoch_seconds": 2.0, '
              '"all_in_gpu_seconds": 1.0, "link_floor_seconds": 1.5, "sum_seconds": 2.5, "max_seconds": 1.5, '
              '"overlap": 0.5}]}\' > "$j"\n'
              'echo \'{"unit": "ms", "path": "gnndirect", "spans": [{"lane": "slot 0", "batch": 0, "stage": "sample", '
              '"start": 0, "end": 2, "gpu": true}, {"lane": "slot 1", "batch": 1, "stage": "features", "start": 1, '
              '"end": 3, "gpu": true}]}\' > "${t%%.json}-gnndirect-base.json"\n' % log)
    out = os.path.join(tmp, "overlap-out")
    proc = run([GPU, "overlap"], {"GATHER_BIN": gather, "DEMO_BIN": demo, "OUT": out, "CODECS": "int8 fp32",
                                  "PATH": os.path.join(tmp, "no-mpl") + os.pathsep + os.environ["PATH"]})
    check(proc.returncode == 0, "overlap: exit %d\n%s" % (proc.returncode, proc.stdout[-1500:]))
    lines = read(log).splitlines() if os.path.exists(log) else []
    check(len(lines) == 3 and lines[0].startswith("gather --link-gib 16 --benchmark_filter=^link_peak|gather_link"),
          "overlap: runs %r" % lines)
    for codec, line in zip(("int8", "fp32"), lines[1:]):
        check(("--preset papers100m --scale 0.5 --codec %s --paths graph-hbm,gnndirect,gpu" % codec) in line
              and "--overlap-sweep base,prio," in line and "--timeline %s/timeline-%s.json" % (out, codec) in line
              and "--timeline-variants base,prio,w1" in line, "overlap: demo run %r" % line)
    check("fastest graph-in-hbm: prio 2.000 s (overlap 0.50)" in proc.stdout, "overlap: no overlap table:\n" + proc.stdout[-1500:])
    check("plain" in proc.stdout and "blocks:64/rows:2/tile:32" in proc.stdout, "overlap: no link table:\n" + proc.stdout[-1500:])
    check("both at once 1.0 ms" in read(os.path.join(out, "timelines.txt")), "overlap: timelines.txt: %r" %
          read(os.path.join(out, "timelines.txt")))
    proc = run([GPU, "overlap", "nonsense"], {"OUT": out})
    check(proc.returncode == 2 and "unknown stage" in proc.stderr, "overlap nonsense: exit %d" % proc.returncode)


def check_gpu_sanitize(tmp):
    build, bindir, log = fake_build(os.path.join(tmp, "s"))
    out = os.path.join(tmp, "sanitize-out")
    env = {"BUILD_DIR": build, "OUT": out, "PATH": bindir + os.pathsep + os.environ["PATH"],
           "SANITIZE_TOOLS": "memcheck racecheck", "SANITIZE_REGEX": "test_gpu_pipeline|test_gpu_resource_faults",
           "SANITIZE_JOBS": "2"}
    proc = run([GPU, "check", "sanitize"], env)
    check(proc.returncode == 0, "sanitize: exit %d\n%s" % (proc.returncode, proc.stdout[-800:]))
    results = sorted(l.split()[:3] for l in read(os.path.join(out, "sanitize-results.txt")).splitlines())
    names = {(t, n) for t, n, _ in results}
    expected = {("memcheck", "test_gpu_a"), ("memcheck", "test_gpu_b"), ("memcheck", "test_gpu_memory"),
                ("memcheck", "test_gpu_pipeline@case_one"), ("memcheck", "test_gpu_pipeline@case__it_s_two"),
                ("memcheck", "test_gpu_resource_faults"), ("racecheck", "test_gpu_pipeline@case_one"),
                ("racecheck", "test_gpu_pipeline@case__it_s_two"), ("racecheck", "test_gpu_resource_faults")}
    check(names == expected, "sanitize: runs %s, expected %s" % (sorted(names), sorted(expected)))
    check(all(rc == "0" for _, _, rc in results), "sanitize: a run failed: %s" % results)
    lines = read(log).splitlines()
    check(lines[-1].startswith("test_gpu_resource_faults"), "sanitize: test_gpu_resource_faults did not run last: %s" % lines[-4:])
    race = [l for l in lines if l.startswith("sanitizer racecheck ")]
    check(race and all("--test-case-exclude=*2^31*,*papers100M*,*soak*" in l for l in race),
          "sanitize: racecheck runs without the case exclusions: %s" % race)
    check(any("--test-case=case??it?s?two" in l for l in race), "sanitize: no single-case racecheck run of 'case, it's two': %s" % race)
    summary = read(os.path.join(out, "summary.txt"))
    check("sanitizer memcheck                 6 clean, 0 failing, 0 not run" in summary, "sanitize: memcheck line:\n" + summary)
    check(os.path.exists(os.path.join(out, "sanitize-logs.tgz")), "sanitize: no sanitize-logs.tgz")
    # SANITIZE_ONLY picks pairs; DEADLINE=0 starts none of them
    env.update({"SANITIZE_ONLY": "racecheck test_gpu_a,memcheck test_gpu_resource_faults", "SANITIZE_REGEX": ""})
    run([GPU, "check", "sanitize"], env)
    names = {tuple(l.split()[:2]) for l in read(os.path.join(out, "sanitize-results.txt")).splitlines()}
    check(names == {("racecheck", "test_gpu_a"), ("memcheck", "test_gpu_resource_faults")}, "SANITIZE_ONLY: runs %s" % names)
    env["DEADLINE"] = "0"
    run([GPU, "check", "sanitize"], env)
    rcs = {l.split()[2] for l in read(os.path.join(out, "sanitize-results.txt")).splitlines()}
    check(rcs == {"not-run"}, "DEADLINE=0: some sanitizer run started: %s" % rcs)


def check_gpu_compare(tmp):
    log = os.path.join(tmp, "compare-order.log")
    # a stand-in Google Benchmark binary: GB/s by side and round (rate), real time fixed
    for side, rates in (("old", "10 30 20"), ("new", "12 36 24")):
        write_exe(os.path.join(tmp, side, "bench", "bench_x"),
                  '#!/bin/sh\nfor a; do case $a in --benchmark_out=*) f=${a#*=};; esac; done\n'
                  'round=$(echo "$f" | sed "s/.*-\\([0-9]*\\)\\.json/\\1/")\n'
                  'rate=$(echo "%s" | cut -d" " -f"$round")\necho "%s $round" >> %s\n'
                  'printf \'{"benchmarks":[{"name":"gather/x","run_type":"iteration","real_time":%s,"GBps":%%s},'
                  '{"name":"t","real_time":%s}]}\' "$rate" > "$f"\n' % (rates, side, log, 5, 4 if side == "old" else 2))
    out = os.path.join(tmp, "compare-out")
    env = {"OLD_BUILD_DIR": os.path.join(tmp, "old"), "NEW_BUILD_DIR": os.path.join(tmp, "new"), "OUT": out, "ROUNDS": "3"}
    proc = run([GPU, "compare", "bench_x"], env)
    check(proc.returncode == 0, "compare: exit %d\n%s%s" % (proc.returncode, proc.stdout[-800:], proc.stderr[-400:]))
    check(read(log).split("\n")[:-1] == ["old 1", "new 1", "old 2", "new 2", "old 3", "new 3"],
          "compare: old and new do not alternate: %r" % read(log))
    text = read(os.path.join(out, "compare.txt"))
    m = re.search(r"^gather/x\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) \(rate\)", text, re.M)
    check(m is not None and [float(g) for g in m.groups()] == [20.0, 24.0, 1.2], "compare: rate medians:\n" + text)
    m = re.search(r"^t\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) \(time\)", text, re.M)
    check(m is not None and [float(g) for g in m.groups()] == [4.0, 2.0, 2.0], "compare: time medians (old/new):\n" + text)


def check_results(tmp):
    bench = {"context": {}, "benchmarks": [
        {"name": "link_peak", "GBps": 55.5}, {"name": "device_copy/x", "GBps_read_write": 4000.0},
        {"name": "gather/pinned/table_MiB:256/row_B:128", "GBps": 40.25},
        {"name": "gather/device/table_MiB:256/row_B:128", "GBps": 1500.0},
        {"name": "gather/pinned/table_MiB:256/row_B:64", "GBps": 20.0}]}
    path = os.path.join(tmp, "bench.json")
    with open(path, "w") as f:
        json.dump(bench, f)
    proc = run([sys.executable, RESULTS, "table", path, "--markdown", "--paths", "pinned,device"], {})
    lines = proc.stdout.splitlines()
    check(proc.returncode == 0 and lines[0].startswith("link peak (pinned H2D memcpy): 55.5 GB/s; device copy (read+write): 4000"),
          "results table: header %r (exit %d)" % (lines[:1], proc.returncode))
    check(lines[1:] == ["| table MiB | row B | pinned | device |", "|---|---|---|---|",
                        "| 256 | 64 | 20.0 | nan |", "| 256 | 128 | 40.2 | 1500.0 |"], "results table: rows %r" % lines[1:])
    committed = os.path.join(ROOT, "bench", "results", "2026-12-02-h200-gather.json")
    if os.path.exists(committed):
        proc = run([sys.executable, RESULTS, "table", committed], {})
        check(proc.returncode == 0 and len(proc.stdout.splitlines()) > 3, "results table on %s: exit %d" % (committed, proc.returncode))
    raw = os.path.join(tmp, "raw-empty")
    os.makedirs(raw)
    proc = run([sys.executable, RESULTS, "compare", raw], {})
    check(proc.returncode == 1 and "no benchmark" in proc.stderr, "results compare on an empty folder: exit %d" % proc.returncode)
    proc = run([sys.executable, RESULTS, "nonsense"], {})
    check(proc.returncode == 2, "results.py nonsense: exit %d, expected 2" % proc.returncode)


def check_plots(tmp):
    """plot gather and plot headline write PNGs from committed results (only where matplotlib imports)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib missing: plot subcommands not checked")
        return
    for kind, name, extra in (("gather", "2026-12-02-h200-gather.json", ["256"]),
                              ("headline", "2026-12-04-h200-train-graphsage-products-all-paths.json", [])):
        src = os.path.join(ROOT, "bench", "results", name)
        if not os.path.exists(src):
            continue
        png = os.path.join(tmp, kind + ".png")
        proc = run([sys.executable, RESULTS, "plot", kind, src, png] + extra, {})
        ok = proc.returncode == 0 and os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
        check(ok, "results plot %s: exit %d, no PNG (%s)" % (kind, proc.returncode, proc.stderr[-300:]))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        check_help(tmp)
        check_references()
        check_gpu_check(tmp)
        check_gpu_demo_bench(tmp)
        check_gpu_sanitize(tmp)
        check_gpu_paper(tmp)
        check_gpu_overlap(tmp)
        check_gpu_compare(tmp)
        check_results(tmp)
        check_plots(tmp)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("scripts: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
