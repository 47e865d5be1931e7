"""An episode's folder is never started over, and a run refused before its episode began
leaves no folder (issue 67): the real CLI and game, a scripted LLM over HTTP."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from dependency_injector import providers

from tests.support.llm_peers import HttpFault, ProviderPeer, peer_for
from tests.support.projects import write_project
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.cli import main
from zork_mcp.app.container import Container
from zork_mcp.domain.errors import ConfigurationError

ONE_TURN = (action_reply("n"),)
MEMORY = {
    "command": "python",
    "args": ["-m", "zork_mcp.servers.memory", "--journal", "${ZORK_MCP_JOURNAL}"],
}


def run(
    tmp_path: Path, *extra: str, replies: tuple = (), container: Container | None = None
) -> tuple[int, ProviderPeer]:
    """`main` on the log folder tmp_path/logs with MCP off unless `extra` says; its exit code
    (a refusal of the command line's too) and the peer, with the requests it had."""
    peer = peer_for("openai", list(replies), api_key=None)
    if not (tmp_path / "pyproject.toml").exists():
        write_project(tmp_path, enabled=False)
    with peer.serve() as url:
        try:
            code = main(
                ["--provider", "local", "--base-url", f"{url}/v1", "--model", "m", "--plain",
                 "--config", str(tmp_path / "pyproject.toml"),
                 "--log-dir", str(tmp_path / "logs"), *extra],
                container,
            )  # fmt: skip
        except SystemExit as exit:
            code = exit.code
    return code, peer


def play_one_turn(tmp_path: Path, episode: str) -> int:
    code, _ = run(tmp_path, "--episode-id", episode, "--max-turns", "1", replies=ONE_TURN)
    return code


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else None
        for path in sorted(folder.rglob("*"))
    }


def err(capsys) -> str:
    return " ".join(capsys.readouterr().err.split())


def test_a_new_run_under_an_episodes_id_is_refused_and_writes_nothing(tmp_path, capsys):
    assert play_one_turn(tmp_path, "a") == 0
    before = snapshot(tmp_path / "logs" / "a")
    code, peer = run(
        tmp_path, "--episode-id", "a", "--max-turns", "1", replies=(action_reply("s"),)
    )
    assert code == 2 and peer.requests == [] and snapshot(tmp_path / "logs" / "a") == before
    said = err(capsys)
    assert f"The episode folder {tmp_path / 'logs' / 'a'} is not empty (checkpoint.json, " in said
    assert "a new episode never starts over what is there" in said
    here = re.escape(str(tmp_path))
    resume = (
        r"To play its episode on: zork-mcp --provider local --model m "
        r"--base-url http://127\.0\.0\.1:\d+/v1 "
        f"--config {here}/pyproject.toml --max-turns 1 --log-dir {here}/logs "
        r"--plain --resume --episode-id a\. "
    )
    assert re.search(resume, said)
    assert "pass another --episode-id, or none (a timestamp names it)" in said


def test_an_episode_with_no_checkpoint_is_not_started_over_nor_offered_to_resume(tmp_path, capsys):
    """Its first call failed: its logs say why, and nothing can play on from it."""
    assert run(tmp_path, "--episode-id", "b", replies=(HttpFault(400, "bad model"),))[0] == 2
    before = snapshot(tmp_path / "logs" / "b")
    capsys.readouterr()
    assert run(tmp_path, "--episode-id", "b")[0] == 2
    said = err(capsys)
    assert "It holds no checkpoint" in said and "remove the folder to use its name again" in said
    assert "--resume --episode-id" not in said
    assert run(tmp_path, "--episode-id", "b", "--resume")[0] == 2
    said = err(capsys)
    assert f"Nothing to resume: {tmp_path / 'logs' / 'b' / 'checkpoint.json'} does not" in said
    assert "pass another --episode-id, or none" in said
    assert snapshot(tmp_path / "logs" / "b") == before


def test_an_empty_folder_takes_a_new_episode(tmp_path):
    (tmp_path / "logs" / "c").mkdir(parents=True)
    assert play_one_turn(tmp_path, "c") == 0
    assert (tmp_path / "logs" / "c" / "checkpoint.json").is_file()


def mcp_on(tmp_path: Path) -> None:
    write_project(tmp_path, {"memory": MEMORY}, enabled=True, background_spare=False)


@pytest.mark.parametrize(
    ("setup", "flags", "said"),
    [
        (None, ["--game", "nowhere.z3"], "does not exist"),
        (None, ["--resume"], "Nothing to resume: there is no episode folder"),
        (mcp_on, ["--resume"], "Nothing to resume: there is no episode folder"),
        (None, ["--mcp"], "config file was not found"),
        (mcp_on, ["--mcp-servers", "nonesuch"], "nonesuch"),
        (None, ["--max-turns", "0"], "argument --max-turns"),
        (None, ["--history-turns", "0"], "argument --history-turns"),
    ],
)
def test_a_run_refused_before_its_episode_began_leaves_no_folder(
    tmp_path, capsys, setup, flags, said
):
    if setup is not None:
        setup(tmp_path)
    code, peer = run(tmp_path, "--episode-id", "d", *flags)
    assert code == 2 and peer.requests == []
    assert said in err(capsys)
    assert not (tmp_path / "logs").exists()


def test_an_unreadable_mcp_config_is_refused_before_the_folder(tmp_path, capsys):
    write_project(tmp_path, enabled=True)
    (tmp_path / "mcp_config.json").write_text("{not json")
    assert run(tmp_path, "--episode-id", "d")[0] == 2
    assert "mcp_config.json" in err(capsys) and not (tmp_path / "logs").exists()


def failing_game(telemetry):
    """A game that cannot start, after the episode's log has its first line."""
    raise ConfigurationError("the emulator could not start")


def container_whose_game_fails() -> Container:
    container = Container()
    container.game.override(providers.Resource(failing_game, container.telemetry))
    return container


def test_a_part_that_cannot_be_made_leaves_nothing_the_run_made(tmp_path, capsys):
    """The episode's first line was written, then its game failed: the folder goes, and the
    log folder the run made with it; an episode beside it is untouched."""
    code, _ = run(tmp_path, "--episode-id", "e", container=container_whose_game_fails())
    assert code == 2 and "the emulator could not start" in err(capsys)
    assert not (tmp_path / "logs").exists()
    assert play_one_turn(tmp_path, "a") == 0
    before = snapshot(tmp_path / "logs")
    assert run(tmp_path, "--episode-id", "e", container=container_whose_game_fails())[0] == 2
    assert snapshot(tmp_path / "logs") == before


def test_a_folder_that_was_there_empty_is_kept_empty(tmp_path):
    (tmp_path / "logs" / "e").mkdir(parents=True)
    assert run(tmp_path, "--episode-id", "e", container=container_whose_game_fails())[0] == 2
    assert list((tmp_path / "logs" / "e").iterdir()) == []


def test_a_resumed_episode_whose_part_cannot_be_made_keeps_all_it_had(tmp_path):
    """Nothing of it is removed or replaced (its logs have the run's first line appended)."""
    assert play_one_turn(tmp_path, "a") == 0
    folder = tmp_path / "logs" / "a"
    before = snapshot(folder)
    container = container_whose_game_fails()
    resumed = ("--episode-id", "a", "--max-turns", "2", "--resume")
    assert run(tmp_path, *resumed, container=container)[0] == 2
    after = snapshot(folder)
    assert after.keys() == before.keys()
    assert all(after[name].startswith(data) for name, data in before.items() if data is not None)


def test_a_log_folder_that_is_a_file_is_refused_naming_it(tmp_path, capsys):
    """It used to end in a traceback (NotADirectoryError) at the log's first line."""
    (tmp_path / "logs").write_text("not a folder")
    assert run(tmp_path, "--episode-id", "f")[0] == 2
    assert f"{tmp_path / 'logs'} is not a folder" in err(capsys)
    assert (tmp_path / "logs").read_text() == "not a folder"


def test_an_episode_id_that_names_a_file_or_a_link_is_refused(tmp_path, capsys):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "file").write_text("x")
    (tmp_path / "logs" / "link").symlink_to(tmp_path)
    for name, what in (("file", "not a folder"), ("link", "a symbolic link")):
        assert run(tmp_path, "--episode-id", name)[0] == 2
        assert f"{tmp_path / 'logs' / name} is {what}" in err(capsys)
