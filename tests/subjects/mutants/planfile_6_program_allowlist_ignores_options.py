"""PLANFILE-6, broken: on a read-only turn the non-destructive boundary checks a command's program
and shell syntax, but not the options that make an allowlisted program write.

This host's read-only command check is a program allowlist (``ls``, ``cat``, ``grep``, ``find``,
``sort``, ``uniq``, ``file``, ``git status|log|diff|show``...) plus a refusal of shell syntax; it
runs the command without a shell, as the reference does. It forgets that several allowlisted
programs have writing options: ``find -delete`` / ``-exec`` / ``-fprint``, ``sort -o``, a second
``uniq`` operand, ``file -C`` and ``git diff --output`` all run on Plan turns and in read-only
children and change the workspace. Commands the reference admits run identically; programs off the
list, git subcommands that write, and shell syntax are refused as the reference refuses them; Build
turns are unchanged.

Cell of the sentence: "Command execution follows the core non-destructive boundary", for a
destructive *option* of a program whose plain use is non-destructive, on any read-only turn.
"""

from __future__ import annotations

import shlex
import shutil
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.bash import (
    _GIT_HARDENING,
    _SEARCH_PATH,
    GIT_READ_ONLY_SUBCOMMANDS,
    READ_ONLY_PROGRAMS,
    _shell_syntax,
    read_only_argv,
    run_command,
)
from reference_host.errors import SandboxError
from reference_host.session import Session
from reference_host.workspace import _refusal, as_tool_result
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "PLANFILE-6"


def allowlisted_argv(command: str) -> list[str] | None:
    """The argv this host runs for a command the reference refuses only for its options, or None."""
    if not isinstance(command, str) or "\0" in command or _shell_syntax(command):
        return None
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if not argv or "/" in argv[0] or argv[0] not in READ_ONLY_PROGRAMS:
        return None
    resolved = shutil.which(argv[0], path=_SEARCH_PATH)
    if resolved is None:
        return None
    if argv[0] == "git":
        if len(argv) < 2 or argv[1] not in GIT_READ_ONLY_SUBCOMMANDS:
            return None  # the subcommand is part of the allowlist entry
        return [resolved, *_GIT_HARDENING, argv[1], *argv[2:]]
    return [resolved, *argv[1:]]


class OptionBlindSession(Session):
    def run_core_tool(self, name: str, call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if name != "Bash":
            return super().run_core_tool(name, call_id, params)
        command = params.get("command")
        if not self.current_access().read_only or read_only_argv(command)[0] is not None:
            return super().run_core_tool(name, call_id, params)
        argv = allowlisted_argv(command)
        if argv is None:
            return super().run_core_tool(name, call_id, params)  # refused as the reference refuses it
        workspace = self.workspace
        root = workspace.root()
        guest_cwd = params.get("cwd")
        try:
            comps = workspace.sandbox().resolve_guest_path(guest_cwd) if guest_cwd else ()
        except SandboxError as exc:
            return _refusal(f"Bash: working directory {guest_cwd!r} is not usable: {exc.detail}", "ACCESS-8")
        # Run the admitted argv without shell interpretation: every word quoted for the runner.
        result = run_command(
            shlex.join(argv),
            cwd=root.joinpath(*comps),
            read_only=False,
            root=root,
            timeout=min(self.host.call_timeout, 30.0),
        )
        return as_tool_result(result)


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(OptionBlindSession)
