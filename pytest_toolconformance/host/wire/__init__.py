"""The wire protocol, a host in any language over JSON lines (``--toolconformance-host=exec:COMMAND``,
docs/wire-protocol.md): its vocabulary and message schemas, the kit's side that talks to such a host,
and the reference host's wire server."""

from __future__ import annotations

from pytest_toolconformance.host.wire.errors import WireHostUnusable, WireProtocolError
from pytest_toolconformance.host.wire.protocol import PROTOCOL_VERSION

__all__ = ["PROTOCOL_VERSION", "WireHostUnusable", "WireProtocolError"]
