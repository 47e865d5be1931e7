"""An episode's folder as an MCP root: the URI our client writes is the folder the memory
server reads back, whatever the folder's name holds; any other URI names no folder."""

from pathlib import PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.servers.roots import Root, episode_root, folder_of

NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"), min_size=1)


@given(st.lists(NAMES.filter(lambda name: name not in (".", "..")), min_size=1, max_size=4))
def test_the_uri_written_is_the_folder_read_back(parts):
    folder = PurePosixPath("/", *parts)
    assert folder_of(episode_root(folder, "e").uri) == folder


def test_a_root_is_named_for_its_episode():
    root = episode_root(PurePosixPath("/logs/run 1"), "run 1")
    assert (root.uri, root.name) == ("file:///logs/run%201", "zork-mcp episode run 1")
    assert folder_of("file://localhost/logs/e") == PurePosixPath("/logs/e")


@pytest.mark.parametrize(
    "uri", ["https://example.com/logs/e", "file://server/share/e", "file:relative/e", "logs/e", ""]
)
def test_a_uri_that_names_no_local_folder_is_none(uri):
    assert folder_of(uri) is None


def test_a_relative_folder_is_no_root():
    with pytest.raises(ValueError, match="absolute"):
        Root(PurePosixPath("logs/e"), "e")
