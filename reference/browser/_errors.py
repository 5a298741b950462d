"""The errors of obtaining a browser, in one place so a caller can catch every such failure as :class:`LaunchError`."""

from __future__ import annotations


class LaunchError(RuntimeError):
    """The browser could not be configured, started or reached."""


class RemoteBrowserError(LaunchError):
    """A remote browser endpoint was malformed, unreachable, or went away; the message names it."""
