"""In Python: fetch tools that let a refused request raise (``urlopen`` raises it), so
a refused connection shows nothing wrong. FetchStatus answers an origin's 5xx (``HTTPError``) as text,
which ERR-3 forbids ("an origin answering 5xx ... is thrown"); only a request that reaches an origin shows
it, the kit's fault origin. FetchStatusTagged raises the 5xx tagged with mark_transport_failure."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from plugin_check import refusal

from pytest_toolconformance.sdk import Type, define_tool, mark_transport_failure, text_result


def _fetch_tool(name: str, on_failed_status: Callable[[urllib.error.HTTPError], dict[str, Any]]) -> Any:
    def execute(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
        refused = refusal(params, {"url": ("string", False)})
        if refused:
            return text_result(refused)
        if not params["url"].startswith(("http://", "https://")):
            return text_result(f"url must be an absolute http(s) URL, not {params['url']!r}")
        try:
            with urllib.request.urlopen(params["url"], timeout=5) as response:
                return text_result(response.read().decode("utf-8", "replace"))
        except urllib.error.HTTPError as exc:
            return on_failed_status(exc)

    return define_tool(
        name=name, label=name, description="Fetches a web page and returns its text.",
        parameters=Type.Object({"url": Type.String(description="The URL of the page.")}),
        execute=execute,
    )


def _tagged(exc: urllib.error.HTTPError) -> dict[str, Any]:
    raise mark_transport_failure(RuntimeError(f"HTTP {exc.code} from {exc.url}"))


def register(ctx: Any) -> None:
    ctx.register_tool(_fetch_tool("FetchStatus", lambda exc: text_result(f"HTTP {exc.code}: could not fetch the page")))
    ctx.register_tool(_fetch_tool("FetchStatusTagged", _tagged))
