"""What goes wrong with a plugin in a bridge process, as exceptions and as the words a user acts on.

The error types a bridged plugin raises (a handler's throw, a step out of time, the process gone),
worded for the plugin's language (a JS/TS plugin's node, a Python plugin's python), and the
diagnostics that turn the Node bridge's report of a failed load into one sentence naming the file,
what failed and what to do.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_toolconformance.confinement import passed_env_names
from pytest_toolconformance.plugins.loaders.bridge_connection import BRIDGE
from pytest_toolconformance.plugins.loaders.repository import repository_of
from reference_host import PluginLoadError

#: What a load was doing in each of its phases, for a time-out's message.
LOAD_STEPS = {
    "kit": "the kit's set-up for the plugin",
    "import": "importing its entry",
    "register": "register()",
    "startup": "pi's startup events",
}

#: Where each phase's time went, for a time-out's message.
PHASE_PLACES = {
    "kit": " in the kit's own set-up (its process, module hooks and pi's runtime, before any plugin code)",
    "import": " while importing the module (and what it imports)",
    "startup": " in pi's startup events (session_start, resources_discover)",
    "register": " in its register function",
}


@dataclass(eq=False, repr=False)  # an exception's own equality and repr
class PluginToolError(Exception):
    """A tool handler in a bridge process threw (or its result could not be sent back): ``js_name``,
    ``js_message`` and ``js_stack`` are the thrown error's (a Python handler's likewise), ``network``
    the network attempts the call made.

    ``os_error``: a Python handler's exception was an ``OSError`` (what the network stack raises),
    which ERR-4 reads as a fault thrown as it came; a JS one tells that by its ``code``.
    """

    tool: str
    js_name: str
    js_message: str
    js_stack: str | None = None
    code: str | None = None
    network: list[str] = field(default_factory=list)
    os_error: bool = False

    def __post_init__(self) -> None:
        self.network = list(self.network)
        # Same text a JS host gets from String(error).
        super().__init__(f"{self.js_name}: {self.js_message}")


class PluginTimeoutError(PluginLoadError):
    """A step of a bridged plugin did not answer in time; its process was killed.

    ``phase`` is the step (``kit``: the kit's own set-up, never the plugin's; ``import``, ``register``,
    ``startup``, ``call``), ``bound`` the seconds it was given.
    """

    def __init__(self, message: str, *, phase: str, bound: float, subject: str | None = None) -> None:
        self.phase = phase
        self.bound = bound
        super().__init__(message, subject=subject)

    @property
    def kit_side(self) -> bool:
        """The time ran out in the kit's own set-up (Node's start, pi's runtime), not in plugin code."""
        return self.phase == "kit"


class PluginExitError(PluginLoadError):
    """The plugin's bridge process exited while a request was in flight."""

    def __init__(self, message: str, *, exit_code: int | None, stderr_tail: str, subject: str | None = None) -> None:
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail
        super().__init__(message, subject=subject)


def short_tail(text: str, limit: int = 1500) -> str:
    """The last non-blank lines of a stderr tail, indented to follow a message."""
    lines = [line for line in text[-limit:].splitlines() if line.strip()]
    return "\n    ".join(lines)


#: How a stderr tail is introduced in a message, per bridge process (findings cut a hang's message there).
TAIL_LABELS = {"node": "Node stderr", "python": "Python stderr"}


def tail_note(tail: str, process: str = "node") -> str:
    short = short_tail(tail)
    return f". {TAIL_LABELS.get(process, 'stderr')}:\n    {short}" if short else ""


def stack_note(stack: str, frames: int = 3) -> str:
    # The plugin's own frames are the useful ones; the bridge and node internals are noise.
    kit = (str(BRIDGE.parent), BRIDGE.parent.as_uri())
    lines = [
        line.strip()
        for line in stack.splitlines()
        if line.strip().startswith("at ") and not any(k in line for k in kit) and "node:internal" not in line
    ][:frames]
    return f" ({'; '.join(lines)})" if lines else ""


#: Per bridge process: the plugin's language, how it ends itself, what a hang looks like in it.
_WORDS = {
    "node": ("JS", "process.exit()", "a promise that never settles or a busy loop", "Node.js"),
    "python": ("Python", "sys.exit() or os._exit()", "a blocking call, an await that never returns or a busy loop",
               "Python"),
}


def exit_text(plugin: str, entry: Path, code: int | None, what: str, tail: str, process: str = "node") -> str:
    """The bridge process (``node`` or ``python``) of ``plugin`` ended with ``code`` while doing ``what``."""
    language, exits, _, _ = _WORDS[process]
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
    then = "the plugin could not be loaded" if what == "loading the plugin" else "the next call restarts it"
    return (f"{language} plugin {plugin!r} ({entry}): {process} {how} during {what} "
            f"(did the plugin call {exits} or crash?); {then}" + tail_note(tail, process))


def timeout_text(plugin: str, entry: Path, step: str, bound: float, what: str, loading: bool, tail: str,
                 process: str = "node") -> str:
    """Step ``step`` of ``what`` did not finish within ``bound`` seconds."""
    language, _, hang, runtime = _WORDS[process]
    done = f"{LOAD_STEPS[step]} ({what})" if loading and step in LOAD_STEPS else what
    return (f"{language} plugin {plugin!r} ({entry}): {done} did not finish within {bound:g} s"
            f"{PHASE_PLACES.get(step, '')}, so the kit killed its {process} process (the next step starts a new one)."
            + (f" Look for {hang}" if step != "kit" else
               f" No plugin code was running: the machine is too busy, or {runtime} is stuck; "
               "raise --toolconformance-timeout")
            + tail_note(tail, process))


def hidden_module(message: str) -> Path | None:
    """The module a "Cannot find module '/abs/path'" names, where the kit sees it there: the plugin's
    sandbox hid it, it is not missing."""
    match = re.search(r"Cannot find module '(/[^']+)'", message)
    if match is None:
        return None
    path = Path(match[1])
    return path if path.is_file() else None


def entryless_package(message: str) -> Path | None:
    """The package folder a "Cannot find package '/abs/folder/index.js'" names, where the package is installed
    there (a package.json) with nothing Node can load: no "main" or "exports" it resolves, and no index.js."""
    match = re.search(r"Cannot find package '(/[^']+)/index\.js'", message)
    if match is None:
        return None
    folder = Path(match[1])
    return folder if (folder / "package.json").is_file() and not (folder / "index.js").exists() else None


def load_failure(entry: Path, package: Path, module_format: str, node: str | None, timeout: float,
                 error: Mapping[str, Any], tail: str | None) -> PluginLoadError:
    """The bridge's report of a failed load (``error``) as a finding a plugin author acts on; ``package``
    is the plugin's own folder as its sandbox shows it (:func:`.bridged.plugin_folder`)."""
    phase = error.get("phase")
    name = error.get("name") or "Error"
    # Node's "Require stack:" list is for humans debugging node, not a line of the finding.
    message = (error.get("message") or "").split("\nRequire stack:", 1)[0]
    code = error.get("code")
    js = f"{name}: {message}"
    where = f"JS plugin {entry}"
    stack = error.get("stack") or ""
    if phase == "jiti-missing":
        text = f'TypeScript plugin {entry} needs jiti: run "npm install --save-dev jiti" in {package}'
    elif phase == "esm-in-commonjs":
        text = (
            f"{where} uses ES module syntax (import/export) in a package whose package.json types its .js files "
            f"as CommonJS (\"type\": \"commonjs\", as npm init writes). pi loads it anyway: it "
            "imports every extension through jiti, which the kit uses too where it can resolve it, and it cannot "
            f"from {package}. Run \"npm install --save-dev jiti\" there to load it as pi does, or, for every "
            "loader, set \"type\": \"module\" in package.json or rename the entry to .mjs"
        )
    elif phase == "node-version":
        text = f"{where} cannot be loaded: {message}"
    elif phase == "not-a-plugin":
        text = (
            f"{where} is not a plugin: it exports neither register(ctx), nor a default object with "
            f"register, nor a default PI extension function ({message}). Add "
            "'export function register(ctx) { ... }' to the entry file"
        )
    elif phase == "startup":
        text = (
            f"pi's startup of {where} (session_start, resources_discover) failed with {js}. Fix the "
            f"extension's startup handlers{stack_note(stack)}"
        )
    elif phase == "register":
        text = (
            f"register(ctx) of {where} threw {js}. Fix the plugin so that register completes; "
            f"none of its tools were installed{stack_note(stack)}"
        )
    elif (hidden := hidden_module(message)) is not None:
        repository = repository_of(entry)
        seen = (f"the plugin's repository ({repository})" if repository is not None else
                f"the plugin's package ({package}), which sits in no repository (no folder above it has .git or "
                "declares npm or pnpm workspaces)")
        text = (
            f"Could not load {where}: it imports {hidden}, which exists but lies outside {seen}, and the kit's "
            "sandbox shows a plugin its repository (or, outside one, its package) and what it resolves through "
            "node_modules only (docs/access-model.md, reads). Move the module into the repository, or make it a "
            "dependency the package installs"
        )
    elif (installed := entryless_package(message)) is not None:
        text = (
            f"Could not load {where}: it imports the package installed in {installed}, which has no entry Node can "
            "load: its package.json names no \"main\" or \"exports\" that exists, and it has no index.js (a package "
            "published as sources only, TypeScript say). Installing it again changes nothing: depend on a version "
            "of it that ships built JavaScript, or ask its publisher for one"
        )
    elif code in ("ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND") or "Cannot find module" in message:
        text = (
            f"Could not load {where}: it imports a module that cannot be found ({js}). Install the "
            "missing package where the plugin can resolve it (npm install in the plugin folder) "
            "or fix the import specifier"
        )
    elif name == "SyntaxError" and _from_json_parse(message, stack):
        # The module's code ran: JSON.parse threw on text it was given, the source itself parsed.
        text = (f"Could not load {where}: importing it threw {js} from JSON.parse: its top-level code parsed text "
                f"that is not JSON (a file or a variable it reads). Fix that text, or the code that reads it"
                f"{stack_note(stack)}")
    elif name == "SyntaxError":
        location = syntax_location(entry, node, timeout) if module_format != "ts" and node else ""
        text = (
            f"Could not load {where}: {js}{f' at {location}' if location else ''}. Fix the syntax "
            "error in the entry file or in a module it imports"
        )
    else:
        text = f"Could not load {where}: importing it threw {js}. Fix the module's top-level code{stack_note(stack)}"
    # Before the plugin's code ran (a Node too old, no jiti) its stderr holds nothing of its own.
    if tail and phase not in ("node-version", "jiti-missing", "esm-in-commonjs"):
        text += f". Node stderr:\n    {short_tail(tail)}"
    return PluginLoadError(text, subject=str(entry))


#: How a plugin's code says a variable is missing: Python's KeyError: 'NAME', or a variable's name in the
#: words it throws (process.env.MY_TOKEN undefined, then `throw new Error("MY_TOKEN is not set")`).
_KEY_ERROR = re.compile(r"^KeyError: '([A-Za-z_][A-Za-z0-9_]*)'")
_VARIABLE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_MISSING = re.compile(r"env|not set|missing|undefined|required", re.IGNORECASE)


def scrubbed_env_note(error: Mapping[str, Any]) -> str:
    """A sentence for a load that failed on an environment variable the kit's scrub withheld ('' when the
    error names none): the plugin's processes see only the variables passed to them."""
    text = f"{error.get('name') or ''}: {error.get('message') or ''}"
    if (match := _KEY_ERROR.match(text)) is not None:
        names = [match[1]]
    else:  # a constant's name in a message is no variable: only one set here, or said to be missing
        names = [name for name in _VARIABLE.findall(text) if name in os.environ or _MISSING.search(text)]
    names = [name for name in dict.fromkeys(names) if name not in passed_env_names()]
    if not names:
        return ""
    where = [f"{name} is set here" if name in os.environ else f"{name} is not set here either" for name in names]
    flags = " ".join(f"--toolconformance-pass-env={name}" for name in names)
    return (f". The kit runs a plugin with a scrubbed environment (no variable of yours reaches it unless passed): "
            f"{', '.join(where)}; pass it with {flags} (or the ini toolconformance_pass_env)")


def with_scrubbed_env_note(failure: PluginLoadError, error: Mapping[str, Any]) -> PluginLoadError:
    """``failure`` with :func:`scrubbed_env_note` after its first line (before a stderr tail)."""
    note = scrubbed_env_note(error)
    if not note:
        return failure
    first, newline, rest = str(failure).partition("\n")
    stderr = re.search(rf"\. (?:{'|'.join(map(re.escape, TAIL_LABELS.values()))}):$", first)
    if stderr is not None:  # the tail's label ends the first line: the note goes before it
        first, rest, newline = first[:stderr.start()], first[stderr.start():] + newline + rest, ""
    return PluginLoadError(first + note + newline + rest, subject=failure.subject)


def _from_json_parse(message: str, stack: str) -> bool:
    """Whether a SyntaxError is JSON.parse's (thrown by running code), not the source's own."""
    return "at JSON.parse" in stack or bool(re.search(r"\bin JSON at position\b|is not valid JSON", message))


def syntax_location(entry: Path, node: str, timeout: float) -> str:
    """Where a syntax error in ``entry`` is, as ``node --check`` reports it ('' if elsewhere)."""
    # ESM import errors carry no file or line; --check on the entry recovers them cheaply.
    try:
        done = subprocess.run([node, "--check", str(entry)], capture_output=True, text=True,
                              timeout=max(timeout, 5.0))
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    if done.returncode == 0 or len(lines) < 3 or not lines[0].startswith(str(entry)):
        return ""
    # "<file>:<line>", the offending source line and the caret under it.
    return f"{lines[0]}: {lines[1].strip()!r}"


__all__ = [
    "LOAD_STEPS",
    "TAIL_LABELS",
    "PluginExitError",
    "PluginTimeoutError",
    "PluginToolError",
    "exit_text",
    "load_failure",
    "short_tail",
    "stack_note",
    "scrubbed_env_note",
    "syntax_location",
    "timeout_text",
    "with_scrubbed_env_note",
]
