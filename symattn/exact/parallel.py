"""Running row blocks: in this process, in worker processes, or on a Dask cluster.

Rows of attention are independent given K and V, so a reference is a list of tasks over
row ranges. :class:`Runner` maps a task function over them with an existing engine:

- one worker: in this process;
- ``workers = N``: a :class:`concurrent.futures.ProcessPoolExecutor` of N processes (forked
  on Linux, spawned elsewhere, where the calling script needs the usual
  ``if __name__ == "__main__":`` guard), each limited to one BLAS thread (threadpoolctl), so N
  processes use N cores; the problem is sent to each process once;
- ``client`` (a ``dask.distributed.Client``) or ``scheduler`` (its address): the problem is
  scattered to every worker once and each task is a Dask future.

Results come back in task order whatever the engine, so the output does not depend on it.

>>> r = Runner(None, workers=1)
>>> r.map(lambda P, x: x * 2, [(1,), (2,)]), r.describe()
([2, 4], 'in this process')
"""

from __future__ import annotations

import os
import pickle
from typing import Any, Callable, Optional, Sequence

from ..errors import SymattnError

__all__ = ["Runner", "default_workers"]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                "NUMEXPR_NUM_THREADS")
_PROBLEM: Any = None


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _init(blob: bytes) -> None:
    global _PROBLEM, _LIMITS
    try:
        from threadpoolctl import threadpool_limits

        _LIMITS = threadpool_limits(1)
    except ImportError:  # pragma: no cover - threadpoolctl is in the kernels extra
        pass
    _PROBLEM = pickle.loads(blob)
    keep_heap()


_LIMITS: Any = None


def keep_heap() -> bool:
    """Ask glibc's allocator to keep freed memory in the process (a worker's own setting).

    A row block's NumPy temporaries are a few MiB each. By default glibc hands such blocks
    back to the system when they are freed (``mmap``/trim thresholds of 128 KiB, raised
    dynamically but trimmed again once 2× the threshold is free), so the next temporary is
    page-faulted in afresh; in a virtual machine that cost about 15% of the float32 backward's
    CPU time in system calls. Worker processes set a 32 MiB ``mmap`` threshold and a 1 GiB
    trim threshold instead (their memory is bounded by the row block, see
    :data:`~symattn.exact.reference.BLOCK_ENTRIES`). Returns whether the setting took (False
    where the C library has no ``mallopt``, e.g. macOS or musl); nothing else depends on it.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    return bool(mallopt(m_mmap_threshold, 32 << 20)) and bool(mallopt(m_trim_threshold, 1 << 30))


def _call(fn: Callable, args: tuple) -> Any:
    return fn(_PROBLEM, *args)


def _noop() -> int:
    return os.getpid()


def _dask_call(fn: Callable, problem: Any, args: tuple) -> Any:
    return fn(problem, *args)


class Runner:
    """Map a task function ``fn(problem, *args)`` over argument tuples."""

    def __init__(self, problem: Any, *, workers: Optional[int] = None, client: Any = None,
                 scheduler: Optional[str] = None, progress: Optional[Callable[[int, int], None]] = None) -> None:
        self.problem = problem
        self.progress = progress
        self._pool = None
        self._client = None
        self._own_client = False
        self._scattered = None
        if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
            raise SymattnError(f"workers: expected a whole number ≥ 1, got {workers!r}")
        if client is not None or scheduler is not None:
            self._client = client if client is not None else _connect(scheduler)
            self._own_client = client is None
            info = self._client.scheduler_info()
            self.width = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))
            self.kind = "dask"
        else:
            self.width = workers or default_workers()
            self.kind = "local" if self.width == 1 else "processes"

    def describe(self) -> str:
        if self.kind == "dask":
            try:
                addr = self._client.scheduler_info().get("address") or "a Dask cluster"
            except Exception:  # noqa: BLE001 - only a description
                addr = "a Dask cluster"
            return f"on Dask ({addr}, {self.width} worker threads)"
        if self.kind == "processes":
            return f"{self.width} worker processes"
        return "in this process"

    def map(self, fn: Callable, args: Sequence[tuple]) -> list[Any]:
        n = len(args)
        if n == 0:
            return []
        if self.kind == "local" or n == 1 and self.kind != "dask":
            out = []
            for i, a in enumerate(args):
                out.append(fn(self.problem, *a))
                self._tick(i + 1, n)
            return out
        if self.kind == "dask":
            return self._map_dask(fn, args)
        return self._map_pool(fn, args)

    def _tick(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(done, total)

    def _map_pool(self, fn: Callable, args: Sequence[tuple]) -> list[Any]:
        from concurrent.futures import as_completed

        pool = self._ensure_pool()
        futures = {pool.submit(_call, fn, a): i for i, a in enumerate(args)}
        out: list[Any] = [None] * len(args)
        done = 0
        try:
            for fut in as_completed(futures):
                out[futures[fut]] = fut.result()
                done += 1
                self._tick(done, len(args))
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        return out

    def _ensure_pool(self) -> Any:
        if self._pool is None:
            import multiprocessing
            import warnings
            from concurrent.futures import ProcessPoolExecutor

            blob = pickle.dumps(self.problem, protocol=pickle.HIGHEST_PROTOCOL)
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() and os.name == "posix" \
                and not _is_macos() else "spawn"
            ctx = multiprocessing.get_context(method)
            saved = {k: os.environ.get(k) for k in _THREAD_VARS}
            try:
                for k in _THREAD_VARS:
                    os.environ[k] = "1"
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: see the docstring
                    self._pool = ProcessPoolExecutor(max_workers=self.width, mp_context=ctx, initializer=_init,
                                                     initargs=(blob,))
                    # start every worker now, while the environment asks for one BLAS thread
                    list(self._pool.map(_noop_wait, range(self.width)))
            finally:
                for k, val in saved.items():
                    if val is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = val
        return self._pool

    def _map_dask(self, fn: Callable, args: Sequence[tuple]) -> list[Any]:
        from dask.distributed import as_completed

        client = self._client
        if self._scattered is None:
            self._scattered = client.scatter(self.problem, broadcast=True)
        futures = [client.submit(_dask_call, fn, self._scattered, a, pure=False) for a in args]
        index = {f.key: i for i, f in enumerate(futures)}
        out: list[Any] = [None] * len(args)
        done = 0
        try:
            for fut in as_completed(futures):
                out[index[fut.key]] = fut.result()
                done += 1
                self._tick(done, len(args))
        except BaseException:
            client.cancel(futures)
            raise
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._client is not None and self._scattered is not None:
            try:
                self._client.cancel(self._scattered)
            except Exception:  # noqa: BLE001 - best effort
                pass
        if self._own_client and self._client is not None:
            self._client.close()
        self._client = None


def _is_macos() -> bool:
    import sys

    return sys.platform == "darwin"


def _noop_wait(_: int) -> int:
    import time

    time.sleep(0.05)
    return os.getpid()


def _connect(address: Optional[str]) -> Any:
    try:
        from dask.distributed import Client
    except ImportError:
        raise SymattnError("--scheduler needs Dask: pip install 'symattn[dask]' (dask[distributed])") from None
    try:
        return Client(address, timeout="5s")
    except (OSError, TimeoutError) as e:
        raise SymattnError(f"cannot reach the Dask scheduler at {address}: {e}") from None
