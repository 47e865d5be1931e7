"""Which story file a run plays and which game it is: a known game by name from the package,
any file by its hash, and every file that is not a playable story refused before anything
starts, saying what is wrong."""

from __future__ import annotations

import hashlib
import os
import shutil
import threading

import pytest
from jericho.defines import BINDINGS_DICT

from tests.support.paths import ROOT
from zork_mcp.adapters.game.jericho import find_story, packaged_story, story_at
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.game.story_file import read_header
from zork_mcp.domain.game.trilogy import KNOWN_GAMES, ZORK1, ZORK2, ZORK3

SHARED = ROOT.parent / "shared" / "games"


@pytest.mark.parametrize("key", list(KNOWN_GAMES))
def test_each_known_game_is_found_by_name_in_the_package_and_is_its_release(key, tmp_path):
    story = find_story(key.upper(), environ={}, base=tmp_path)
    game = KNOWN_GAMES[key]
    assert story.path == packaged_story(key) and story.profile is game
    assert (story.header.version, story.header.release) == (3, {1: 119, 2: 63, 3: 25}[int(key[-1])])
    licence = story.path.with_name(f"LICENSE-{key}.txt").read_text()
    assert "MIT License" in licence and "Microsoft" in licence


def test_the_order_is_the_flag_the_variable_the_config_then_zork1(tmp_path):
    environ = {"ZORK_MCP_GAME": "zork2"}
    assert find_story("zork3", environ=environ, configured="zork1").profile is ZORK3
    assert find_story(None, environ=environ, configured="zork1").profile is ZORK2
    assert find_story(None, environ={}, configured="zork3").profile is ZORK3
    assert find_story(None, environ={}, base=tmp_path).profile is ZORK1


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/games is this repository's only")
def test_a_file_is_known_by_its_hash_whatever_its_name(tmp_path):
    renamed = tmp_path / "mystery.dat"
    shutil.copyfile(SHARED / "zork2.z3", renamed)
    assert story_at(renamed).profile is ZORK2
    assert find_story(str(SHARED / "zork3.z3"), environ={}).profile is ZORK3


def test_a_changed_packaged_file_is_refused_with_how_to_reinstall(tmp_path, monkeypatch):
    broken = tmp_path / "zork1.z3"
    data = bytearray(packaged_story("zork1").read_bytes())
    data[-1] ^= 1
    broken.write_bytes(bytes(data))
    monkeypatch.setattr("zork_mcp.adapters.game.jericho.story.packaged_story", lambda key: broken)
    with pytest.raises(ConfigurationError, match=r"sha256 differs\): reinstall zork-mcp"):
        find_story("zork1", environ={})


def _story_like(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_text_file_is_not_a_story_file(tmp_path):
    path = _story_like(tmp_path, "notes.txt", b"# my notes\n" * 20)
    with pytest.raises(ConfigurationError, match=r"notes.txt is not a Z-machine story file"):
        story_at(path)


def test_a_truncated_story_file_says_so(tmp_path):
    path = _story_like(tmp_path, "zork2.z3", packaged_story("zork2").read_bytes()[:50_000])
    with pytest.raises(ConfigurationError, match=r"is truncated: its header says 92,524 bytes"):
        story_at(path)


def test_a_corrupt_byte_breaks_the_checksum(tmp_path):
    data = bytearray(packaged_story("zork3").read_bytes())
    data[40_000] ^= 0x10
    with pytest.raises(ConfigurationError, match=r"is corrupt"):
        story_at(_story_like(tmp_path, "zork3.z3", bytes(data)))


@pytest.mark.parametrize("version", [1, 2, 6])
def test_a_version_the_emulator_does_not_run_is_refused(tmp_path, version):
    data = bytearray(packaged_story("zork1").read_bytes())
    data[0] = version
    with pytest.raises(ConfigurationError, match=rf"is a version {version} story file"):
        read_header(bytes(data), "game.z")


def test_a_version_5_file_jericho_does_not_know_has_no_score_to_read(tmp_path):
    data = bytearray(packaged_story("zork1").read_bytes())
    data[0] = 5
    data[0x1A:0x1C] = (len(data) // 4).to_bytes(2, "big")  # its length in version 5's units
    data[0x1C:0x1E] = (0).to_bytes(2, "big")  # no checksum to hold it to
    with pytest.raises(ConfigurationError, match=r"version 5 game's status line"):
        story_at(_story_like(tmp_path, "game.z5", bytes(data)))


def test_a_timed_version_3_game_is_refused_for_its_status_line(tmp_path):
    data = bytearray(packaged_story("zork1").read_bytes())
    data[1] |= 0x02  # the header's flag for a status line showing the time
    with pytest.raises(ConfigurationError, match=r"a timed game's status line shows none"):
        story_at(_story_like(tmp_path, "timed.z3", bytes(data)))


def test_a_fifo_or_a_folder_is_refused_at_once_never_waited_on(tmp_path):
    fifo = tmp_path / "game.z3"
    os.mkfifo(fifo)
    refused: list[BaseException] = []

    def look() -> None:
        try:
            story_at(fifo)
        except ConfigurationError as e:
            refused.append(e)

    reader = threading.Thread(target=look, daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "opening a FIFO blocked"
    assert "is not a regular file" in str(refused[0])
    with pytest.raises(ConfigurationError, match="is not a regular file"):
        story_at(tmp_path)


def test_an_unknown_name_that_is_no_file_lists_the_known_games(tmp_path):
    with pytest.raises(ConfigurationError) as raised:
        find_story("zork4", environ={}, base=tmp_path)
    assert f"does not exist: {tmp_path / 'zork4'}" in str(raised.value)
    assert "zork1, zork2, zork3" in str(raised.value)


def test_a_generic_game_has_no_zork_words_and_the_maximum_it_is_given(lantern_game):
    story = story_at(lantern_game, max_score=5)
    game = story.profile
    assert (game.key, game.name, game.max_score, game.known) == ("lantern", "lantern", 5, False)
    assert game.death is None and game.unread == () and game.exit_refusals == ()
    assert game.normalized(5) == 1.0 and story_at(lantern_game).profile.normalized(5) is None
    assert any("maximum score" in what for what in story_at(lantern_game).profile.unknowns())


def test_a_file_jericho_knows_by_hash_takes_jerichos_name(lantern_game, monkeypatch):
    """Jericho's table is keyed by md5; its maximum is asked of Jericho in a process of its
    own (for this file, which Jericho does not really know, it has none: 0, so the user's)."""
    md5 = hashlib.md5(lantern_game.read_bytes()).hexdigest()
    monkeypatch.setitem(BINDINGS_DICT, md5, {"name": "lanternhill", "rom": "lantern.z3"})
    game = story_at(lantern_game, max_score=9).profile
    assert (game.name, game.max_score, game.known) == ("lanternhill", 9, False)
    assert story_at(lantern_game).profile.max_score is None
