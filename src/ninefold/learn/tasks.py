"""Where training's tasks run: worker processes on this machine (`Processes`) or
Ray tasks on a cluster (`RayTasks`, ``python -m ninefold.learn --ray ADDRESS``).

Both run ``fn(shared, task)`` for every task of a list and return the results
in the tasks' order (`Runner.map`). A task is a deterministic chunk of work
(self-play seeds its games by the chunk's index), so a task Ray runs again
after its worker or node died (``max_retries``) gives the same result; the
results are kept by the task's index, so none is counted twice. `shared` is
what every task needs: the pool sends it with each task (self-play's is
empty there: the workers read the network files where they are); Ray gets
it once a call (``ray.put``), and each node fetches it once, however many
tasks it runs.

>>> Processes(1).map(pow, 2, [3, 4])
[8, 16]
>>> Processes(2).layout()
{'engine': 'processes', 'workers': 2}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ninefold.raycluster import RETRIES, ClusterError, join, one_line, ray_module

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")

Done = Callable[[int, Any], None]  # called with a task's index and result as each finishes


class Runner(Protocol):
    """Runs tasks somewhere; `remote` says whether its workers lack this machine's files."""

    remote: bool

    def map(self, fn: Callable[[S, T], R], shared: S, tasks: Sequence[T],
            done: Done | None = None) -> list[R]:
        """``fn(shared, task)`` for each task, in the tasks' order."""
        ...

    def layout(self) -> dict[str, object]:
        """Where the tasks run, as a network's ``meta`` records it."""
        ...

    def close(self) -> None:
        """Let go of what the runner holds."""
        ...


@dataclass(frozen=True)
class Processes:
    """`workers` processes on this machine (a pool a call)."""

    workers: int = 2
    remote = False

    def map(self, fn: Callable[[S, T], R], shared: S, tasks: Sequence[T],
            done: Done | None = None) -> list[R]:
        results: dict[int, R] = {}
        with ProcessPoolExecutor(self.workers) as pool:
            futures = {pool.submit(fn, shared, task): k for k, task in enumerate(tasks)}
            for future in as_completed(futures):
                _keep(results, futures[future], future.result(), done)
        return [results[k] for k in range(len(tasks))]

    def layout(self) -> dict[str, object]:
        return {"engine": "processes", "workers": self.workers}

    def close(self) -> None:
        pass


class RayTasks:
    """Tasks on the Ray cluster at `address` (see `ninefold.raycluster.join`), one CPU
    each, run again up to `RETRIES` times if their worker dies."""

    remote = True

    def __init__(self, address: str) -> None:
        self.address = address
        self.owned = not ray_module().is_initialized()  # shut down on close if we joined
        self.ray = join(address)

    def map(self, fn: Callable[[S, T], R], shared: S, tasks: Sequence[T],
            done: Done | None = None) -> list[R]:
        ray = self.ray
        call = ray.remote(num_cpus=1, max_retries=RETRIES)(fn)
        shared_ref = ray.put(shared)  # once: every task gets the reference
        pending = {call.remote(shared_ref, task): k for k, task in enumerate(tasks)}
        results: dict[int, R] = {}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                k = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception as exc:  # retries spent, or the task raised
                    for other in pending:
                        ray.cancel(other, force=True)
                    raise ClusterError(f"task {k} failed on Ray at {self.address}: "
                                       f"{one_line(exc)}") from None
                _keep(results, k, result, done)
        return [results[k] for k in range(len(tasks))]

    def layout(self) -> dict[str, object]:
        nodes = [n for n in self.ray.nodes() if n.get("Alive")]
        return {"engine": "ray", "address": self.address, "nodes": len(nodes),
                "cpus": int(self.ray.cluster_resources().get("CPU", 0)), "retries": RETRIES}

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()


def _keep(results: dict[int, R], k: int, result: R, done: Done | None) -> None:
    """Keep task `k`'s result unless one is kept already (a task run twice counts once)."""
    if k in results:
        return
    results[k] = result
    if done is not None:
        done(k, result)


def runner(ray: str, workers: int) -> Runner:
    """Ray tasks at address `ray` if one is given, else `workers` local processes."""
    return RayTasks(ray) if ray else Processes(workers)
