"""Row codecs of a :class:`~gnndirect_torch.Table`: the accepted names, the dtypes they decode to,
and the encoder's error report (the encoding itself runs in the C++ encoder, ``encode_rows``)."""

from __future__ import annotations

from typing import NamedTuple, Optional

import torch


#: Row codecs a Table accepts: the library's names (gnndirect::codecs, device/codecs.hpp) and
#: the short forms. None and "fp32" store the rows as they are (fp32: converted to float32).
CODECS = {"fp32": "fp32", "fp16": "fp16", "bf16": "bf16", "int8": "int8_affine",
          "int8_affine": "int8_affine", "fp8": "fp8_e4m3", "fp8_e4m3": "fp8_e4m3",
          "int4": "int4_affine", "int4_affine": "int4_affine"}

#: dtypes a codec decodes to (every library codec produces all three).
DECODED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)

#: Rows encoded per chunk: bounds the host staging (device placement, streamed files) and the
#: per-chunk conversions to about 64 MiB of input.
_ENCODE_CHUNK_BYTES = 64 << 20


def canonical_codec(codec) -> Optional[str]:
    """The library's name of ``codec`` (None stays None).

    Raises:
        ValueError: an unknown codec name, listing the known ones.  TypeError: not a string.
    """
    if codec is None:
        return None
    if not isinstance(codec, str):
        raise TypeError(f"codec must be a string or None, got {type(codec).__name__}")
    name = CODECS.get(codec.lower())
    if name is None:
        raise ValueError(f"unknown codec {codec!r}; known: None, " + ", ".join(sorted(CODECS)))
    return name


class CodecError(NamedTuple):
    """The encoder's error per column (float64 CPU tensors of ``cols`` entries), measured once at
    encoding as |decode(encode(x)) - x| in fp32 against the input: ``max_abs``, ``mean_abs``
    (over the rows), ``relative`` (max_abs / the column's largest |x|; 0 for an all-zero
    column). All zero for tables without a lossy codec."""
    max_abs: torch.Tensor
    mean_abs: torch.Tensor
    relative: torch.Tensor

    def summary(self) -> dict:
        """Worst column of each measure, as floats: {max_abs, mean_abs, relative}."""
        def worst(t):
            return float(t.max()) if t.numel() else 0.0
        return {"max_abs": worst(self.max_abs), "mean_abs": worst(self.mean_abs),
                "relative": worst(self.relative)}


def _zero_error(cols: int) -> CodecError:
    zeros = torch.zeros(cols, dtype=torch.float64)
    return CodecError(zeros, zeros.clone(), zeros.clone())


def _error_from_stats(stats: torch.Tensor, rows: int) -> CodecError:
    """CodecError from encode_rows' accumulated [max abs, sum abs, max |x|] over ``rows`` rows."""
    peak = stats[2]
    relative = torch.where(peak > 0, stats[0] / peak.clamp_min(1e-300), torch.zeros_like(peak))
    return CodecError(stats[0].clone(), stats[1] / max(rows, 1), relative)


def _check_finite(x: torch.Tensor, what: str) -> None:
    """ValueError naming the first row and column of ``x`` that is NaN or infinite (chunked, so
    no full-size temporary)."""
    rows = x.shape[0]
    step = max(1, _ENCODE_CHUNK_BYTES // max(1, x.shape[1] * x.element_size()))
    for begin in range(0, rows, step):
        chunk = x[begin:begin + step]
        bad = ~torch.isfinite(chunk)
        if bool(bad.any()):
            r, c = (int(v) for v in bad.nonzero()[0])
            raise ValueError(f"{what}: row {begin + r} column {c} holds {float(chunk[r, c])} (NaN or "
                             "infinity); clean the features first")
