"""Origin-based URL policy for browser drivers and toolsets.

spec/000 "Confirmation, navigation, and recovery" and spec/002 "Restrict URLs" ask for a policy that parses the
requested URL and compares scheme, host and port with the permitted destinations, never a string prefix (so
``https://example.com.evil.test`` is not ``https://example.com``). The same :class:`OriginSet` serves twice: as the
SDK's ``url_policy`` callback (checked before consent) and inside the browser, where the driver's request
interception uses it for redirects, popups, subresources and downloads that the callback never sees.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import SplitResult, urlsplit

_DEFAULT_PORTS: Final[dict[str, int]] = {"http": 80, "https": 443}


class OriginError(ValueError):
    """A configured origin is not a plain ``scheme://host[:port]`` origin."""


@dataclass(frozen=True, order=True)
class Origin:
    """An HTTP(S) origin: lowercase scheme and host, explicit port."""

    scheme: str
    host: str
    port: int

    def __str__(self) -> str:
        default = _DEFAULT_PORTS[self.scheme]
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}" if self.port == default else f"{self.scheme}://{host}:{self.port}"


def _canonical_host(raw: str) -> str | None:
    host = raw.strip().lower().rstrip(".")
    if not host:
        return None
    try:
        return ipaddress.ip_address(host).compressed
    except ValueError:
        pass
    try:
        # IDNA makes look-alike Unicode hosts comparable in their ASCII form; refusing what fails to encode is
        # the safe direction for a policy.
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return None


def parse_origin(url: str) -> Origin | None:
    """The origin of an HTTP(S) URL, or None when the URL is unusable or carries credentials."""
    try:
        parts: SplitResult = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or parts.hostname is None:
        return None
    # Credentials in a URL are never forwarded: a page or model could use them to sign in somewhere.
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return None
    host = _canonical_host(parts.hostname)
    if host is None:
        return None
    return Origin(scheme, host, port if port is not None else _DEFAULT_PORTS[scheme])


class OriginSet:
    """An immutable set of permitted origins with exact scheme/host/port matching."""

    def __init__(self, origins: Iterable[str]) -> None:
        parsed: set[Origin] = set()
        for text in origins:
            origin = parse_origin(text)
            if origin is None:
                raise OriginError(f"Not an http(s) origin without credentials: {text!r}")
            tail = urlsplit(text.strip())
            if tail.path not in ("", "/") or tail.query or tail.fragment:
                raise OriginError(f"An origin has no path, query or fragment: {text!r}")
            parsed.add(origin)
        self._origins: frozenset[Origin] = frozenset(parsed)

    @property
    def origins(self) -> tuple[str, ...]:
        return tuple(str(origin) for origin in sorted(self._origins))

    def allows(self, url: str) -> bool:
        """True only for an HTTP(S) URL without credentials whose exact origin is permitted."""
        origin = parse_origin(url)
        return origin is not None and origin in self._origins

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and self.allows(url)

    def __repr__(self) -> str:
        return f"OriginSet({list(self.origins)!r})"


def origin_policy(origins: Iterable[str] | OriginSet) -> Callable[..., bool]:
    """A synchronous ``url_policy`` for ``BrowserToolset`` that permits exactly ``origins``.

    The SDK calls it as ``policy(context, url)`` (and passes ``cancelled`` when declared); it returns exactly
    True or False.
    """
    allowed = origins if isinstance(origins, OriginSet) else OriginSet(origins)

    def url_policy(context: object, url: str) -> bool:
        return isinstance(url, str) and allowed.allows(url)

    url_policy.origins = allowed  # type: ignore[attr-defined]
    return url_policy


def async_origin_policy(origins: Iterable[str] | OriginSet) -> Callable[..., Awaitable[bool]]:
    """The ``AsyncBrowserToolset`` twin of :func:`origin_policy`."""
    allowed = origins if isinstance(origins, OriginSet) else OriginSet(origins)

    async def url_policy(context: object, url: str) -> bool:
        return isinstance(url, str) and allowed.allows(url)

    url_policy.origins = allowed  # type: ignore[attr-defined]
    return url_policy
