"""The reference host: an executable model of the plugin tool seam, in plain Python."""

from .asyncutil import CallTimeout, run_bounded
from .context import CallContext, active_call, current_call
from .errors import HostError, ManifestError, PluginLoadError, RegistrationError, SandboxError, SessionSpecError
from .facade import CAPABILITIES, VERSION, JsonHost
from .host import Host
from .registry import InstallFinding, InstallReport, Refusal, Registration
from .schemas import EXTERNAL_DEFINITION_CAP, EXTERNAL_DESCRIPTION_CAP, flat_object_problem, json_bytes
from .scripted import ScriptedPlugin, delete_at, set_at, transport_probe
from .tools import Tool, define_tool, image_result, result_problems, text_result
from .transport import is_transport_failure, mark_transport_failure
from .typebox import Type

# The one face: every name the kit (or anyone else) uses of the reference host is here, so its
# modules can move without breaking a caller (tests/kit/test_layering.py holds the kit to it).
__all__ = [
    "CAPABILITIES",
    "EXTERNAL_DEFINITION_CAP",
    "EXTERNAL_DESCRIPTION_CAP",
    "VERSION",
    "CallContext",
    "CallTimeout",
    "Host",
    "InstallFinding",
    "InstallReport",
    "JsonHost",
    "Refusal",
    "Registration",
    "active_call",
    "current_call",
    "flat_object_problem",
    "json_bytes",
    "run_bounded",
    "ScriptedPlugin",
    "delete_at",
    "set_at",
    "transport_probe",
    "Type",
    "HostError",
    "ManifestError",
    "PluginLoadError",
    "RegistrationError",
    "SandboxError",
    "SessionSpecError",
    "Tool",
    "define_tool",
    "image_result",
    "is_transport_failure",
    "mark_transport_failure",
    "result_problems",
    "text_result",
]

import logging as _logging

# A library does not print: applications decide where plugin log lines go.
_logging.getLogger(__name__).addHandler(_logging.NullHandler())
