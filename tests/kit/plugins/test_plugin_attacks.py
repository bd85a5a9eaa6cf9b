"""The plugin attack table: a plugin under test reaches no network, writes nothing outside its
workspace, sees no secret of the kit's and leaves no process behind, by any route we know of.

Every route is a tool of ``tests/subjects/plugins/attacks/routes`` (JS) or
``tests/subjects/plugins/attacks/python_routes`` (Python); ``register`` does its damage in
``register()``. Each runs against a TCP, a UDP and a unix-socket listener and a folder outside the
workspace that this module creates; the plugin gets their addresses through
``TOOLCONFORMANCE_PASS_ENV``, the documented way to hand a plugin a variable. A route is confined
when the listeners saw nothing, the folder stayed empty, no process carrying the run's token is
left after the plugin is closed, and the secret never shows up in what the plugin answered.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import confinement
from pytest_toolconformance.plugins.loaders import BridgedPlugin, NodePlugin, PythonPlugin
from pytest_toolconformance.plugins.loaders.node import node_available
from pytest_toolconformance.suites.plugin import PLUGIN_SUITES_DIR
from tests.paths import PLUGINS

ATTACKS = PLUGINS / "attacks"
ROUTES_PLUGIN = ATTACKS / "routes" / "index.mjs"
PYTHON_ROUTES_PLUGIN = ATTACKS / "python_routes" / "plugin.py"
REGISTER_PLUGIN = ATTACKS / "register" / "index.mjs"
SECRET_NAME = "TOOLCONF_TEST_CI_SECRET"

# route -> what it attacks. "child" network routes are the ones only a network namespace stops.
ROUTES: dict[str, str] = {
    "ExecSyncCurl": "network-child",
    "ShellCurl": "network-child",
    "SpawnNodeSocket": "network-child",
    "ChildFetchUndici": "network-child",
    "ChildWebSocket": "network-child",
    "PythonSocket": "network-child",
    "ShPythonSocket": "network-child",
    "BashDevTcp": "network-child",
    "WorkerSocket": "network-child",
    "TcpWrapBinding": "network-child",
    "VmEscapeTcpWrap": "network-child",
    "NetConnect": "network",
    "DynamicImportNet": "network",
    "TlsConnect": "network",
    "Http2Connect": "network",
    "HttpGet": "network",
    "Fetch": "network",
    "DgramSend": "network",
    "DnsResolverToListener": "network",
    "WriteOutside": "disk",
    "WriteOutsideFromChild": "disk",
    "WriteOutsideFromWorker": "disk",
    "WriteThroughProcSelfFd": "disk",
    "WriteThroughSymlink": "disk",
    "RenameIntoOutside": "disk",
    "MkdirOutside": "disk",
    "WriteSystemTmp": "disk",
    "ReadEnviron": "secret",
    "ReadSshKey": "secret-file",
    "ReadNpmrcToken": "secret-file",
    "ChildCatsAwsCredentials": "secret-file",
    "ReadOutside": "secret-file",
    "ChildCatsOutside": "secret-file",
    "UnixSocket": "socket",
    "DetachedChild": "process",
    "SetsidEnvlessChild": "process",
}

# The Python plugin's routes (every route found open while Python plugins ran in the kit's process).
PYTHON_ROUTES: dict[str, str] = {
    "SocketConnect": "network",
    "CtypesConnect": "network-child",
    "UdpSend": "network-child",
    "ChildPythonSocket": "network-child",
    "ChildCurl": "network-child",
    "UnixSocket": "socket",
    "WriteOutside": "disk",
    "WriteOutsideFromChild": "disk",
    "WriteSystemTmp": "disk",
    "ReadEnviron": "secret",
    "ReadSshKey": "secret-file",
    "ChildCatsAwsCredentials": "secret-file",
    "ReadOutside": "secret-file",
    "ChildCatsOutside": "secret-file",
    "SetsidChild": "process",
    "NewSessionChild": "process",
    "DoubleForkChild": "process",
    "SetsidEnvlessChild": "process",
}

pytestmark = [
    pytest.mark.skipif(not node_available(), reason="needs Node.js"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the attack table reads /proc"),
]


@dataclass
class Targets:
    """What the attacks aim at, and what reached it."""

    outside: Path
    token: str
    secret: str
    home: Path  # the kit's user's home for this module, with keys holding ``secret`` planted in it
    elsewhere: Path  # a folder outside the workspace, no credential place, with a file holding ``secret``
    tcp: socket.socket
    udp: socket.socket
    unix: socket.socket
    tcp_seen: list[str] = field(default_factory=list)
    udp_seen: list[bytes] = field(default_factory=list)
    _lock: threading.Condition = field(default_factory=threading.Condition)

    @property
    def env(self) -> dict[str, str]:
        names = (
            "ATTACK_PORT",
            "ATTACK_UDP_PORT",
            "ATTACK_OUTSIDE",
            "ATTACK_TOKEN",
            "ATTACK_PYTHON",
            "ATTACK_HOME",
            "ATTACK_UNIX",
            "ATTACK_ELSEWHERE",
        )
        return {
            "HOME": str(self.home),
            "ATTACK_HOME": str(self.home),
            "ATTACK_PORT": str(self.tcp.getsockname()[1]),
            "ATTACK_UDP_PORT": str(self.udp.getsockname()[1]),
            "ATTACK_OUTSIDE": str(self.outside),
            "ATTACK_UNIX": self.unix.getsockname(),
            "ATTACK_ELSEWHERE": str(self.elsewhere),
            "ATTACK_TOKEN": self.token,
            "ATTACK_PYTHON": sys.executable,
            confinement.PASS_ENV_ENV: ",".join(names),
            SECRET_NAME: self.secret,
        }

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn, self._lock:
                conn.settimeout(0.5)
                try:
                    first = conn.recv(64)
                except OSError:
                    first = b""
                self.tcp_seen.append(first.decode("latin1"))
                self._lock.notify_all()

    def _receive(self) -> None:
        while True:
            try:
                data = self.udp.recv(4096)
            except OSError:
                return
            with self._lock:
                self.udp_seen.append(data)
                self._lock.notify_all()

    def settled(self) -> tuple[list[str], list[bytes]]:
        """What reached the listeners since the last call (the unix socket's with the TCP one's),
        strangers only: our own probes, sent last, go through the same queues, so once they are seen
        everything before them is counted."""
        probe = f"probe-{secrets.token_hex(4)}"
        with socket.create_connection(self.tcp.getsockname(), timeout=5) as conn:
            conn.sendall(probe.encode())
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(self.unix.getsockname())
            conn.sendall(f"{probe}-unix".encode())
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.sendto(probe.encode(), self.udp.getsockname())
        udp.close()
        with self._lock:
            self._lock.wait_for(
                lambda: probe in self.tcp_seen and f"{probe}-unix" in self.tcp_seen and probe.encode() in self.udp_seen,
                timeout=10,
            )
            tcp = [seen for seen in self.tcp_seen if not seen.startswith("probe-")]
            datagrams = [seen for seen in self.udp_seen if not seen.startswith(b"probe-")]
            self.tcp_seen.clear()
            self.udp_seen.clear()
        return tcp, datagrams

    def leftovers(self) -> list[str]:
        """Processes still running that this module's plugins started (their argv carries the token)."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if self.token.encode() in cmdline and int(entry) != os.getpid():
                argv = cmdline.replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{entry}: {argv[:120]}")
                try:  # reported, and ended so that one failure leaves nothing running
                    os.kill(int(entry), signal.SIGKILL)
                except OSError:
                    pass
        return found

    def written_outside(self) -> list[str]:
        found = [str(p) for p in self.outside.rglob("*")]
        stray = Path(f"/tmp/toolconformance-attack-{self.token}.txt")
        return found + ([str(stray)] if stray.exists() else [])


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Targets]:
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(64)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    # A unix socket where a session bus or a container runtime keeps one: outside the workspace.
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(tmp_path_factory.mktemp("run") / "attack.sock"))
    unix.listen(16)
    home = tmp_path_factory.mktemp("home")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    found = Targets(
        tmp_path_factory.mktemp("outside"), secrets.token_hex(8), secrets.token_hex(12), home, elsewhere, tcp, udp, unix
    )
    (elsewhere / "notes.txt").write_text(f"notes {found.secret}\n")
    for place in (".ssh/id_ed25519", ".npmrc", ".aws/credentials"):
        (home / place).parent.mkdir(parents=True, exist_ok=True)
        (home / place).write_text(f"key {found.secret}\n")
    threading.Thread(target=found._accept, args=(tcp,), daemon=True).start()
    threading.Thread(target=found._accept, args=(unix,), daemon=True).start()
    threading.Thread(target=found._receive, daemon=True).start()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in found.env.items():
            patch.setenv(name, value)
        yield found
    tcp.close()
    udp.close()
    unix.close()


@pytest.fixture(scope="module")
def routes(targets: Targets) -> Iterator[NodePlugin]:
    plugin = NodePlugin(ROUTES_PLUGIN, timeout=20)
    yield plugin
    plugin.close()


def _confined_here(kind: str) -> None:
    found = confinement.current()
    if kind in ("network-child", "disk", "secret-file", "socket") and not found.isolated:
        pytest.skip(
            f"no namespaces here ({found.reason}): this route is open, as the report header says "
            "and docs/access-model.md lists"
        )


def test_the_table_is_the_plugin(routes: NodePlugin) -> None:
    routes.ping()
    routes.call_raw("ReadEnviron", {})
    assert [name for _, name in routes.tools] == list(ROUTES)
    assert len(ROUTES) >= 20


@pytest.fixture(scope="module")
def python_routes(targets: Targets) -> Iterator[PythonPlugin]:
    plugin = PythonPlugin(PYTHON_ROUTES_PLUGIN, timeout=20)
    yield plugin
    plugin.close()


def test_the_python_table_is_the_plugin(python_routes: PythonPlugin) -> None:
    assert python_routes.ping()["pid"] != os.getpid()  # the plugin's code runs in a process of its own
    python_routes.call_raw("ReadEnviron", {})
    assert [name for _, name in python_routes.tools] == list(PYTHON_ROUTES)


def _attack(plugin: BridgedPlugin, route: str, kind: str, targets: Targets) -> None:
    _confined_here(kind)
    targets.settled()
    answer = plugin.call_raw(route, {})
    plugin.close()  # ends everything the call started, detached or not
    said = json.dumps(answer)
    tcp, datagrams = targets.settled()
    assert (tcp, datagrams) == ([], []), f"{route} reached the listener; the plugin answered {said[:400]}"
    assert targets.written_outside() == [], f"{route} wrote outside its workspace: {said[:400]}"
    assert targets.leftovers() == [], f"{route} left processes behind"
    assert targets.secret not in said, f"{route} read the kit's secret {SECRET_NAME}"
    # The call finished and said what the plugin tried: its own account, or what the guard refused.
    details = (answer.get("result") or {}).get("details", {})
    outcome = details.get("outcome") or (answer.get("error") or {}).get("message")
    assert outcome, said[:400]
    if kind == "network" and answer.get("network") is not None:
        assert answer["network"], f"the in-process guard did not record what {route} reached for"


@pytest.mark.parametrize("route", list(ROUTES))
def test_route_is_confined(route: str, routes: NodePlugin, targets: Targets) -> None:
    _attack(routes, route, ROUTES[route], targets)


@pytest.mark.parametrize("route", list(PYTHON_ROUTES))
def test_python_route_is_confined(route: str, python_routes: PythonPlugin, targets: Targets) -> None:
    _attack(python_routes, route, PYTHON_ROUTES[route], targets)


def test_the_plugin_sees_only_a_scrubbed_environment(routes: NodePlugin, targets: Targets) -> None:
    environ = routes.call_raw("ReadEnviron", {})["result"]["details"]["outcome"]
    assert f'"HOME":"{Path.home()}"' not in environ
    assert targets.secret not in environ
    assert f'"ATTACK_TOKEN":"{targets.token}"' in environ  # named in TOOLCONFORMANCE_PASS_ENV


def test_register_time_attacks_are_confined(targets: Targets) -> None:
    plugin = NodePlugin(REGISTER_PLUGIN, timeout=20)
    targets.settled()
    try:
        said = plugin.call_raw("Tried", {})["result"]["content"][0]["text"]
    finally:
        plugin.close()
    isolated = confinement.current().isolated
    tcp, _ = targets.settled()
    assert targets.leftovers() == []
    if isolated:
        assert tcp == [] and targets.written_outside() == [], said
        assert "curl: failed" in said and "write: failed" in said


def _run_kit(
    tmp_path: Path, targets: Targets, *extra: str, env: dict[str, str] | None = None
) -> tuple[str, dict[str, Any]]:
    report = tmp_path / "report.json"
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--toolconformance",
        f"--toolconformance-plugin={ROUTES_PLUGIN.parent}",
        f"--toolconformance-plugin={REGISTER_PLUGIN.parent}",
        f"--toolconformance-plugin={PYTHON_ROUTES_PLUGIN}",
        f"--junitxml={tmp_path / 'junit.xml'}",
        f"--toolconformance-report={report}",
        "--toolconformance-max-examples=2",
        "--toolconformance-pass-env=ATTACK_OUTSIDE",
        *extra,
        str(PLUGIN_SUITES_DIR),
    ]
    done = subprocess.run(
        args,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **(env or {}), confinement.PASS_ENV_ENV: "ATTACK_PORT,ATTACK_TOKEN"},
    )
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout, json.loads(report.read_text())


def test_a_kit_run_of_the_attack_plugins_finishes_confined(tmp_path: Path, targets: Targets) -> None:
    if not confinement.current().isolated:
        pytest.skip(f"no namespaces here ({confinement.current().reason})")
    targets.settled()
    out, report = _run_kit(tmp_path, targets, "-k", "ERR-3 or REG-1")
    assert "toolconformance plugin sandbox (each plugin in a process of its own): network: isolated" in out
    assert report["run"]["sandbox"]["network"] == "isolated"
    # What the plugin tried in its own process is in the findings.
    messages = " ".join(m for rule in report["rules"] for m in rule["messages"])
    assert "it reached for net" in messages and "it reached for fetch" in messages
    assert "it reached for connect:('127.0.0.1'" in messages  # the Python plugin's socket, refused in its process
    assert set(report["run"]["sandbox"]["plugins"]) == {
        str(ROUTES_PLUGIN.parent),
        str(REGISTER_PLUGIN.parent),
        str(PYTHON_ROUTES_PLUGIN),
    }
    tcp, datagrams = targets.settled()
    assert (tcp, datagrams) == ([], [])
    assert targets.written_outside() == []
    assert targets.leftovers() == []
    # No secret's content, no environment token of the job, in the terminal or in any file the kit wrote.
    written = {path.name: path.read_text(errors="replace") for path in tmp_path.iterdir() if path.is_file()}
    assert {"report.json", "report.md", "report.html", "junit.xml"} <= set(written)
    for where, text in {"terminal": out, **written}.items():
        assert targets.secret not in text, f"the secret is in {where}"


def test_without_namespaces_the_header_and_report_say_so(tmp_path: Path, targets: Targets) -> None:
    out, report = _run_kit(
        tmp_path, targets, "-k", "REG-1", "--toolconformance-allow-unconfined", env={confinement.NO_NAMESPACES_ENV: "1"}
    )
    assert f"(each plugin in a process of its own): network: {confinement.NETWORK_GUARD_ONLY}" in out
    assert "no namespaces because TOOLCONFORMANCE_NO_NAMESPACES is set" in out
    assert report["run"]["sandbox"]["network"] == confinement.NETWORK_GUARD_ONLY
    assert report["run"]["sandbox"]["filesystem"].startswith("not confined")
    assert targets.leftovers() == []  # tree tracking still ends the detached child of register()
    assert "Plugin sandbox: network: in-process guard only" in (tmp_path / "report.md").read_text()
    targets.settled()  # register()'s curl may have got through: that is what the header admits


def test_without_namespaces_a_child_process_reaches_the_network(
    targets: Targets, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The route the header warns about is real (and the listener counts what reaches it)."""
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    plugin = NodePlugin(ROUTES_PLUGIN, timeout=20)
    targets.settled()
    try:
        answer = plugin.call_raw("SpawnNodeSocket", {})
        guarded = plugin.call_raw("NetConnect", {})
        plugin.call_raw("DetachedChild", {})
    finally:
        plugin.close()
    tcp, _ = targets.settled()
    assert answer["result"]["details"]["outcome"].endswith("connected "), answer
    assert len(tcp) == 1
    assert guarded["network"] == ["net"]  # the in-process guard still refuses its own process
    assert targets.leftovers() == []


def _open_routes(plugin: BridgedPlugin, table: dict[str, str], targets: Targets) -> list[str]:
    """The routes of ``table`` that got through: reached a listener, wrote outside, left a process
    behind or read the secret."""
    got_through = []
    for route in table:
        targets.settled()
        try:
            said = json.dumps(plugin.call_raw(route, {}))
        finally:
            plugin.close()
        tcp, datagrams = targets.settled()
        written, left = targets.written_outside(), targets.leftovers()
        for path in sorted(written, reverse=True):  # what a route made, inner first, so the next starts clean
            (os.rmdir if os.path.isdir(path) and not os.path.islink(path) else os.unlink)(path)
        if tcp or datagrams or written or left or targets.secret in said:
            got_through.append(route)
    return got_through


#: What stays open where namespaces are forced off (docs/access-model.md § 13 lists the same):
#: the guard holds the plugin's own network calls; reads, writes, sockets and children do as they like.
OPEN_WITHOUT_NAMESPACES = {
    "js": [
        "ExecSyncCurl",
        "ShellCurl",
        "SpawnNodeSocket",
        "ChildFetchUndici",
        "ChildWebSocket",
        "PythonSocket",
        "ShPythonSocket",
        "BashDevTcp",
        "WorkerSocket",
        "TcpWrapBinding",
        "VmEscapeTcpWrap",
        "WriteOutside",
        "WriteOutsideFromChild",
        "WriteOutsideFromWorker",
        "WriteThroughProcSelfFd",
        "WriteThroughSymlink",
        "RenameIntoOutside",
        "MkdirOutside",
        "WriteSystemTmp",
        "ReadSshKey",
        "ReadNpmrcToken",
        "ChildCatsAwsCredentials",
        "ReadOutside",
        "ChildCatsOutside",
        "SetsidEnvlessChild",
    ],
    "python": [
        "CtypesConnect",
        "UdpSend",
        "ChildPythonSocket",
        "ChildCurl",
        "UnixSocket",
        "WriteOutside",
        "WriteOutsideFromChild",
        "WriteSystemTmp",
        "ReadSshKey",
        "ChildCatsAwsCredentials",
        "ReadOutside",
        "ChildCatsOutside",
        "SetsidEnvlessChild",
    ],
}


def test_without_namespaces_the_open_routes_are_the_listed_ones(
    targets: Targets, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    found = {
        "js": _open_routes(NodePlugin(ROUTES_PLUGIN, timeout=20), ROUTES, targets),
        "python": _open_routes(PythonPlugin(PYTHON_ROUTES_PLUGIN, timeout=20), PYTHON_ROUTES, targets),
    }
    assert found == OPEN_WITHOUT_NAMESPACES, json.dumps(found)


READER = """
from pathlib import Path
from helper import SIBLING
from reference_host import define_tool, text_result

HERE = Path(__file__).resolve().parent


def read(_call_id, _params):
    found = []
    for name in ("notes.txt", ".env"):
        try:
            found.append((HERE.parent.parent / name).read_text())
        except OSError as error:
            found.append(f"failed: {error.strerror}")
    return text_result(" | ".join(found))


def imports(_call_id, _params):
    try:
        import mylib  # noqa: F401 - a module at the repository's root
        return text_result("imported")
    except ImportError as error:
        return text_result(f"failed: {error}")


def register(ctx):
    for name, execute in (("ReadRepository", read), ("ImportFromRepository", imports)):
        ctx.register_tool(define_tool(name=name, label=name, description=SIBLING, parameters={"type": "object"},
                                      execute=execute))
"""


def test_a_python_plugin_sees_its_folder_not_the_repository_on_sys_path(
    tmp_path: Path, targets: Targets, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest puts its rootdir on sys.path; the plugin's process still has only its own folder there. Its
    repository is in sight, read-only (a plugin loads what its repository holds); its .env is not."""
    _confined_here("secret-file")
    repository = tmp_path / "repository"
    (repository / ".git").mkdir(parents=True)
    (repository / "notes.txt").write_text("notes of the repository\n")
    (repository / ".env").write_text(f"API_KEY={targets.secret}\n")
    (repository / "mylib.py").write_text("VALUE = 1\n")
    folder = repository / "plugins" / "reader"
    folder.mkdir(parents=True)
    (folder / "helper.py").write_text("SIBLING = 'Reads what it can.'\n")
    (folder / "plugin.py").write_text(READER)
    monkeypatch.syspath_prepend(str(repository))
    plugin = PythonPlugin(folder / "plugin.py", timeout=20)
    try:
        read = plugin.call_raw("ReadRepository", {})["result"]["content"][0]["text"]
        imported = plugin.call_raw("ImportFromRepository", {})["result"]["content"][0]["text"]
    finally:
        plugin.close()
    assert targets.secret not in read and read == "notes of the repository\n | "  # .env: covered by /dev/null
    assert imported == "failed: No module named 'mylib'"
