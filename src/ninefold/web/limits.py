"""How much one client may ask of the web board (`WebLimits`), and who a client is.

A client is its address as the server sees it (`client_key`): an IPv4 address,
or the /64 block of an IPv6 one (the block one home or one host is given, so
that a client cannot take a fresh address per request). Behind a proxy on the
same machine, uvicorn takes the address from the proxy's ``X-Forwarded-For``
(it trusts that header from 127.0.0.1 and ::1 only): a proxy that does not set
it makes every client one, sharing one allowance.

What is counted per client, each a field of `WebLimits` (0: no limit), counted
in each server process (``serve --processes N`` gives a client N allowances):

- new games a minute (`RateLimit`, a sliding window): a bot cannot fill the
  database; refused ``429`` with ``Retry-After``;
- the computer's moves waiting or searched at once (`ninefold.web.hub`): one
  client's games cannot hold the computer's workers, and the workers take the
  waiting moves client by client (`ninefold.web.computer`);
- analyses waiting or running at once (`ninefold.web.analysis`), and the
  analyses waiting in the whole server.

And per request: a body's size (`ninefold.web.body_limit`), a WebSocket
message's size (uvicorn's ``ws_max_size``: a larger one closes the socket with
1009) and a WebSocket's ``Origin`` (`ninefold.web.origin`).

>>> client_key("203.0.113.7"), client_key("2001:db8:1:2:3:4:5:6"), client_key(None)
('203.0.113.7', '2001:db8:1:2::/64', '')
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import math
from dataclasses import dataclass

from ninefold.platform.limits import RateLimit  # the platform's log-ins count alike
from ninefold.web.body_limit import MAX_BODY_BYTES

IPV6_BLOCK = 64  # the prefix one IPv6 client is counted by


@dataclass(frozen=True)
class WebLimits:
    """What one client may ask of the web board at once or per minute, and the largest
    requests; a count of 0 is no limit."""

    games_per_minute: int = 30  # new games per client in any 60 s
    computer_moves_per_client: int = 4  # the computer's moves waiting or searched at once
    analyses_per_client: int = 2  # analyses waiting or running at once
    analyses_waiting: int = 32  # analyses waiting for a worker in the whole server
    max_body_bytes: int = MAX_BODY_BYTES  # a request's body (the platform's uploads: theirs)
    ws_max_bytes: int = 64 * 1024  # a WebSocket message (uvicorn's ws_max_size)
    allowed_origins: tuple[str, ...] = ()  # WebSocket origins besides the server's own

    def to_json(self) -> str:
        """These limits as JSON (`from_json` reads them back: ``serve --processes``).

        >>> WebLimits.from_json(WebLimits(allowed_origins=("https://a.example",)).to_json())
        ... # doctest: +ELLIPSIS
        WebLimits(games_per_minute=30, ..., allowed_origins=('https://a.example',))
        """
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> WebLimits:
        data = json.loads(text)
        data["allowed_origins"] = tuple(data.get("allowed_origins", ()))
        return cls(**data)


def client_key(host: str | None) -> str:
    """The client a connection from address `host` counts as: the address, an IPv6
    address's /64 (an IPv4 address written in IPv6, as IPv4), or `host` as it is
    where it is not an address (a test client's name); "" when unknown."""
    if not host:
        return ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/{IPV6_BLOCK}", strict=False))
    return str(address)


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` header's value: whole seconds, at least 1.

    >>> retry_after(0.2), retry_after(59.5)
    ('1', '60')
    """
    return str(max(1, math.ceil(seconds)))


__all__ = ["RateLimit", "WebLimits", "client_key", "retry_after"]
