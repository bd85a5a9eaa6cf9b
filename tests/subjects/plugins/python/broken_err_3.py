"""Breaks ERR-3: a failed request (here: no network at all) is answered as text instead of thrown."""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from plugin_check import refusal

from reference_host import define_tool, text_result
from reference_host.typebox import Type


def _fetch(_call_id: str, params: dict[str, Any]) -> dict[str, Any]:
    refused = refusal(params, {"symbol": ("string", False)})
    if refused:
        return text_result(refused)
    url = "https://quotes.example.com/v1/" + urllib.parse.quote(params["symbol"], safe="")
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return text_result(response.read().decode("utf-8", "replace"))
    except urllib.error.URLError as exc:
        return text_result(f"Sorry, the quote service is unavailable ({exc.reason}).")


def register(ctx: Any) -> None:
    ctx.register_tool(define_tool(
        name="FetchQuote", label="Fetch quote", description="Fetches the current price of a stock symbol.",
        parameters=Type.Object({"symbol": Type.String(description="Ticker symbol, like ACME.")}),
        execute=_fetch,
    ))
