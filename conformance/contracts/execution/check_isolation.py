"""Isolation and least privilege, as a script can observe them: no host file, no host process, no service
credential, nothing another session left, and no root, capabilities or writes to system folders.

The host-side checks plant a file and start a marked process on the kit's machine, so they judge only a service
that runs there (a remote service's host is out of the kit's reach: those checks are not checked).
"""

from __future__ import annotations

import hashlib
import json
import secrets

import pytest

from conformance.assertions import expect, precondition, unverified
from conformance.harness.execution_service import ExecutionEndpoint, new_session_id

from ._host import PlantedFile
from ._runtimes import Runtime, json_item

_READ_FILE = """
try:
    with open({path!r}) as planted:
        log('read ' + planted.read())
except OSError as error:
    log('refused ' + type(error).__name__)
"""

# Every command line the script can read, joined, so the kit can look for a marker in it.
_PROCESSES = """
import os
lines = []
for entry in os.listdir('/proc'):
    if entry.isdigit():
        try:
            with open(f'/proc/{{entry}}/cmdline', 'rb') as cmdline:
                lines.append(cmdline.read().replace(b'\\0', b' ').decode('utf-8', 'replace'))
        except OSError:
            pass
log(str(sum({marker!r} in line for line in lines)))
"""

# The script hashes every word of every environment and command line it can read and compares with the hash of the
# token, so the token itself never enters the script.
_CREDENTIALS = """
import hashlib, os, re
wanted = {digest!r}
sources = ['/proc/self/environ'] + [f'/proc/{{p}}/environ' for p in os.listdir('/proc') if p.isdigit()]
sources += [f'/proc/{{p}}/cmdline' for p in os.listdir('/proc') if p.isdigit()]
texts = ['\\0'.join(f'{{k}}={{v}}' for k, v in os.environ.items())]
for source in sources:
    try:
        with open(source, 'rb') as stream:
            texts.append(stream.read().decode('utf-8', 'replace'))
    except OSError:
        pass
def holds_token(text):
    return any(hashlib.sha256(w.encode()).hexdigest() == wanted for w in re.split(r'[\\0\\s=:"\\',]+', text))
found = [text for text in texts if holds_token(text)]
log('token seen ' + str(len(found)) + ' times in ' + str(len(texts)) + ' sources')
"""

_LEAVE_BEHIND = """
import os, subprocess, sys, tempfile
made = []
for folder in {{os.getcwd(), os.path.expanduser('~'), tempfile.gettempdir()}}:
    path = os.path.join(folder, {marker!r})
    try:
        with open(path, 'w') as left:
            left.write('left by another session')
        made.append(os.path.abspath(path))
    except OSError:
        pass
try:
    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}], start_new_session=True)
    started = True
except OSError:
    started = False
driverkit_left = {marker!r}
log(json.dumps({{'files': made, 'process': started}}))
"""

_LOOK_FOR = """
import os, json
seen = [path for path in json.loads({paths!r}) if os.path.exists(path)]
for folder in {{os.getcwd(), os.path.expanduser('~'), '/tmp', '/var/tmp', '/dev/shm'}}:
    try:
        seen += [os.path.join(folder, name) for name in os.listdir(folder) if {marker!r} in name]
    except OSError:
        pass
processes = 0
for entry in os.listdir('/proc'):
    if entry.isdigit():
        try:
            with open(f'/proc/{{entry}}/cmdline', 'rb') as cmdline:
                processes += {marker!r}.encode() in cmdline.read()
        except OSError:
            pass
log(json.dumps({{'files': sorted(set(seen)), 'processes': processes, 'variable': 'driverkit_left' in globals()}}))
"""

_PRIVILEGE = """
import json, os
status = {}
with open('/proc/self/status') as lines:
    for line in lines:
        key, _, value = line.partition(':')
        status[key] = value.strip()
written = []
for folder in ('/etc', '/usr', '/'):
    path = os.path.join(folder, 'driverkit-write-probe')
    try:
        with open(path, 'w') as probe:
            probe.write('x')
        written.append(folder)
        os.unlink(path)
    except OSError:
        pass
log(json.dumps({'euid': os.geteuid(), 'caps': status.get('CapEff'), 'no_new_privs': status.get('NoNewPrivs'),
                'written': written}))
"""


@pytest.mark.clause("EX-ISO-001")
def test_a_script_cannot_read_a_host_file(python: Runtime, planted_file: PlantedFile) -> None:
    reply = python.run(new_session_id("hostfile"), _READ_FILE.format(path=str(planted_file.path)))
    expect(
        planted_file.content not in reply.text(),
        "EX-ISO-001",
        f"a script read the file {planted_file.path} the kit planted on the service's host",
    )


@pytest.mark.clause("EX-ISO-004")
def test_a_script_sees_no_host_process(python: Runtime, host_process: str) -> None:
    reply = python.run(new_session_id("hostproc"), _PROCESSES.format(marker=host_process))
    count = json_item(reply)
    if not isinstance(count, int):
        unverified("python", f"the script that lists processes failed: {reply.describe()}")
    expect(
        count == 0,
        "EX-ISO-004",
        f"a script saw a process the kit runs on the service's host (command line marked {host_process})",
    )


@pytest.mark.clause("EX-ISO-002")
def test_a_script_finds_no_service_credential(service: ExecutionEndpoint, python: Runtime) -> None:
    digest = hashlib.sha256(service.token.encode()).hexdigest()
    reply = python.run(new_session_id("credential"), _CREDENTIALS.format(digest=digest))
    expect(
        "token seen 0 times" in reply.text(),
        "EX-ISO-002",
        f"a script found the service's bearer token in what it can read: {reply.describe(160)}",
    )


@pytest.mark.clause("EX-ISO-003")
def test_a_session_sees_nothing_another_session_left(python: Runtime) -> None:
    marker = f"driverkit-left-{secrets.token_hex(6)}"
    left = python.run(new_session_id("leaver"), "import json\n" + _LEAVE_BEHIND.format(marker=marker))
    made = json_item(left)
    if not isinstance(made, dict):
        unverified("python", f"the script that leaves files behind failed: {left.describe()}")
    paths = json.dumps(made.get("files", []))
    seen = python.run(new_session_id("finder"), _LOOK_FOR.format(paths=paths, marker=marker))
    found = json_item(seen)
    if not isinstance(found, dict):
        unverified("python", f"the script that looks for them failed: {seen.describe()}")
    precondition(not found["variable"], "EX-SESSION-002", "the second session shares the first one's variables")
    expect(not found["files"], "EX-ISO-003", f"a session saw files another session left: {found['files']}")
    expect(not found["processes"], "EX-ISO-003", "a session saw a process another session started")


@pytest.mark.clause("EX-PRIV-001")
def test_scripts_run_with_least_privilege(python: Runtime) -> None:
    reply = python.run(new_session_id("privilege"), _PRIVILEGE)
    found = json_item(reply)
    if not isinstance(found, dict):
        unverified("python", f"the script that reads its privileges failed: {reply.describe()}")
    expect(found["euid"] != 0, "EX-PRIV-001", "scripts run as root (effective uid 0)")
    expect(
        int(str(found["caps"] or "0"), 16) == 0,
        "EX-PRIV-001",
        f"scripts hold capabilities (CapEff {found['caps']})",
    )
    expect(
        found["no_new_privs"] == "1",
        "EX-PRIV-001",
        f"scripts may gain privileges (no_new_privs is {found['no_new_privs']!r}, not 1)",
    )
    expect(not found["written"], "EX-PRIV-001", f"a script wrote into system folders: {found['written']}")
