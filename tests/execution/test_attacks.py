"""The attack suite: from inside a session, try each escape the sandbox must stop; every one must fail while the
service stays up and another session (the victim) keeps its variables and files.

Each attack runs against services started as root (in this process, when pytest runs as root) and as ``nobody``
(a service process started with setpriv, Debian's Python and a copy of the package). ``ATTACKS`` is the list the
docs' "attacks tried / held" figure counts (checked by ``test_docs_count_the_attacks``). Every attack runs
from both runtimes (``language``): from the JavaScript runtime, the attack's Python is started by the session's
Node process (``child_process``) inside its sandbox, with the uid, namespaces, limits and cgroup the Node runtime
has, and the victim is a JavaScript session too. Each attack's code reports ``BREACH: ...`` when it got through;
with ``KIT_EXEC_UNSANDBOXED_BASELINE=1`` the in-process services run
the old unconfined runtime and these tests fail, which is how each attack was shown to be able to fail.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import secrets
import socket
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from reference.execution import SESSIONS_PATH, execute_in_sandbox, node
from reference.execution.sandbox import PER_SESSION_DISPLAY
from tests.host_processes import gone_soon, pids_matching, present_soon
from tools import docs_text

from ._http import send
from ._targets import MODES, Factory, Target, target_factory
from .conftest import TEST_LIMITS

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop, pytest.mark.container]

ROOT = Path(__file__).resolve().parents[2]
FORKS_TRIED = 300
# The JavaScript runtime's process limit is node.PROCESS_FACTOR times larger (Node and Chromium threads count).
JS_FORKS_TRIED = FORKS_TRIED * node.PROCESS_FACTOR // 2
SECRET = "VICTIM-" + secrets.token_hex(12)
VICTIM_SETUP = {
    "python": f"secret = {SECRET!r}\nopen('victim.txt', 'w').write(secret)",
    "javascript": f"globalThis.secret = {SECRET!r};\nrequire('node:fs').writeFileSync('victim.txt', secret);",
}
VICTIM_CHECK = {
    "python": "log(secret)\nlog(open('victim.txt').read())",
    "javascript": "console.log(secret);\nconsole.log(require('node:fs').readFileSync('victim.txt', 'utf8'));",
}
LANGUAGES = ["python", "javascript"]
# From the JavaScript runtime, an attack's Python runs as a child of the session's Node process; log() lines come
# back through console.log. The source goes on stdin, so it is not in any process's cmdline. (Debian's python3 is in
# /usr, which every sandbox sees read-only.)
_FROM_NODE = """
const child = require('node:child_process').spawnSync('/usr/bin/python3', ['-I', '-'],
  {{input: {source}, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 1 << 24}});
const lines = (child.stdout || '').split('\\0').filter(Boolean);
if (!lines.length) console.log('the attack printed nothing: ' + (child.stderr || child.error || '').slice(-500));
for (const line of lines) console.log(line);
"""
_LOG = "import sys\ndef log(value):\n    sys.stdout.write(str(value) + '\\0')\n    sys.stdout.flush()\n"


def in_language(code: str, language: str) -> str:
    if language == "python":
        return code
    return _FROM_NODE.format(source=json.dumps(_LOG + code))


@dataclass(frozen=True)
class Context:
    """What an attack gets: the running target, and a way to start a fresh one of the same kind."""

    target: Target
    fresh: Factory
    language: str = "python"


Attack = Callable[[Context], str | None]  # returns how it broke through, or None when the sandbox held
ATTACKS: dict[str, Attack] = {}


def attack(name: str) -> Callable[[Attack], Attack]:
    def register(function: Attack) -> Attack:
        ATTACKS[name] = function
        return function

    return register


def run(target: Target, session: str, code: str, *, unix: bool = False, language: str = "python") -> list[str]:
    """Run Python attack code in a session of ``language`` (from JavaScript: as a child of the Node runtime)."""
    return run_native(target, session, in_language(code, language), unix=unix, language=language)


def run_native(target: Target, session: str, code: str, *, unix: bool, language: str) -> list[str]:
    """Run code written in ``language`` itself (the victim's setup and check)."""
    items = execute_in_sandbox(
        code,
        session,
        target.unix_endpoint if unix else target.endpoint,
        approve=lambda _: True,
        token=target.token,
        language=language,
    )
    return [item["text"].rstrip("\n") for item in items if item["type"] == "input_text"]


def breach(texts: list[str]) -> str | None:
    return next((text for text in texts if text.startswith("BREACH")), None)


def probe(context: Context, code: str, *, unix: bool = False) -> str | None:
    texts = run(context.target, "attacker", code, unix=unix, language=context.language)
    assert texts, "the attack reported nothing"
    return breach(texts)


# Code fragments shared by attacks: other runtimes of this target, found through /proc as an attacker would.
_OTHER_RUNTIMES = """
import os
def other_runtimes(root):
    me = os.getpid()
    for pid in (p for p in os.listdir('/proc') if p.isdigit() and int(p) != me):
        try:
            cmdline = open(f'/proc/{pid}/cmdline', 'rb').read()
            cwd = os.readlink(f'/proc/{pid}/cwd')
        except OSError:
            continue
        # Only this test's runtimes (cwd in its scratch root): the machine is shared with other test runs.
        if (b'runtime.py' in cmdline or b'runtime.cjs' in cmdline) and cwd.startswith(root):
            yield int(pid)
"""


@attack("read /etc/shadow")
def read_shadow(context: Context) -> str | None:
    return probe(
        context,
        "try:\n    log('BREACH: read /etc/shadow, %d bytes' % len(open('/etc/shadow').read()))\n"
        "except OSError as error:\n    log('held: ' + type(error).__name__)",
    )


@attack("hold privileges: capabilities, no_new_privs off, setuid(0), host uid 0")
def gain_privileges(context: Context) -> str | None:
    marker = f"owner-probe-{secrets.token_hex(6)}"
    code = f"""
import os, time
status = open('/proc/self/status').read().splitlines()
broke = [line for line in status if line.startswith(('CapEff', 'CapPrm', 'CapBnd', 'CapAmb', 'CapInh'))
         and int(line.split()[1], 16) != 0]
broke += [line for line in status if line.startswith('NoNewPrivs') and line.split()[1] != '1']
try:
    os.setuid(0)
    broke.append('setuid(0) worked')
except OSError:
    pass
open({marker!r}, 'w').close()
log('BREACH: ' + '; '.join(broke) if broke else 'held')
"""
    found = probe(context, code)
    if found or os.geteuid() != 0:
        return found
    # The uid as the host sees it: the owner of the file the code just made, found from the host through the
    # root folder of every process (the scratch folder exists only inside the sandbox; its runtime still runs).
    owners = set()
    for root in glob.glob("/proc/[0-9]*/root"):
        with contextlib.suppress(OSError):
            owners.add(os.stat(f"{root}/home/session/{marker}").st_uid)
    assert owners, "the probe file was not found in any process's scratch folder"
    return "BREACH: the code's files are owned by host root" if 0 in owners else None


@attack("read the service's token (environ, cmdline and memory of every visible process)")
def read_token(context: Context) -> str | None:
    code = f"""
import os
needle = b'OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN='
found = [name for name, value in os.environ.items() if 'TOKEN' in name]
visible = set(p for p in os.listdir('/proc') if p.isdigit())
for pid in {{'self', str(os.getppid()), {str(context.target.service_pid)!r}}} | visible:
    for name in ('environ', 'cmdline'):
        try:
            if needle in open(f'/proc/{{pid}}/{{name}}', 'rb').read():
                found.append(f'{{pid}}/{{name}}')
        except OSError:
            pass
try:
    # os.environ changes made after start-up live in the C heap, not in /proc/<pid>/environ.
    for line in open('/proc/{context.target.service_pid}/maps'):
        if line.rstrip().endswith('[heap]'):
            start, end = (int(x, 16) for x in line.split()[0].split('-'))
            with open('/proc/{context.target.service_pid}/mem', 'rb', 0) as memory:
                memory.seek(start)
                if needle in memory.read(end - start):
                    found.append('service heap')
except OSError:
    pass
log('BREACH: token in ' + ', '.join(found) if found else 'held')
"""
    return probe(context, code)


@attack("see the service's process")
def see_service(context: Context) -> str | None:
    pid = context.target.service_pid
    code = f"""
import os
seen = []
try:
    seen.append(open('/proc/{pid}/cmdline', 'rb').read())
except OSError:
    pass
for entry in (p for p in os.listdir('/proc') if p.isdigit()):
    try:
        cmdline = open(f'/proc/{{entry}}/cmdline', 'rb').read()
    except OSError:
        continue
    if b'reference.execution' in cmdline or b'pytest' in cmdline:
        seen.append(cmdline)
log('BREACH: sees %r' % seen[0][:80] if seen else 'held')
"""
    return probe(context, code)


@attack("read another session's variables (its process memory)")
def read_other_variables(context: Context) -> str | None:
    code = (
        _OTHER_RUNTIMES
        + f"""
hits = []
for pid in other_runtimes({context.target.scratch_root!r}):
    try:
        regions = open(f'/proc/{{pid}}/maps').read().splitlines()
        with open(f'/proc/{{pid}}/mem', 'rb', 0) as memory:
            for line in regions:
                fields = line.split()
                if 'rw' not in fields[1] or (len(fields) > 5 and fields[5].startswith('/')):
                    continue
                start, end = (int(x, 16) for x in fields[0].split('-'))
                if end - start > (256 << 20):
                    continue
                try:
                    memory.seek(start)
                    if {SECRET.encode()!r} in memory.read(end - start):
                        hits.append(pid)
                        break
                except (OSError, ValueError, OverflowError):
                    continue
    except OSError:
        continue
log('BREACH: the secret is in the memory of %s' % hits if hits else 'held')
"""
    )
    return probe(context, code)


@attack("read another session's files")
def read_other_files(context: Context) -> str | None:
    code = f"""
import glob, os
hits = []
candidates = glob.glob({context.target.scratch_root!r} + '/**/victim.txt', recursive=True)
for top in ('/home', '/tmp', '/var/tmp'):
    for folder, _, files in os.walk(top):
        candidates += [os.path.join(folder, name) for name in files if name == 'victim.txt']
for path in candidates:
    if os.path.realpath(path) == os.path.realpath('victim.txt'):
        continue
    try:
        if {SECRET!r} in open(path).read():
            hits.append(path)
    except OSError:
        pass
log('BREACH: read %s' % hits if hits else 'held')
"""
    return probe(context, code)


@attack("kill another session's runtime, or signal the service")
def kill_other_session(context: Context) -> str | None:
    code = (
        _OTHER_RUNTIMES
        + f"""
import signal
done = []
try:
    os.kill({context.target.service_pid}, 0)
    if b'python' in open('/proc/{context.target.service_pid}/cmdline', 'rb').read():
        done.append('signalled the service')
except OSError:
    pass
for pid in other_runtimes({context.target.scratch_root!r}):
    try:
        os.kill(pid, signal.SIGKILL)
        done.append(f'killed {{pid}}')
    except OSError:
        pass
log('BREACH: ' + ', '.join(done) if done else 'held')
"""
    )
    return probe(context, code)


_CONNECT_TCP = """
import socket
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=1).close()
    log('BREACH: connected to the service')
except OSError as error:
    log('held: ' + type(error).__name__)
"""


@attack("reach the service over TCP")
def reach_tcp(context: Context) -> str | None:
    return probe(context, _CONNECT_TCP.format(port=context.target.port))


@attack("reach the service over its unix socket")
def reach_unix(context: Context) -> str | None:
    code = f"""
import socket
client = socket.socket(socket.AF_UNIX)
try:
    client.connect({context.target.unix_socket!r})
    log('BREACH: connected to the service socket')
except OSError as error:
    log('held: ' + type(error).__name__)
"""
    return probe(context, code, unix=True)


@attack("setns into the service's network namespace")
def join_service_netns(context: Context) -> str | None:
    pid = context.target.service_pid
    code = f"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
try:
    fd = os.open('/proc/{pid}/ns/net', os.O_RDONLY)
except OSError as error:
    log('held: ' + type(error).__name__)
else:
    if libc.setns(fd, 0x40000000) == 0:
        log('BREACH: joined the service network namespace')
    else:
        log('held: setns errno %d' % ctypes.get_errno())
"""
    return probe(context, code)


@attack(f"fork bomb ({FORKS_TRIED} sleeping children, {JS_FORKS_TRIED} from JavaScript)")
def fork_bomb(context: Context) -> str | None:
    code = f"""
import os, signal, time
children, stopped = [], None
try:
    for _ in range({FORKS_TRIED if context.language == "python" else JS_FORKS_TRIED}):
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
except OSError as error:
    stopped = type(error).__name__
for pid in children:
    os.kill(pid, signal.SIGKILL)
for pid in children:
    os.waitpid(pid, 0)
log('held: fork failed after %d children (%s)' % (len(children), stopped) if stopped else
    'BREACH: %d children' % len(children))
"""
    return probe(context, code)


_ORPHAN = """
import subprocess, sys
subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {marker!r}], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
log('spawned')
"""


def _orphan(target: Target, session: str, language: str) -> str:
    marker = f"orphan-{secrets.token_hex(8)}"
    assert run(target, session, _ORPHAN.format(marker=marker), language=language) == ["spawned"]
    assert present_soon(pids_matching, marker), "the orphan did not start, so this attack proves nothing"
    return marker


@attack("orphaned setsid child outlives the deadline")
def orphan_after_deadline(context: Context) -> str | None:
    marker = _orphan(context.target, "attacker", context.language)
    texts = run(context.target, "attacker", "while True:\n    pass", language=context.language)
    assert any("deadline" in text for text in texts)
    return None if gone_soon(pids_matching, marker) else f"BREACH: {marker} survived the deadline"


@attack("orphaned setsid child outlives the service's shutdown")
def orphan_after_shutdown(context: Context) -> str | None:
    with context.fresh() as fresh:
        marker = _orphan(fresh, "attacker", context.language)
    return None if gone_soon(pids_matching, marker) else f"BREACH: {marker} survived the shutdown"


@attack("write the service's source")
def write_source(context: Context) -> str | None:
    source = context.target.source_file
    before = os.stat(source).st_mtime_ns
    found = probe(
        context,
        f"try:\n    open({source!r}, 'a').close()\n    log('BREACH: opened the source for writing')\n"
        "except OSError as error:\n    log('held: ' + type(error).__name__)",
    )
    assert os.stat(source).st_mtime_ns == before or found
    return found


@attack("write outside scratch (/etc, /usr, /var/tmp)")
def write_system(context: Context) -> str | None:
    name = f"kit-exec-probe-{secrets.token_hex(6)}"
    code = f"""
import os
made = []
for folder in ('/etc', '/usr', '/var/tmp', '/'):
    path = os.path.join(folder, {name!r})
    try:
        open(path, 'x').close()
        made.append(path)
        os.unlink(path)
    except OSError:
        pass
log('BREACH: created ' + ', '.join(made) if made else 'held')
"""
    found = probe(context, code)
    assert not [folder for folder in ("/etc", "/usr", "/var/tmp", "/") if os.path.exists(os.path.join(folder, name))]
    return found


@attack("open the Docker socket")
def docker_socket(context: Context) -> str | None:
    code = """
import socket
opened = []
for path in ('/var/run/docker.sock', '/run/docker.sock'):
    client = socket.socket(socket.AF_UNIX)
    try:
        client.connect(path)
        opened.append(path)
    except OSError:
        pass
    finally:
        client.close()
log('BREACH: connected to ' + ', '.join(opened) if opened else 'held')
"""
    return probe(context, code)


def _end_session(target: Target, session: str) -> str | None:
    """DELETE a session; how the service failed to end it, or None when it answered ``{"ended": true}``."""
    try:
        reply = send(target.endpoint, None, token=target.token, method="DELETE", path=f"{SESSIONS_PATH}{session}")
    except OSError as error:  # no reply at all (the handler died) or a timeout
        return f"DELETE got no reply ({type(error).__name__})"
    return None if reply.status == 200 and reply.body == {"ended": True} else f"DELETE answered {reply.status}"


def _left_behind(target: Target, marker: str) -> list[str]:
    """Paths named ``marker`` on the host: under the target's work folder, or a few levels under the temporary
    folder (scratch folders once lived in both; the attacks make ``marker`` at the top of their scratch)."""
    found: list[str] = []
    for top, depths in ((target.scratch_root, 5), (tempfile.gettempdir(), 3)):
        for depth in range(0, depths):
            found += glob.glob(f"{glob.escape(top)}/{'*/' * depth}{marker}")
    return found


def _ended_without_a_trace(target: Target, marker: str) -> str | None:
    """End the attacker's session: the DELETE must be answered and ``marker`` (the top of what the code made in its
    scratch) must be gone from the host."""
    failed = _end_session(target, "attacker")
    if failed:
        return f"BREACH: {failed}"
    left = _left_behind(target, marker)
    return f"BREACH: {left[0]} outlived its session" if left else None


@attack("a 3,000-level folder chain in scratch breaks the session's clean-up")
def deep_folder_chain(context: Context) -> str | None:
    marker = f"chain-{secrets.token_hex(6)}"
    code = f"""
import os
os.mkdir({marker!r})
fd = os.open({marker!r}, os.O_RDONLY)
for _ in range(3000):
    os.mkdir('d', dir_fd=fd)
    child = os.open('d', os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = child
open('deep', 'w', opener=lambda name, flags: os.open(name, flags, dir_fd=fd)).close()
log('built')
"""
    assert run(context.target, "attacker", code, language=context.language) == ["built"]
    return _ended_without_a_trace(context.target, marker)


@attack("folders made unreadable (chmod 0) keep their files after the session ends")
def unremovable_files(context: Context) -> str | None:
    marker = f"locked-{secrets.token_hex(6)}"
    code = f"""
import os
os.makedirs({marker!r} + '/inner/deeper')
open({marker!r} + '/inner/deeper/kept.txt', 'w').write('x' * 1000)
os.chmod({marker!r} + '/inner/deeper', 0)
os.chmod({marker!r} + '/inner', 0o500)
os.chmod({marker!r}, 0)
log('locked')
"""
    assert run(context.target, "attacker", code, language=context.language) == ["locked"]
    return _ended_without_a_trace(context.target, marker)


SCRATCH_TRIED = 3 * TEST_LIMITS.scratch_bytes


@attack(f"fill the disk through scratch ({SCRATCH_TRIED >> 20} MiB, three times the quota)")
def fill_scratch(context: Context) -> str | None:
    code = f"""
import os
written, chunk, stopped = 0, b'x' * (4 << 20), None
try:
    while written < {SCRATCH_TRIED}:
        # Files of 16 MiB: the per-file size limit must not be what stops this.
        with open('filler-%d' % (written >> 24), 'ab') as out:
            out.write(chunk)
        written += len(chunk)
except OSError as error:
    stopped = type(error).__name__
log('held: stopped at %d MiB (%s)' % (written >> 20, stopped) if stopped else 'BREACH: wrote %d MiB' % (written >> 20))
"""
    found = probe(context, code)
    _end_session(context.target, "attacker")
    return found


@attack("create a user namespace (full capabilities inside it)")
def new_user_namespace(context: Context) -> str | None:
    code = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000) == 0:
    log('BREACH: unshare(CLONE_NEWUSER) worked: CapEff ' + [line for line in open('/proc/self/status')
        if line.startswith('CapEff')][0].split()[1])
else:
    log('held: errno %d' % ctypes.get_errno())
"""
    return probe(context, code)


_FORGE = """
import fcntl, json, os, stat, struct
# Call 1: the attacker's session is fresh, so this is the number the service expects for it.
forged = json.dumps({{'call': 1, 'output': [{item!r}]}}).encode()
frame = struct.pack('>I', len(forged)) + forged
written = []
# The runtime's own descriptors, by number (its /proc entries may be closed to it once its uid changed) ...
for fd in range(256):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & 3 == os.O_WRONLY:
            os.write(fd, frame)
            written.append(f'self/{{fd}}')
    except OSError:
        pass
# ... and its parent's, through /proc (from the JavaScript runtime this code is a child of Node).
parent = str(os.getppid())
try:
    fds = os.listdir(f'/proc/{{parent}}/fd')
except OSError:
    fds = []
for fd in fds:
    try:
        if not os.readlink(f'/proc/{{parent}}/fd/{{fd}}').startswith('pipe:'):
            continue
        flags = int(open(f'/proc/{{parent}}/fdinfo/{{fd}}').read().split('flags:')[1].split()[0], 8)
        if flags & 3 != os.O_WRONLY:
            continue
        with open(f'/proc/{{parent}}/fd/{{fd}}', 'wb', 0) as pipe:
            pipe.write(frame)
        written.append(f'{{parent}}/{{fd}}')
    except (OSError, IndexError, ValueError):
        pass
log('forged into ' + ', '.join(written))
"""


def _forge(context: Context, item: dict[str, str]) -> list[dict[str, str]]:
    code = in_language(_FORGE.format(item=item), context.language)
    return [
        dict(output)  # type: ignore[arg-type]
        for output in execute_in_sandbox(
            code, "attacker", context.target.endpoint, approve=lambda _: True, token=context.target.token,
            language=context.language,
        )
    ]  # fmt: skip


@attack("forge the runtime's reply: a javascript: image URL")
def forge_image_url(context: Context) -> str | None:
    items = _forge(context, {"type": "input_image", "image_url": "javascript:alert(1)", "detail": "original"})
    urls = [item["image_url"] for item in items if item["type"] == "input_image"]
    bad = [url for url in urls if not re.fullmatch(r"data:image/(png|jpeg);base64,[A-Za-z0-9+/]+=*", url)]
    return f"BREACH: the service returned the image URL {bad[0][:60]!r}" if bad else None


@attack("forge a whole reply, so the next call is answered with this one's output")
def forge_out_of_step(context: Context) -> str | None:
    _forge(context, {"type": "input_text", "text": "forged"})
    texts = run(context.target, "attacker", "log('call two')", language=context.language)
    # Out of step: call two answered with the forged item or with call one's own output ("forged into ...").
    # A runtime retired for the stray reply (or that the attack crashed: from JavaScript it writes into every
    # pipe Node holds) is what the code brought on itself.
    stale = [text for text in texts if text.startswith("forged")]
    return f"BREACH: the second call got {stale!r}" if stale else None


@pytest.fixture(name="target_factory", scope="module", params=MODES)
def _target_factory(request: pytest.FixtureRequest, x_display: str) -> Factory:
    return target_factory(str(request.param), x_display)


@pytest.fixture(scope="module", params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> str:
    if request.param == "javascript":
        _skip_without_node()
    return str(request.param)


def _skip_without_node() -> None:
    try:
        node.node_binary()
    except node.NodeUnavailable as missing:
        pytest.skip(f"blocked: {missing}")


@pytest.fixture(scope="module")
def target(target_factory: Factory, language: str) -> Iterator[Target]:
    with target_factory() as running:
        for unix in (False, True):
            assert run_native(running, "victim", VICTIM_SETUP[language], unix=unix, language=language)
        yield running


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_is_held(name: str, target: Target, target_factory: Factory, language: str) -> None:
    outcome = ATTACKS[name](Context(target, target_factory, language))
    assert outcome is None, f"{name} ({target.mode}, {language}): {outcome}"
    # The service is still up and the other session kept its variables and files.
    for unix in (False, True):
        kept = run_native(target, "victim", VICTIM_CHECK[language], unix=unix, language=language)
        assert kept == [SECRET, SECRET], f"victim lost data ({target.mode}, {language})"
    send(target.endpoint, None, token=target.token, method="DELETE", path=f"{SESSIONS_PATH}attacker")


def test_docs_count_the_attacks() -> None:
    boundary = docs_text.section("execution-service", "Security boundary")
    found = re.search(r"attacks tried / held: \*\*(\d+) / (\d+)\*\*", boundary, flags=re.IGNORECASE)
    assert found, "the docs' security boundary must state 'attacks tried / held: **N / N**'"
    assert (int(found.group(1)), int(found.group(2))) == (len(ATTACKS), len(ATTACKS))


# Attacks on services started differently from the suite's targets (one per mode and test: each needs its own).


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("mode", MODES)
def test_a_shared_network_still_keeps_the_hosts_abstract_sockets_out(x_display: str, mode: str, language: str) -> None:
    # --allow-network shares the host's network namespace, and with it every abstract unix socket on the host (X
    # servers listen on one, beside their /tmp/.X11-unix file): Landlock's scope must keep the code off them.
    if language == "javascript":
        _skip_without_node()
    name = f"\0kit-abstract-probe-{secrets.token_hex(6)}"
    code = f"""
import socket
client = socket.socket(socket.AF_UNIX)
try:
    client.connect({name!r})
    log('BREACH: connected to a host abstract socket')
except OSError as error:
    log('held: ' + type(error).__name__)
"""
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(name)
        listener.listen(1)
        with target_factory(mode, x_display, isolate_network=False)() as shared:
            said = run(shared, "shared-network", code, language=language)
    assert not breach(said), f"{mode}, {language}: {breach(said)}"
    assert any(text.startswith("held") for text in said), said


_VICTIM_WINDOW = """
from Xlib import display as xdisplay
connection = xdisplay.Display()
screen = connection.screen()
window = screen.root.create_window(10, 10, 200, 120, 0, screen.root_depth)
window.set_wm_name({marker!r})
window.map()
connection.sync()
log('window up')
"""
# Every display a session could name (its own DISPLAY and :0 to :20): does any of them show the victim's window?
_LOOK_FOR_THE_WINDOW = """
import os
from Xlib import display as xdisplay
found = []
for name in sorted({{os.environ.get('DISPLAY') or ':0', *(f':{{n}}' for n in range(21))}}):
    try:
        connection = xdisplay.Display(name)
    except Exception:
        continue
    try:
        for window in connection.screen().root.query_tree().children:
            if window.get_wm_name() == {marker!r}:
                found.append(name)
    finally:
        connection.close()
log('BREACH: sees the other session\\'s window on ' + ', '.join(found) if found else 'held')
"""


_SCREEN_SIZE = """
from Xlib import display as xdisplay
screen = xdisplay.Display().screen()
log(f'{screen.width_in_pixels}x{screen.height_in_pixels}')
"""


@pytest.mark.parametrize("display_mode", ["shared", "per-session"])
@pytest.mark.parametrize("mode", MODES)
def test_sessions_cannot_see_each_others_windows_with_a_display_each(
    x_display: str, mode: str, display_mode: str
) -> None:
    # A shared display is shared by design (documented): there the attack must get through, which shows it can.
    # Python only: the JavaScript runtime's browser is headless and uses no X display.
    marker = f"victim-window-{secrets.token_hex(6)}"
    display = x_display if display_mode == "shared" else PER_SESSION_DISPLAY
    with target_factory(mode, display)() as running:
        # python-xlib warns about the empty authority file on stderr, which the runtime returns as text.
        assert "window up" in run_native(running, "victim", _VICTIM_WINDOW.format(marker=marker), unix=False,
                                         language="python")  # fmt: skip
        said = run(running, "attacker", _LOOK_FOR_THE_WINDOW.format(marker=marker))
        # Through python-xlib, as PyAutoGUI would: nobody's Debian Python has python3-xlib but no PyAutoGUI.
        screen = run(running, "attacker", _SCREEN_SIZE)
    expected = "BREACH" if display_mode == "shared" else "held"
    assert any(text.startswith(expected) for text in said), f"{mode}, {display_mode}: {said}"
    if display_mode == "per-session":
        assert "1440x900" in screen, f"the session's own display is not usable: {screen}"
