"""Budgets from the command line, `[tool.zorkgpt]` and sweep files, and the refusals a user
meets before any call: a bad value says where and how to fix it; a dollar budget needs a
model the price list knows."""

from __future__ import annotations

import pytest

from zork_mcp.app.cli import main, options_from, parser
from zork_mcp.app.sweep.sweep import sweep_from_toml
from zork_mcp.builders.llm import spend_guard
from zork_mcp.builders.providers import resolve_model
from zork_mcp.builders.settings import RunOptions, project_settings, run_budget
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.budget import Budget
from zork_mcp.domain.settings import ProjectSettings


def test_the_flags_win_over_the_pyproject_and_the_pyproject_over_nothing(tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.zorkgpt]\nbudget_usd = 2.5\nbudget_tokens = 100000\n")
    flags = options_from(parser().parse_args(["--config", str(config), "--budget-tokens", "5"]))
    project = project_settings(config)
    assert run_budget(flags, project) == Budget(tokens=5)
    assert run_budget(RunOptions(config=config), project) == Budget(2.5, 100_000)
    assert run_budget(RunOptions(config=config, budget=Budget()), project) == Budget()


def test_a_bad_budget_in_the_pyproject_says_which_key_and_what_it_takes(tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.zorkgpt]\nbudget_usd = -1\n")
    with pytest.raises(ConfigurationError, match=r"budget_usd.*above 0") as error:
        run_budget(RunOptions(config=config), project_settings(config))
    assert str(config) in str(error.value)


@pytest.mark.parametrize("flag", ["--budget-usd", "--budget-tokens"])
@pytest.mark.parametrize("value", ["0", "-3", "lots"])
def test_a_budget_flag_takes_a_number_above_0(flag, value, capsys):
    with pytest.raises(SystemExit):
        parser().parse_args([flag, value])
    assert "number above 0" in capsys.readouterr().err


def test_a_dollar_budget_on_a_model_no_price_list_knows_is_refused_naming_it():
    local = RunOptions(model=resolve_model("local", "my-model"), budget=Budget(usd=1.0))
    with pytest.raises(ConfigurationError, match="local:my-model is not") as error:
        spend_guard(local, ProjectSettings())
    assert "--budget-tokens" in str(error.value)
    unknown = RunOptions(model=resolve_model("openai", "gpt-nonesuch"), budget=Budget(usd=1.0))
    with pytest.raises(ConfigurationError, match="openai:gpt-nonesuch"):
        spend_guard(unknown, ProjectSettings())
    tokens = RunOptions(model=resolve_model("local", "m"), budget=Budget(tokens=9))
    assert spend_guard(tokens, ProjectSettings()) is not None
    unlimited = RunOptions(model=resolve_model("openai", "gpt-4.1-mini"), budget=Budget())
    assert spend_guard(unlimited, ProjectSettings()) is None


def test_the_single_episode_cli_refuses_it_before_any_call(tmp_path, capsys):
    code = main(["--provider", "local", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--no-mcp", "--budget-usd", "1", "--log-dir", str(tmp_path)])  # fmt: skip
    assert code == 2 and "local:m is not" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # refused before the episode wrote anything


def test_a_sweep_file_takes_the_same_keys():
    fields = sweep_from_toml('models = ["local:m"]\nbudget_usd = 3\nbudget_tokens = 9\n', "s.toml")
    assert (fields["budget_usd"], fields["budget_tokens"]) == (3, 9)
