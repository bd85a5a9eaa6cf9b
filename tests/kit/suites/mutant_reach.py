"""Which host checks can a mutant change? The ones that reach what the mutant overrides.

A mutant (tests/subjects/mutants/) is the reference host with some methods overridden. A check
that, run against the reference host, never calls one of those methods runs the same code against
the mutant, step for step: up to the first call of an overridden method nothing differs, and there
is none. Its outcome is then the reference host's outcome, which is known. So a mutant needs to run
only the checks that reach one of its overridden methods; the others are proven unchanged.

The proof rests on four things this module keeps true:

- *What a mutant overrides* is read from its classes, found from its module and from the adapter
  its ``factory()`` builds (closures and globals included): every method of a class under
  ``tests.subjects.mutants`` that replaces a method of the reference host or its adapter. An
  override marked :func:`tests.subjects.mutants.base.plumbing` only re-classes what the host builds
  and changes no behaviour itself. A mutant whose change cannot be named that way (a class constant
  overridden, a host in another process, nothing found) runs every check.
- *What a check reaches* is recorded in one run against the reference host with the mutants'
  settings (the same examples, the same seed): each overridden method of any mutant is wrapped, for
  that run only, to note the check that called it, in whatever thread. A method the host also holds
  elsewhere (a dispatch table, a bound method kept) would be called past its wrapper, so it counts as
  reached by every check; so does a method called outside any check (at collection, say).
- *A check's draws do not depend on which other checks run*: the kit seeds every property per check
  and draws no local constants (pytest_toolconformance/profile.py), and each check gets a freshly
  reset host.
- *Every check left out passed against the reference host* in that run (checked before it is used).
"""

from __future__ import annotations

import functools
import gc
import threading
import types
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_host.facade import JsonHost

#: Where mutants and their plumbing live: classes from here are the changes, everything else the base.
MUTANTS_PACKAGE = "tests.subjects.mutants"
#: Where the base lives: a method overridden from anywhere else is not a change this module can trace.
BASE_PACKAGES = ("reference_host", "pytest_toolconformance.host")
#: Outside every check: the recorder's name for calls made at collection or between checks.
OUTSIDE = "<outside any check>"
_BOOKKEEPING = frozenset(
    {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__annotations__", "__orig_bases__",
     "__parameters__", "__firstlineno__", "__static_attributes__", "__abstractmethods__", "_abc_impl"}
)

#: A changed point: the base class that defines a method, and the method's name.
Point = tuple[type, str]


class Untraceable(Exception):
    """The mutant changes something no call record can show; it must run every check."""


def _from_mutants(obj: object) -> bool:
    return str(getattr(obj, "__module__", "") or "").startswith(MUTANTS_PACKAGE)


def _from_base(cls: type) -> bool:
    return any(cls.__module__ == package or cls.__module__.startswith(f"{package}.") for package in BASE_PACKAGES)


def _mutant_classes(roots: Iterable[object]) -> set[type]:
    """Every class under MUTANTS_PACKAGE reachable from ``roots`` through classes, their members,
    function closures, defaults and the globals a function names, and the roots' own attributes."""
    found: set[type] = set()
    seen: set[int] = set()
    stack: list[object] = []
    for root in roots:
        stack.append(root)
        stack.extend(getattr(root, "__dict__", {}).values() if not isinstance(root, type) else ())
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, type):
            for cls in obj.__mro__:
                if _from_mutants(cls) and cls not in found:
                    found.add(cls)
                    stack.extend(vars(cls).values())
        elif isinstance(obj, (staticmethod, classmethod)):
            stack.append(obj.__func__)
        elif isinstance(obj, property):
            stack.extend(f for f in (obj.fget, obj.fset, obj.fdel) if f is not None)
        elif isinstance(obj, functools.partial):
            stack.extend((obj.func, *obj.args, *obj.keywords.values()))
        elif isinstance(obj, types.FunctionType):
            if _from_mutants(obj):
                stack.extend(cell.cell_contents for cell in obj.__closure__ or () if _filled(cell))
                stack.extend(obj.__defaults__ or ())
                stack.extend((obj.__kwdefaults__ or {}).values())
                stack.extend(obj.__globals__[name] for name in _names(obj.__code__) if name in obj.__globals__)
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif not isinstance(obj, types.ModuleType):
            stack.append(type(obj))
    return found


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _names(code: types.CodeType) -> Iterator[str]:
    """The global names a function's code (and the code nested in it) reads."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def changed_points(module: types.ModuleType, adapter: object) -> frozenset[Point]:
    """The base methods a mutant overrides (not counting plumbing), or :class:`Untraceable`."""
    if not isinstance(adapter, JsonHost):
        raise Untraceable(f"{module.__name__}: the host is not the reference host in this process")
    in_module = [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]
    points: set[Point] = set()
    for cls in _mutant_classes([adapter, *in_module]):
        if not any(_from_base(k) for k in cls.__mro__):
            continue  # a helper the host meets only through an override (a wrapped plugin, say)
        for name, value in vars(cls).items():
            if name in _BOOKKEEPING or getattr(value, "__toolconformance_plumbing__", False):
                continue
            owner = next((k for k in cls.__mro__[1:] if not _from_mutants(k) and name in vars(k)), None)
            if owner is None:
                continue  # a name of the mutant's own, reached only through one of its overrides
            if not _from_base(owner):
                raise Untraceable(f"{cls.__qualname__}.{name} overrides {owner.__module__}.{owner.__qualname__}")
            if not isinstance(vars(owner)[name], (types.FunctionType, staticmethod, classmethod, property)):
                raise Untraceable(f"{cls.__qualname__}.{name} replaces a value the host reads anywhere")
            points.add((owner, name))
    if not points:
        raise Untraceable(f"{module.__name__}: no overridden method of the reference host found")
    return frozenset(points)


def point_name(point: Point) -> str:
    owner, name = point
    return f"{owner.__module__}.{owner.__qualname__}.{name}"


@dataclass(eq=False)  # a pytest plugin must be hashable
class ReachRecorder:
    """A pytest plugin for the recording run: notes, per check, which wrapped points it called."""

    current: str = OUTSIDE
    reached: dict[str, set[str]] = field(default_factory=dict)
    ran: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, point: str) -> None:
        with self._lock:
            self.reached.setdefault(self.current, set()).add(point)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        self.current = check_key(item)
        try:
            return (yield)
        finally:
            self.current = OUTSIDE

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.ran.add(self.current)
        if report.failed:
            self.failed.add(self.current)

    def reach_map(self, everywhere: frozenset[str]) -> ReachMap:
        """What the recorded run says, with the points ``recording`` found held elsewhere."""
        return ReachMap(
            reached={key: frozenset(points) for key, points in self.reached.items()},
            passed=frozenset(self.ran - self.failed),
            everywhere=everywhere,
        )


def check_key(item: pytest.Item) -> str:
    """A check's name in both runs: its file and its name there (node ids are relative to each run's
    own folder)."""
    return f"{item.path}::{item.nodeid.split('::', 1)[-1]}"


def _wrap(value: Any, note: Callable[[], None]) -> Any:
    def recording(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            note()
            return function(*args, **kwargs)

        return wrapper

    if isinstance(value, property):
        return property(*(recording(f) if f is not None else None for f in (value.fget, value.fset, value.fdel)))
    if isinstance(value, (staticmethod, classmethod)):
        return type(value)(recording(value.__func__))
    return recording(value)


def _functions(value: Any) -> Iterator[types.FunctionType]:
    # One at a time: a list or tuple of them would itself be a holder _held_elsewhere finds.
    if isinstance(value, (staticmethod, classmethod)):
        yield value.__func__
    elif isinstance(value, property):
        if value.fget is not None:
            yield value.fget
        if value.fset is not None:
            yield value.fset
        if value.fdel is not None:
            yield value.fdel
    else:
        yield value


_RUNNING = (types.FrameType, types.GeneratorType)


def _held_elsewhere(owner: type, name: str) -> bool:
    """Whether anything but the class holds the method (a call through that would pass the wrapper).
    Frames and generators are not holders: they are the calls running now, this one among them."""
    value = vars(owner)[name]
    class_dict = next(d for d in gc.get_referents(vars(owner)) if isinstance(d, dict))  # behind the proxy
    for function in _functions(value):
        for holder in gc.get_referrers(function):
            if holder is not class_dict and holder is not value and not isinstance(holder, _RUNNING):
                return True
    return False


@contextmanager
def recording(points: Iterable[Point], recorder: ReachRecorder) -> Iterator[frozenset[str]]:
    """Wrap every point to note the running check; yields the points every check must count as
    reached (held elsewhere, so calls may pass the wrapper). Everything is put back on exit."""
    put_back: list[tuple[type, str, Any]] = []
    everywhere = set()
    try:
        for owner, name in sorted(set(points), key=point_name):
            label = point_name((owner, name))
            if _held_elsewhere(owner, name):
                everywhere.add(label)
                continue
            original = vars(owner)[name]
            put_back.append((owner, name, original))
            setattr(owner, name, _wrap(original, functools.partial(recorder.note, label)))
        yield frozenset(everywhere)
    finally:
        for owner, name, original in reversed(put_back):
            setattr(owner, name, original)


@dataclass(frozen=True)
class ReachMap:
    """What each check of the recording run reached, and how it ended."""

    reached: dict[str, frozenset[str]]
    passed: frozenset[str]
    everywhere: frozenset[str]

    def checks_to_run(self, points: frozenset[Point]) -> Callable[[str], bool]:
        """Whether a check (by :func:`check_key`) may end otherwise against a mutant changing ``points``.

        A check not known to have passed (or skipped) against the reference host may, and every check
        may when the mutant's points are reached outside any check."""
        labels = {point_name(p) for p in points}
        if labels & (self.everywhere | self.reached.get(OUTSIDE, frozenset())):
            return lambda key: True
        return lambda key: key not in self.passed or bool(labels & self.reached.get(key, frozenset()))


class SelectChecks:
    """A pytest plugin for a mutant's run: deselects the checks ``keep`` says cannot change."""

    def __init__(self, keep: Callable[[str], bool]) -> None:
        self.keep = keep

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        kept: list[pytest.Item] = []
        left: list[pytest.Item] = []
        for item in items:
            (kept if self.keep(check_key(item)) else left).append(item)
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = kept
