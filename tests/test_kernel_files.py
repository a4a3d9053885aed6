"""Tensor files in and out of `symattn reference` / `symattn compare`, and a table of bad files:
each gets one line naming the file and what was expected, exit status 2, no traceback."""

import json

import numpy as np
import pytest

from symattn.cli import main
from symattn.read.tensors import read_tensors, write_safetensors

ml_dtypes = pytest.importorskip("ml_dtypes")
safetensors_numpy = pytest.importorskip("safetensors.numpy")
try:
    import torch
    from safetensors.torch import load_file as st_load_torch, save_file as st_save_torch
except ImportError:  # the torch cases are skipped; the rest of the table runs
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


@pytest.fixture
def qkv(tmp_path):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 5, 8)).astype(np.float32) for _ in range(3))
    for name, a in (("q", q), ("k", k), ("v", v)):
        np.save(tmp_path / f"{name}.npy", a)
    return tmp_path, q, k, v


def run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def ref_values(path, name="O"):
    t = st_load_torch(str(path))
    return t[name]


@needs_torch
def test_npy_files_and_safetensors_output_read_by_the_safetensors_package(qkv, capsys):
    d, q, k, v = qkv
    code, out, err = run(["reference", d / "q.npy", d / "k.npy", d / "v.npy", "--dtype", "bfloat16,float32",
                          "-o", d / "ref.safetensors", "--workers", "1", "-q"], capsys)
    assert code == 0, err
    t = st_load_torch(str(d / "ref.safetensors"))
    assert t["O.bfloat16"].dtype == torch.bfloat16 and tuple(t["O.float32"].shape) == (2, 5, 8)
    assert tuple(t["LSE.float32"].shape) == (2, 5)
    from safetensors import safe_open

    with safe_open(str(d / "ref.safetensors"), "pt") as f:
        meta = json.loads(f.metadata()["symattn"])
    assert meta["conventions"]["causal"] == "none" and meta["formats"] == ["bfloat16", "float32"]
    assert "conventions: layout bhsd" in out and "τ = 0.3535533845424652" in out


@needs_torch
def test_every_input_format_gives_the_same_reference(qkv, capsys):
    d, q, k, v = qkv
    qb, kb, vb = (a.astype(ml_dtypes.bfloat16) for a in (q, k, v))
    # raw uint16 bit patterns, ml_dtypes .npy (|V2), safetensors BF16 (written by the safetensors package), torch.save
    np.save(d / "qb.npy", qb.view(np.uint16))
    np.save(d / "kb.npy", kb)
    np.save(d / "vb.npy", vb.view(np.uint16))
    st_save_torch({"q": torch.from_numpy(qb.view(np.uint16).astype(np.int16)).view(torch.bfloat16),
                   "k": torch.from_numpy(kb.view(np.uint16).astype(np.int16)).view(torch.bfloat16),
                   "value": torch.from_numpy(vb.view(np.uint16).astype(np.int16)).view(torch.bfloat16)},
                  str(d / "in.safetensors"))
    torch.save({"query": torch.from_numpy(qb.astype(np.float32)).to(torch.bfloat16),
                "key": torch.from_numpy(kb.astype(np.float32)).to(torch.bfloat16),
                "v": torch.from_numpy(vb.astype(np.float32)).to(torch.bfloat16)}, d / "in.pt")
    np.savez(d / "in.npz", q=qb.view(np.uint16), k=kb.view(np.uint16), v=vb.view(np.uint16))
    outs = []
    for i, files in enumerate(([d / "qb.npy", d / "kb.npy", d / "vb.npy"], [d / "in.safetensors"], [d / "in.pt"],
                               [d / "in.npz"])):
        code, out, err = run(["reference", *files, "-o", d / f"r{i}.npz", "--workers", "1", "-q"], capsys)
        assert code == 0, err
        assert "(bfloat16)" in out
        z = np.load(d / f"r{i}.npz")
        outs.append(z["O.bfloat16"])
    assert all(np.array_equal(outs[0], o) for o in outs[1:])


def test_layout_bshd_and_output_in_the_same_layout(qkv, capsys):
    d, q, k, v = qkv
    qs, ks, vs = (a.transpose(1, 0, 2).copy() for a in (q, k, v))    # (seq, heads, d)
    np.savez(d / "bshd.npz", q=qs, k=ks, v=vs)
    assert run(["reference", d / "bshd.npz", "--layout", "bshd", "-o", d / "a.npz", "--workers", "1", "-q"],
               capsys)[0] == 0
    assert run(["reference", d / "q.npy", d / "k.npy", d / "v.npy", "-o", d / "b.npz", "--workers", "1", "-q"],
               capsys)[0] == 0
    a, b = np.load(d / "a.npz"), np.load(d / "b.npz")
    assert a["O"].shape == (5, 2, 8) and np.array_equal(a["O"].transpose(1, 0, 2), b["O"])
    assert np.array_equal(a["LSE"], b["LSE"])        # LSE is (heads, seq_q) in both layouts


@needs_torch
def test_our_safetensors_writer_is_read_by_the_package(tmp_path):
    data = write_safetensors({"x": (np.array([[1.5, -2.0]]), "bfloat16"), "y": (np.array([3.0]), "float16"),
                              "m": (np.array([True, False]), "bool")}, {"a": "b"})
    (tmp_path / "t.safetensors").write_bytes(data)
    t = st_load_torch(str(tmp_path / "t.safetensors"))
    assert t["x"].dtype == torch.bfloat16 and t["x"].float().tolist() == [[1.5, -2.0]]
    assert t["y"].dtype == torch.float16 and t["m"].tolist() == [True, False]
    back = read_tensors(tmp_path / "t.safetensors")
    assert back["x"].values.tolist() == [[1.5, -2.0]] and back["m"].tolist() == [True, False]


class _NotAWeight:
    pass


def _bad_files(d):
    rng = np.random.default_rng(1)
    good = rng.standard_normal((4, 8)).astype(np.float32)
    np.save(d / "good.npy", good)
    cases = []
    np.save(d / "wide.npy", rng.standard_normal((4, 6)).astype(np.float32))
    cases.append((["wide.npy"], "head dimension 6 differs"))
    np.save(d / "five.npy", np.zeros((1, 1, 1, 4, 8), np.float32))
    cases.append((["five.npy"], "expected (seq, d), (heads, seq, d) or (batch, heads, seq, d)"))
    nan = good.copy()
    nan[2, 3] = np.nan
    np.save(d / "nan.npy", nan)
    cases.append((["nan.npy"], "nan.npy: k[2, 3] is NaN; expected finite numbers"))
    np.save(d / "half.npy", good.astype(np.float16))
    cases.append((["half.npy"], "dtype float16 differs from"))
    raw = (d / "good.npy").read_bytes()
    (d / "trunc.npy").write_bytes(raw[:len(raw) - 40])
    cases.append((["trunc.npy"], "truncated .npy file: shape (4, 8) of float32 needs 128 bytes"))
    np.save(d / "ints.npy", np.ones((4, 8), np.int32))
    cases.append((["ints.npy"], "expected float64, float32, float16 or bfloat16 values"))
    np.save(d / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    cases.append((["obj.npy"], "holds Python objects"))
    if torch is not None:
        torch.save({"k": _NotAWeight()}, d / "evil.pt")
        cases.append((["evil.pt"], "not a weights-only torch.save file"))
        torch.save(torch.from_numpy(good), d / "ok.pt")
        (d / "trunc.pt").write_bytes((d / "ok.pt").read_bytes()[:300])
        cases.append((["trunc.pt"], "not a readable torch.save file"))
    st = safetensors_numpy.save({"k": good})
    (d / "trunc.safetensors").write_bytes(st[:-20])
    cases.append((["trunc.safetensors"], "truncated .safetensors file: tensor 'k' ends at byte 128"))
    (d / "head.safetensors").write_bytes(b"\xff" * 8 + b"{}")
    cases.append((["head.safetensors"], "truncated or corrupt .safetensors file: the header claims"))
    (d / "ints.safetensors").write_bytes(safetensors_numpy.save({"k": np.ones((4, 8), np.int64)}))
    cases.append((["ints.safetensors"], "has dtype I64; expected F64, F32, F16 or BF16"))
    np.savez(d / "z.npz", k=good)
    (d / "trunc.npz").write_bytes((d / "z.npz").read_bytes()[:100])
    cases.append((["trunc.npz"], "not a valid .npz (zip) file"))
    (d / "k.txt").write_text("1 2 3")
    cases.append((["k.txt"], "unknown file type .txt"))
    cases.append((["missing.npy"], "missing.npy: no such file"))
    return cases


def test_bad_files_get_one_line_and_exit_2(tmp_path, capsys):
    for files, expected in _bad_files(tmp_path):
        args = ["reference", tmp_path / "good.npy", *[tmp_path / f for f in files], tmp_path / "good.npy",
                "-o", tmp_path / "r.npz", "--workers", "1", "-q"]
        code, out, err = run(args, capsys)
        assert code == 2, (files, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("symattn: "), (files, err)
        assert files[0] in lines[0] and expected in lines[0], (files, lines[0])
        assert "Traceback" not in err
        assert not (tmp_path / "r.npz").exists()


def test_one_file_missing_a_tensor_and_bad_options(tmp_path, capsys):
    np.savez(tmp_path / "qk.npz", q=np.ones((2, 4), np.float32), key=np.ones((2, 4), np.float32))
    code, _, err = run(["reference", tmp_path / "qk.npz", "-o", tmp_path / "r.npz", "-q"], capsys)
    assert code == 2 and "no tensor named 'v' or 'value'" in err and "the file has 'q', 'key'" in err
    np.savez(tmp_path / "qkv.npz", q=np.ones((2, 4), np.float32), k=np.ones((2, 4), np.float32),
             v=np.ones((2, 4), np.float32))
    code, _, err = run(["reference", tmp_path / "qkv.npz", "-o", tmp_path / "r.npy"], capsys)
    assert code == 2 and "written as .safetensors or .npz" in err
    code, _, err = run(["reference", tmp_path / "qkv.npz"], capsys)
    assert code == 2 and "nothing to write" in err
    code, _, err = run(["reference", tmp_path / "qkv.npz", "-o", tmp_path / "r.npz", "--window", "a,b"], capsys)
    assert code == 2 and "window: expected LEFT,RIGHT" in err
    np.save(tmp_path / "m.npy", np.ones((2, 2), np.float32))
    code, _, err = run(["reference", tmp_path / "qkv.npz", "-o", tmp_path / "r.npz", "--mask", tmp_path / "m.npy"],
                       capsys)
    assert code == 2 and "m.npy: a mask must be boolean" in err
    code, _, err = run(["reference", tmp_path / "qkv.npz", "-o", tmp_path / "r.npz", "--grad", tmp_path / "m.npy",
                        "--workers", "1"], capsys)
    assert code == 2 and "m.npy: dO must be shaped like the output (2, 4), got (2, 2)" in err


@needs_torch
def test_fixture_and_masks_from_files(qkv, capsys):
    d, q, k, v = qkv
    mask = np.tril(np.ones((5, 5), bool))
    np.save(d / "mask.npy", mask)
    code, out, err = run(["reference", d / "q.npy", d / "k.npy", d / "v.npy", "--mask", d / "mask.npy",
                          "--save-fixture", d / "fx.safetensors", "--workers", "1", "-q"], capsys)
    assert code == 0, err
    t = st_load_torch(str(d / "fx.safetensors"))
    assert t["input.mask"].dtype == torch.bool and t["input.q"].dtype == torch.float32 and "O" in t
    c2 = run(["reference", d / "q.npy", d / "k.npy", d / "v.npy", "--causal", "top-left", "-o", d / "c.npz",
              "--workers", "1", "-q"], capsys)
    assert c2[0] == 0
    assert np.array_equal(t["O"].numpy(), np.load(d / "c.npz")["O"])     # a lower-triangular mask = top-left causal
