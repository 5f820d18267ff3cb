"""Joining a Ray cluster (``pip install ninefold[cluster]``), for every floor that runs tasks there.

Two users: the contest platform's games (`ninefold.platform.cluster`) and
training's self-play (`ninefold.learn.tasks`). Both join the same way
(`join`): an address as ``ray.init`` reads it (``auto``: the cluster this
machine belongs to; ``host:port``: its head; ``ray://host:10001``: Ray
Client; ``local``: a new cluster inside this process), and every way that
fails becomes one `ClusterError` with one line to show (`one_line`). A
``host:port`` is tried with a plain TCP connection first, because Ray waits
minutes for a head that is not there.

>>> one_line(RuntimeError("Traceback ...\\n  a frame\\nValueError: bad address\\n"))
'ValueError: bad address'
>>> join("127.0.0.1:1")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ninefold.raycluster.ClusterError: cannot reach the Ray cluster at 127.0.0.1:1: ...
"""

from __future__ import annotations

import socket
from typing import Any

from ninefold.extras import MissingExtra, require

RETRIES = 3  # times Ray runs a task again after its worker or node died
CONNECT_S = 5.0  # how long a head's port may take to answer


class ClusterError(RuntimeError):
    """Ray is missing, or the cluster cannot be reached, or a task failed for good."""


def one_line(exc: BaseException) -> str:
    """The last line of an exception's text (Ray's carry the remote traceback)."""
    lines = str(exc).strip().splitlines()
    return lines[-1] if lines else type(exc).__name__


def ray_module() -> Any:
    """The ``ray`` package, or a `ClusterError` that says how to install it."""
    try:
        require("cluster", "--ray")
    except MissingExtra as exc:
        raise ClusterError(str(exc)) from None
    import ray

    return ray


def join(address: str) -> Any:
    """Connect this process to the Ray cluster at `address` (if it is not connected
    already); returns the ``ray`` module."""
    ray = ray_module()
    if ray.is_initialized():
        return ray
    host, sep, port = address.rpartition(":")
    if sep and "://" not in address and port.isdigit():
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_S).close()
        except OSError as exc:
            raise ClusterError(f"cannot reach the Ray cluster at {address}: {exc}") from None
    try:
        ray.init(address=address, logging_level="error", log_to_driver=False)
    except Exception as exc:  # ConnectionError, ValueError (no Ray Client)...
        raise ClusterError(f"cannot reach the Ray cluster at {address}: "
                           f"{one_line(exc)}") from None
    return ray
