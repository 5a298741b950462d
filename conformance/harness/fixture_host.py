"""Where the fixture server listens, and the host name the browser under test is told to load its pages from.

By default both are loopback (``127.0.0.1``): the browser runs on this machine. A browser in a container or on
another machine cannot load loopback pages, so ``--fixture-host=ADDRESS[,NAME]`` makes the server listen on
ADDRESS (an IP address of this machine, or ``0.0.0.0`` / ``::`` for all of them) and puts NAME (an IP address
or a DNS name the *browser* resolves to this machine; ADDRESS itself when left out) into every fixture URL. The
second origin the network checks treat as disallowed is a second port on the same NAME, so the origin policy
checks mean the same whatever the host is.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Final

LOOPBACK: Final = "127.0.0.1"
OPTION: Final = "--fixture-host"
# One DNS label: letters, digits and inner hyphens (underscores too, which Docker service names use).
_LABEL: Final = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")


class FixtureHostError(ValueError):
    """The ``--fixture-host`` value cannot be used; the message says why and what form is expected."""


@dataclass(frozen=True)
class FixtureHost:
    """The fixture server's listening address (``bind``) and the host part of its URLs (``name``)."""

    bind: str = LOOPBACK
    name: str = LOOPBACK

    @property
    def is_default(self) -> bool:
        return self == FixtureHost()

    @property
    def ipv6(self) -> bool:
        """Whether ``bind`` is an IPv6 address (the server then needs an IPv6 socket)."""
        return ipaddress.ip_address(self.bind).version == 6

    @property
    def url_host(self) -> str:
        """``name`` as it goes into a URL's authority: IPv6 literals in brackets."""
        return f"[{self.name}]" if ":" in self.name else self.name

    def describe(self) -> str:
        if self.bind == self.name:
            return self.name
        return f"{self.name} (listening on {self.bind})"

    @classmethod
    def parse(cls, text: str) -> FixtureHost:
        """``ADDRESS[,NAME]`` as the option spells it; :class:`FixtureHostError` names what is wrong."""
        bind_text, comma, name_text = text.partition(",")
        bind, name = bind_text.strip(), name_text.strip()
        expected = (
            f"expected {OPTION}=ADDRESS[,NAME], e.g. {OPTION}=172.17.0.1 or {OPTION}=0.0.0.0,host.docker.internal"
        )
        if not bind:
            raise FixtureHostError(f"no listening address given; {expected}")
        try:
            address = ipaddress.ip_address(bind)
        except ValueError:
            raise FixtureHostError(
                f"{bind!r} is not an IP address to listen on (a name goes after the comma); {expected}"
            ) from None
        if comma and not name:
            raise FixtureHostError(f"the name after the comma is empty; {expected}")
        if not name:
            if address.is_unspecified:
                raise FixtureHostError(
                    f"{bind} listens on every address but is not one a browser can load pages from: add the name "
                    f"the browser reaches this machine by, e.g. {OPTION}={bind},host.docker.internal"
                )
            return cls(str(address), str(address))
        return cls(str(address), _checked_name(name, expected))


def _checked_name(name: str, expected: str) -> str:
    try:
        address = ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        labels = name.rstrip(".").split(".")
        if len(name) > 253 or not all(_LABEL.match(label) for label in labels):
            raise FixtureHostError(f"{name!r} is neither an IP address nor a host name; {expected}") from None
        return name.rstrip(".").lower()
    if address.is_unspecified:
        raise FixtureHostError(f"{name} is not an address a browser can load pages from; {expected}")
    return str(address)


__all__ = ["LOOPBACK", "OPTION", "FixtureHost", "FixtureHostError"]
