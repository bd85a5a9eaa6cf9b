"""What confines a plugin's process tree: the policy (what this machine allows, what a run says
about it, what CI refuses) and the namespace sandbox that enforces it.

A plugin under test is untrusted, so a :class:`Sandbox` confines the process the supervisor
(:mod:`pytest_toolconformance.supervisor`) starts for it, on Linux: ``unshare`` gives it a user,
network, mount and PID namespace of its own (no network at all, not even the host's loopback;
every mount read-only but its workspace; everything it starts dies with it), all capabilities are
dropped before the program runs, and its environment is scrubbed. Where the kernel refuses
namespaces (or ``TOOLCONFORMANCE_NO_NAMESPACES=1``), the process runs in a process group of its own
and only the bridge's in-process guard stands between the plugin and the network; :func:`summary`
says which is in force, for the report header, and :func:`unconfined_in_ci` makes that an error in
CI unless the run allows it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Set to 1 to run plugins without namespaces (what a platform without them gets), e.g. to see
#: what the report says there.
NO_NAMESPACES_ENV = "TOOLCONFORMANCE_NO_NAMESPACES"
#: Comma-separated names of environment variables a plugin's process may see (beside the
#: scrubbed set); ``--toolconformance-pass-env=NAME`` adds to it.
PASS_ENV_ENV = "TOOLCONFORMANCE_PASS_ENV"

NETWORK_ISOLATED = "isolated"
NETWORK_GUARD_ONLY = "in-process guard only: child processes and native bindings can reach the network"

_POSIX = os.name == "posix"
_LINUX = sys.platform.startswith("linux")
#: Python plugins run in a bridge process of their own where its host-call pipe works (POSIX); elsewhere
#: they are imported into the kit's own process, behind its in-process guard only.
PYTHON_PLUGINS_IN_PROCESS = not _POSIX


_UNSHARE_FLAGS = ("--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc")

# Runs as PID 1 of the new namespaces, before the real program: covers each masked folder with an
# empty one and shows again only what the plugin needs inside it (copies of its mounts taken with
# open_tree before the cover: a bind of the covered path would see the cover), covers the credential
# places, makes every mount read-only but the writable
# paths, drops every capability (so nothing inside can undo that or leave the namespaces) and
# execs argv. Kept to the standard library: it runs with `python -I -S`.
_INIT = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class Attr(ctypes.Structure):
    _fields_ = [("set", ctypes.c_uint64), ("clr", ctypes.c_uint64), ("prop", ctypes.c_uint64), ("ns", ctypes.c_uint64)]
def setattr_(path, on, off, flags):
    attr = Attr(on, off, 0, 0)
    if libc.syscall(442, -100, path.encode(), flags, ctypes.byref(attr), ctypes.sizeof(attr)) != 0:
        raise OSError(ctypes.get_errno(), "mount_setattr " + path)
def mount(source, target, kind, flags, data, what):
    if libc.mount(source.encode(), target.encode(), kind, flags, data) != 0:
        raise OSError(ctypes.get_errno(), what + " " + target)
def under(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")
split = sys.argv.index("--")
lists = {"writable": [], "hide": [], "mask": [], "show": []}
current = "writable"
for arg in sys.argv[1:split]:
    if arg in ("--hide", "--mask", "--show"):
        current = arg[2:]
    else:
        lists[current].append(arg)
argv = sys.argv[split + 1:]
writable, hidden = lists["writable"], lists["hide"]
# Found now: after the masks this interpreter's own library (execvp imports from it) may be out of sight.
program = argv[0]
if "/" not in program:
    for folder in os.environ.get("PATH", "").split(":"):
        if folder and os.access(os.path.join(folder, program), os.X_OK):
            program = os.path.join(folder, program)
            break
try:
    cwd = os.getcwd()
    masks = lists["mask"]
    kept = {}  # path -> (a detached copy of its mount tree, is a folder)
    for path in lists["show"] + writable:
        if path in kept or not any(under(path, folder) for folder in masks):
            continue
        tree = libc.syscall(428, -100, path.encode(), 1 | 0x8000 | 0o2000000)  # open_tree: CLONE, RECURSIVE
        if tree >= 0:
            kept[path] = (tree, os.path.isdir(path))
    for folder in masks:
        mount("tmpfs", folder, b"tmpfs", 6, b"size=64k,mode=755", "mask")  # NOSUID|NODEV
        shown = []
        for path in sorted(p for p in kept if under(p, folder)):
            if any(under(path, done) for done in shown):
                continue  # already seen through a folder shown above it
            tree, is_folder = kept[path]
            if is_folder:
                os.makedirs(path, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "a").close()
            if libc.syscall(429, tree, b"", -100, path.encode(), 4) != 0:  # move_mount: F_EMPTY_PATH
                raise OSError(ctypes.get_errno(), "show " + path)
            shown.append(path)
    for tree, _ in kept.values():
        os.close(tree)
    for path in writable:
        mount(path, path, None, 4096, None, "bind")  # MS_BIND
    for path in hidden:  # an empty folder, or /dev/null, over each place credentials are kept
        if not os.path.lexists(path):
            continue  # under a masked folder: already out of sight
        if os.path.isdir(path):
            mount("tmpfs", path, b"tmpfs", 14, b"size=4k,mode=700", "hide")  # NOSUID|NODEV|NOEXEC
        else:
            mount("/dev/null", path, None, 4096, None, "hide")
    setattr_("/", 1, 0, 0x8000)  # MOUNT_ATTR_RDONLY, AT_RECURSIVE
    for path in writable:
        setattr_(path, 0, 1, 0)
    for cap in range(64):
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "no_new_privs")
except OSError as exc:
    sys.stderr.write("toolconformance sandbox: %s: %s\n" % (exc.filename or exc.args[-1], os.strerror(exc.errno or 0)))
    os._exit(125)
try:
    os.chdir(cwd)  # through the new mounts: the old folder may now be covered
except OSError:
    os.chdir("/")
os.execv(program, argv)
"""


@dataclass(frozen=True)
class Confinement:
    """What confines a plugin's process tree on this machine."""

    namespaces: tuple[str, ...]  # the unshare flags that work, () when none do
    reason: str  # why there are none ('' when there are)

    @property
    def isolated(self) -> bool:
        return bool(self.namespaces)

    @property
    def network(self) -> str:
        return NETWORK_ISOLATED if self.isolated else NETWORK_GUARD_ONLY

    @property
    def filesystem(self) -> str:
        if self.isolated:
            return (
                "homes, /tmp and /run out of sight but for the plugin's repository (or its own folder), its "
                "dependencies, its interpreter and its workspace (mount namespace); read-only outside its "
                "workspace; credential places hidden (docs/access-model.md lists them); system folders readable"
            )
        return "not confined: the plugin can read and write wherever the kit's user can"

    @property
    def processes(self) -> str:
        if self.isolated:
            return "PID namespace: everything a plugin starts ends with it"
        return "process group and tree tracking: a child that leaves both can outlive the plugin"

    def as_dict(self) -> dict[str, Any]:
        return {
            "network": self.network,
            "filesystem": self.filesystem,
            "processes": self.processes,
            "environment": "scrubbed (PATH, a temporary HOME and TMPDIR, C.UTF-8 locale) plus "
            f"{PASS_ENV_ENV} / --toolconformance-pass-env",
            "applies_to": "every plugin, in a process of its own (node for JS/TS, python for Python)"
            if not PYTHON_PLUGINS_IN_PROCESS
            else "JS/TS plugins (a node process each); a Python plugin runs "
            "inside the kit's own process here (no POSIX pipes), behind the in-process guard only",
            "namespaces": bool(self.namespaces),
            "reason": self.reason,
        }


def _candidates(unshare: str) -> list[list[str]]:
    # A user namespace first: it works unprivileged and locks the mounts it copies. Root in a
    # container that refuses user namespaces can still have the others (the init drops every
    # capability before the plugin runs, so root inside cannot undo them).
    found = [[unshare, "--user", "--map-root-user", *_UNSHARE_FLAGS]]
    if os.geteuid() == 0:
        found.append([unshare, *_UNSHARE_FLAGS])
    return found


def _probe(disabled: bool) -> Confinement:
    if disabled:
        return Confinement((), f"{NO_NAMESPACES_ENV} is set")
    if not _LINUX:
        return Confinement((), f"no namespaces on {sys.platform}")
    unshare = shutil.which("unshare")
    if unshare is None:
        return Confinement((), "no unshare on PATH (util-linux)")
    init = [sys.executable, "-I", "-S", "-c", _INIT, "--", "true"]
    why = ""
    for argv in _candidates(unshare):
        try:
            done = subprocess.run(argv + init, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"unshare failed ({exc})"
            continue
        if done.returncode == 0:
            return Confinement(tuple(argv[1:]), "")
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = f"the kernel refused namespaces ({said[-1] if said else done.returncode})"
    return Confinement((), why)


class ConfinementPolicy:
    """The confinement state of the kit's process: what confines plugin processes on this machine
    (probed once per value of the opt-out variable: the probe starts a process) and the environment
    variables the run passes to them (``--toolconformance-pass-env``, set by plugin.py at configure
    time). One per process (:data:`POLICY`): a plugin's process is started deep inside a loader, far
    from the run's config."""

    def __init__(self) -> None:
        self._probed: dict[bool, Confinement] = {}
        self._pass_env: tuple[str, ...] = ()

    def current(self) -> Confinement:
        """What confines plugin processes here, now (``TOOLCONFORMANCE_NO_NAMESPACES`` is read each time)."""
        disabled = os.environ.get(NO_NAMESPACES_ENV, "").strip() not in ("", "0")
        if disabled not in self._probed:
            self._probed[disabled] = _probe(disabled)
        return self._probed[disabled]

    def set_pass_env(self, names: Iterable[str]) -> None:
        """Let plugin processes see these environment variables (``--toolconformance-pass-env``)."""
        self._pass_env = tuple(part.strip() for name in names for part in name.split(",") if part.strip())

    def passed_env_names(self) -> list[str]:
        """The variables a plugin's scrubbed environment keeps: :data:`PASS_ENV_ENV`'s, then the run's."""
        named = [n.strip() for n in os.environ.get(PASS_ENV_ENV, "").split(",") if n.strip()]
        return list(dict.fromkeys(named + list(self._pass_env)))


#: The kit's process's one policy, and its three questions as functions.
POLICY = ConfinementPolicy()
current = POLICY.current
set_pass_env = POLICY.set_pass_env
passed_env_names = POLICY.passed_env_names


def summary() -> dict[str, Any]:
    """For the report header and JSON: ``network``, ``filesystem``, ``processes``, ``environment``."""
    return current().as_dict()


def header() -> list[str]:
    """The report header lines that say how plugins are confined."""
    said = summary()
    lines = [
        f"toolconformance plugin sandbox (each plugin in a process of its own): network: {said['network']}",
        f"toolconformance plugin sandbox: filesystem: {said['filesystem']}",
        f"toolconformance plugin sandbox: processes: {said['processes']}",
    ]
    if PYTHON_PLUGINS_IN_PROCESS:
        lines.append(
            "toolconformance plugin sandbox: Python plugins run in the kit's process here (no POSIX "
            "pipes): in-process guard only"
        )
    if said["reason"]:
        lines.append(f"toolconformance plugin sandbox: no namespaces because {said['reason']}")
    return lines


def of_plugin(in_process: bool) -> str:
    """What confines one plugin here, in a sentence: ``in_process`` for a Python plugin imported into
    the kit's own process."""
    if in_process:
        return "none but an in-process network guard: it runs in the kit's own process"
    found = current()
    if found.isolated:
        return (
            "its own process in namespaces: no network, its repository, dependencies and workspace in sight "
            "(written: its workspace only), a scrubbed environment, every process it starts ends with it"
        )
    return f"its own process without namespaces ({found.reason}): a scrubbed environment and process-tree tracking only"


def in_ci() -> bool:
    """The run is a CI job's: ``CI`` is set to something other than empty, 0, false or no."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unconfined_in_ci(allowed: bool) -> str | None:
    """Why checking plugins here is an error (a CI job where plugins cannot be confined, and the run
    did not allow it), or None when it is not."""
    found = current()
    if allowed or not in_ci() or (found.isolated and not PYTHON_PLUGINS_IN_PROCESS):
        return None
    why = found.reason or "Python plugins run in the kit's own process on this platform"
    return (
        f"the plugins under test cannot be confined here ({why}): their code could reach the network, "
        "write outside its workspace and read this job's secrets. In CI (CI is set) that is an error. Run the "
        "job where unprivileged user namespaces work (Linux; on Ubuntu 24.04 `sudo sysctl -w "
        "kernel.apparmor_restrict_unprivileged_userns=0`; in Docker `--security-opt seccomp=unconfined`), or "
        "pass --toolconformance-allow-unconfined to check them unconfined (docs/access-model.md)"
    )


def scrubbed_env(
    home: str, tmp: str, extra: Mapping[str, str] | None = None, program: str | None = None
) -> dict[str, str]:
    """The whole environment of a confined process: no secret of the kit's reaches it by default."""
    dirs = [os.path.dirname(program)] if program and os.sep in program else []
    dirs += ["/usr/local/bin", "/usr/bin", "/bin"]
    env = {
        "PATH": os.pathsep.join(dict.fromkeys(dirs)),
        "HOME": home,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    for name in passed_env_names():
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(extra or {})
    return env


#: Where credentials are kept under a home folder. Inside a plugin's mount namespace each one that
#: exists is covered (an empty folder over a folder, /dev/null over a file): a plugin could
#: otherwise read a key and hand it back in a tool's answer, which the kit writes into its reports.
SECRET_PLACES = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".password-store",
    ".local/share/keyrings",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".config/git/credentials",
    ".m2/settings.xml",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".terraform.d/credentials.tfrc.json",
)


def _homes() -> list[str]:
    """The kit's user's home folders: ``HOME`` and the password database's."""
    homes = [os.path.expanduser("~")]
    with contextlib.suppress(ImportError, KeyError):
        import pwd

        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    return list(dict.fromkeys(h for h in homes if h and os.path.isabs(h)))


#: Folders a plugin never sees: inside its mount namespace each is covered by an empty folder, and only
#: what the plugin needs is shown again (its own folder and dependencies, its interpreter, the kit's
#: bridge, its workspace). Homes hold keys and repositories, the temporary and runtime folders hold
#: other processes' files and the unix sockets of session buses and container runtimes.
MASKED_PLACES = ("/home", "/root", "/tmp", "/var/tmp", "/run", "/var/run", "/mnt", "/media", "/srv")


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def masked_places(extra: Sequence[str] = ()) -> list[str]:
    """The folders covered in a plugin's mount namespace: the kit user's homes, the temporary and
    runtime folders, :data:`MASKED_PLACES` and ``extra`` (a plugin's repository), outermost only."""
    import tempfile

    found = []
    for place in (*_homes(), tempfile.gettempdir(), *MASKED_PLACES, *extra):
        real = os.path.realpath(place)
        if real != os.sep and os.path.isdir(real):
            found.append(real)
    outermost: list[str] = []
    for place in sorted(set(found), key=len):
        if not any(_under(place, kept) for kept in outermost):
            outermost.append(place)
    return outermost


def program_prefixes(program: str) -> list[str]:
    """The install folders of ``program`` (``/opt/node`` for ``/opt/node/bin/node``), which its
    process must see to run: the one its path names (a venv's, for a venv's ``python``) and the one
    it links to (the Python the venv was made from)."""
    found = shutil.which(program) or program
    if not os.path.isabs(found):
        return []
    named = os.path.dirname(os.path.dirname(os.path.abspath(found)))
    real = os.path.dirname(os.path.dirname(os.path.realpath(found)))
    return list(dict.fromkeys([named, real]))


def secret_places(writable: Sequence[str] = ()) -> list[str]:
    """The credential places that exist under the kit's user's home (``HOME`` and the password
    database's), resolved; one that holds a ``writable`` path is left visible (the plugin's own)."""
    found: list[str] = []
    for home in _homes():
        for place in SECRET_PLACES:
            path = os.path.join(home, place)
            if not os.path.lexists(path):
                continue
            real = os.path.realpath(path)
            if os.path.exists(real) and not any(os.path.commonpath([real, w]) == real for w in writable):
                found.append(real)
    return list(dict.fromkeys(found))


@dataclass
class Sandbox:
    """Confinement for one process: ``writable`` paths (the rest of the file system is read-only
    when namespaces work). ``home`` and ``tmp`` must lie inside one of them."""

    writable: Sequence[str]
    home: str
    tmp: str
    env: Mapping[str, str] = field(default_factory=dict)
    #: What the process must see inside the masked folders (:func:`masked_places`) besides its
    #: writable paths and its program's install folder; ``hidden``: credential places besides the homes'.
    visible: Sequence[str] = ()
    hidden: Sequence[str] = ()

    def wrap(self, argv: Sequence[str]) -> list[str]:
        found = current()
        if not found.isolated:
            return list(argv)
        paths = [os.path.realpath(p) for p in dict.fromkeys(self.writable)]
        prefixes = program_prefixes(argv[0]) if argv else []
        shown = [os.path.realpath(p) for p in (*self.visible, *prefixes) if os.path.exists(p)]
        return [
            shutil.which("unshare") or "unshare",
            *found.namespaces,
            sys.executable,
            "-I",
            "-S",
            "-c",
            _INIT,
            *paths,
            "--hide",
            *secret_places(paths),
            *(os.path.realpath(p) for p in self.hidden),
            "--mask",
            *masked_places(),
            "--show",
            *dict.fromkeys(shown),
            "--",
            *argv,
        ]

    def environment(self, program: str) -> dict[str, str]:
        return scrubbed_env(self.home, self.tmp, self.env, program)

    @property
    def ends_with_its_namespace(self) -> bool:
        """Whether everything the process starts ends with it (its own PID namespace), so the
        supervisor need not hunt for what left its process group."""
        return current().isolated


__all__ = [
    "MASKED_PLACES",
    "NETWORK_GUARD_ONLY",
    "NETWORK_ISOLATED",
    "NO_NAMESPACES_ENV",
    "PASS_ENV_ENV",
    "POLICY",
    "PYTHON_PLUGINS_IN_PROCESS",
    "SECRET_PLACES",
    "Confinement",
    "ConfinementPolicy",
    "Sandbox",
    "current",
    "header",
    "in_ci",
    "masked_places",
    "of_plugin",
    "passed_env_names",
    "program_prefixes",
    "scrubbed_env",
    "secret_places",
    "set_pass_env",
    "summary",
    "unconfined_in_ci",
]
