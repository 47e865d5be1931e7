import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.processes import assert_no_processes_left
from tests.support.raw_servers import raw_server, wait_until_gone
from tests.support.strategies import server_eras

endings = st.sampled_from(["normal", "error", "cancelled"])


class TurnFailed(Exception):
    pass


async def session_ending(server, ending: str) -> int:
    pid = None

    async def body():
        nonlocal pid
        async with server.open_session() as session:
            pid = int((await session.call_tool("raw.pid", {}, 10)).content)
            if ending == "error":
                raise TurnFailed
            if ending == "cancelled":
                await asyncio.Event().wait()

    task = asyncio.create_task(body())
    while pid is None and not task.done():
        await asyncio.sleep(0.005)
    if ending == "cancelled":
        task.cancel()
    with pytest.raises((TurnFailed, asyncio.CancelledError)) if ending != "normal" else _nothing():
        await task
    return pid


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@settings(max_examples=30)
@given(st.lists(endings, min_size=1, max_size=4), st.booleans(), server_eras)
def test_p09_subprocess_termination_on_disconnect(turn_endings, spare, eras):
    """Property 9: Subprocess Termination on Disconnect

    *For any* MCP session, when the session disconnects, the associated subprocess should be
    terminated.

    In both MCP eras: a stateless server's process ends with its turn as a handshake
    server's does.

    Validates: Requirements 3.7
    """
    server = raw_server(background_spare=spare, eras=eras)
    try:
        for ending in turn_endings:
            pid = asyncio.run(session_ending(server, ending))
            assert wait_until_gone(pid), f"server {pid} outlived its {ending} session"
    finally:
        assert_no_processes_left(server)
