"""Turning ``--toolconformance-host=SPEC`` into an adapter, with one-line usage errors.

:func:`configured_adapter` is the one way the kit gets the adapter of a run: built once from the
spec, kept in ``config.stash``, closed when the run ends.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.host.contract import ADAPTER_METHODS, HostAdapter
from pytest_toolconformance.host.errors import HostSpecError
from pytest_toolconformance.options import DEFAULT_HOST

try:
    from pytest_toolconformance.host.wire.client import WireHostAdapter
except ImportError as exc:  # the wire client needs a POSIX system (process groups, poll on pipes)
    WireHostAdapter = None  # type: ignore[assignment,misc]
    _WIRE_UNAVAILABLE = str(exc)

#: Where a run keeps its adapter.
ADAPTER_KEY = pytest.StashKey[HostAdapter]()


def configured_adapter(config: pytest.Config, spec: str, *, timeout: float, startup_timeout: float | None = None,
                       search_paths: Sequence[Path] = ()) -> HostAdapter:
    """The run's adapter: the one in ``config.stash``, or built from ``spec`` now, stashed, and
    closed at the end of the run. A spec that gives no adapter is a :class:`pytest.UsageError`."""
    adapter = config.stash.get(ADAPTER_KEY, None)
    if adapter is None:
        try:
            adapter = load_host(spec, search_paths=[config.rootpath, *search_paths], timeout=timeout,
                                startup_timeout=startup_timeout)
        except HostSpecError as exc:
            raise pytest.UsageError(str(exc)) from None
        config.stash[ADAPTER_KEY] = adapter
        config.add_cleanup(adapter.close)
    return adapter


def check_handshake(adapter: Any) -> None:
    """A wire host that cannot complete its handshake can be checked on nothing: one paragraph and a
    usage error (exit 4), not an errored test per check. Other adapters describe themselves later."""
    if WireHostAdapter is None or not isinstance(adapter, WireHostAdapter):
        return
    from pytest_toolconformance.host.wire.errors import FAULTS, WireProtocolError, quote

    try:
        adapter.info()
    except WireProtocolError as exc:
        if exc.method not in (None, "hello"):
            raise
        if exc.line is not None and exc.fault in ("not-json", "not-a-response", "wrong-seq"):
            what = (
                f"Its first line on stdout was {quote(exc.line)}, where the kit expected the answer to its hello "
                'request (one JSON object with "seq": 0). stdout carries protocol lines only: write logs and '
                "banners to stderr (console.error in JS, print(..., file=sys.stderr) in Python)"
            )
        else:
            what = f"It {FAULTS.get(exc.fault, exc.fault)}: {exc.detail}"
        stderr = (
            "".join(f"\n    {line}" for line in exc.stderr.rstrip().splitlines()[-8:]) if exc.stderr.strip() else ""
        )
        raise pytest.UsageError(
            f"--toolconformance-host=exec:{adapter.command}: the host did not complete the handshake, so nothing "
            f"could be checked. {what}. docs/wire-protocol.md shows the hello."
            + (f"\n  host stderr (tail):{stderr}" if stderr else "")
        ) from None


def _takes_timeout(factory: Any) -> bool:
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    return "timeout" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def load_host(spec: str, *, search_paths: Sequence[Path] = (), timeout: float = 10.0,
              startup_timeout: float | None = None) -> Any:
    """Build the adapter that ``spec`` names: ``module:factory`` or ``exec:COMMAND``. A factory that
    takes a ``timeout`` parameter is given the run's (--toolconformance-timeout) to bound plugin code."""
    spec = (spec or DEFAULT_HOST).strip()
    if spec.startswith("exec:"):
        command = spec[len("exec:") :].strip()
        if not command:
            raise HostSpecError(
                "--toolconformance-host=exec: needs a command, e.g. exec:python -m "
                "pytest_toolconformance.host.wire.reference_server"
            )
        if WireHostAdapter is None:
            raise HostSpecError(
                f"--toolconformance-host={spec!r}: this platform ({sys.platform}) cannot run a wire host: "
                f"{_WIRE_UNAVAILABLE}; use a module:factory Python adapter"
            )
        return WireHostAdapter(command, timeout=timeout, startup_timeout=startup_timeout)
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise HostSpecError(f"--toolconformance-host={spec!r} is not of the form module:factory or exec:COMMAND")
    added = [str(p) for p in search_paths if str(p) not in sys.path]
    sys.path[:0] = added
    try:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            raise HostSpecError(
                f"--toolconformance-host={spec!r}: no module named {exc.name!r} (is it importable from here?)"
            ) from None
        except Exception as exc:  # noqa: BLE001 - a broken adapter module is the user's error, said in one line
            raise HostSpecError(
                f"--toolconformance-host={spec!r}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
            ) from None
    finally:
        for path in added:
            if path in sys.path:
                sys.path.remove(path)
    factory = getattr(module, attr, None)
    if factory is None:
        raise HostSpecError(f"--toolconformance-host={spec!r}: module {module_name!r} has no attribute {attr!r}")
    if not callable(factory):
        raise HostSpecError(f"--toolconformance-host={spec!r}: {attr!r} is not callable; name a factory function")
    try:
        adapter = factory(timeout=timeout) if _takes_timeout(factory) else factory()
    except Exception as exc:  # noqa: BLE001
        raise HostSpecError(
            f"--toolconformance-host={spec!r}: calling {attr}() failed: {type(exc).__name__}: {exc}"
        ) from None
    missing = [m for m in ADAPTER_METHODS if not callable(getattr(adapter, m, None))]
    if missing:
        raise HostSpecError(
            f"--toolconformance-host={spec!r}: {attr}() returned {type(adapter).__name__}, not a host adapter "
            f"(missing {', '.join(missing)}); see docs/host-implementers.md"
        )
    return adapter
