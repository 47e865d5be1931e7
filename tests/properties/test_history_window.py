"""What the agent is shown of its game (issue 45): a scripted LLM reads each request back.

For any answer lengths and any window and budget: at each turn the request holds, whole, the
game's answers of the turns the window keeps; the remembered turns never exceed the budget;
the latest answer is never cut; and a request shares everything but its last message with
the next one, except when a block of the oldest turns goes.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.agents import agent_for
from zork_mcp.adapters.game.fake import ScriptedGameEnv
from zork_mcp.adapters.llm.fake import FunctionLLM, action_reply
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.domain.episode.history import HistoryMode, HistoryPolicy
from zork_mcp.domain.game.trilogy import ZORK1
from zork_mcp.domain.llm.messages import AssistantText, LLMRequest, SystemMessage, UserMessage
from zork_mcp.domain.llm.tokens import messages_tokens
from zork_mcp.domain.settings import MCPSettings

answers = st.lists(
    st.text(st.characters(codec="ascii", exclude_categories=("Cc",)), min_size=1, max_size=3000),
    min_size=1,
    max_size=40,
)
policies = st.builds(
    HistoryPolicy,
    mode=st.sampled_from([HistoryMode.WINDOW, HistoryMode.FULL]),
    turns=st.integers(1, 20),
    budget_tokens=st.integers(0, 4000),
    block=st.integers(1, 8),
)


def play(texts: list[str], policy: HistoryPolicy) -> list[LLMRequest]:
    llm = FunctionLLM(lambda request: action_reply(f"go {len(llm.requests)}"))
    Orchestrator(
        profile=ZORK1,
        game=ScriptedGameEnv(texts, opening="The opening."),
        agent=agent_for(llm, settings=MCPSettings()),
        telemetry=FakeTelemetry(),
        episode_id="history",
        max_turns=len(texts),
        history=policy,
    ).run()
    return llm.requests


def remembered(request: LLMRequest) -> list[UserMessage | AssistantText]:
    past = request.messages[1:-1]
    assert all(isinstance(m, UserMessage | AssistantText) for m in past)
    return list(past)  # type: ignore[arg-type]


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(texts=answers, policy=policies)
def test_the_window_is_whole_within_its_budget_and_the_latest_answer_uncut(texts, policy):
    requests = play(texts, policy)
    assert len(requests) == len(texts)
    shown = ["The opening.", *texts]
    for number, request in enumerate(requests, start=1):
        assert isinstance(request.messages[0], SystemMessage)
        latest = request.messages[-1]
        assert isinstance(latest, UserMessage) and latest.text.endswith(shown[number - 1])
        past = remembered(request)
        assert messages_tokens(past) <= policy.budget_tokens
        kept = len(past) // 2
        if policy.mode is HistoryMode.WINDOW:
            assert kept <= policy.turns
        first = number - 1 - kept  # the index of the oldest remembered turn
        assert first % policy.step == 0 or kept == 0
        for offset, (game, answer) in enumerate(zip(past[::2], past[1::2], strict=True)):
            turn = first + offset
            assert isinstance(game, UserMessage) and game.text.endswith(shown[turn])
            assert isinstance(answer, AssistantText)
            assert json.loads(answer.text) == {"action": f"go {turn + 1}"}


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(texts=answers, policy=policies)
def test_consecutive_requests_share_all_but_the_last_message_between_blocks(texts, policy):
    requests = play(texts, policy)
    starts = [n - len(remembered(request)) // 2 for n, request in enumerate(requests)]
    assert starts == sorted(starts)  # the window only moves forward
    for index in range(len(requests) - 1):
        if starts[index + 1] == starts[index]:
            prefix = requests[index].messages[:-1]
            assert requests[index + 1].messages[: len(prefix)] == prefix


def test_state_mode_shows_no_earlier_messages_and_five_actions_cut_to_80_characters():
    texts = [f"Answer {n} " + "x" * 200 for n in range(8)]
    requests = play(texts, HistoryPolicy(HistoryMode.STATE))
    last = requests[-1]
    assert len(last.messages) == 2
    text = last.messages[-1].text  # type: ignore[union-attr]
    lines = [line for line in text.splitlines() if line.startswith("  > ")]
    assert len(lines) == 5 and all(len(line.split(" -> ", 1)[1]) == 80 for line in lines)
    assert text.startswith("Location: Room 8 |") and text.endswith(texts[-2])
