"""Language-neutral scenarios: loading the JSON files and running a case through a host.

A case installs scripted plugins, then runs steps (``open``, ``compose``, ``call``, ``policy`` ...)
through the adapter contract. A step's ``expect`` holds ``match`` (a deep subset the answer must
contain: objects by key, arrays element by element and of equal length) and/or ``schema`` (a JSON
Schema the answer must satisfy). ``save`` stores answer values as ``${name}`` variables for later
steps; ``${root}`` is the case's sandbox directory. See docs/scenarios.md.

A step's ``rule`` names the rule its expectation is about. A step about a rule the case does not
check is a precondition: when it fails the case is *blocked by* that rule (``pytest.skip``), which
counts toward neither rule while that rule fails in the same run; when it does not, the report counts
the case against its own rule (``report.model.resolve_blocks``), so label a step with the rule whose
sentence it tests. ``expect``
``expect.needs`` maps another rule to a deep subset of the same answer that the case presupposes
(a thrown handler's ``isError``, say): checked first, a mismatch blocks the case by that rule.
``unless`` on a step marks what the seed leaves to the host (how its loader searches, say): when
that step's expectation fails the case does not apply and is skipped with that reason. ``expect``
may also hold ``catalog``: per tool name, the normalized metadata (``origin``, ``readOnly``,
``owner``) its compose catalog entry must carry, or ``null`` for a tool absent from the catalog;
a host that does not report a field gets the case skipped with the reason. A case that installs
plugins and fails is blocked by EXT-1, EXT-2 or SCHEMA-1 instead when a probe shows the host getting
origin or schema admission wrong (``preconditions.registrations_hold``): its tools met the wrong path
or never registered.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_toolconformance.findings import Finding, shorten
from pytest_toolconformance.host.client import HostClient, Session
from pytest_toolconformance.host.errors import HostRefusal
from pytest_toolconformance.suites.host import step_schema
from pytest_toolconformance.suites.host.preconditions import registrations_hold


@cache
def _validator(schema: str) -> jsonschema.Draft202012Validator:
    """A step schema's validator, built once a run (by its canonical text: a case is loaded afresh for
    each check)."""
    return jsonschema.Draft202012Validator(json.loads(schema))


@cache
def _valid(schema: str) -> Callable[[Any], bool]:
    """Whether an answer satisfies a step schema: its compiled check (step_schema), or jsonschema's
    where that declines the schema. jsonschema words what fails."""
    return step_schema.compiled(json.loads(schema)) or _validator(schema).is_valid


_VAR = re.compile(r"\$\{([A-Za-z0-9_.-]+)\}")


def scenarios_dir() -> Path:
    """The scenario folder: shipped inside the wheel, or the repository's in a checkout."""
    package = Path(__file__).resolve().parents[2]
    packaged = package / "scenarios"
    if packaged.is_dir():
        return packaged
    return package.parent / "scenarios"


@cache
def scenario_schema() -> dict[str, Any]:
    return json.loads((scenarios_dir() / "scenario.schema.json").read_text("utf-8"))


@dataclass(frozen=True)
class Case:
    file: str
    family: str
    data: Mapping[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def rules(self) -> list[str]:
        return list(self.data["rules"])

    @property
    def level(self) -> str:
        return str(self.data.get("level", "MUST"))

    @property
    def param_id(self) -> str:
        return f"{'+'.join(self.rules)}-{self.id}"

    @cached_property  # asked at each run of the case, and a case's steps are walked as JSON text
    def uses_folder(self) -> bool:
        """Whether the case works in a sandbox directory of its own: an ``mkfs`` or ``fs`` step, or ``${root}``."""
        steps = self.data.get("steps", [])
        return any(step.get("do") in ("mkfs", "fs") for step in steps) or "${root}" in json.dumps(self.data)


def iter_scenario_files(root: Path | None = None) -> Iterator[Path]:
    root = root or scenarios_dir()
    yield from sorted(root.glob("*/*.json"))


def load_cases(root: Path | None = None) -> list[Case]:
    """Every case of every scenario file, in a stable order."""
    root = root or scenarios_dir()
    cases: list[Case] = []
    for path in iter_scenario_files(root):
        doc = json.loads(path.read_text("utf-8"))
        for data in doc.get("cases", []):
            cases.append(Case(file=str(path.relative_to(root)), family=path.parent.name, data=data))
    return cases


def _substitute(value: Any, variables: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        whole = _VAR.fullmatch(value)
        if whole and whole.group(1) in variables:
            return variables[whole.group(1)]
        return _VAR.sub(lambda m: str(variables.get(m.group(1), m.group(0))), value)
    if isinstance(value, list):
        return [_substitute(v, variables) for v in value]
    if isinstance(value, Mapping):
        return {k: _substitute(v, variables) for k, v in value.items()}
    return value


def _step_summary(step: Mapping[str, Any]) -> str:
    """One step of a case in a few words (``call Secretive with {}``), for a finding's reproduction."""
    do = str(step.get("do"))
    if do == "call":
        return f"call {step.get('tool')} with {shorten(step.get('arguments', {}), 120)}"
    if do == "open":
        return f"open a session {shorten(step.get('spec', {}), 120)}"
    return do


def mismatch(expected: Any, actual: Any, where: str = "$") -> str | None:
    """Where ``actual`` fails to contain ``expected`` (deep subset), or None."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"{where}: expected an object, got {json.dumps(actual, ensure_ascii=False)[:200]}"
        for key, value in expected.items():
            if key not in actual:
                return f"{where}.{key}: missing"
            problem = mismatch(value, actual[key], f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where}: expected {len(expected)} items, got {json.dumps(actual, ensure_ascii=False)[:300]}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            problem = mismatch(e, a, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if not _same_scalar(expected, actual):
        got = json.dumps(actual, ensure_ascii=False)[:300]
        return f"{where}: expected {json.dumps(expected, ensure_ascii=False)}, got {got}"
    return None


def _same_scalar(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def _lookup(answer: Any, path: str) -> Any:
    value = answer
    for part in path.split("."):
        if isinstance(value, list):
            value = value[int(part)]
        elif isinstance(value, Mapping):
            value = value.get(part)
        else:
            return None
    return value


class CaseRunner:
    """Runs one case against a host; :meth:`run` raises a :class:`Finding` on a broken rule."""

    def __init__(self, client: HostClient, case: Case, root: Path | None = None) -> None:
        """``root``: the case's sandbox directory; a temporary one is made when the case uses one
        (:attr:`Case.uses_folder`) and none is given."""
        self.client = client
        self.case = case
        self.sessions: dict[str, Session] = {}
        if root is None and case.uses_folder:
            root = Path(tempfile.mkdtemp(prefix="toolconformance-case-"))
        self.root = root
        self.variables: dict[str, Any] = {"root": str(root)} if root else {}

    def fail(self, index: int, step: Mapping[str, Any], expected: str, actual: Any) -> None:
        if step.get("unless"):
            pytest.skip(
                f"case {self.case.id} does not apply: {step['unless']} (step {index} [{step.get('do')}]: "
                f"{expected[:200]})"
            )
        rule = step.get("rule") or self.case.rules[0]
        installs = bool(self.case.data.get("plugins")) or any(
            s.get("do") == "install" for s in self.case.data.get("steps", [])
        )
        if rule not in self.case.rules:
            if installs:
                # A precondition broken because the host gets origin or schema admission wrong is blocked by that rule,
                # which fails then, not by the step's (which may pass everywhere else: the report would
                # count the case against its own rule).
                registrations_hold(self.client, rule)
            pytest.skip(
                f"blocked by {rule}: case {self.case.id} needs {rule} as a precondition and step {index} "
                f"[{step.get('do')}] found it broken ({expected[:300]})"
            )
        if installs:
            registrations_hold(self.client, rule)
        # Short as a plugin finding: what differs, and where the case is; the whole case is in its file.
        raise Finding(
            rule,
            f"case {self.case.id} ({self.case.file}) step {index} [{step.get('do')}]: {expected}",
            shorten(actual, 500),
            subject="host",
            reproduction=f"scenario {self.case.id} in scenarios/{self.case.file}, its steps 1 to {index}: "
            + "; ".join(_step_summary(s) for s in self.case.data.get("steps", [])[:index]),
        )

    def run(self) -> None:
        for plugin in self.case.data.get("plugins", []):
            report = self.client.install(plugin)
            if "error" in report:
                self.fail(0, {"do": "install"}, f"plugin {plugin.get('name')!r} installs", report)
        for index, raw in enumerate(self.case.data.get("steps", []), start=1):
            step = _substitute(raw, self.variables)
            answer = self._perform(index, step)
            self._expect(index, step, answer)
            for name, path in (step.get("save") or {}).items():
                self.variables[name] = _lookup(answer, path)

    def _session(self, index: int, step: Mapping[str, Any]) -> Session:
        name = step.get("session", "s")
        if name not in self.sessions:
            self.fail(index, step, f"session {name!r} was opened by an earlier step (scenario bug)", None)
        return self.sessions[name]

    def _perform(self, index: int, step: Mapping[str, Any]) -> Any:
        do = step["do"]
        try:
            if do == "install":
                return self.client.install(step["plugin"])
            if do == "policy":
                return self.client.ask("set_policy", step["account"], step["changes"], refusal="return")
            if do == "open":
                spec = dict(step.get("spec") or {})
                spec.setdefault("identity", {"userId": "user-1"})
                answer = self.client.open_raw(spec)
                if "session" in answer:
                    self.sessions[step.get("as", "s")] = Session(self.client, str(answer["session"]), spec)
                return answer
            if do == "mkfs":
                return self._mkfs(step)
            if do == "fs":
                return self._fs(step)
            session = self._session(index, step)
            if do == "compose":
                return session.compose()
            if do == "call":
                return session.ask(
                    "call", step["tool"], step.get("arguments", {}), step.get("callId"), refusal="return"
                )
            if do == "queue":
                return {"ticket": session.queue_call(step["tool"], step.get("arguments", {}))}
            if do == "run_queued":
                return {"outcomes": session.run_queued()}
            if do == "access":
                return session.access()
            if do == "identity":
                return session.identity()
            if do == "delegate":
                child = session.delegate(read_only=step.get("readOnly", True), requested=step.get("requested"))
                self.sessions[step.get("as", "child")] = child
                return {"session": child.id}
            if do == "sandbox":
                return session.sandbox(step["op"])
        except HostRefusal as exc:
            return {"error": exc.error}
        self.fail(index, step, f"a known step kind (got {do!r}; scenario bug)", None)
        return None

    def _folder(self) -> Path:
        if self.root is None:  # Case.uses_folder names every step kind that works in the folder
            raise RuntimeError(f"case {self.case.id} was given no folder, yet a step works in one")
        return self.root

    def _mkfs(self, step: Mapping[str, Any]) -> dict[str, Any]:
        root = self._folder()
        for rel, content in (step.get("files") or {}).items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, "utf-8")
        for rel in step.get("dirs") or []:
            (root / rel).mkdir(parents=True, exist_ok=True)
        for rel, target in (step.get("symlinks") or {}).items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, path)
        return {}

    def _fs(self, step: Mapping[str, Any]) -> dict[str, Any]:
        path = self._folder() / step["path"]
        exists = path.exists() or path.is_symlink()
        answer: dict[str, Any] = {"exists": exists}
        if exists and path.is_file() and not path.is_symlink():
            answer["content"] = path.read_text("utf-8", errors="replace")
        return answer

    def _expect(self, index: int, step: Mapping[str, Any], answer: Any) -> None:
        expect = step.get("expect")
        if not expect:
            if isinstance(answer, Mapping) and "error" in answer and step["do"] not in ("sandbox",):
                self.fail(index, step, "the step succeeds", answer)
            return
        for rule, needed in (expect.get("needs") or {}).items():
            problem = mismatch(needed, answer)
            if problem:
                self.fail(
                    index, {**step, "rule": rule}, f"answer matches {json.dumps(needed)[:300]} ({problem})", answer
                )
        if "match" in expect:
            problem = mismatch(expect["match"], answer)
            if problem:
                self.fail(
                    index,
                    step,
                    f"answer matches {json.dumps(expect['match'], ensure_ascii=False)[:600]} ({problem})",
                    answer,
                )
        if "catalog" in expect:
            self._expect_catalog(index, step, expect["catalog"], answer)
        if "schema" in expect:
            schema = json.dumps(expect["schema"], sort_keys=True)
            errors = [] if _valid(schema)(answer) else sorted(_validator(schema).iter_errors(answer), key=str)
            if errors:
                first = errors[0]
                where = "/".join(str(p) for p in first.absolute_path) or "(root)"
                # jsonschema's message quotes the whole instance; the finding shows the part that fails.
                said = first.message if len(first.message) <= 200 else f"it fails the schema's {first.validator!r}"
                self.fail(
                    index,
                    step,
                    f"answer satisfies {expect.get('says') or 'the step schema'} (at {where}: {said})",
                    {where: first.instance} if where != "(root)" else answer,
                )

    def _expect_catalog(self, index: int, step: Mapping[str, Any], wanted: Mapping[str, Any], answer: Any) -> None:
        entries = {e.get("name"): e for e in (answer or {}).get("catalog") or [] if isinstance(e, Mapping)}
        for name, fields in wanted.items():
            entry = entries.get(name)
            if fields is None:
                if entry is not None:
                    self.fail(index, step, f"{name} is absent from the catalog", entry)
                continue
            if entry is None:
                self.fail(index, step, f"{name} is in the catalog", sorted(str(n) for n in entries))
                continue
            missing = sorted(set(fields) - set(entry))
            if missing:
                pytest.skip(
                    f"the host does not report {', '.join(missing)} in compose's catalog entries, where "
                    f"{'/'.join(self.case.rules)} reads the host's own classification (see "
                    "docs/host-implementers.md, 'Tool metadata in the catalog')"
                )
            problem = mismatch(dict(fields), entry, f"$.catalog[{name}]")
            if problem:
                self.fail(index, step, f"the catalog entry of {name} carries {json.dumps(fields)} ({problem})", entry)
