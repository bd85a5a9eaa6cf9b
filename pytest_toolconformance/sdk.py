"""What a Python plugin imports: the Python face of the seam, as PI's is for a JS plugin.

``define_tool`` and ``Type`` build a tool as ``defineTool`` and TypeBox do; ``text_result`` and
``image_result`` build a normal result (REG-3); ``mark_transport_failure`` and
``is_transport_failure`` tag and recognise a transport fault (ERR-4). The kit loads a Python plugin
into its reference host, whose own implementations these are::

    from pytest_toolconformance.sdk import Type, define_tool, text_result
"""

from __future__ import annotations

from reference_host import (
    Type,
    define_tool,
    image_result,
    is_transport_failure,
    mark_transport_failure,
    text_result,
)

__all__ = ["Type", "define_tool", "image_result", "is_transport_failure", "mark_transport_failure", "text_result"]
