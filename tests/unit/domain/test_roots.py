"""A folder as an MCP root: the URI our client writes names that folder, whatever its name
holds (read back as a server reads a file:// URI)."""

from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.servers.roots import Root

NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"), min_size=1)


@given(st.lists(NAMES.filter(lambda name: name not in (".", "..")), min_size=1, max_size=4))
def test_the_uri_written_is_the_folder_read_back(parts):
    folder = PurePosixPath("/", *parts)
    uri = urlsplit(Root(folder, "e").uri)
    assert (uri.scheme, uri.netloc, PurePosixPath(unquote(uri.path))) == ("file", "", folder)


def test_a_relative_folder_is_no_root():
    with pytest.raises(ValueError, match="absolute"):
        Root(PurePosixPath("logs/e"), "e")
