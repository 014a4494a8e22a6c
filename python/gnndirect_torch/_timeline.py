"""The caller's side of an epoch timeline (:class:`LoaderTimeline`), recorded by a
:class:`~gnndirect_torch.NeighborLoader` given one (off the batch road otherwise)."""

from __future__ import annotations

import json
import time
from typing import List

import torch


class LoaderTimeline:
    """The caller's side of an epoch timeline (the JSON format of the C++ ``pipeline_timeline``,
    drawn by ``scripts/results.py timeline``): per batch, on the stream that consumed it (lane
    ``consumer``), the caller's ``step`` from the batch's hand-off (recorded on the current stream
    once it waits for the batch) to the next ``next()`` call, and on lane ``loader (host)`` the
    host time each ``next()`` took (``next``: waiting for the pipeline). CUDA timing events on the
    current stream; nothing is recorded without a timeline (``NeighborLoader(timeline=None)``, the
    default). Each ``iter(loader)`` restarts it, so it holds the latest epoch. The pipeline's own
    stages (sampling, gathers per slot stream) are recorded by the C++ pipeline
    (``pipeline_options::timeline``, ``bench/epoch --timeline``).
    """

    def __init__(self):
        self._origin = None
        self._host_origin = 0.0
        self._spans: List[tuple] = []  # (lane, batch, stage, begin, end, gpu): events or seconds
        self._open_step = None  # (batch, begin event) of the step in progress

    def start(self) -> None:
        """Sets the time origin on the current stream (waits for it) and drops the spans so far."""
        self._origin = torch.cuda.Event(enable_timing=True)
        self._origin.record()
        self._origin.synchronize()
        self._host_origin = time.perf_counter()
        self._spans = []
        self._open_step = None

    def _mark(self):
        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def _before_next(self, host_start: float) -> None:
        """Closes the step of the batch handed out last (the caller's work enqueued since)."""
        if self._open_step is not None:
            batch, begin = self._open_step
            self._spans.append(("consumer", batch, "step", begin, self._mark(), True))
            self._open_step = None

    def _after_next(self, batch: int, host_start: float) -> None:
        """Opens the step of `batch` (its hand-off on the current stream) and adds the host span."""
        self._spans.append(("loader (host)", batch, "next", host_start, time.perf_counter(), False))
        if batch >= 0:
            self._open_step = (batch, self._mark())

    def spans(self) -> list:
        """The closed spans as dicts (lane, batch, stage, start, end in ms since start(), gpu);
        waits for their events."""
        if self._origin is None:
            return []
        out = []
        for lane, batch, stage, begin, end, gpu in self._spans:
            if gpu:
                end.synchronize()
                a, b = self._origin.elapsed_time(begin), self._origin.elapsed_time(end)
            else:
                a, b = 1e3 * (begin - self._host_origin), 1e3 * (end - self._host_origin)
            out.append({"lane": lane, "batch": batch, "stage": stage, "start": a, "end": b, "gpu": gpu})
        return out

    def to_json(self, **extra) -> str:
        """The spans as the timeline JSON ({"unit": "ms", "lanes", "spans"}, plus `extra`)."""
        spans = self.spans()
        lanes = list(dict.fromkeys(s["lane"] for s in spans))
        return json.dumps(dict({"unit": "ms"}, **extra, lanes=lanes, spans=spans), indent=1)

    def write_json(self, file: str, /, **extra) -> None:
        """Writes :meth:`to_json` to ``file`` (positional, so that ``extra`` may hold a ``path``
        field: the run's path name, as the demo's timelines have it)."""
        with open(file, "w") as f:
            f.write(self.to_json(**extra))
