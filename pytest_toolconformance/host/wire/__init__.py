"""The wire protocol: check a host written in any language (``--toolconformance-host=exec:COMMAND``).

:mod:`.protocol` holds the vocabulary and the message schemas, :mod:`.client` the kit's side
(:class:`~.client.WireHostAdapter`), :mod:`.outcomes` the pytest hook that reports protocol faults as
*errored*. The reference host's side is :mod:`pytest_toolconformance.host.wire.reference_server`;
docs/wire-protocol.md is the spec.
"""

from __future__ import annotations

from pytest_toolconformance.host.wire.errors import WireHostUnusable, WireProtocolError
from pytest_toolconformance.host.wire.protocol import PROTOCOL_VERSION

__all__ = ["PROTOCOL_VERSION", "WireHostUnusable", "WireProtocolError"]
