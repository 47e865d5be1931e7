"""The working directory's .env: the CLI and MCP-Ghost read it, never over variables already set."""

from __future__ import annotations

import os

import pytest

from tests.support.llm_peers import peer_for
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.cli import main
from zork_mcp.builders.env_file import environment_with_env_file, load_env_file
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.ghost import mcp_ghost

FILE_KEY, REAL_KEY = "key-from-the-dotenv-file", "key-from-the-environment"


@pytest.fixture
def unset(monkeypatch):
    """Unset variables now and again after the test, whatever .env loading set meanwhile."""

    def clear(*names: str) -> None:
        for name in names:
            monkeypatch.setenv(name, "")
            monkeypatch.delenv(name)

    return clear


@pytest.fixture
def in_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def write(text: str) -> None:
        (tmp_path / ".env").write_text(text)

    return write


def test_the_file_fills_gaps_and_never_overrides(in_project, unset, monkeypatch):
    unset("ZORK_TEST_NEW", "ZORK_TEST_SET")
    monkeypatch.setenv("ZORK_TEST_SET", "from the shell")
    in_project("ZORK_TEST_NEW=from the file\nZORK_TEST_SET=from the file\n# a comment\n")
    seen = environment_with_env_file()
    assert (seen["ZORK_TEST_NEW"], seen["ZORK_TEST_SET"]) == ("from the file", "from the shell")
    assert "ZORK_TEST_NEW" not in os.environ, "looking does not change the environment"
    assert load_env_file() == ("ZORK_TEST_NEW",)
    assert os.environ["ZORK_TEST_NEW"] == "from the file"
    assert os.environ["ZORK_TEST_SET"] == "from the shell"


def test_without_a_file_nothing_changes(in_project):
    before = dict(os.environ)
    assert load_env_file() == () and dict(os.environ) == before


@pytest.mark.parametrize(("environment", "expected"), [(None, FILE_KEY), (REAL_KEY, REAL_KEY)])
def test_the_cli_plays_with_the_key_the_env_file_gives(
    in_project, unset, monkeypatch, zork_game, tmp_path, environment, expected
):
    unset("OPENAI_API_KEY")
    if environment:
        monkeypatch.setenv("OPENAI_API_KEY", environment)
    in_project(f"OPENAI_API_KEY={FILE_KEY}\n")
    peer = peer_for("openai", [action_reply("look")], api_key=expected)
    with peer.serve() as url:
        provider = ["--provider", "openai", "--base-url", f"{url}/v1", "--no-mcp", "--plain"]
        run = ["--game", str(zork_game), "--max-turns", "1", "--log-dir", str(tmp_path / "logs")]
        code = main([*provider, *run])
    assert peer.rejections == [] and len(peer.requests) == 1
    assert code == 0


async def test_mcp_ghost_without_a_key_says_where_to_put_one(in_project, unset):
    unset("OPENAI_API_KEY")
    where = r"set OPENAI_API_KEY .* in \./\.env\), or pass it as api_key"
    with pytest.raises(ConfigurationError, match=where):
        await mcp_ghost(
            server_config={"mcpServers": {"s": {"command": "true"}}},
            system_prompt="s",
            provider="openai",
            api_key=None,
            user_prompt="u",
        )


def test_a_run_without_a_key_says_which_to_set_and_leaves_no_log_folder(
    in_project, unset, zork_game, tmp_path, capsys
):
    unset("OPENAI_API_KEY")
    logs = tmp_path / "logs"
    run = ["--game", str(zork_game), "--max-turns", "1", "--log-dir", str(logs), "--no-mcp"]
    assert main(["--provider", "openai", "--plain", *run]) == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err
    assert not logs.exists() or not any(logs.iterdir())
