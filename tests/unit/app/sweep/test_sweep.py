"""What a sweep asks for: its cells (models x MCP modes x history modes), its episodes and
their identities, from flags or TOML."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.app.sweep.cli import budget_report, sweep_parser, sweep_spec
from zork_mcp.app.sweep.sweep import Sweep, model_spec, parse_history_modes, sweep_from_toml
from zork_mcp.builders.providers import parse_model
from zork_mcp.domain.episode.history import HistoryMode
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.budget import Budget, Spend
from zork_mcp.domain.sweep.episodes import ModelSpec
from zork_mcp.domain.sweep.scheduler import SweepState

GPT = ModelSpec(parse_model("openrouter:openai/gpt-4o-mini"))


def test_a_model_is_provider_colon_model_and_the_model_may_hold_slashes_and_colons():
    assert model_spec("openrouter:openai/gpt-4o-mini") == GPT
    assert model_spec("local:qwen:7b").model.name == "qwen:7b"
    with pytest.raises(ConfigurationError, match="provider:model"):
        model_spec("gpt-4o")
    with pytest.raises(ConfigurationError, match=r"Unknown provider 'openia'.*openrouter"):
        model_spec("openia:gpt-4o")


def test_cells_are_models_times_mcp_modes_and_episodes_cycle_the_seeds():
    sweep = Sweep("s", (GPT, ModelSpec(parse_model("local:m"))), ("on", "off"), (7, 9), 3, 20)
    assert [c.label for c in sweep.cells] == [
        "openrouter:openai/gpt-4o-mini mcp=on",
        "openrouter:openai/gpt-4o-mini mcp=off",
        "local:m mcp=on",
        "local:m mcp=off",
    ]
    episodes = sweep.episodes_to_play()
    assert len(episodes) == 12 and [e.seed for e in episodes[::4]] == [7, 9, 7]
    assert [e.seed for e in Sweep("s", (GPT,), ("off",), episodes=3).episodes_to_play()] == [
        12,
        13,
        14,
    ]


@given(st.integers(1, 6), st.integers(1, 200))
def test_episode_keys_are_unique_in_a_sweep_and_stable_across_runs(episodes, turns):
    sweep = Sweep("s", (GPT, ModelSpec(parse_model("local:m"))), ("on", "off"), (), episodes, turns)
    keys = [e.key for e in sweep.episodes_to_play()]
    assert len(set(keys)) == len(keys)
    assert keys == [e.key for e in sweep.episodes_to_play()]
    longer = Sweep("s", sweep.models, sweep.mcp, (), episodes + 1, turns).episodes_to_play()
    assert set(keys) < {e.key for e in longer}  # more episodes later: the old ones are kept


def test_a_sweep_file_is_read_and_flags_override_it(tmp_path):
    path = tmp_path / "mcp-vs-none.toml"
    path.write_text(
        'models = ["openrouter:openai/gpt-4o-mini", '
        '{provider = "local", model = "m", base_url = "http://127.0.0.1:1/v1"}]\n'
        'mcp = ["on", "off"]\nseeds = [1, 2]\nepisodes = 4\nmax_turns = 30\nparallel = 3\n'
        "[provider_limits]\nopenrouter = 1\n"
    )
    spec, parallel = sweep_spec(sweep_parser().parse_args(["--sweep", str(path)]))
    assert (spec.name, spec.episodes, spec.max_turns, parallel) == ("mcp-vs-none", 4, 30, 3)
    assert spec.models[1].base_url == "http://127.0.0.1:1/v1"
    assert spec.provider_limits == {"openrouter": 1}
    args = ["--sweep", str(path), "--episodes", "2", "--mcp", "off", "--limit", "openrouter=2"]
    spec, _ = sweep_spec(sweep_parser().parse_args(args))
    assert (spec.episodes, spec.mcp, spec.provider_limits) == (2, ("off",), {"openrouter": 2})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("modles = []", "unknown keys \\['modles'\\]; valid keys"),
        ("models = 'local:m'", "models must be a list"),
        ("models = [3]", 'write "provider:model"'),
        ("models = [", "not valid TOML"),
    ],
)
def test_a_bad_sweep_file_says_what_to_fix(text, message):
    with pytest.raises(ConfigurationError, match=message):
        sweep_from_toml(text, "sweep.toml")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "at least one model"),
        (["--model", "local:m", "--limit", "local"], "PROVIDER=N"),
        (["--model", "local:m", "--limit", "mistral=2"], "Unknown provider 'mistral'"),
        (["--model", "local:m", "--seeds", "1,x"], "whole numbers"),
        (["--model", "local:m", "--episodes", "0"], "at least 1"),
    ],
)
def test_bad_flags_say_what_to_fix(argv, message):
    with pytest.raises(ConfigurationError, match=message):
        sweep_spec(sweep_parser().parse_args(argv))


def test_a_sweep_file_with_an_empty_name_is_refused_rather_than_mixed_with_every_sweep(tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text('name = ""\nmodels = ["local:m"]\n')
    with pytest.raises(ConfigurationError, match="A sweep needs a name: --name NAME"):
        sweep_spec(sweep_parser().parse_args(["--sweep", str(path)]))


def test_cells_are_models_times_mcp_modes_times_history_modes():
    sweep = Sweep("s", (GPT,), ("on", "off"), history=(None, HistoryMode.STATE))
    assert [c.label for c in sweep.cells] == [
        "openrouter:openai/gpt-4o-mini mcp=on",
        "openrouter:openai/gpt-4o-mini mcp=on history=state",
        "openrouter:openai/gpt-4o-mini mcp=off",
        "openrouter:openai/gpt-4o-mini mcp=off history=state",
    ]
    rows = [e.record(status="done") for e in sweep.episodes_to_play()]
    assert [r.history for r in rows] == [None, "state", None, "state"]
    assert len({r.key for r in rows}) == 4


def test_a_cell_of_the_runs_own_history_keeps_the_key_it_had_before_cells_had_one():
    """A sweep stored before history modes re-runs (and resumes) onto its stored rows."""
    [spec] = Sweep("s", (ModelSpec(parse_model("local:m")),), ("on",), (12,)).episodes_to_play()
    assert (spec.cell.label, spec.key) == ("local:m mcp=on", "081bf65522534acc")


def test_history_modes_come_from_the_sweep_file_and_the_flag_overrides_them(tmp_path):
    path = tmp_path / "memory.toml"
    path.write_text('models = ["local:m"]\nmcp = ["off"]\nhistory = ["window", "state"]\n')
    spec, _ = sweep_spec(sweep_parser().parse_args(["--sweep", str(path)]))
    assert spec.history == (HistoryMode.WINDOW, HistoryMode.STATE)
    flags = ["--sweep", str(path), "--history", "default,full", "--history", "full , state"]
    spec, _ = sweep_spec(sweep_parser().parse_args(flags))
    assert spec.history == (None, HistoryMode.FULL, HistoryMode.STATE)
    spec, _ = sweep_spec(sweep_parser().parse_args(["--model", "local:m"]))
    assert spec.history == (None,), "without the flag: the run's own, as before"


@pytest.mark.parametrize(
    ("modes", "message"),
    [
        (["windows"], "history mode 'windows': write one of window, full, state or default"),
        ([" ", ""], "at least one mode"),
    ],
)
def test_a_bad_history_mode_says_what_to_write(modes, message):
    with pytest.raises(ConfigurationError, match=message):
        parse_history_modes(modes)
    with pytest.raises(ConfigurationError, match=message):
        sweep_from_toml(f"history = {modes!r}".replace("'", '"'), "sweep.toml")


def test_a_budgets_end_says_what_the_unplayed_episodes_need_and_the_flag_to_raise():
    """Issue 67: `4 episode(s) left unplayed` said nothing of the estimate that stopped them,
    and offered --budget-usd to a token budget's local models."""
    state = SweepState(total=6, done=2, unplayed=4, spent=Spend(200), needed=Spend(540),
                       least=Spend(120))  # fmt: skip
    spent, left = budget_report(Budget(tokens=250), state)
    assert spent == "Budget: 200 of 250 tokens spent."
    assert left == (
        "4 episodes left unplayed or stopped by the budget: the least of them needed about "
        "120 tokens at its estimate, with 50 tokens left, and all of them about 540 tokens. "
        "To play them on from their checkpoints, run the same sweep again with --resume and "
        "--budget-tokens 740 or more."
    )
    dollars = SweepState(total=1, unplayed=1, spent=Spend(900, 0.4912),
                         needed=Spend(800, 0.6003), least=Spend(800, 0.6003))  # fmt: skip
    assert budget_report(Budget(usd=0.5), dollars)[1] == (
        "1 episode left unplayed or stopped by the budget: it needed about $0.6003 at its "
        "estimate, with $0.0088 left. To play it on from its checkpoint, run the same sweep "
        "again with --resume and --budget-usd 1.10 or more."
    )
    assert budget_report(Budget(tokens=250), SweepState(total=2, done=2, spent=Spend(200))) == [
        "Budget: 200 of 250 tokens spent."
    ]
