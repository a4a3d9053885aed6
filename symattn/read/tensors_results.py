"""Reading what ``symattn reference`` wrote (a reference or a fixture) and what a kernel wrote.

A reference file (.safetensors or .npz) holds ``O``, ``LSE``, ``dQ``, ``dK``, ``dV`` (named
``O.float32`` and so on when it holds several formats), their condition scales
(``O.scale``, ...), the metadata (conventions, statistics, undecided entries) as JSON under
the key ``symattn``, and, in a fixture, the inputs as given (``input.q``, ...).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from ..errors import SymattnError
from .tensors import (ROLE_NAMES, FloatTensor, as_float_tensor, decode_bf16, pick, read_metadata, read_tensors)

__all__ = ["read_reference", "read_kernel", "OUTPUT_NAMES"]

#: the output tensors a reference may hold
OUTPUT_NAMES = ("O", "LSE", "dQ", "dK", "dV")
_FORMATS = ("float64", "float32", "bfloat16", "float16")


def read_reference(path: str) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, np.ndarray], dict[str, Any],
                                        Optional[dict[str, Any]]]:
    """(tensors {name: {format: float64 values}}, condition scales, metadata, fixture inputs or None)."""
    meta_text = read_metadata(path)
    if "symattn" not in meta_text:
        if not Path(path).suffix.lower() in (".safetensors", ".npz"):
            raise SymattnError(f"{path}: a reference is a .safetensors or .npz file written by symattn reference")
        read_tensors(path)  # a broken file gets its own message first
        raise SymattnError(f"{path}: not a symattn reference (no 'symattn' metadata); write one with "
                           "symattn reference ... -o REF.safetensors")
    try:
        meta = json.loads(meta_text["symattn"])
    except json.JSONDecodeError:
        raise SymattnError(f"{path}: the symattn metadata is not valid JSON") from None
    formats = list(meta.get("formats", []))
    if not formats or any(f not in _FORMATS for f in formats):
        raise SymattnError(f"{path}: the symattn metadata names no known formats ({formats})")
    raw = read_tensors(path)
    tensors: dict[str, dict[str, np.ndarray]] = {}
    scales: dict[str, np.ndarray] = {}
    inputs: dict[str, Any] = {}
    for key, arr in raw.items():
        if key.startswith("__"):
            continue
        if key.startswith("input."):
            role = key[len("input."):]
            if role == "mask":
                inputs["mask"] = (np.asarray(arr, dtype=bool), f"{path}:{key}")
            else:
                inputs[role] = as_float_tensor(arr, f"{path}:{key}")
            continue
        name, _, suffix = key.partition(".")
        if name not in OUTPUT_NAMES:
            continue
        if suffix == "scale":
            scales[name] = _values(arr, "float32")
            continue
        fmt = suffix or formats[0]
        if fmt not in _FORMATS:
            continue
        tensors.setdefault(name, {})[fmt] = _values(arr, fmt)
    if not tensors:
        raise SymattnError(f"{path}: the reference holds none of O, LSE, dQ, dK, dV")
    fixture = inputs if meta.get("kind") == "fixture" and {"q", "k", "v"} <= set(inputs) else None
    return tensors, scales, meta, fixture


def _values(arr: Any, fmt: str) -> np.ndarray:
    if isinstance(arr, FloatTensor):
        return arr.values
    a = np.asarray(arr)
    if fmt == "bfloat16" and a.dtype == np.uint16:
        return decode_bf16(a)
    return a.astype(np.float64)


def read_kernel(paths: Sequence[str], *, uint16: str = "bfloat16") -> dict[str, tuple[np.ndarray, str, str]]:
    """A kernel's outputs: ``{name: (float64 values, format, source)}`` for the names O, LSE, dQ, dK, dV."""
    out: dict[str, tuple[np.ndarray, str, str]] = {}
    for path in paths:
        tensors = {k: v for k, v in read_tensors(path, uint16=uint16).items() if not k.startswith("__")}
        if len(tensors) == 1 and next(iter(tensors)) in ("", "0"):
            stem = Path(path).stem.lower()
            name = next((n for n in OUTPUT_NAMES if stem in ROLE_NAMES[n] or stem == n.lower()), "O")
            t = as_float_tensor(next(iter(tensors.values())), path, uint16=uint16)
            _put(out, name, t)
            continue
        found = False
        for name in OUTPUT_NAMES:
            key = pick(tensors, name, path, required=False)
            if key is None:
                continue
            _put(out, name, as_float_tensor(tensors[key], f"{path}:{key}", uint16=uint16))
            found = True
        if not found:
            raise SymattnError(f"{path}: no tensor named O (out, output), LSE, dQ, dK or dV; the file has "
                               f"{', '.join(repr(k) for k in tensors) or 'nothing'}")
    return out


def _put(out: dict, name: str, t: FloatTensor) -> None:
    if name in out:
        raise SymattnError(f"{t.source}: {name} is given twice (also in {out[name][2]})")
    out[name] = (t.values, t.dtype, t.source)
