"""The dependency-injector containers: one wires ports to adapters for one run (`Container`);
the other holds what every run in this process shares (`ProcessParts`, its instance `PROCESS`)."""

import atexit

from dependency_injector import containers, providers

from zork_mcp.adapters.mcp.stdio.fork_owner import ForkServerOwner
from zork_mcp.app import bootstrap
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.app.progress import progress
from zork_mcp.app.prompts import SYSTEM_PROMPT
from zork_mcp.domain.messages import RetryStats


class Container(containers.DeclarativeContainer):
    options = providers.Dependency()

    settings = providers.Singleton(bootstrap.load_settings, options)
    api_key = providers.Singleton(bootstrap.api_key, options)
    llm_stats = providers.Singleton(RetryStats)
    llm_session = providers.Singleton(bootstrap.llm_session, options, api_key, llm_stats)
    telemetry = providers.Resource(bootstrap.telemetry, options, settings)
    game = providers.Resource(bootstrap.game, options, telemetry)
    mcp_config = providers.Singleton(bootstrap.mcp_config, options, settings)
    start_plan = providers.Singleton(bootstrap.run_start_plan, settings, mcp_config)
    fork_servers = providers.Resource(bootstrap.run_fork_servers)
    tool_server = providers.Resource(
        bootstrap.tool_server, options, settings, mcp_config, start_plan, fork_servers, telemetry
    )
    progress = providers.Resource(progress, options.provided.plain)
    checkpoints = providers.Singleton(bootstrap.checkpoints, options)

    offer = providers.Singleton(bootstrap.offer_limits, options, settings)
    agent = providers.Singleton(
        ZorkAgent,
        llm_session=llm_session,
        settings=settings,
        telemetry=telemetry,
        system_prompt=SYSTEM_PROMPT,
        tool_server=tool_server,
        offer=offer,
    )
    orchestrator = providers.Singleton(
        Orchestrator,
        game=game,
        agent=agent,
        telemetry=telemetry,
        episode_id=options.provided.episode_id,
        max_turns=options.provided.max_turns,
        progress=progress,
        checkpoints=checkpoints,
        resume=options.provided.resume,
    )


class ProcessParts(containers.DeclarativeContainer):
    """Shared by every run in this process: MCP-Ghost's calls, a sweep worker's episodes
    (which start in many threads at once: thread-safe)."""

    fork_server = providers.ThreadSafeSingleton(ForkServerOwner.for_process)


PROCESS = ProcessParts()
atexit.register(lambda: PROCESS.fork_server().close())
