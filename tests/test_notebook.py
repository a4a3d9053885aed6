"""The example notebook runs top to bottom without an error, and shows what it says it shows."""

import os
from pathlib import Path

import pytest

import symattn

NOTEBOOK = Path(symattn.__file__).parent / "examples" / "walkthrough.ipynb"
IN_CI = os.environ.get("CI") == "true"


def _need(module):
    try:
        return __import__(module)
    except ImportError:
        if IN_CI:
            pytest.fail(f"{module} is missing in CI (the test extras install it)")
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")


def test_walkthrough_notebook_runs_and_shows_heatmaps(tmp_path):
    nbformat = _need("nbformat")
    nbclient = _need("nbclient")
    _need("ipykernel")
    _need("matplotlib")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit the notebook without outputs"
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on the first cell that fails
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    svgs = [o for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert len(svgs) == 4  # the weights, dS, the two heads, and RoPE's scores by offset
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert html and "<svg" in html[0] and "$$" in html[0]  # the derivation: heatmap and steps
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "1 of 27 printed numbers are right" in printed and "0.3012 wrong" in printed
    assert printed.count("is proved 0 for every entry") == 3
