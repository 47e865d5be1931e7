"""Which conformance scenarios cannot apply to us, and why; and which fail today.

Keys are scenario names, `auth/*`-style patterns, or `scenario:check-id` for one check of a
scenario that otherwise applies (the suite's own baseline syntax). test_conformance checks
that every key names something the pinned suite runs. This module imports nothing heavy: the
client harness reads it before it loads the MCP SDK.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping

EVERYTHING_SERVER = "calls a fixture of the suite's everything-server that our servers lack"

NOT_APPLICABLE: Mapping[str, Mapping[str, str]] = {
    "client": {
        "auth/*": "OAuth: our client sends its config's static headers (a bearer token from "
        "${VAR}) and runs no OAuth flow",
        "elicitation-sep1034-client-defaults": "elicitation: our client declares no "
        "elicitation capability and refuses elicitation/create (-32600)",
        "sep-2322-client-request-state": "multi-round-trip requests ask the client for "
        "elicitation/create input, which our client does not give (no elicitation capability)",
    },
    "server": {
        "logging-set-level": "our servers send no log messages and declare no logging "
        "capability, so logging/setLevel is rightly an unknown method",
        "completion-complete": "our servers declare no completions capability: no prompt or "
        "resource argument of theirs has values to complete",
        "resources-subscribe": "our servers declare resources.subscribe false",
        "resources-unsubscribe": "our servers declare resources.subscribe false",
        "tools-call-image": f"{EVERYTHING_SERVER}: the tool test_image_content",
        "tools-call-audio": f"{EVERYTHING_SERVER}: the tool test_audio_content",
        "tools-call-embedded-resource": f"{EVERYTHING_SERVER}: the tool test_embedded_resource",
        "tools-call-mixed-content": f"{EVERYTHING_SERVER}: the tool test_multiple_content_types",
        "tools-call-with-logging": f"{EVERYTHING_SERVER}: the tool test_tool_with_logging",
        "tools-call-with-progress": f"{EVERYTHING_SERVER}: the tool test_tool_with_progress",
        "tools-call-sampling": f"{EVERYTHING_SERVER}: the tool test_sampling (sampling)",
        "tools-call-elicitation": f"{EVERYTHING_SERVER}: the tool test_elicitation (elicitation)",
        "elicitation-sep1034-defaults": f"{EVERYTHING_SERVER}: the tool "
        "test_elicitation_sep1034_defaults (elicitation)",
        "elicitation-sep1330-enums": f"{EVERYTHING_SERVER}: the tool "
        "test_elicitation_sep1330_enums (elicitation)",
        "json-schema-2020-12": f"{EVERYTHING_SERVER}: the tool json_schema_2020_12_tool",
        "resources-read-text": f"{EVERYTHING_SERVER}: the resource test://static-text",
        "resources-read-binary": f"{EVERYTHING_SERVER}: the resource test://static-binary",
        "resources-templates-read": f"{EVERYTHING_SERVER}: the template test://template/{{id}}/data",
        "prompts-get-simple": f"{EVERYTHING_SERVER}: the prompt test_simple_prompt",
        "prompts-get-with-args": f"{EVERYTHING_SERVER}: the prompt test_prompt_with_arguments",
        "prompts-get-embedded-resource": f"{EVERYTHING_SERVER}: the prompt "
        "test_prompt_with_embedded_resource",
        "prompts-get-with-image": f"{EVERYTHING_SERVER}: the prompt test_prompt_with_image",
        "input-required-result-basic-elicitation": f"{EVERYTHING_SERVER}: an input-required tool",
        "input-required-result-basic-sampling": f"{EVERYTHING_SERVER}: an input-required tool",
        "input-required-result-basic-list-roots": f"{EVERYTHING_SERVER}: an input-required tool",
        "input-required-result-request-state": f"{EVERYTHING_SERVER}: an input-required tool",
        "input-required-result-multiple-input-requests": f"{EVERYTHING_SERVER}: an "
        "input-required tool",
        "input-required-result-multi-round": f"{EVERYTHING_SERVER}: an input-required tool",
        "input-required-result-non-tool-request": f"{EVERYTHING_SERVER}: the prompt "
        "test_input_required_result_prompt",
        "input-required-result-result-type": f"{EVERYTHING_SERVER}: an input-required tool",
        "input-required-result-tampered-state": f"{EVERYTHING_SERVER}: an input-required tool",
        "input-required-result-capability-check": f"{EVERYTHING_SERVER}: an input-required tool",
        "tasks-*": "the tasks extension (SEP-2663, optional): our servers offer no tasks",
        "http-custom-header-server-validation": "no tool of ours declares x-mcp-header "
        "parameters, so there is no custom header to validate",
        "server-stateless:sep-2575-server-rejects-undeclared-capability": f"{EVERYTHING_SERVER}"
        ": the tool test_missing_capability (it needs the client's sampling)",
        "server-stateless:sep-2575-missing-capability-http-400": f"{EVERYTHING_SERVER}: the "
        "tool test_missing_capability (it needs the client's sampling)",
    },
}

# Applicable scenarios that fail today, keyed by (leg, revision); each test is a strict xfail,
# so one that starts to pass fails until its entry here is removed. None today.
KNOWN_FAILURES: Mapping[tuple[str, str], Mapping[str, str]] = {}


def not_applicable(leg: str, scenario: str) -> str | None:
    """Why `scenario` cannot apply to our `leg` ("server" or "client"), or None."""
    for key, reason in NOT_APPLICABLE[leg].items():
        if ":" not in key and fnmatch.fnmatchcase(scenario, key):
            return reason
    return None


def excused_checks(leg: str, scenario: str) -> list[str]:
    """The check ids of `scenario` that cannot apply, though the scenario does."""
    return [key.split(":", 1)[1] for key in NOT_APPLICABLE[leg] if key.startswith(f"{scenario}:")]
