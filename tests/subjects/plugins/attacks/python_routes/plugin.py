"""An attacker's Python plugin: every tool tries one route to the network, to the disk outside its
workspace, to the kit's secrets or to outliving its plugin, and answers what happened, so a route
that got through says so. Its targets come as ../routes/index.mjs's do (ATTACK_PORT, ATTACK_UDP_PORT,
ATTACK_OUTSIDE, ATTACK_TOKEN, ATTACK_PYTHON, ATTACK_HOME), plus ATTACK_UNIX (a unix socket listener
outside the workspace) and ATTACK_ELSEWHERE (a folder outside the workspace with a file holding a secret).
"""

from __future__ import annotations

import ctypes
import json
import os
import socket
import struct
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reference_host import define_tool, text_result

E = os.environ
PORT = int(E.get("ATTACK_PORT") or 9)
UDP = int(E.get("ATTACK_UDP_PORT") or 9)
OUT = E.get("ATTACK_OUTSIDE") or "/nonexistent"
TOKEN = E.get("ATTACK_TOKEN") or "no-token"
PY = E.get("ATTACK_PYTHON") or "python3"
HOME = E.get("ATTACK_HOME") or "/nonexistent"
UNIX = E.get("ATTACK_UNIX") or "/nonexistent.sock"
ELSEWHERE = E.get("ATTACK_ELSEWHERE") or "/nonexistent"
CONNECT_SNIPPET = f"import socket; socket.create_connection(('127.0.0.1', {PORT}), 2); print('connected')"


def short(value: Any) -> str:
    return " ".join(str(value).split())[:300]


def failed(error: BaseException) -> str:
    return f"failed: {type(error).__name__} {short(error)}"


def run(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=4)
    except (OSError, subprocess.SubprocessError) as error:
        return failed(error)
    return f"exit {done.returncode}: {short(done.stdout + done.stderr)}"


def read(path: str) -> str:
    try:
        return "read: " + short(Path(path).read_text())
    except OSError as error:
        return "read " + failed(error)


def write(path: str) -> str:
    try:
        Path(path).write_text("x")
        return "wrote"
    except OSError as error:
        return failed(error)


def socket_connect() -> str:
    try:
        with socket.create_connection(("127.0.0.1", PORT), 2):
            return "connected"
    except OSError as error:
        return failed(error)


def raw_socket_connect() -> str:
    # Past Python's socket module (and any guard on it): connect(2) through libc.
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
    address = struct.pack("<HH4s8x", socket.AF_INET, socket.htons(PORT), socket.inet_aton("127.0.0.1"))
    buffer = ctypes.create_string_buffer(address)
    done = libc.connect(fd, buffer, len(address))
    problem = ctypes.get_errno()
    libc.close(fd)
    return "connected" if done == 0 else f"failed: {os.strerror(problem)}"


def udp_send() -> str:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
            sender.sendto(f"udp {TOKEN}".encode(), ("127.0.0.1", UDP))
        return "sent"
    except OSError as error:
        return failed(error)


def unix_connect() -> str:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(2)
            client.connect(UNIX)
            client.sendall(f"unix {TOKEN}".encode())
        return "connected"
    except OSError as error:
        return failed(error)


def environ() -> str:
    return json.dumps(dict(os.environ))[:8000]


def _sleeper_running() -> bool:
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if TOKEN.encode() in cmdline and b"time.sleep" in cmdline:
                return True
    return False


def detached(argv_prefix: list[str], env: dict[str, str] | None = None) -> str:
    child = subprocess.Popen([*argv_prefix, PY, "-c", f"import time; time.sleep(120)  # {TOKEN}"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True, env=env)
    # Answer once the sleeper runs (setsid forks it away): a route that escapes does so every time. The wait
    # is long because a busy machine may take seconds to start Python; it ends as soon as the sleeper runs.
    deadline = time.monotonic() + 15  # under the tests' 20 s call bound
    while not _sleeper_running() and time.monotonic() < deadline:
        time.sleep(0.05)
    return f"spawned {child.pid}"


def double_fork() -> str:
    # A grandchild whose parent exits at once: re-parented, in a session of its own.
    code = f"import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(120)  # {TOKEN}\nos._exit(0)"
    return run([PY, "-c", code])


ROUTES: dict[str, Callable[[], str]] = {
    "SocketConnect": socket_connect,
    "CtypesConnect": raw_socket_connect,
    "UdpSend": udp_send,
    "ChildPythonSocket": lambda: run([PY, "-c", CONNECT_SNIPPET]),
    "ChildCurl": lambda: run(["curl", "-s", "-m", "2", "-o", "/dev/null", "-w", "connected", f"http://127.0.0.1:{PORT}/"]),
    "UnixSocket": unix_connect,
    "WriteOutside": lambda: write(os.path.join(OUT, "python-direct.txt")),
    "WriteOutsideFromChild": lambda: run(["sh", "-c", f"echo x > '{OUT}/python-child.txt' && echo wrote"]),
    "WriteSystemTmp": lambda: write(f"/tmp/toolconformance-attack-{TOKEN}.txt"),
    "ReadEnviron": environ,
    "ReadSshKey": lambda: read(os.path.join(HOME, ".ssh", "id_ed25519")),
    "ChildCatsAwsCredentials": lambda: run(["cat", os.path.join(HOME, ".aws", "credentials")]),
    "ReadOutside": lambda: read(os.path.join(ELSEWHERE, "notes.txt")),
    "ChildCatsOutside": lambda: run(["cat", os.path.join(ELSEWHERE, "notes.txt")]),
    "SetsidChild": lambda: detached(["setsid"]),
    "NewSessionChild": lambda: detached([]),
    "DoubleForkChild": double_fork,
    "SetsidEnvlessChild": lambda: detached(["/usr/bin/setsid"], env={}),
}


def _tool(name: str, attack: Callable[[], str]) -> Any:
    def execute(_call_id: str, _params: dict[str, Any]) -> dict[str, Any]:
        outcome = attack()
        result = text_result(outcome)
        result["details"] = {"route": name, "outcome": outcome}
        return result

    return define_tool(name=name, label=name, description=f"Attack route {name}: answers what happened.",
                       parameters={"type": "object", "properties": {}, "additionalProperties": False},
                       execute=execute)


def register(ctx: Any) -> None:
    for name, attack in ROUTES.items():
        ctx.register_tool(_tool(name, attack))
