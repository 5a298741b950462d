"""How the kit names what went wrong with a driver: a factory that gave no driver, a call past its deadline.

Both are raised by the harness and read by the plugin, which turns a setup error into a usage error (before any
check ran) or "not checked", and a timeout into a failure of the clauses the check covers.
"""

from __future__ import annotations


class DriverSetupError(RuntimeError):
    """The factory could not produce a usable driver; the message names what went wrong."""


class DriverTimeout(BaseException):
    """A call into the driver did not return within the deadline; the driver was torn down or abandoned.

    A ``BaseException`` (like ``KeyboardInterrupt``), so a check's ``except Exception`` around a driver call
    cannot turn a hang into a verdict about something else: the check fails with the hang itself.
    """

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"`{what}` did not return within {seconds:g} s")
        self.what = what
        self.seconds = seconds


def describe_error(error: BaseException, limit: int = 300) -> str:
    """``Class: message`` of a driver's exception, on one line and cut to ``limit`` characters with its size."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return bounded(" ".join(text.split()), limit)


def bounded(text: str, limit: int = 300) -> str:
    """``text`` itself, or its first ``limit`` characters and the size of the whole."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text):,} characters in all]"
