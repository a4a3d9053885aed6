"""Float tensors as attention kernels hold them, read exactly: files, arrays and layouts.

A float is a dyadic rational, so a tensor of float64, float32, bfloat16 or float16
values is held here as a float64 array of the *same* values (the widening is exact),
with the format it came in. Files:

- ``.npy``: float64/32/16; bfloat16 as raw ``uint16`` bit patterns, or as saved from an
  ``ml_dtypes.bfloat16`` array (NumPy writes those as 2-byte void, ``|V2``). Raw 16-bit
  patterns are read as bfloat16 unless told ``uint16="float16"``.
- ``.npz``: named arrays, as ``.npy``. Read with ``allow_pickle=False``.
- ``.safetensors``: F64, F32, F16 and BF16, read by this module following the format's
  specification (an 8-byte little-endian header size, a JSON header, the data).
- ``.pt``/``.pth``/``.bin`` (``torch.save``): read with ``torch.load(weights_only=True)``
  only, so a file that would need arbitrary unpickling is refused, never run.

Every problem is one line naming the file (and the tensor) and what was expected.

>>> t = tensor_from(np.array([[1.5, -2.0]], dtype=np.float32), "q")
>>> t.dtype, t.values.tolist()
('float32', [[1.5, -2.0]])
>>> to_bhsd(np.zeros((5, 3, 8)), "bshd", "q.npy").shape   # (seq, heads, d) -> (1, heads, seq, d)
(1, 3, 5, 8)
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..errors import SymattnError

__all__ = ["FloatTensor", "read_tensors", "tensor_from", "to_bhsd", "from_bhsd", "LAYOUTS", "FLOAT_DTYPES",
           "decode_bf16", "encode_bf16", "as_float_tensor", "check_finite", "read_inputs", "write_npz", "read_metadata", "write_safetensors", "read_safetensors_metadata", "pick", "ROLE_NAMES",
           "SAFETENSORS_DTYPES"]

#: the float formats an input may have
FLOAT_DTYPES = ("float64", "float32", "bfloat16", "float16")
#: tensor layouts: BHSD (PyTorch SDPA, Triton) and BSHD (FlashAttention, JAX)
LAYOUTS = ("bhsd", "bshd")
#: safetensors dtype codes read and written
SAFETENSORS_DTYPES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16"}
_ST_SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "U16": 2,
             "U32": 4, "U64": 8, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}
#: names accepted for each role in a file holding several tensors (case-insensitive)
ROLE_NAMES = {
    "q": ("q", "query", "queries"), "k": ("k", "key", "keys"), "v": ("v", "value", "values"),
    "dO": ("do", "dout", "grad_out", "grad_output", "d_o", "o_grad"),
    "O": ("o", "out", "output", "attn_out"), "LSE": ("lse", "softmax_lse", "logsumexp"),
    "dQ": ("dq", "grad_q", "q_grad"), "dK": ("dk", "grad_k", "k_grad"), "dV": ("dv", "grad_v", "v_grad"),
    "bias": ("bias", "attn_bias"), "mask": ("mask", "attn_mask"), "alibi": ("alibi", "alibi_slopes"),
}
_MAX_HEADER = 100 * 1024 * 1024


@dataclass(frozen=True)
class FloatTensor:
    """A float tensor read exactly: ``values`` (float64, the same numbers), its ``dtype`` and ``source``."""

    values: np.ndarray
    dtype: str
    source: str

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.values.shape)


def decode_bf16(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16) → their exact values as float64.

    >>> decode_bf16(np.array([0x3fc0, 0xc000], dtype=np.uint16)).tolist()
    [1.5, -2.0]
    """
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)


def encode_bf16(values: np.ndarray) -> np.ndarray:
    """bfloat16 values (held exactly as float64 or float32) → their bit patterns (uint16)."""
    b32 = np.asarray(values, dtype=np.float64).astype(np.float32).view(np.uint32)
    return (b32 >> np.uint32(16)).astype(np.uint16)


# ----------------------------------------------------------------------------------------------- arrays

def _dtype_name(arr: np.ndarray, uint16: str) -> str | None:
    dt = arr.dtype
    if dt == np.float64:
        return "float64"
    if dt == np.float32:
        return "float32"
    if dt == np.float16:
        return "float16"
    if dt.name == "bfloat16":  # ml_dtypes
        return "bfloat16"
    if dt == np.uint16 or dt == np.int16 or (dt.kind == "V" and dt.itemsize == 2 and dt.names is None):
        return uint16
    return None


def _decode(arr: np.ndarray, dtype: str) -> np.ndarray:
    if arr.dtype.kind in "ui" or arr.dtype.kind == "V" or arr.dtype.name == "bfloat16":
        bits = np.ascontiguousarray(arr).view(np.uint16)
        if dtype == "bfloat16":
            return decode_bf16(bits)
        return bits.view(np.float16).astype(np.float64)
    return np.asarray(arr, dtype=np.float64)


def tensor_from(obj: Any, source: str, *, uint16: str = "bfloat16") -> FloatTensor:
    """A :class:`FloatTensor` from a NumPy array (float64/32/16, ``ml_dtypes.bfloat16``, or raw
    16-bit patterns read as ``uint16``) or a CPU ``torch.Tensor``.

    >>> import numpy as np
    >>> tensor_from(np.array([0x3f80], dtype=np.uint16), "x").values.tolist()   # bf16 bits of 1.0
    [1.0]
    """
    if uint16 not in ("bfloat16", "float16"):
        raise SymattnError(f"uint16 must be 'bfloat16' or 'float16', got {uint16!r}")
    mod = type(obj).__module__
    if mod.startswith("torch"):
        return _from_torch(obj, source)
    if not isinstance(obj, np.ndarray):
        if isinstance(obj, (list, tuple)) or np.isscalar(obj):
            raise SymattnError(f"{source}: expected a NumPy array or a torch tensor of floats, got a "
                               f"{type(obj).__name__} (use np.asarray(x, dtype=np.float32) to say which format)")
        raise SymattnError(f"{source}: expected a NumPy array or a torch tensor, got {type(obj).__name__}")
    name = _dtype_name(obj, uint16)
    if name is None:
        raise SymattnError(f"{source}: expected float64, float32, float16 or bfloat16 values "
                           f"(bfloat16 as uint16 bit patterns or ml_dtypes.bfloat16), got dtype {obj.dtype}")
    return FloatTensor(_decode(obj, name), name, source)


def _from_torch(t: Any, source: str) -> FloatTensor:
    import torch

    if not isinstance(t, torch.Tensor):
        raise SymattnError(f"{source}: expected a tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise SymattnError(f"{source}: the tensor is on {t.device}; move it to the CPU first (t.cpu())")
    t = t.detach()
    names = {torch.float64: "float64", torch.float32: "float32", torch.float16: "float16",
             torch.bfloat16: "bfloat16"}
    name = names.get(t.dtype)
    if name is None:
        raise SymattnError(f"{source}: expected a float64, float32, float16 or bfloat16 tensor, got {t.dtype}")
    if name == "bfloat16":
        bits = t.contiguous().view(torch.int16).numpy().view(np.uint16)
        return FloatTensor(decode_bf16(bits), name, source)
    return FloatTensor(t.contiguous().numpy().astype(np.float64), name, source)


# ----------------------------------------------------------------------------------------------- files

def read_tensors(path: str | os.PathLike, *, uint16: str = "bfloat16") -> dict[str, Any]:
    """The tensors of a file: ``{name: array}`` (a single-tensor file gives ``{"": array}``).

    Arrays are returned as stored (NumPy arrays; BF16 as uint16 bit patterns marked by a
    ``bfloat16`` dtype name through :func:`tensor_from`); torch files give torch tensors.
    """
    p = Path(path)
    name = safe_name(str(path))
    if not p.exists():
        raise SymattnError(f"{name}: no such file")
    if not p.is_file():
        raise SymattnError(f"{name}: not a regular file")
    ext = p.suffix.lower()
    if ext == ".npy":
        return {"": _read_npy(p, name)}
    if ext == ".npz":
        return _read_npz(p, name)
    if ext == ".safetensors":
        return _read_safetensors(p, name)
    if ext in (".pt", ".pth", ".bin"):
        return _read_torch(p, name)
    raise SymattnError(f"{name}: unknown file type {ext or '(no extension)'}: expected .npy, .npz, .safetensors "
                       "or a torch.save file (.pt, .pth, .bin)")


def _read_npy(p: Path, name: str) -> np.ndarray:
    size = p.stat().st_size
    try:
        with open(p, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            offset = f.tell()
    except Exception as e:  # noqa: BLE001 - any header problem is a bad file
        raise SymattnError(f"{name}: not a .npy file (bad header: {_one_line(e)})") from None
    if dtype.hasobject:
        raise SymattnError(f"{name}: the array holds Python objects (dtype {dtype}); expected float values "
                           "(symattn never unpickles)")
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if size - offset < expected:
        raise SymattnError(f"{name}: truncated .npy file: shape {tuple(shape)} of {dtype} needs {expected} bytes "
                           f"of data, the file has {size - offset}")
    arr = np.memmap(p, dtype=dtype, mode="r", offset=offset, shape=tuple(shape), order="F" if fortran else "C")
    return np.array(arr)


def _read_npz(p: Path, name: str) -> dict[str, np.ndarray]:
    try:
        with zipfile.ZipFile(p) as z:
            bad = z.testzip()
            if bad is not None:
                raise SymattnError(f"{name}: corrupt .npz file: member {bad} fails its checksum")
            members = [m for m in z.namelist() if m.endswith(".npy")]
    except zipfile.BadZipFile as e:
        raise SymattnError(f"{name}: not a valid .npz (zip) file, truncated or corrupt ({_one_line(e)})") from None
    out: dict[str, np.ndarray] = {}
    try:
        with np.load(p, allow_pickle=False) as data:
            for key in data.files:
                try:
                    out[key] = np.asarray(data[key])
                except ValueError as e:
                    if "pickle" in str(e).lower():
                        raise SymattnError(f"{name}: array {key!r} holds Python objects; expected float values "
                                           "(symattn never unpickles)") from None
                    raise SymattnError(f"{name}: array {key!r} cannot be read: {_one_line(e)}") from None
    except SymattnError:
        raise
    except Exception as e:  # noqa: BLE001
        raise SymattnError(f"{name}: not a readable .npz file ({_one_line(e)})") from None
    if not out and members == []:
        raise SymattnError(f"{name}: the .npz file holds no arrays")
    return out


def _read_safetensors(p: Path, name: str) -> dict[str, Any]:
    header, offset, size = _safetensors_header(p, name)
    out: dict[str, Any] = {}
    with open(p, "rb") as f:
        for key, info in header.items():
            if key == "__metadata__":
                continue
            dt, shape, (start, end) = info["dtype"], info["shape"], info["data_offsets"]
            if dt not in SAFETENSORS_DTYPES and dt != "BOOL":
                raise SymattnError(f"{name}: tensor {key!r} has dtype {dt}; expected F64, F32, F16 or BF16 "
                                   "(or BOOL for a mask)")
            f.seek(offset + start)
            raw = f.read(end - start)
            np_dt = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "BOOL": "?"}[dt]
            arr = np.frombuffer(raw, dtype=np_dt).reshape(shape).copy()
            if dt == "BF16":
                out[key] = FloatTensor(decode_bf16(arr), "bfloat16", f"{name}:{key}")
            else:
                out[key] = arr
    return out


def _safetensors_header(p: Path, name: str) -> tuple[dict, int, int]:
    size = p.stat().st_size
    with open(p, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise SymattnError(f"{name}: truncated .safetensors file: expected an 8-byte header size, "
                               f"the file has {size} bytes")
        (n,) = struct.unpack("<Q", head)
        if n > _MAX_HEADER or n > size - 8:
            raise SymattnError(f"{name}: truncated or corrupt .safetensors file: the header claims {n} bytes, "
                               f"the file has {size - 8} after the size field")
        text = f.read(n)
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SymattnError(f"{name}: corrupt .safetensors header (not JSON: {_one_line(e)})") from None
    if not isinstance(header, dict):
        raise SymattnError(f"{name}: corrupt .safetensors header: expected a JSON object")
    data = size - 8 - n
    for key, info in header.items():
        if key == "__metadata__":
            if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
                raise SymattnError(f"{name}: __metadata__ must map names to strings")
            continue
        try:
            dt, shape, (start, end) = info["dtype"], [int(s) for s in info["shape"]], info["data_offsets"]
        except (KeyError, TypeError, ValueError):
            raise SymattnError(f"{name}: tensor {key!r}: expected dtype, shape and data_offsets in the header") \
                from None
        if dt not in _ST_SIZES or any(s < 0 for s in shape) or not (0 <= start <= end):
            raise SymattnError(f"{name}: tensor {key!r}: bad header entry (dtype {dt}, shape {shape})")
        need = int(np.prod(shape, dtype=np.int64)) * _ST_SIZES[dt]
        if end - start != need:
            raise SymattnError(f"{name}: tensor {key!r}: shape {tuple(shape)} of {dt} needs {need} bytes, the header "
                               f"gives {end - start}")
        if end > data:
            raise SymattnError(f"{name}: truncated .safetensors file: tensor {key!r} ends at byte {end} of the data, "
                               f"the file has {data}")
    return header, 8 + n, size


def read_safetensors_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The ``__metadata__`` of a .safetensors file (``{}`` when there is none)."""
    header, _, _ = _safetensors_header(Path(path), str(path))
    return dict(header.get("__metadata__", {}))


def write_safetensors(tensors: Mapping[str, tuple[np.ndarray, str]], metadata: Mapping[str, str] | None = None) \
        -> bytes:
    """The bytes of a .safetensors file: ``{name: (values, dtype)}`` with dtype a float format
    name; values hold that format's numbers (bfloat16 as float64 values or uint16 bits).

    >>> b = write_safetensors({"x": (np.array([1.0, 2.0]), "bfloat16")}, {"k": "v"})
    >>> b[8:30]
    b'{"__metadata__":{"k":"'
    """
    codes = {v: k for k, v in SAFETENSORS_DTYPES.items()}
    codes["bool"] = "BOOL"
    header: dict[str, Any] = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs = []
    offset = 0
    for key, (values, dtype) in tensors.items():
        arr = np.asarray(values)
        if dtype == "bfloat16":
            raw = (arr if arr.dtype == np.uint16 else encode_bf16(arr)).astype("<u2")
        else:
            raw = arr.astype({"float64": "<f8", "float32": "<f4", "float16": "<f2", "bool": "?"}[dtype])
        b = np.ascontiguousarray(raw).tobytes()
        header[key] = {"dtype": codes[dtype], "shape": list(arr.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write_npz(tensors: Mapping[str, tuple[np.ndarray, str]], metadata: Mapping[str, str] | None = None) -> bytes:
    """The bytes of an .npz file: ``{name: (values, dtype)}``; bfloat16 is stored as uint16 bit
    patterns (NumPy has no bfloat16), and ``metadata`` as JSON text in ``__metadata__``.

    >>> import io
    >>> z = np.load(io.BytesIO(write_npz({"x": (np.array([1.5]), "bfloat16")}, {"k": "v"})))
    >>> z["x"].dtype, str(z["__metadata__"])
    (dtype('uint16'), '{"k": "v"}')
    """
    import io

    arrays: dict[str, np.ndarray] = {}
    for key, (values, dtype) in tensors.items():
        arr = np.asarray(values)
        if dtype == "bfloat16":
            arrays[key] = arr if arr.dtype == np.uint16 else encode_bf16(arr)
        else:
            arrays[key] = arr.astype({"float64": np.float64, "float32": np.float32, "float16": np.float16,
                                      "bool": np.bool_}[dtype])
    if metadata:
        arrays["__metadata__"] = np.array(json.dumps(dict(metadata), sort_keys=True))
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The string metadata of a .safetensors (``__metadata__``) or .npz (``__metadata__`` entry) file."""
    p = Path(path)
    if p.suffix.lower() == ".safetensors":
        return read_safetensors_metadata(p)
    if p.suffix.lower() == ".npz":
        try:
            with np.load(p, allow_pickle=False) as z:
                if "__metadata__" in z.files:
                    data = json.loads(str(z["__metadata__"]))
                    return {str(k): str(v) for k, v in data.items()}
        except (ValueError, OSError, zipfile.BadZipFile, json.JSONDecodeError):
            return {}
    return {}


def _read_torch(p: Path, name: str) -> dict[str, Any]:
    try:
        import torch
    except ImportError:
        raise SymattnError(f"{name}: reading torch.save files needs PyTorch (pip install torch)") from None
    import pickle

    try:
        obj = torch.load(p, weights_only=True, map_location="cpu")
    except pickle.UnpicklingError as e:
        raise SymattnError(f"{name}: not a weights-only torch.save file; symattn loads torch files only with "
                           f"weights_only=True and never unpickles other objects ({_one_line(e)[:160]})") from None
    except Exception as e:  # noqa: BLE001 - truncated zip, bad magic, ...
        raise SymattnError(f"{name}: not a readable torch.save file ({_one_line(e)[:200]})") from None
    if isinstance(obj, torch.Tensor):
        return {"": obj}
    if isinstance(obj, dict):
        bad = [k for k, v in obj.items() if not isinstance(v, torch.Tensor)]
        if bad:
            raise SymattnError(f"{name}: entry {bad[0]!r} is a {type(obj[bad[0]]).__name__}; expected tensors only")
        return {str(k): v for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and all(isinstance(v, torch.Tensor) for v in obj):
        return {str(i): v for i, v in enumerate(obj)}
    raise SymattnError(f"{name}: holds a {type(obj).__name__}; expected a tensor or a dict of tensors")


def safe_name(text: str) -> str:
    """A file name for a one-line message: control characters escaped (``\\n``, ``\\x1b``).

    >>> safe_name("a\\nb.npy")
    'a\\\\nb.npy'
    """
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii") for c in text)


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__).encode("unicode_escape").decode("ascii")


def as_float_tensor(obj: Any, source: str, *, uint16: str = "bfloat16") -> FloatTensor:
    """:func:`tensor_from`, passing through a tensor already read (a BF16 safetensors entry)."""
    if isinstance(obj, FloatTensor):
        return obj
    return tensor_from(obj, source, uint16=uint16)


def pick(tensors: Mapping[str, Any], role: str, source: str, *, required: bool = True) -> str | None:
    """The name of the tensor playing ``role`` (``q``, ``k``, ``v``, ``dO``, ``O``, ...) in a file.

    >>> pick({"query": 1, "key": 2}, "k", "x.npz")
    'key'
    """
    wanted = ROLE_NAMES[role]
    hits = [n for n in tensors if n.lower() in wanted or n.lower() == role.lower()]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise SymattnError(f"{source}: several tensors could be {role}: {', '.join(hits)}")
    if required:
        names = ", ".join(repr(n) for n in tensors) or "none"
        raise SymattnError(f"{source}: no tensor named {' or '.join(repr(w) for w in wanted[:3])} ({role}); "
                           f"the file has {names}")
    return None


# ----------------------------------------------------------------------------------------------- layouts

def to_bhsd(values: np.ndarray, layout: str, source: str, role: str = "tensor") -> np.ndarray:
    """A 2-, 3- or 4-dimensional tensor as (batch, heads, seq, d) (a view where possible).

    ``bhsd``: (seq, d), (heads, seq, d), (batch, heads, seq, d).
    ``bshd``: (seq, d), (seq, heads, d), (batch, seq, heads, d).
    """
    if layout not in LAYOUTS:
        raise SymattnError(f"unknown layout {layout!r}: expected bhsd (PyTorch SDPA, Triton) or bshd "
                           "(FlashAttention, JAX)")
    a = values
    if a.ndim == 2:
        return a[None, None]
    if a.ndim == 3:
        return a[None] if layout == "bhsd" else a.transpose(1, 0, 2)[None]
    if a.ndim == 4:
        return a if layout == "bhsd" else a.transpose(0, 2, 1, 3)
    form = "(seq, d), (heads, seq, d) or (batch, heads, seq, d)" if layout == "bhsd" else \
        "(seq, d), (seq, heads, d) or (batch, seq, heads, d)"
    raise SymattnError(f"{source}: {role} has shape {tuple(a.shape)}; expected {form} in layout {layout}")


def from_bhsd(values: np.ndarray, layout: str, ndim: int) -> np.ndarray:
    """Back from (batch, heads, seq, d) to a tensor of ``ndim`` dimensions in ``layout``."""
    if ndim == 2:
        return values[0, 0]
    if ndim == 3:
        return values[0] if layout == "bhsd" else values[0].transpose(1, 0, 2)
    return values if layout == "bhsd" else values.transpose(0, 2, 1, 3)


def check_finite(t: FloatTensor, role: str, *, allow_neg_inf: bool = False) -> None:
    """Refuse NaN (and ±inf, or +inf only when ``allow_neg_inf``) with the first bad index."""
    v = t.values
    bad = np.isnan(v) | (np.isposinf(v) if allow_neg_inf else np.isinf(v))
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        what = "NaN" if np.isnan(v[idx]) else ("inf" if v[idx] > 0 else "-inf")
        allowed = "finite numbers or -inf" if allow_neg_inf else "finite numbers"
        raise SymattnError(f"{t.source}: {role}[{', '.join(map(str, idx))}] is {what}; expected {allowed}")


def read_inputs(files: list[str], *, grad: str | None = None, bias: str | None = None, mask: str | None = None,
                alibi: str | None = None, uint16: str = "bfloat16") -> dict[str, Any]:
    """The tensors of a reference computation from files: ``{"q", "k", "v"[, "dO", "bias", "mask",
    "alibi"]}`` as :class:`FloatTensor` (``mask``: ``(bool array, source)``).

    One file holding q, k and v by name (``q``/``query`` ..., and optionally ``dO``, ``bias``,
    ``mask``, ``alibi``), or three files in the order q, k, v.
    """
    out: dict[str, Any] = {}
    if len(files) == 1:
        tensors = read_tensors(files[0], uint16=uint16)
        files = [safe_name(files[0])]
        for role in ("q", "k", "v", "dO", "bias", "alibi", "mask"):
            name = pick(tensors, role, files[0], required=role in ("q", "k", "v"))
            if name is None:
                continue
            src = f"{files[0]}:{name}"
            out[role] = (_as_bool(tensors[name], src), src) if role == "mask" else \
                as_float_tensor(tensors[name], src, uint16=uint16)
    elif len(files) == 3:
        for role, path in zip(("q", "k", "v"), files):
            out[role] = _single(path, role, uint16)
    else:
        raise SymattnError(f"expected one file holding q, k and v, or three files q k v; got {len(files)} files")
    if grad is not None:
        out["dO"] = _single(grad, "dO", uint16)
    if bias is not None:
        out["bias"] = _single(bias, "bias", uint16)
    if alibi is not None:
        out["alibi"] = _single(alibi, "alibi", uint16)
    if mask is not None:
        tensors = read_tensors(mask)
        name = next(iter(tensors)) if len(tensors) == 1 else pick(tensors, "mask", mask)
        out["mask"] = (_as_bool(tensors[name], mask if name == "" else f"{mask}:{name}"),
                       mask if name == "" else f"{mask}:{name}")
    return out


def _single(path: str, role: str, uint16: str) -> FloatTensor:
    tensors = read_tensors(path, uint16=uint16)
    path = safe_name(path)
    if len(tensors) == 1:
        name, obj = next(iter(tensors.items()))
    else:
        name = pick(tensors, role, path)
        obj = tensors[name]
    return as_float_tensor(obj, path if name == "" else f"{path}:{name}", uint16=uint16)


def _as_bool(obj: Any, source: str) -> np.ndarray:
    if type(obj).__module__.startswith("torch"):
        obj = obj.detach().cpu().numpy()
    a = np.asarray(obj)
    if a.dtype != np.bool_:
        raise SymattnError(f"{source}: a mask must be boolean (True = attend); got dtype {a.dtype} "
                           "(give an additive float mask with --bias)")
    return a
