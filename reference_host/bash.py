"""Command execution under the non-destructive boundary (PLANFILE-6).

On a read-only turn (a Plan turn or a read-only child alike) a command is never handed to a
shell: it is split with ``shlex`` and admitted only if its program is on a short allowlist of
non-destructive programs, its arguments carry none of the options that make those programs write
(``find -delete``, ``sort -o``, a second ``uniq`` operand, ``git diff --output``...), and it uses
no shell syntax. Shell syntax is refused rather than passed on literally, because without a shell
it would not do what the model meant: unquoted ``> < | ; &``, a newline, and ``$(`` or a backtick
outside single quotes. Quoted operators are plain arguments (``grep -E 'a|b' f`` is fine). There
is no glob expansion either; ``ls *.py`` lists a file literally named ``*.py``.

Git gets its repository-configured helpers switched off (fsmonitor, hooks, external diff,
textconv, pager, signature checking) and ``GIT_OPTIONAL_LOCKS=0`` so that ``git status`` does not
rewrite the index. A repository-configured clean filter can still run on ``status``/``diff``; a
host that lets untrusted content configure the repository should not admit git here.

No writable environment descriptor is needed: the boundary is the ``read_only`` flag alone.
Every command runs in its own process group with a minimal environment and is killed, group and
all, at the timeout; output is captured up to a cap so a chatty command cannot exhaust memory.
"""

from __future__ import annotations

import os
import selectors
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

READ_ONLY_PROGRAMS = frozenset(
    {
        "ls", "cat", "head", "tail", "wc", "grep", "find", "pwd", "echo", "stat",
        "file", "sort", "uniq", "diff", "true", "false", "git",
    }
)  # fmt: skip
GIT_READ_ONLY_SUBCOMMANDS = frozenset({"status", "log", "diff", "show"})
_FIND_WRITERS = ("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls")
_GIT_WRITERS = ("--output", "--ext-diff", "--textconv", "--show-signature")
_GIT_HARDENING = (
    "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=",
    "-c", "core.pager=cat", "-c", "log.showSignature=false", "-c", "gpg.program=false", "--no-pager",
)  # fmt: skip
_SEARCH_PATH = "/usr/local/bin:/usr/bin:/bin"
MAX_OUTPUT_BYTES = 64 * 1024
_DRAIN_GRACE = 1.0  # seconds the pipes may still drain after the group was killed
_RULE = "PLANFILE-6"


def _shell_syntax(command: str) -> str | None:
    """The first shell construct in ``command`` that would need a shell, honouring quotes."""
    quote: str | None = None
    i = 0
    while i < len(command):
        ch = command[i]
        if quote == "'":
            if ch == "'":
                quote = None
        elif ch == "\\" and quote is None:
            i += 2  # an escaped character is literal, even an operator
            continue
        elif quote == '"' and ch == "\\":
            i += 2
            continue
        elif ch == "`" or command.startswith("$(", i):
            return "command substitution (`...` or $(...))"
        elif quote == '"':
            if ch == '"':
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "><":
            return f"redirection ({ch!r})"
        elif ch in "|;&":
            return f"the shell operator {ch!r}"
        elif ch in "\n\r":
            return "a second command line"
        i += 1
    return None


def _uniq_operands(args: list[str]) -> int:
    count, i, options = 0, 0, True
    while i < len(args):
        arg = args[i]
        if options and arg == "--":
            options = False
        elif options and arg in ("-f", "-s", "-w"):
            i += 1  # the option's value, not an operand
        elif not (options and arg.startswith("-") and arg != "-"):
            count += 1
        i += 1
    return count


def _argument_problem(argv: list[str]) -> str | None:
    """Why these arguments would make an allowlisted program write, or None."""
    program, args = argv[0], argv[1:]
    if program == "find":
        for arg in args:
            if arg.startswith(_FIND_WRITERS):
                return f"find {arg} can change or create files"
    elif program == "sort":
        for arg in args:
            if arg.startswith(("--output", "--compress-program")) or (
                arg.startswith("-") and not arg.startswith("--") and "o" in arg
            ):
                return f"sort {arg} can write a file or run a program"
    elif program == "uniq":
        if _uniq_operands(args) > 1:
            return "uniq with a second operand writes that file"
    elif program == "file":
        for arg in args:
            if arg in ("-C", "--compile") or (arg.startswith("-") and not arg.startswith("--") and "C" in arg):
                return "file -C writes a compiled magic file"
    elif program == "git":
        if not args or args[0] not in GIT_READ_ONLY_SUBCOMMANDS:
            shown = args[0] if args else "(none)"
            return (
                f"git {shown}: only the subcommands {sorted(GIT_READ_ONLY_SUBCOMMANDS)} are read-only, "
                "given directly after 'git' (no global options)"
            )
        for arg in args[1:]:
            if arg.startswith(_GIT_WRITERS):
                return f"git {args[0]} {arg} can write a file or run a program"
    return None


def read_only_argv(command: str) -> tuple[list[str] | None, str | None]:
    """Split a read-only command into an argv, or say why it is refused (PLANFILE-6)."""
    if not isinstance(command, str) or not command.strip():
        return None, "the command is empty"
    if "\0" in command:
        return None, "the command contains a NUL character"
    syntax = _shell_syntax(command)
    if syntax:
        return None, f"it uses {syntax}; read-only commands run without a shell"
    try:
        argv = shlex.split(command)
    except ValueError as err:
        return None, f"it cannot be split into arguments ({err})"
    if not argv:
        return None, "the command is empty"
    program = argv[0]
    if "/" in program or program not in READ_ONLY_PROGRAMS:
        return None, (
            f"{program!r} is not a non-destructive program; a read-only turn may run only "
            f"{', '.join(sorted(READ_ONLY_PROGRAMS))}"
        )
    problem = _argument_problem(argv)
    if problem:
        return None, problem
    resolved = shutil.which(program, path=_SEARCH_PATH)
    if resolved is None:
        return None, f"{program!r} is not installed on this host"
    if program == "git":
        sub, rest = argv[1], argv[2:]
        extra = ["--no-ext-diff", "--no-textconv"] if sub in ("diff", "log", "show") else []
        return [resolved, *_GIT_HARDENING, sub, *extra, *rest], None
    return [resolved, *argv[1:]], None


def _environment(cwd: Path) -> dict[str, str]:
    # Only what commands need to behave predictably; nothing of the host's own environment leaks in.
    return {
        "PATH": _SEARCH_PATH,
        "HOME": str(cwd),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PAGER": "cat",
        "GIT_PAGER": "cat",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
    }


class _Capture:
    """Keep at most ``limit`` bytes of a stream and count the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = max(self.limit - len(self.data), 0)
        self.data += chunk[:room]
        self.dropped += max(len(chunk) - room, 0)

    def text(self) -> str:
        out = self.data.decode("utf-8", errors="replace")
        if self.dropped:
            out += f"\n[{self.dropped} more bytes not shown]"
        return out


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # already gone


def _supervise(proc: subprocess.Popen[bytes], out: _Capture, err: _Capture, deadline: float) -> tuple[bool, int]:
    """Drain both pipes until the command is over; kill its group at the deadline or when it ends.

    One loop, no reader threads: once the group is killed, the pipes get a short grace to drain
    and are then closed, so even a process that escaped the group cannot hold the caller.
    """
    selector = selectors.DefaultSelector()
    for stream, capture in ((proc.stdout, out), (proc.stderr, err)):
        assert stream is not None
        os.set_blocking(stream.fileno(), False)
        selector.register(stream.fileno(), selectors.EVENT_READ, capture)
    leader_done = timed_out = False
    killed_at: float | None = None
    try:
        while True:
            now = time.monotonic()
            # Wait without reaping: while the leader is a zombie its group id cannot be recycled,
            # so the killpg below can only reach this command's own processes.
            if not leader_done:
                leader_done = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None
            if killed_at is None and (leader_done or now >= deadline):
                timed_out = not leader_done
                _kill_group(proc.pid)  # background children of a finished command do not outlive it
                killed_at = now
            if killed_at is not None and (not selector.get_map() or now - killed_at > _DRAIN_GRACE):
                break
            if not selector.get_map():
                time.sleep(0.01)
                continue
            for key, _ in selector.select(timeout=0.05):
                try:
                    chunk = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if chunk:
                    key.data.add(chunk)
                else:
                    selector.unregister(key.fd)
    finally:
        selector.close()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        # Again, just before reaping: a child forked while the first kill was in flight is caught
        # here, and the unreaped leader still holds the group id, so nothing else can be hit.
        _kill_group(proc.pid)
    return timed_out, proc.wait(timeout=10)


def _refused(reason: str, rule: str | None = _RULE) -> dict[str, Any]:
    prefix = f"[{rule}] " if rule else ""
    return {
        "ok": False,
        "exit_code": None,
        "stdout": "",
        "stderr": "",
        "text": f"{prefix}command refused: {reason}",
        "rule": rule,
        "timed_out": False,
    }


def run_command(
    command: str,
    *,
    cwd: Path,
    read_only: bool,
    timeout: float = 10.0,
    root: Path | None = None,
    max_output: int = MAX_OUTPUT_BYTES,
) -> dict[str, Any]:
    """Run ``command`` in ``cwd``; on a read-only turn only a non-destructive command (PLANFILE-6).

    Returns ``{"ok", "exit_code", "stdout", "stderr", "text", "rule", "timed_out"}``; a refusal
    or a timeout is ``ok: False`` with a text saying why. ``root``, when given, must contain ``cwd``.
    """
    cwd = Path(cwd)
    if not cwd.is_dir():
        return _refused(f"the working directory {str(cwd)!r} does not exist", rule=None)
    if root is not None and not cwd.resolve().is_relative_to(Path(root).resolve()):
        return _refused(f"the working directory {str(cwd)!r} is outside the sandbox root", rule="ACCESS-8")
    if read_only:
        argv, reason = read_only_argv(command)
        if argv is None:
            return _refused(f"{reason} ({command!r})")
    else:
        bash = shutil.which("bash", path=_SEARCH_PATH)
        if bash is None:
            return _refused("bash is not installed on this host", rule=None)
        argv = [bash, "-c", command]

    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=_environment(cwd),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, so the timeout kills its children too
        close_fds=True,
    )
    out, err = _Capture(max_output), _Capture(max_output)
    timed_out, exit_code = _supervise(proc, out, err, start + timeout)
    duration = time.monotonic() - start
    stdout, stderr = out.text(), err.text()
    if timed_out:
        text = f"command ran longer than {timeout:g} s; its process group was killed"
    else:
        text = f"exit code {exit_code}"
    body = "\n".join(part for part in (stdout.rstrip("\n"), stderr.rstrip("\n")) if part)
    return {
        "ok": exit_code == 0 and not timed_out,
        "exit_code": exit_code,
        "stdout": stdout,
        "stderr": stderr,
        "text": f"{body}\n({text})" if body else f"({text})",
        "rule": None,
        "timed_out": timed_out,
        "duration": duration,
    }
