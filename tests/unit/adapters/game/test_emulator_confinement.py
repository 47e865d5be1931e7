"""The game process is confined (issue 47): the C emulator fed the model's text reads its
story file and Python, writes only its own folder (which it may remove when it ends), connects
nowhere and signals no one outside itself."""

from __future__ import annotations

import json
import os
import socket
import tempfile
from pathlib import Path

import pytest

from zork_mcp.adapters.game.jericho import emulator_main
from zork_mcp.adapters.game.jericho.game_env import JerichoGameEnv
from zork_mcp.adapters.posix.landlock import SCOPE_ABI, abi_version
from zork_mcp.domain.facts.events import Event, EventType, Level
from zork_mcp.domain.servers.confinement import FILES, NETWORK, SCOPES

NAMES = {"files": FILES, "network": NETWORK, "scopes": SCOPES}
confinable = pytest.mark.skipif(abi_version() < SCOPE_ABI, reason="needs Landlock ABI 6+")


def attempts(story: Path, secret: Path, port: int, parent: int) -> dict[str, str]:
    """What a confined game process can do, each attempt's outcome as text."""
    folder = Path(tempfile.mkdtemp(prefix="zork_mcp_game_test_"))
    emulator_main._confine(str(story), folder)
    tried = {
        "story": lambda: story.read_bytes()[:1],
        "secret": lambda: secret.read_text(),
        "own folder": lambda: (folder / "save").write_text("ok"),
        "outside": lambda: (secret.parent / "planted").write_text("x"),
        "connect": lambda: socket.create_connection(("127.0.0.1", port), timeout=2),
        "signal": lambda: os.kill(parent, 0),
        "remove own folder": lambda: [(folder / "save").unlink(), folder.rmdir()],
    }
    said = {}
    for name, attempt in tried.items():
        try:
            attempt()
            said[name] = "allowed"
        except OSError as e:
            said[name] = f"denied: {e.strerror}"
    return said


@confinable
def test_the_game_process_reads_its_story_writes_its_folder_and_nothing_else(tmp_path, zork_game):
    secret = tmp_path / ".env"
    secret.write_text("OPENAI_API_KEY=sk-planted")
    listener = socket.create_server(("127.0.0.1", 0))
    port, parent = listener.getsockname()[1], os.getpid()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the game process's confinement, in a child of the test
        os.close(read)
        try:
            said = attempts(Path(zork_game), secret, port, parent)
        except BaseException as e:
            said = {"error": repr(e)}
        os.write(write, json.dumps(said).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        said = json.loads(answer.read())
    os.waitpid(child, 0)
    listener.close()
    assert said["story"] == said["own folder"] == said["remove own folder"] == "allowed"
    denied = {name: outcome for name, outcome in said.items() if outcome.startswith("denied")}
    assert set(denied) == {"secret", "outside", "connect", "signal"}, said
    assert not (tmp_path / "planted").exists()


@pytest.mark.parametrize(("abi", "unconfined"), [(0, ["files", "network", "scopes"]),
                                                 (3, ["network", "scopes"]),
                                                 (5, ["scopes"])])  # fmt: skip
def test_a_kernel_that_cannot_confine_the_game_whole_says_what_runs_unconfined(
    zork_game, abi, unconfined
):
    said: list[Event] = []
    game = JerichoGameEnv(Path(zork_game), on_event=said.append, landlock_abi=lambda: abi)
    game.close()
    [notice] = said
    assert notice.type is EventType.GAME_SANDBOX_DEGRADED and notice.level is Level.WARNING
    assert notice.fields["unconfined"] == [NAMES[name] for name in unconfined]
    assert f"ABI {abi}" in notice.message or (abi == 0 and "no Landlock" in notice.message)


def test_a_kernel_that_confines_it_whole_says_nothing(zork_game):
    said: list[Event] = []
    JerichoGameEnv(Path(zork_game), on_event=said.append, landlock_abi=lambda: 7).close()
    assert said == []
