"""What every run in this process shares (MCP-Ghost's calls, a sweep worker's episodes), in
one dependency-injector container, `PROCESS`, closed at exit; tests override it there."""

import atexit

from dependency_injector import containers, providers

from zork_mcp.adapters.mcp.stdio.fork_owner import ForkServerOwner


class ProcessParts(containers.DeclarativeContainer):
    """Shared by runs that start in many threads at once: thread-safe."""

    fork_server = providers.ThreadSafeSingleton(ForkServerOwner.for_process)


PROCESS = ProcessParts()
atexit.register(lambda: PROCESS.fork_server().close())
