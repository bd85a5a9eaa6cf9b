"""Python side of the kit's Python plugin bridge (pytest_toolconformance/plugins/loaders/python_process.py).

One bridge process serves one Python plugin for the whole test run, confined like a JS plugin's node
(the same supervisor and confinement: pytest_toolconformance/supervisor.py, confinement.py). It
speaks the line protocol of js/bridge.mjs (documented at its top), with ``kind: "python"`` loads:

* requests on stdin: ``load``, ``call``, ``mirror``, ``ping``; answers and notes on stdout, each
  line after the marker in ``TOOLCONF_BRIDGE_MARK``.
* a first load's ``register_tool`` and ``current_*()`` are synchronous host calls (a ``ctx`` note,
  the reply read from the pipe in ``TOOLCONF_CTX_FD``), so a host refusal is what the plugin's
  ``register_tool`` returns or raises at that very moment, as in the kit's own process.
* a handler's exception is answered as ``{name, message, stack, code, transport, osError}``:
  ``transport`` is the seam's tag (``mark_transport_failure``), ``osError`` says it is an
  ``OSError`` (what the network stack raises), which ERR-4 reads as a fault thrown as it came.

The plugin's own stdout and stdin are not the protocol's: before any plugin code runs, fd 1 is
pointed at stderr and fd 0 at /dev/null, and the protocol keeps private copies of both.

Run as a script (``python bridge.py``) with the kit on ``PYTHONPATH``; only the standard library,
``reference_host`` and two of the kit's loader modules (loaded by path, so that importing them
imports nothing else of the kit) run before the plugin.
"""

from __future__ import annotations

import asyncio
import errno
import importlib.util
import inspect
import json
import os
import platform
import sys
import traceback
from pathlib import Path
from typing import Any

# The protocol's own streams, before any other code can write to fd 1 or read fd 0.
_OUT = os.dup(1)
os.dup2(2, 1)
_IN = os.fdopen(os.dup(0), "rb")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
MARK = os.environ.pop("TOOLCONF_BRIDGE_MARK", "\x1etcb:@").encode("ascii")
_ctx_fd_text = os.environ.pop("TOOLCONF_CTX_FD", "")
CTX_FD = int(_ctx_fd_text) if _ctx_fd_text.isdigit() else None
if CTX_FD is not None:
    os.set_inheritable(CTX_FD, False)  # nothing the plugin starts gets the host-call channel
# The script's own folder is not the plugin's import path.
if sys.path and sys.path[0] == str(Path(__file__).resolve().parent):
    sys.path.pop(0)

from reference_host import Tool, is_transport_failure  # noqa: E402 - after the streams are safe

_LOADERS = Path(__file__).resolve().parent.parent


def _kit_module(name: str, file: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, _LOADERS / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_guard = _kit_module("_toolconformance_python_guard", "python_guard.py")
_importer = _kit_module("_toolconformance_python_importer", "python.py")


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


def send(message: dict[str, Any]) -> None:
    data = MARK + json.dumps(message, default=_jsonable, separators=(",", ":")).encode("utf-8") + b"\n"
    while data:
        data = data[os.write(_OUT, data):]


def _json_or_null(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=_jsonable, allow_nan=False))
    except (TypeError, ValueError):
        return None


mirror: dict[str, Any] = {"access": None, "identity": None, "accountUserId": None}
current_id: Any = None
loading: dict[str, bool] | None = None  # {"sync": ...} while a load's register runs
tools: list[Any] = []
loop = asyncio.new_event_loop()
_ctx_buffer = b""


class HostCallError(Exception):
    """The host refused a call the plugin made on its ctx during register (the host's words)."""

    def __init__(self, name: str, message: str, rule: str | None, token: str | None) -> None:
        super().__init__(message)
        self.host_name = name
        self.rule = rule
        self.toolconformance_token = token


def _host_call(method: str, args: Any) -> Any:
    global _ctx_buffer
    assert CTX_FD is not None
    send({"op": "ctx", "id": current_id, "method": method, "args": args})
    while b"\n" not in _ctx_buffer:
        chunk = os.read(CTX_FD, 65536)
        if not chunk:
            raise RuntimeError("the kit closed the host-call channel")
        _ctx_buffer += chunk
    line, _, _ctx_buffer = _ctx_buffer.partition(b"\n")
    reply = json.loads(line)
    if reply.get("ok"):
        return reply.get("value")
    error = reply.get("error") or {}
    raise HostCallError(str(error.get("name") or "Error"), str(error.get("message") or f"host {method} failed"),
                        error.get("rule"), error.get("token"))


def _sync() -> bool:
    return loading is not None and loading["sync"] and CTX_FD is not None


def _read(method: str, key: str) -> Any:
    if _sync():
        return _host_call(method, None)
    send({"op": "read", "id": current_id, "method": method})
    return json.loads(json.dumps(mirror[key]))  # a fresh copy per read: the mirror stays the host's


class _Logger:
    def _log(self, level: str, message: Any, *args: Any) -> None:
        text = str(message) % args if args else str(message)
        send({"op": "log", "id": current_id, "level": level, "message": text})

    def info(self, message: Any, *args: Any) -> None:
        self._log("info", message, *args)

    def debug(self, message: Any, *args: Any) -> None:
        self._log("info", message, *args)

    def warning(self, message: Any, *args: Any) -> None:
        self._log("warning", message, *args)

    warn = warning

    def error(self, message: Any, *args: Any) -> None:
        self._log("error", message, *args)


class Context:
    """The ``ctx`` a Python plugin's ``register`` gets in the bridge: the host's, over the protocol."""

    def __init__(self, plugin_name: str) -> None:
        self.logger = _Logger()
        self.plugin_name = plugin_name

    def register_tool(self, tool: Any, **options: Any) -> Any:
        if loading is None:
            self.logger.warning(f"register_tool({getattr(tool, 'name', tool)!r}) called after register() finished; "
                                "ignored by the kit")
            return None
        is_tool = isinstance(tool, Tool)
        handle = len(tools)
        tools.append(tool if is_tool else None)
        name = getattr(tool, "name", None)
        note: dict[str, Any] = {
            "handle": handle,
            "name": name if isinstance(name, str) else None,
            "label": tool.label if is_tool else None,
            "description": tool.description if is_tool else None,
            "parameters": _json_or_null(tool.parameters) if is_tool else None,
            "hasExecute": is_tool and callable(tool.execute),
            "toolType": "Tool" if is_tool else type(tool).__name__,
            "repr": repr(tool)[:200],
        }
        if options:
            note["options"] = {key: _json_or_null(value) for key, value in options.items()}
        if _sync():
            return _host_call("registerTool", note)
        send({"op": "tool", "id": current_id, **note})
        return None

    def current_identity(self) -> Any:
        return _read("currentIdentity", "identity")

    def current_access(self) -> Any:
        return _read("currentAccess", "access")

    def current_account_user_id(self) -> Any:
        return _read("currentAccountUserId", "accountUserId")

    # The JS names, as the host's own ctx has them.
    registerTool = register_tool  # noqa: N815
    currentIdentity = current_identity  # noqa: N815
    currentAccess = current_access  # noqa: N815
    currentAccountUserId = current_account_user_id  # noqa: N815


def _stack(exc: BaseException) -> str:
    here = __file__
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != here]
    text = "".join(traceback.format_list(frames))
    return f"Traceback (most recent call last):\n{text}{type(exc).__name__}: {exc}"


def describe(exc: BaseException, phase: str | None = None) -> dict[str, Any]:
    code = errno.errorcode.get(exc.errno) if isinstance(exc, OSError) and isinstance(exc.errno, int) else None
    if isinstance(exc, HostCallError):
        name, token, rule = exc.host_name, exc.toolconformance_token, exc.rule
    else:
        name, token, rule = type(exc).__name__, None, getattr(exc, "rule", None)
    return {
        "name": name,
        "message": str(exc),
        "stack": _stack(exc),
        "code": code,
        "transport": is_transport_failure(exc),
        "osError": isinstance(exc, OSError),
        "token": token,
        "rule": rule if isinstance(rule, str) else None,
        "phase": phase,
    }


def _settle(value: Any) -> Any:
    return loop.run_until_complete(value) if inspect.isawaitable(value) else value


def _forget_plugin_modules(entry: Path) -> None:
    """Drop the modules imported from the plugin's folder, so a fresh instance imports its siblings
    anew too (the entry itself is executed anew on every load)."""
    folder = entry.resolve().parent
    # Never the kit's own modules (a plugin may sit above them) nor installed packages (a virtualenv in
    # the plugin's folder): a second copy of reference_host would not know its own Tool class, and an
    # extension module cannot be imported twice.
    keep = (Path(sys.modules["reference_host"].__file__ or "").resolve().parent, _LOADERS.parents[1])
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or name.startswith("_toolconformance_python_"):
            continue
        where = Path(file).resolve()
        if (where.is_relative_to(folder) and not any(where.is_relative_to(k) for k in keep)
                and not {"site-packages", "dist-packages"} & set(where.parts)):
            del sys.modules[name]


def do_load(request: dict[str, Any]) -> dict[str, Any]:
    global loading
    mirror.update({key: (request.get("mirror") or {}).get(key) for key in mirror})
    entry = Path(str(request.get("entry")))
    if request.get("fresh"):
        _forget_plugin_modules(entry)
        tools.clear()  # the fresh instance's registrations take the same handles, in order
    send({"op": "phase", "id": current_id, "phase": "import"})
    try:
        module = _importer.load_python_plugin(entry)
    except Exception as exc:  # noqa: BLE001 - the plugin's failure, worded by the importer
        cause = exc.__cause__ if exc.__cause__ is not None else exc
        error = describe(cause, "not-a-plugin" if exc.__cause__ is None else "import")
        error["text"] = str(exc)
        return {"ok": False, "error": error}
    loading = {"sync": not request.get("replay")}
    send({"op": "phase", "id": current_id, "phase": "register"})
    try:
        _settle(module.register(Context(str(request.get("name") or entry.stem))))
    except Exception as exc:  # noqa: BLE001 - the plugin's failure
        return {"ok": False, "error": describe(exc, "register")}
    finally:
        loading = None
    return {"ok": True, "form": "register", "tools": [{"handle": h, "name": getattr(t, "name", None)}
                                                     for h, t in enumerate(tools)]}


def do_call(request: dict[str, Any], attempts: list[str]) -> dict[str, Any]:
    mirror.update({key: request.get(key) for key in mirror})
    handle = request.get("handle")
    tool = tools[handle] if isinstance(handle, int) and 0 <= handle < len(tools) else None
    if tool is None or tool.name != request.get("tool"):
        return {"ok": False, "error": describe(LookupError(f"the plugin registered no tool {request.get('tool')!r}"))}
    if not callable(tool.execute):
        return {"ok": False, "error": describe(TypeError(f"tool {tool.name!r} has no execute function"))}
    base = os.getcwd()
    try:
        if request.get("cwd"):
            os.chdir(request["cwd"])
        with _guard.blocked_network(attempts):
            result = _settle(tool.execute(request.get("callId"), request.get("params")))
    except Exception as exc:  # noqa: BLE001 - the handler's throw is its answer
        return {"ok": False, "error": describe(exc)}
    finally:
        try:
            os.chdir(base)
        except OSError:
            pass  # the base folder vanished; later calls run where this one left off
    try:
        text = json.dumps(result, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        problem = TypeError(f"tool {tool.name!r} returned a result that is not JSON-serializable: {exc}")
        return {"ok": False, "error": {**describe(problem), "name": "ResultNotSerializable"}}
    return {"ok": True, "resultJson": text}


def handle(line: bytes) -> None:
    global current_id
    try:
        request = json.loads(line)
    except ValueError as exc:
        sys.stderr.write(f"[bridge] unreadable request line: {exc}\n")
        return
    current_id = request.get("id")
    op = request.get("op")
    attempts: list[str] = []
    try:
        if op == "load":
            answer = do_load(request)
        elif op == "call":
            answer = do_call(request, attempts)
        elif op == "mirror":
            mirror.update({key: request.get(key) for key in mirror})
            answer = {"ok": True}
        elif op == "ping":
            answer = {"ok": True, "pid": os.getpid(), "node": f"Python {platform.python_version()}"}
        else:
            answer = {"ok": False, "error": describe(ValueError(f"unknown op {op!r}"))}
    except Exception as exc:  # noqa: BLE001 - the bridge's own fault, answered rather than hung
        answer = {"ok": False, "error": describe(exc, "bridge")}
    network = list(dict.fromkeys(attempts))
    request_id, current_id = current_id, None
    result = answer.pop("resultJson", None)
    if result is not None:
        # Already serialized (and checked): spliced in rather than parsed again.
        head = json.dumps({"id": request_id, **answer, "network": network}, separators=(",", ":"))
        data = MARK + (head[:-1] + ',"result":' + result + "}\n").encode("utf-8")
        while data:
            data = data[os.write(_OUT, data):]
    else:
        send({"id": request_id, **answer, "network": network})


def main() -> None:
    send({"op": "ready", "pid": os.getpid(), "node": f"Python {platform.python_version()}"})
    for line in _IN:
        handle(line)
    # The kit closed stdin (close() or its own exit): leave at once, whatever threads the plugin left.
    os._exit(0)


if __name__ == "__main__":
    main()
