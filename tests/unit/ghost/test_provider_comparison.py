"""Provider comparison goldens (spec 004): one scenario across OpenAI (chat completions and
Responses), Anthropic and Gemini.

The same run (prompt, servers, model replies) through each provider's adapter must give the
same tool chain, errors, outcome and conversation: any difference is an adapter's doing.
"""

from __future__ import annotations

import pytest

from tests.support.golden_scenarios import GOLDENS, PROVIDERS, SCENARIOS
from zork_mcp.ghost.goldens import load_golden


def comparable(output: dict) -> dict:
    """What must not depend on the provider: everything but timings and token counts."""
    metadata = dict(output["execution_metadata"])
    for volatile in ("total_execution_time", "token_usage"):
        metadata.pop(volatile, None)
    chain = [{k: v for k, v in e.items() if k != "execution_time"} for e in output["tool_chain"]]
    history = [
        {k: v for k, v in m.items() if k != "tool_calls"} for m in output["conversation_history"]
    ]
    calls = [
        [(c["function"]["name"], c["function"]["arguments"]) for c in m["tool_calls"] or ()]
        for m in output["conversation_history"]
    ]
    return {**output, "tool_chain": chain, "conversation_history": history, "calls": calls,
            "execution_metadata": metadata}  # fmt: skip


@pytest.mark.parametrize("scenario", [s.name for s in SCENARIOS])
def test_the_same_scenario_gives_the_same_result_on_every_provider(scenario):
    outputs = {p: load_golden(GOLDENS / p / f"{scenario}.json")["golden_output"] for p in PROVIDERS}
    first, *others = PROVIDERS
    reference = comparable(outputs[first])
    for protocol in others:
        assert comparable(outputs[protocol]) == reference, f"{protocol} differs from {first}"
