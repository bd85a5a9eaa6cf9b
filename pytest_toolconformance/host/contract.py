"""The host adapter contract: everything the conformance suites may ask of a host, declared once.

Every method takes and returns JSON-able values (dicts, lists, strings, numbers, booleans), so the
same contract is spoken over the wire protocol by a host in any language. A method that cannot do
what it is asked for bad input returns ``{"error": {...}}`` (see :func:`error`) instead of raising;
an exception out of an adapter is a bug in the adapter and is reported as *errored*.

:class:`HostAdapter` is the one declaration (Bowtie's ``_commands.py`` style): each method is
written once, with its parameters, its result (the wire schema ``wire/schemas/<method>.json``)
and the capabilities that cover it. :data:`METHODS` is read off it, and everything else that
lists methods derives from that: the host-spec check (:mod:`.connect`), the wire vocabulary
(:mod:`.wire.protocol`), the wire client's requests, the reference host's wire dispatch, and
:class:`UnsupportedHost`. tests/kit/host/test_host_contract.py proves they agree. The shapes are
documented in docs/adapter-contract.md; the scripted plugin format in
``scripted-plugin.schema.json`` beside this module.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

JSON = dict[str, Any]

#: Every capability a host may declare. A suite that needs an undeclared one is skipped with a reason.
CAPABILITIES: dict[str, str] = {
    "registration": "install scripted plugins and report accepted and refused registrations",
    "composition": "compose a session: catalog, model tool list, provider payload, cache diagnostics",
    "calls": "call tools through the host pipeline",
    "scoping": "ownerUserId / projectId / platform registration options",
    "deferral": "deferLoading and the ToolSearch loader",
    "plan-mode": "Plan turns and the plan-mode execution policy",
    "hooks": "pre-call hooks in the session spec",
    "policy": "change an account's live policy mid-session",
    "delegation": "delegate a child session",
    "sandbox": "sandbox operations over a real directory (sandboxRoot)",
    "plan-file": "the planFile allowance on Project Plan turns",
    "paired-executor": "the paired-computer executor",
    "file-tools": "core Read/Write/Edit over the sandbox, with the read-before-write guard",
    "mutation-queue": "queued Write/Edit (queue_call / run_queued)",
    "bash": "core Bash under the non-destructive boundary",
    "diagnostics": "the cache-diagnostics projection",
}

#: Sessions, policies and the live access/identity reads serve every session capability (a
#: "deferral" check opens a session and composes it), so any capability but "registration" covers them.
SESSION_CAPABILITIES = frozenset(CAPABILITIES) - {"registration"}

ERROR_KINDS = ("spec", "manifest", "load", "sandbox", "unsupported", "unknown-session")


def error(kind: str, message: str, *, rule: str | None = None, subject: str | None = None) -> JSON:
    """The structured error an adapter method returns for input it refuses."""
    return {"error": {"kind": kind, "message": message, "rule": rule, "subject": subject}}


_F = TypeVar("_F", bound=Callable[..., Any])


def _method(*, needs: Iterable[str] = (), wire: bool = True, builds_state: bool = False,
            new_session: bool = False) -> Callable[[_F], _F]:
    """Declare a contract method. ``needs``: the capabilities any one of which lets the kit ask it
    (none: always asked). ``wire``: it is a wire request of the same name (info and close are the
    hello and stop that frame a connection). ``builds_state``: a restarted wire host must be sent
    it again to get back where it was. ``new_session``: its result names a new session."""
    marks = {"wire": wire, "needs": frozenset(needs), "builds_state": builds_state, "new_session": new_session}
    unknown = marks["needs"] - set(CAPABILITIES)
    if unknown:  # pragma: no cover - a typo in the declaration below
        raise ValueError(f"unknown capabilities {sorted(unknown)}")

    def mark(function: _F) -> _F:
        function.__contract__ = marks  # type: ignore[attr-defined]
        return function

    return mark


@runtime_checkable
class HostAdapter(Protocol):
    """What a host implementer writes (or subclasses :class:`UnsupportedHost` for). See
    docs/adapter-contract.md for the shapes and docs/host-implementers.md for a worked example."""

    @_method(wire=False)
    def info(self) -> JSON:
        """``{"name", "version", "capabilities": [names from CAPABILITIES]}``, and optionally
        ``"collisions": "first-wins" | "last-wins"``: how the host settles two plugins registering one
        tool name (the seed leaves it open; undeclared, the checks hold either way)."""

    @_method()
    def reset(self) -> None:
        """Forget everything: a fresh host with no plugins, default policies and no sessions."""

    @_method(needs={"registration"}, builds_state=True)
    def install_plugin(self, plugin: JSON) -> JSON:
        """Install a scripted plugin. ``{"plugin", "accepted", "refused": [{tool, message, rule?}],
        "findings": [{rule, message, tool}]}`` or an error (kind ``manifest`` or ``load``)."""

    @_method(needs=SESSION_CAPABILITIES, builds_state=True)
    def set_policy(self, account: str, changes: JSON) -> JSON:
        """Patch an account's live policy: ``admin``, ``owner``, ``projectIds``, ``pluginGrants``,
        ``deny``, ``roots``. Returns the policy now in force."""

    @_method(needs=SESSION_CAPABILITIES, builds_state=True, new_session=True)
    def open_session(self, spec: JSON) -> JSON:
        """``{"session": id}`` or an error (kind ``spec``)."""

    @_method(needs={"composition", "scoping", "deferral", "diagnostics", "plan-mode"})
    def compose(self, session: str) -> JSON:
        """``{"catalog": [{name, deferred}], "tools": [{name, description, parameters}],
        "payload": {...}, "diagnostics": {...}, "modeDirective": str | None}``."""

    @_method(needs={"calls", "hooks", "plan-mode", "deferral", "scoping", "file-tools", "bash", "policy"},
             builds_state=True)
    def call(self, session: str, tool: str, arguments: Any, call_id: str | None = None) -> JSON:
        """One model tool call: ``{"content", "isError", "shown", "handlerRan", "journal", "details",
        "refusal", "transport", "hooksRan", "observations", "modelResult"}``."""

    @_method(needs={"mutation-queue"}, builds_state=True)
    def queue_call(self, session: str, tool: str, arguments: Any) -> JSON:
        """Queue a host Write/Edit without running it: ``{"ticket": str}``."""

    @_method(needs={"mutation-queue"}, builds_state=True)
    def run_queued(self, session: str) -> JSON:
        """Run the session's queued mutations: ``{"outcomes": [call outcome, ...]}``."""

    @_method(needs=SESSION_CAPABILITIES)
    def current_access(self, session: str) -> JSON:
        """The access descriptor a tool of this session would read now."""

    @_method(needs=SESSION_CAPABILITIES)
    def current_identity(self, session: str) -> JSON:
        """The identity a tool of this session would read now."""

    @_method(needs={"delegation"}, builds_state=True, new_session=True)
    def delegate(self, session: str, request: JSON) -> JSON:
        """Delegate a child: ``request`` is ``{"readOnly": bool, "requested": {access fields plugin
        code asked for}}``; returns ``{"session": child id}``."""

    @_method(needs={"sandbox", "plan-file", "paired-executor", "file-tools"}, builds_state=True)
    def sandbox(self, session: str, op: JSON) -> JSON:
        """A sandbox operation ``{"kind", "path", "dest"?, "content"?, "executor"?}`` under the
        session's live access: ``{"admitted", "reason", "rule", "scope"}`` or an error (kind
        ``sandbox``) for a path or operation that cannot be understood."""

    @_method(wire=False)
    def close(self) -> None:
        """Release the host (processes, temporary files)."""


@dataclass(frozen=True)
class Param:
    """One parameter of a contract method."""

    name: str  #: the Python name
    wire: str  #: the name in a wire request's ``params`` (camelCase)
    json_type: str | None  #: "object" or "string", None for any JSON value
    required: bool  #: False: may be None, and is then left out of a wire request


@dataclass(frozen=True)
class Method:
    """One contract method, as :class:`HostAdapter` declares it."""

    name: str
    params: tuple[Param, ...]
    doc: str
    wire: bool
    needs: frozenset[str]
    builds_state: bool
    new_session: bool
    signature: inspect.Signature

    @property
    def schema(self) -> str:
        """The wire schema of its request and result: ``wire/schemas/<schema>.json``."""
        return self.name

    @property
    def session_scoped(self) -> bool:
        """Whether its first parameter is a session id."""
        return bool(self.params) and self.params[0].name == "session"

    def allowed(self, capabilities: Iterable[str]) -> bool:
        """Whether a host declaring ``capabilities`` may be asked this method."""
        return not self.needs or bool(self.needs & set(capabilities))

    def needs_text(self) -> str:
        """The capabilities that cover it, for an ``unsupported`` message or a skip reason:
        "capability sandbox or plan-file", or "any capability but registration"."""
        if self.needs == SESSION_CAPABILITIES:
            return "any capability but registration"
        return "capability " + " or ".join(sorted(self.needs))

    def wire_params(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> JSON:
        """A call's arguments as a wire request's ``params`` (an optional one left out when None)."""
        bound = self.signature.bind(None, *args, **kwargs)
        bound.apply_defaults()
        values = bound.arguments
        return {p.wire: values[p.name] for p in self.params if p.required or values[p.name] is not None}

    def unsupported(self, host: str) -> JSON:
        """The ``unsupported`` error a host that lacks this method answers."""
        return error("unsupported", f"host {host!r} does not declare {self.needs_text()}, so it is not "
                                    f"asked {self.name}", subject=self.name)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _json_type(hint: Any) -> tuple[str | None, bool]:
    """The JSON type a parameter annotation names, and whether the parameter is required."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in args:
        inner = [a for a in args if a is not type(None)]
        return _json_type(inner[0])[0] if len(inner) == 1 else None, False
    if hint is str:
        return "string", True
    if typing.get_origin(hint) is dict or hint is dict:
        return "object", True
    return None, True


def _declared(protocol: type) -> tuple[Method, ...]:
    methods = []
    for name, function in vars(protocol).items():
        marks: dict[str, Any] | None = getattr(function, "__contract__", None)
        if marks is None:
            continue
        hints = typing.get_type_hints(function)
        signature = inspect.signature(function)
        params = []
        for parameter in list(signature.parameters.values())[1:]:
            json_type, required = _json_type(hints[parameter.name])
            params.append(Param(parameter.name, _camel(parameter.name), json_type, required))
        methods.append(Method(name, tuple(params), inspect.getdoc(function) or "", signature=signature, **marks))
    return tuple(methods)


#: Every adapter method, in contract order.
METHODS: tuple[Method, ...] = _declared(HostAdapter)
BY_NAME: dict[str, Method] = {m.name: m for m in METHODS}
#: The names of every adapter method, in contract order.
ADAPTER_METHODS: tuple[str, ...] = tuple(BY_NAME)
#: The methods that are wire requests of the same name, in contract order.
WIRE_METHODS: tuple[Method, ...] = tuple(m for m in METHODS if m.wire)


def fill_in(cls: type, make: Callable[[Method], Callable[..., Any]], methods: Iterable[Method] = METHODS) -> None:
    """Give ``cls`` the function ``make(method)`` for each of ``methods`` it does not define itself
    (a class built from the declaration, like :class:`UnsupportedHost` and the wire client)."""
    for method in methods:
        if method.name in vars(cls):
            continue
        function = make(method)
        function.__name__ = method.name
        function.__qualname__ = f"{cls.__qualname__}.{method.name}"
        function.__doc__ = method.doc
        function.__signature__ = method.signature  # type: ignore[attr-defined]
        setattr(cls, method.name, function)


class UnsupportedHost(HostAdapter):
    """A host adapter that supports nothing: subclass it and override only what your host has.

    ``info()`` declares no capability, ``reset()`` and ``close()`` do nothing, and every other method
    answers the ``unsupported`` error. A suite that needs a capability your ``info()`` does not
    declare is skipped, its reason naming that capability (docs/host-implementers.md).
    """

    name = "unsupported-host"
    version = "0"

    def info(self) -> JSON:
        return {"name": self.name, "version": self.version, "capabilities": []}

    def reset(self) -> None:
        """Nothing to forget."""

    def close(self) -> None:
        """Nothing to release."""


def _answer_unsupported(method: Method) -> Callable[..., JSON]:
    def unsupported(self: Any, *args: Any, **kwargs: Any) -> JSON:
        return method.unsupported(str(self.info().get("name", type(self).__name__)))

    return unsupported


fill_in(UnsupportedHost, _answer_unsupported)
