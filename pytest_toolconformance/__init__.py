"""pytest-toolconformance: a conformance test kit for an agent host's plugin tool API."""

__version__ = "0.1.0"
