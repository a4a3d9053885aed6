"""Row blocks across processes and across a Dask LocalCluster with two worker processes: the
results are bit-identical to the single-process run (gradients included)."""

import numpy as np
import pytest

import symattn as sa
from symattn.errors import SymattnError


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(42)
    q = rng.standard_normal((2, 4, 90, 16)).astype(np.float32)
    k = rng.standard_normal((2, 2, 70, 16)).astype(np.float32)
    v = rng.standard_normal((2, 2, 70, 16)).astype(np.float32)
    do = rng.standard_normal((2, 4, 90, 16)).astype(np.float32)
    # float64 outputs go through ball arithmetic (row fallbacks and the dK/dV pass), float32 through
    # the double-float tier when the fast path leaves them: every tier runs in the workers
    kw = dict(grad=do, causal="bottom-right", dtype=["float64", "float32", "bfloat16"])
    local = sa.reference(q, k, v, workers=1, **kw)
    return q, k, v, kw, local


def same(a, b):
    assert a.values.keys() == b.values.keys()
    for name in a.values:
        for fmt in a.values[name]:
            x, y = a.values[name][fmt], b.values[name][fmt]
            assert np.array_equal(x.view(np.uint64), y.view(np.uint64)), (name, fmt)


def test_worker_processes_give_the_same_bits(problem):
    q, k, v, kw, local = problem
    ticks = []
    par = sa.reference(q, k, v, workers=2, progress=lambda done, total: ticks.append((done, total)), **kw)
    same(local, par)
    assert ticks and ticks[-1][0] == ticks[-1][1] and "2 worker processes" in par.echo[-1]
    assert local.stats["dK.float64.fallback"] > 0 and local.stats["kv_exact_passes"] >= 1


def test_dask_local_cluster_gives_the_same_bits(problem):
    distributed = pytest.importorskip("dask.distributed")
    q, k, v, kw, local = problem
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        on_dask = sa.reference(q, k, v, client=client, **kw)
        same(local, on_dask)
        assert "on Dask" in on_dask.echo[-1]
        by_address = sa.reference(q[:1, :2, :20], k[:1, :1], v[:1, :1], dtype="float32",
                                  scheduler=cluster.scheduler_address)
        alone = sa.reference(q[:1, :2, :20], k[:1, :1], v[:1, :1], dtype="float32", workers=1)
        same(alone, by_address)


def test_an_unreachable_scheduler_is_a_clear_error():
    pytest.importorskip("dask.distributed")
    x = np.ones((2, 4), np.float32)
    with pytest.raises(SymattnError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        sa.reference(x, x, x, scheduler="tcp://127.0.0.1:9")


def test_bad_worker_counts():
    x = np.ones((2, 4), np.float32)
    with pytest.raises(SymattnError, match="workers: expected a whole number"):
        sa.reference(x, x, x, workers=0)
