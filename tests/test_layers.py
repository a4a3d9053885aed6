"""The package's layers and the absence of import cycles, checked by import-linter
(the contracts are in pyproject.toml). Imports inside functions count."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_are_kept():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(exe).exists():
        pytest.fail("import-linter is part of the test extras: pip install -e '.[test]'")
    run = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 kept, 0 broken" in run.stdout


def test_a_lazy_upward_import_would_be_caught(tmp_path):
    """The contract sees imports inside functions: a copy of the package with one such
    import from the exact layer into the views breaks it."""
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    shutil.copytree(ROOT / "symattn", tmp_path / "symattn", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with open(tmp_path / "symattn" / "exact" / "zero.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef _probe():\n    from ..views.text import render  # noqa: F401\n")
    run = subprocess.run([exe, "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(tmp_path), "PATH": ""})
    assert run.returncode != 0
    assert "symattn.exact.zero -> symattn.views.text" in run.stdout
