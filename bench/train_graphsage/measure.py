"""Clocks and meters of the run: CUDA-event spans of the real loop, the loader's share of an epoch,
CPU core-seconds of this process and its workers, host memory (peak RSS, in use)."""

from __future__ import annotations

import contextlib
import resource
import time

import torch

try:  # counts live DataLoader workers; RUSAGE_CHILDREN only sees children that have ended
    import psutil
except ImportError:  # pragma: no cover - psutil is on the H200 image
    psutil = None


def peak_rss_bytes():
    """Peak resident set of this process since the last reset_peak_rss() (VmHWM), else since
    start (ru_maxrss)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def host_used_bytes():
    """Host memory in use system-wide (MemTotal - MemAvailable): counts what VmHWM may not
    (managed memory resident on the CPU is mapped by the driver, and not every kernel charges it
    to the process's RSS). 0 when /proc/meminfo is unreadable."""
    fields = {}
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                name, value = line.split(":", 1)
                fields[name] = int(value.split()[0]) * 1024
    except (OSError, ValueError):
        return 0
    return max(0, fields.get("MemTotal", 0) - fields.get("MemAvailable", 0))


def reset_peak_rss():
    """Resets VmHWM to the current resident set (Linux: 5 > /proc/self/clear_refs); silently
    keeps the running peak where that is not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed_batches(iterator, max_batches, times):
    """Yields at most `max_batches` (None: all) items of `iterator`, adding the time spent waiting
    for each to times["wait_s"] (the loader's share of the epoch)."""
    done = 0
    while max_batches is None or done < max_batches:
        t0 = time.perf_counter()
        item = next(iterator, None)
        if item is None:
            return
        times["wait_s"] += time.perf_counter() - t0
        yield item
        done += 1

class Spans:
    """Total time of code spans in the real loop: GPU time between CUDA event pairs, read once
    after the epoch's final sync (nothing syncs inside the loop, so its overlap stays); host
    wall time on the CPU."""

    def __init__(self, device):
        self.cuda, self.pairs, self.host = device.type == "cuda", [], 0.0

    @contextlib.contextmanager
    def span(self):
        if not self.cuda:
            t0 = time.perf_counter()
            yield
            self.host += time.perf_counter() - t0
            return
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        yield
        end.record()
        self.pairs.append((start, end))

    def seconds(self):
        """The total in seconds (after a synchronize)."""
        return self.host + sum(a.elapsed_time(b) for a, b in self.pairs) / 1e3


CPU_METER = ("getrusage(SELF) + psutil cpu_times of live children + getrusage(CHILDREN) of ended "
             "ones" if psutil is not None else
             "getrusage(SELF + CHILDREN) only: live DataLoader workers are NOT counted (no psutil)")


def cpu_seconds():
    """CPU core-seconds (user + system) used so far by this process and its children."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    if psutil is not None:
        for child in psutil.Process().children(recursive=True):
            try:
                times = child.cpu_times()
                total += times.user + times.system
            except psutil.Error:  # ended meanwhile: RUSAGE_CHILDREN has it once reaped
                pass
    return total
