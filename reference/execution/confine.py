"""The first program inside every sandbox: finish the confinement the kernel enforces, then exec the runtime.

Run by bubblewrap as ``python -I -S confine.py [--owner UID] -- COMMAND...`` (never imported by the runtime; the
service imports it only to ask what this kernel supports). Standard library only. In order:

1. ``--owner UID`` (a service run as root): hand the session's scratch folder, a tmpfs bwrap just mounted and
   root owns, to the runtime's uid, with its X authority file. bwrap kept ``CAP_CHOWN`` for this step alone;
   ``setpriv`` in COMMAND drops every capability before the runtime starts.
2. ``no_new_privs``: nothing after this can gain privileges through exec (and both steps below require it).
3. Landlock scoping (Linux 6.12+): the runtime and everything it starts can neither connect to an abstract unix
   socket made outside the sandbox (another display's X server, a desktop bus, a service sharing the host network
   under ``--allow-network``) nor signal a process outside it.
4. A seccomp filter (x86-64): no new user namespaces (inside one, a process holds every capability over it:
   mounts, raw sockets, the kernel code behind them), and none of the kernel interfaces a runtime never needs
   (keyrings, eBPF, perf events, userfaultfd, io_uring, module loading, kexec, the new mount API). Other
   architectures get no filter, and the service says so in its description.

Exit status 125 with a message on stderr when a step that this kernel supports fails: the service treats that as a
sandbox that cannot be built, never as a runtime to run without it.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys
from typing import Final

SCRATCH: Final = "/home/session"
XAUTHORITY: Final = f"{SCRATCH}/Xauthority"
FAILED: Final = 125

_PR_SET_NO_NEW_PRIVS: Final = 38
_PR_SET_SECCOMP: Final = 22
_SECCOMP_MODE_FILTER: Final = 2
_LANDLOCK_CREATE_RULESET: Final = 444
_LANDLOCK_RESTRICT_SELF: Final = 446
_LANDLOCK_CREATE_RULESET_VERSION: Final = 1
_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET: Final = 1
_LANDLOCK_SCOPE_SIGNAL: Final = 2
# The first Landlock ABI with scopes (the ruleset attribute grew a third field for them).
LANDLOCK_SCOPES_ABI: Final = 6

_AUDIT_ARCH_X86_64: Final = 0xC000003E
_X32_SYSCALL_BIT: Final = 0x40000000
_CLONE_NEWUSER: Final = 0x10000000
# x86-64 numbers. clone and unshare are refused only with CLONE_NEWUSER; clone3 passes its flags in memory the
# filter cannot read, so it answers ENOSYS and the C library falls back to clone.
_CLONE, _UNSHARE, _CLONE3 = 56, 272, 435
_REFUSED: Final = {
    "setns": 308,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
}
_ABSENT: Final = {"clone3": _CLONE3, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427}

# Classic BPF, as the kernel's seccomp_data is read: nr at offset 0, arch at 4, args[0] (low half) at 16.
_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW: Final = 0x7FFF0000
_ERRNO: Final = 0x00050000


class ConfinementFailed(RuntimeError):
    """A step this kernel supports could not be applied."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, or 0 when Landlock is absent or disabled."""
    version = _libc().syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), _LANDLOCK_CREATE_RULESET_VERSION)
    return max(int(version), 0)


def seccomp_supported() -> bool:
    """Whether this machine gets the filter (its syscall numbers are x86-64's)."""
    return platform.machine() in ("x86_64", "AMD64")


def seccomp_program() -> bytes:
    """The filter as ``struct sock_filter`` records (8 bytes each)."""
    refused = sorted(_REFUSED.values())
    absent = sorted(_ABSENT.values())
    # Jump targets are indexes of the three shared endings at the program's end, resolved below.
    Instruction = tuple[int, "int | str", "int | str", int]
    program: list[Instruction] = [
        (_LD_ABS_W, 0, 0, 4),
        (_JEQ, 0, "enosys", _AUDIT_ARCH_X86_64),
        (_LD_ABS_W, 0, 0, 0),
        (_JGE, "enosys", 0, _X32_SYSCALL_BIT),
        (_JEQ, "flags", 0, _CLONE),
        (_JEQ, "flags", 0, _UNSHARE),
        *[(_JEQ, "eperm", 0, number) for number in refused],
        *[(_JEQ, "enosys", 0, number) for number in absent],
        (_RET, 0, 0, _ALLOW),
    ]
    endings: dict[str, list[Instruction]] = {
        "flags": [(_LD_ABS_W, 0, 0, 16), (_JSET, "eperm", 0, _CLONE_NEWUSER), (_RET, 0, 0, _ALLOW)],
        "eperm": [(_RET, 0, 0, _ERRNO | errno.EPERM)],
        "enosys": [(_RET, 0, 0, _ERRNO | errno.ENOSYS)],
    }
    where: dict[str, int] = {}
    for name, block in endings.items():
        where[name] = len(program)
        program += block
    records = b""
    for index, (code, true, false, k) in enumerate(program):
        jumps = [where[target] - index - 1 if isinstance(target, str) else target for target in (true, false)]
        if not all(0 <= jump <= 255 for jump in jumps):
            raise ConfinementFailed("the seccomp program's jumps do not fit in a byte")
        records += struct.pack("=HBBI", code, jumps[0], jumps[1], k)
    return records


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _prctl(option: int, argument: int | ctypes.c_void_p) -> None:
    libc = _libc()
    if libc.prctl(option, argument, 0, 0, 0) != 0:
        raise ConfinementFailed(f"prctl({option}) failed: {os.strerror(ctypes.get_errno())}")


def _install_seccomp() -> None:
    records = seccomp_program()
    buffer = ctypes.create_string_buffer(records, len(records))
    program = _SockFprog(len(records) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = _libc()
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        raise ConfinementFailed(f"installing the seccomp filter failed: {os.strerror(ctypes.get_errno())}")


def _scope_with_landlock() -> None:
    libc = _libc()
    attributes = struct.pack("=QQQ", 0, 0, _LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | _LANDLOCK_SCOPE_SIGNAL)
    buffer = ctypes.create_string_buffer(attributes, len(attributes))
    ruleset = libc.syscall(_LANDLOCK_CREATE_RULESET, buffer, ctypes.c_size_t(len(attributes)), 0)
    if ruleset < 0:
        raise ConfinementFailed(f"creating the Landlock ruleset failed: {os.strerror(ctypes.get_errno())}")
    try:
        if libc.syscall(_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise ConfinementFailed(f"applying the Landlock scopes failed: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)


def _hand_over_scratch(owner: int) -> None:
    # In this order: without CAP_FOWNER and CAP_DAC_OVERRIDE, root can neither change the mode of nor create a
    # file in a folder it no longer owns.
    os.chmod(SCRATCH, 0o700)
    descriptor = os.open(XAUTHORITY, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.fchown(descriptor, owner, owner)
    finally:
        os.close(descriptor)
    os.chown(SCRATCH, owner, owner)


def confine(owner: int | None) -> None:
    if owner is not None:
        _hand_over_scratch(owner)
    else:
        # python-xlib insists on an authority file even when the display needs none.
        os.close(os.open(XAUTHORITY, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    if landlock_abi() >= LANDLOCK_SCOPES_ABI:
        _scope_with_landlock()
    if seccomp_supported():
        _install_seccomp()


def main(argv: list[str]) -> int:
    owner: int | None = None
    if argv[:1] == ["--owner"]:
        owner, argv = int(argv[1]), argv[2:]
    if argv[:1] != ["--"] or len(argv) < 2:
        print("usage: confine.py [--owner UID] -- COMMAND...", file=sys.stderr)
        return FAILED
    try:
        confine(owner)
        os.execvp(argv[1], argv[1:])
    except (OSError, ConfinementFailed) as problem:
        print(f"sandbox confinement failed: {problem}", file=sys.stderr)
    return FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
