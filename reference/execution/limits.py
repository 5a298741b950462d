"""The execution service's resource limits, in one place so the service, the runtime and the tests agree."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExecutionLimits:
    """Per-call and per-service bounds (spec/003, "Connect to your execution service": deadlines and limits).

    ``deadline_s`` is enforced by the service on the runtime process itself: a call that runs longer has its
    process killed and its session retired. ``memory_bytes`` is the runtime's address-space limit.
    ``max_text_bytes`` bounds the text of one call's output, ``max_images`` and ``max_image_bytes`` its images
    (the runtime trims its output, and the service checks the reply again, since the code shares the runtime's
    process). The sandbox (:mod:`.sandbox`) sets the rest before the interpreter starts: ``cpu_seconds`` of CPU
    per runtime process, ``max_processes`` processes (per runtime: each has its own uid, or its own user
    namespace, and its own cgroup when the service runs as root), ``max_open_files`` descriptors,
    ``max_file_bytes`` per written file and ``tmp_bytes`` of private ``/tmp``. ``max_sessions`` bounds live
    sessions (the oldest idle one is ended to make room before a new one is refused) and a session idle for
    ``idle_timeout_s`` is ended. ``scratch_bytes`` is the size of each session's scratch folder (a tmpfs inside
    its sandbox, so RAM: as root it counts towards the runtime's cgroup memory), the total being ``max_sessions``
    times that.

    HTTP: a request's line, headers and body must all arrive within ``request_timeout_s`` of its first byte being
    awaited (an idle keep-alive connection is closed after as long), and at most ``max_connections`` connections are
    served at once (more are answered 503 and closed at once); ``max_request_bytes`` is checked against
    ``Content-Length`` before any of the body is read.
    """

    deadline_s: float = 10.0
    memory_bytes: int = 1024 * 1024 * 1024
    max_code_bytes: int = 100_000
    max_request_bytes: int = 256_000
    max_text_bytes: int = 32_000
    max_images: int = 4
    max_image_bytes: int = 4_000_000
    max_sessions: int = 8
    startup_timeout_s: float = 20.0
    idle_timeout_s: float = 600.0
    cpu_seconds: int = 120
    max_processes: int = 64
    max_open_files: int = 256
    max_file_bytes: int = 64 * 1024 * 1024
    tmp_bytes: int = 64 * 1024 * 1024
    scratch_bytes: int = 256 * 1024 * 1024
    request_timeout_s: float = 10.0
    max_connections: int = 32

    def __post_init__(self) -> None:
        for name in (
            "deadline_s",
            "memory_bytes",
            "max_code_bytes",
            "max_request_bytes",
            "max_text_bytes",
            "max_images",
            "max_image_bytes",
            "max_sessions",
            "startup_timeout_s",
            "idle_timeout_s",
            "cpu_seconds",
            "max_processes",
            "max_open_files",
            "max_file_bytes",
            "tmp_bytes",
            "scratch_bytes",
            "request_timeout_s",
            "max_connections",
        ):
            if not getattr(self, name) > 0:
                raise ValueError(f"ExecutionLimits.{name} must be positive")
