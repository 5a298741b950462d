"""A named set of cassette builders that writes to one folder: one mechanism for every generated cassette."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from conformance import cassettes
from conformance.cassette_builder import CassetteBuilder

Source = Callable[[], CassetteBuilder]


class DuplicateSourceError(ValueError):
    """Two builders registered under one cassette name: one would silently overwrite the other's file."""


class SourceRegistry:
    """Builders registered by cassette name with :meth:`source`; ``directory`` is where their files live."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.sources: dict[str, Source] = {}

    def source(self, name: str) -> Callable[[Source], Source]:
        """Decorator: register the builder of cassette ``name``."""

        def register(make: Source) -> Source:
            if name in self.sources:
                raise DuplicateSourceError(f"cassette {name!r} already has a builder source in {self.directory}")
            self.sources[name] = make
            return make

        return register

    def path(self, name: str) -> Path:
        return self.directory / f"{name}.jsonl"

    def build_all(self) -> dict[str, cassettes.Cassette]:
        return {name: make().build() for name, make in self.sources.items()}

    def drifted(self) -> Iterator[str]:
        """The names whose committed file is missing or differs from what its builder makes now."""
        for name, cassette in self.build_all().items():
            path = self.path(name)
            if not path.is_file() or path.read_text(encoding="utf-8") != cassette.dumps():
                yield name

    def write(self) -> list[Path]:
        written = []
        for name, cassette in self.build_all().items():
            cassettes.save(cassette, self.path(name))
            written.append(self.path(name))
        return written
