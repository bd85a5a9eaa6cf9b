"""The in-process network guard of Python plugin calls (pytest_toolconformance/plugins/loaders/python_guard.py)."""

from __future__ import annotations

import http.client
import socket
import urllib.error
import urllib.request

import pytest

from pytest_toolconformance.plugins.loaders.python_guard import FAULT_ORIGIN, blocked_network


def test_the_fault_origin_answers_5xx_and_resets_and_everything_else_is_refused() -> None:
    attempts: list[str] = []
    with blocked_network(attempts):
        with pytest.raises(urllib.error.HTTPError) as answered:
            urllib.request.urlopen(f"http://{FAULT_ORIGIN}/status/503", timeout=10)
        assert answered.value.code == 503
        assert answered.value.read() == b"503 Service Unavailable (the toolconformance fault origin)\n"
        assert attempts == [f"connect:('{FAULT_ORIGIN}', 80)", f"{FAULT_ORIGIN} answered 503"]

        attempts.clear()
        connection = http.client.HTTPConnection(FAULT_ORIGIN, timeout=10)
        connection.request("GET", "/reset")
        with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
            connection.getresponse()
        assert attempts[-1] == f"{FAULT_ORIGIN} reset the connection"

        attempts.clear()
        with pytest.raises(urllib.error.URLError) as refused:
            urllib.request.urlopen("http://example.com/status/503", timeout=10)
        assert isinstance(refused.value.reason, socket.gaierror)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", 9))
        assert not [a for a in attempts if a.startswith(FAULT_ORIGIN)]
