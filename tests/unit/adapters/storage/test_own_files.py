"""The agent's own files and folders: what is found in place of one is refused, the refusal
saying what it is (a link, a folder, a pipe, a file of another user...) and what was
expected there; and every file the agent makes is readable by its own user only."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.deadline import PROMPTLY, within
from zork_mcp.adapters.storage import own_files
from zork_mcp.adapters.storage.own_files import ForeignFileError

OTHER_UID = 4242  # no user of the test's; only its number is read


def a_link(path: Path) -> None:
    (path.parent / "elsewhere").write_text("not the agent's")
    path.symlink_to(path.parent / "elsewhere")


def a_folder(path: Path) -> None:
    path.mkdir()


def a_pipe(path: Path) -> None:
    os.mkfifo(path)


def a_socket(path: Path) -> None:
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(path))
    listening.close()  # the name stays, with no one at its other end


def a_hard_link(path: Path) -> None:
    (path.parent / "first name").write_text("{}")
    os.link(path.parent / "first name", path)


def a_file(path: Path) -> None:
    path.write_text("{}")


def refusal(call: Callable[[], object]) -> str:
    """The text of the ForeignFileError `call` raises, promptly."""
    refused = within(PROMPTLY, call)
    assert isinstance(refused, ForeignFileError), refused
    return str(refused)


IN_PLACE_OF_A_FILE = {
    "link": (a_link, "a symbolic link"),
    "folder": (a_folder, "a folder"),
    "pipe": (a_pipe, "a pipe"),
    "socket": (a_socket, "a socket"),
    "hard link": (a_hard_link, "a file with 2 names (a hard link)"),
}


@pytest.mark.parametrize("kind", list(IN_PLACE_OF_A_FILE))
@pytest.mark.parametrize("use", ["append", "read", "replace"])
def test_what_is_in_place_of_a_file_is_named_in_its_refusal(tmp_path, kind, use):
    make, found = IN_PLACE_OF_A_FILE[kind]
    path = tmp_path / "checkpoint.json"
    make(path)
    calls = {
        "append": lambda: own_files.append(path, b"{}\n"),
        "read": lambda: own_files.read(path),
        "replace": lambda: own_files.replace(path, b"{}"),
    }
    said = refusal(calls[use])
    assert said.startswith(f"{path} is {found}, not the file zork-mcp made there: ")


def test_a_file_of_another_user_is_named_as_such(tmp_path, monkeypatch):
    path = tmp_path / "events.jsonl"
    a_file(path)
    monkeypatch.setattr(os, "getuid", lambda: OTHER_UID)  # the file's owner is now another
    said = refusal(lambda: own_files.read(path))
    owner = path.stat().st_uid
    assert said.startswith(f"{path} is a file of another user (uid {owner}), not the file ")


IN_PLACE_OF_A_FOLDER = {
    "link": (a_link, "a symbolic link"),
    "file": (a_file, "a file"),
    "pipe": (a_pipe, "a pipe"),
}


@pytest.mark.parametrize("kind", list(IN_PLACE_OF_A_FOLDER))
def test_what_is_in_place_of_a_folder_is_named_in_its_refusal(tmp_path, kind):
    make, found = IN_PLACE_OF_A_FOLDER[kind]
    path = tmp_path / "memory"
    make(path)
    said = refusal(lambda: own_files.folder(path))
    assert said.startswith(f"{path} is {found}, not the folder zork-mcp made there: ")


def test_a_folder_of_another_user_is_named_as_such(tmp_path, monkeypatch):
    path = tmp_path / "memory"
    path.mkdir()
    monkeypatch.setattr(os, "getuid", lambda: OTHER_UID)
    said = refusal(lambda: own_files.folder(path))
    owner = path.stat().st_uid
    assert said.startswith(f"{path} is a folder of another user (uid {owner}), not the folder ")


def test_a_servers_file_that_is_not_read_is_not_called_one_zork_mcp_made(tmp_path):
    path = tmp_path / "notes.jsonl"
    a_pipe(path)
    said = refusal(lambda: own_files.read_foreign(path, 1024))
    assert said == (
        f"{path} is a pipe: from a server's folder zork-mcp reads only a regular file of its "
        "own user with one name."
    )


@pytest.fixture
def no_umask():
    """The modes the files are made with, unmasked."""
    before = os.umask(0)
    yield
    os.umask(before)


@pytest.mark.usefixtures("no_umask")
def test_every_file_the_agent_makes_is_its_users_alone_appended_or_replaced(tmp_path):
    own_files.append(tmp_path / "events.jsonl", b"{}\n")
    own_files.touch(tmp_path / "journal.jsonl")
    own_files.replace(tmp_path / "checkpoint.json", b"{}")
    own_files.folder(tmp_path / "memory")
    modes = {path.name: path.stat().st_mode & 0o777 for path in tmp_path.iterdir()}
    assert own_files.FILE_MODE == 0o600 and own_files.FOLDER_MODE == 0o700
    assert modes == {
        "events.jsonl": 0o600,
        "journal.jsonl": 0o600,
        "checkpoint.json": 0o600,
        "memory": 0o700,
    }
