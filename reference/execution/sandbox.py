"""The runtime's security boundary: every session's runtime starts inside its own bubblewrap (``bwrap``) sandbox.

What a sandboxed runtime gets (and the tests in ``tests/execution/test_attacks.py`` try to break):

* its own PID, mount, IPC, UTS and network namespaces (network only when the service allows it explicitly);
* a read-only view of ``/usr`` and ``/etc`` (and of the Python installation it runs), a fresh ``/proc`` and
  ``/dev``, a small private ``/tmp``, and one writable folder: the session's scratch folder (mode 0700), a tmpfs
  of ``scratch_bytes`` that exists only inside the sandbox, so it is bounded by the kernel, nothing the code
  leaves there (folder chains, unreadable folders) ever reaches the host's disk, and it is gone with the sandbox;
* nothing else of the host: not the service's source (only ``runtime.py`` itself is bound in), its process, its
  environment (the runtime's environment is built from scratch and never holds the token), its sockets, nor
  ``/run`` (so no Docker socket); the X11 socket of the display is bound in on purpose, for PyAutoGUI;
* no capabilities, ``no_new_privs``, and a uid that is unprivileged *as the host sees it*. Started by root, the
  service gives every runtime its own fresh uid (never used by anyone else) and bwrap runs as root only to build
  the namespaces; ``setpriv`` inside switches to that uid and drops every capability before the code starts. A
  user namespace alone would not do: its uid 0 maps back to host root. Started by another user, bwrap runs
  unprivileged in a user namespace and the runtime keeps that user's uid, hidden from the service by the PID and
  mount namespaces;
* ``no_new_privs``, Landlock scopes (no abstract unix socket and no signal outside the sandbox) and a seccomp
  filter (no user namespaces, none of the kernel interfaces a runtime never needs), applied by :mod:`.confine`
  before the runtime starts, in both modes;
* resource limits set before the interpreter starts (``prlimit``: address space, CPU seconds, processes, open
  files, file size, no core dumps) and, when the service runs as root and cgroups are writable, a per-runtime
  cgroup bounding the memory and the process count of the whole tree (see :mod:`.cgroups`).

A runtime's whole tree lives in its PID namespace, so killing the namespace's init kills every descendant,
including ones that called ``setsid``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol

from . import confine, node
from .cgroups import RuntimeCgroup, cgroup_root
from .limits import ExecutionLimits

RUNTIME_SCRIPT: Final = Path(__file__).with_name("runtime.py")
CONFINE_SCRIPT: Final = Path(confine.__file__)
SCRATCH: Final = confine.SCRATCH
_SCRIPT_DIR: Final = "/opt/rdk-runtime"
# ``display=PER_SESSION_DISPLAY``: every session gets an X server of its own, which no other session can reach.
PER_SESSION_DISPLAY: Final = "per-session"
OWN_DISPLAY_GEOMETRY: Final = "1440x900x24"
# Fresh per-runtime uids come from a range no distribution or subordinate-id allocation uses.
_UID_LOW: Final = 1 << 30
_UID_SPAN: Final = 1 << 30


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be built on this host; the message says what is missing."""


@dataclass
class Confinement:
    """One runtime's launch: its command, environment, uid and what to release afterwards."""

    argv: list[str]
    env: dict[str, str]
    uid: int
    pass_fds: tuple[int, ...] = ()
    cgroup: RuntimeCgroup | None = None
    info_read_fd: int | None = None
    _to_close: list[int] = field(default_factory=list)

    def started(self) -> None:
        """Call once the process is running: close the ends that belong to the child."""
        for fd in self._to_close:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._to_close.clear()

    def release(self) -> None:
        """Close what is left and remove the cgroup (after the runtime's processes are gone).

        The scratch folder needs nothing: it is a tmpfs in the sandbox's mount namespace, freed by the kernel with
        the namespace's last process.
        """
        self.started()
        if self.info_read_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.info_read_fd)
            self.info_read_fd = None
        if self.cgroup is not None:
            self.cgroup.remove()


class Launcher(Protocol):
    """How a runtime process is started; :class:`BubblewrapSandbox` is the only one the service ships."""

    description: str
    network_isolated: bool

    def confine(self, runtime_args: Sequence[str], display: str | None, *, language: str = "python") -> Confinement: ...


def x11_socket(display: str | None) -> Path | None:
    """The local socket file of ``:N[.S]`` displays; None for remote or unknown displays."""
    if not display or not display.startswith(":"):
        return None
    number = display[1:].split(".", 1)[0]
    path = Path("/tmp/.X11-unix") / f"X{number}"
    return path if number.isdigit() and path.exists() else None


class BubblewrapSandbox:
    """Builds each runtime's bwrap command; refuses to exist when the host cannot run the sandbox."""

    def __init__(self, limits: ExecutionLimits, *, isolate_network: bool = True):
        self.limits = limits
        self.network_isolated = isolate_network
        self.privileged = os.geteuid() == 0
        missing = [tool for tool in ("bwrap", "setpriv", "prlimit") if shutil.which(tool) is None]
        if missing:
            raise SandboxUnavailable(
                f"cannot sandbox runtimes: {', '.join(missing)} not found (Debian: apt-get install bubblewrap "
                "util-linux)"
            )
        self._bwrap = shutil.which("bwrap") or "bwrap"
        self.landlock_scopes = confine.landlock_abi() >= confine.LANDLOCK_SCOPES_ABI
        if not isolate_network and not self.landlock_scopes:
            # Sharing the host's network namespace shares its abstract unix sockets (every X display's among them);
            # only Landlock's scopes keep a runtime from connecting to them.
            raise SandboxUnavailable(
                "cannot share the host network with runtimes here: keeping them from the host's abstract unix "
                "sockets needs Landlock scopes (Linux 6.12 or later, with Landlock enabled)"
            )
        self._cgroups = cgroup_root(limits) if self.privileged else None
        try:
            self._probe()
        except BaseException:
            self.close()
            raise
        kinds = ["PID", "mount", "IPC", "UTS"] + (["network"] if isolate_network else [])
        who = "a fresh unprivileged uid per runtime" if self.privileged else f"uid {os.geteuid()} in a user namespace"
        bound = f"; cgroup {self._cgroups.describe()}" if self._cgroups else "; no cgroup (rlimits only)"
        scopes = "Landlock scopes (abstract sockets, signals)" if self.landlock_scopes else "no Landlock scopes"
        syscalls = "seccomp filter" if confine.seccomp_supported() else "no seccomp filter (not x86-64)"
        self.description = (
            f"bubblewrap: own {', '.join(kinds)} namespaces, {who}, {limits.scratch_bytes >> 20} MiB tmpfs scratch"
            f"{bound}; {scopes}; {syscalls}"
        )

    def _probe(self) -> None:
        confinement = self.confine([], None, script=None)
        try:
            probe = subprocess.run(
                confinement.argv,
                env=confinement.env,
                pass_fds=confinement.pass_fds,
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        finally:
            confinement.release()
        if probe.returncode != 0:
            detail = (probe.stderr or probe.stdout).strip().splitlines()
            raise SandboxUnavailable(
                "cannot sandbox runtimes here: bwrap failed"
                + (f" ({detail[-1]})" if detail else "")
                + "; unprivileged user namespaces (or root) and a seccomp policy that allows them are required"
            )

    def confine(
        self,
        runtime_args: Sequence[str],
        display: str | None,
        *,
        language: str = "python",
        script: Path | None = RUNTIME_SCRIPT,
    ) -> Confinement:
        """The launch of one runtime: ``language`` is ``"python"`` (``runtime.py``) or ``"javascript"`` (Node)."""
        limits = self.limits
        javascript = language == "javascript"
        if not javascript and language != "python":
            raise ValueError(f"no runtime for language {language!r}")
        node_path = node.node_binary() if javascript else ""
        uid = _UID_LOW + secrets.randbelow(_UID_SPAN) if self.privileged else os.geteuid()
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": SCRATCH,
            "TMPDIR": SCRATCH,
            "XAUTHORITY": confine.XAUTHORITY,
            "LANG": "C.UTF-8",
        }
        bwrap = [
            self._bwrap,
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            "--hostname",
            "sandbox",
        ]
        if self.network_isolated:
            bwrap.append("--unshare-net")
        if not self.privileged:
            bwrap += ["--unshare-user", "--disable-userns"]
        else:
            # Root builds the namespaces; inside, only what setpriv needs to become the runtime's uid survives.
            bwrap += ["--cap-drop", "ALL"]
            # CHOWN: confine.py hands the scratch tmpfs to the runtime's uid (setpriv drops it right after).
            bwrap += [arg for cap in ("SETUID", "SETGID", "SETPCAP", "CHOWN") for arg in ("--cap-add", f"CAP_{cap}")]
        bwrap += ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
        for name in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
            top = Path("/") / name
            if top.is_symlink():
                bwrap += ["--symlink", os.readlink(top), str(top)]
            elif top.is_dir():
                bwrap += ["--ro-bind", str(top), str(top)]
        bwrap += ["--proc", "/proc", "--dev", "/dev"]
        bwrap += ["--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
        created: set[str] = {"/", "/usr", "/etc", "/proc", "/dev", "/tmp"}
        for tree in _python_trees():
            bwrap += [*_parents(tree, created), "--ro-bind", tree, tree]
        bwrap += [*_parents(SCRATCH, created), "--perms", "0700", "--size", str(limits.scratch_bytes)]
        bwrap += ["--tmpfs", SCRATCH]
        if display == PER_SESSION_DISPLAY:
            # The runtime starts an X server of its own in this sandbox (runtime.py): no host socket is bound in.
            env["KIT_OWN_DISPLAY"] = OWN_DISPLAY_GEOMETRY
        else:
            socket = x11_socket(display)
            if socket is not None:
                bwrap += [*_parents(str(socket), created), "--bind", str(socket), str(socket)]
            if display:
                env["DISPLAY"] = display
        bwrap += ["--perms", "0755", "--dir", _SCRIPT_DIR]
        bwrap += ["--ro-bind", str(CONFINE_SCRIPT), f"{_SCRIPT_DIR}/{CONFINE_SCRIPT.name}"]
        command: list[str] = [sys.executable, "-I"]
        if javascript:
            for tree in node.node_trees(node_path):
                bwrap += [*_parents(tree, created), "--ro-bind", tree, tree]
            bwrap += [*_parents(node.JS_MOUNT, created), "--ro-bind", str(node.JS_DIR), node.JS_MOUNT]
            command = node.command(node_path, limits.memory_bytes, list(runtime_args))
        elif script is not None:
            bwrap += ["--ro-bind", str(script), f"{_SCRIPT_DIR}/{script.name}"]
            command += [f"{_SCRIPT_DIR}/{script.name}", *runtime_args]
        else:
            command += ["-c", "import os; os.listdir('.')"]
        # Last: the sandbox's own root (bwrap's tmpfs holding the mount points) becomes read-only too.
        bwrap += ["--remount-ro", "/"]
        info_read, info_write = os.pipe()
        bwrap += ["--info-fd", str(info_write), "--chdir", "/"]
        drop = [
            "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]
        # Chromium cannot start under the Python runtime's address-space or thread limits (see node.py).
        address_space = node.ADDRESS_SPACE_BYTES if javascript else limits.memory_bytes
        processes = limits.max_processes * (node.PROCESS_FACTOR if javascript else 1)
        rlimits = [
            "prlimit",
            f"--as={address_space}",
            f"--cpu={limits.cpu_seconds}",
            f"--nproc={processes}",
            f"--nofile={limits.max_open_files}",
            f"--fsize={limits.max_file_bytes}",
            "--core=0",
            "--",
        ]
        # setpriv also runs unprivileged: it cannot change the uid there, but it still sets no_new_privs and
        # clears the inheritable and bounding capability sets of the runtime.
        first = [sys.executable, "-I", "-S", f"{_SCRIPT_DIR}/{CONFINE_SCRIPT.name}"]
        first += [*(["--owner", str(uid)] if self.privileged else []), "--"]
        inner = first + (drop if self.privileged else drop[:1] + drop[4:]) + rlimits + command
        cgroup = self._cgroups.create(processes) if self._cgroups else None
        argv = [*(cgroup.join_prefix() if cgroup else []), *bwrap, "--", *inner]
        return Confinement(
            argv=argv,
            env=env,
            uid=uid,
            pass_fds=(info_write,),
            cgroup=cgroup,
            info_read_fd=info_read,
            _to_close=[info_write],
        )

    def close(self) -> None:
        if self._cgroups is not None:
            self._cgroups.remove()


def _python_trees() -> list[str]:
    """The interpreter's installation and virtual environment, when they live outside ``/usr``."""
    trees: list[str] = []
    for prefix in (sys.base_prefix, sys.prefix, str(Path(sys.executable).resolve().parents[1])):
        resolved = os.path.realpath(prefix)
        for path in {prefix, resolved}:
            if not path.startswith("/usr/") and path != "/usr" and path not in trees:
                trees.append(path)
    # Parents before children, so a nested bind is not hidden by its parent's.
    return sorted(trees, key=lambda path: path.count("/"))


def _parents(path: str, created: set[str]) -> list[str]:
    """bwrap arguments creating ``path``'s missing ancestors traversable (bwrap's own default is 0700)."""
    args: list[str] = []
    parts = Path(path).parts
    for depth in range(2, len(parts)):
        ancestor = str(Path(*parts[:depth]))
        if ancestor not in created:
            created.add(ancestor)
            args += ["--perms", "0755", "--dir", ancestor]
    return args
