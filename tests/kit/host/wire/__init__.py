"""Tests of ``pytest_toolconformance.host.wire``: the wire protocol, its client and hosts that break it."""
