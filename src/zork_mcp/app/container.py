"""The dependency-injector container that wires one run's ports to what the builders make
(`app/bootstrap.py` indexes them), from the two things its entry point gives it: the run's
options and its pyproject's settings, read there once (`Container(options=..., project=...)`).
What every run in a process shares, the MCP fork server, is the stdio package's own (its
start plan says whether a run uses it)."""

from operator import attrgetter

from dependency_injector import containers, providers

from zork_mcp.app import bootstrap
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.app.progress import RetryNotices, progress
from zork_mcp.app.prompts import system_prompt
from zork_mcp.domain.facts.activity import ActivityWatch
from zork_mcp.domain.llm.messages import RetryStats
from zork_mcp.domain.settings import ProjectSettings


class Container(containers.DeclarativeContainer):
    options = providers.Dependency()
    project = providers.Dependency(instance_of=ProjectSettings)  # read once, by the entry point

    settings = providers.Singleton(bootstrap.load_settings, options, project)
    llm_settings = providers.Singleton(bootstrap.llm_settings, options)
    llm_stats = providers.Singleton(RetryStats)
    retry_notices = providers.Singleton(RetryNotices)  # the LLM's retries, to the display
    spend_guard = providers.Singleton(bootstrap.spend_guard, options, project)  # None: no budget
    llm_source = providers.Singleton(  # the provider's own LLMs (an Inspect episode: its model)
        bootstrap.provider_session, llm_settings, llm_stats, on_retry=retry_notices.provided.tell
    )
    model = providers.Callable(attrgetter("model"), options)  # the run's, resolved
    llm_session = providers.Singleton(  # whatever the source, every call priced and budgeted
        bootstrap.metered_session, llm_source, model, guard=spend_guard
    )
    telemetry_settings = providers.Singleton(bootstrap.episode_telemetry, options, settings)
    activity = providers.Singleton(ActivityWatch)  # what the episode does now, turn by turn
    telemetry = providers.Resource(bootstrap.telemetry, telemetry_settings, activity)
    game_settings = providers.Singleton(bootstrap.game_settings, options, project)
    profile = providers.Callable(lambda settings: settings.profile, game_settings)
    game = providers.Resource(bootstrap.episode_game, telemetry, game_settings)
    mcp_config = providers.Singleton(bootstrap.mcp_config, options, settings)
    start_plan = providers.Singleton(bootstrap.run_start_plan, settings, mcp_config)
    tool_settings = providers.Singleton(
        bootstrap.run_tool_settings, options, settings, mcp_config, start_plan
    )
    tool_server = providers.Resource(bootstrap.agent_tool_server, tool_settings, telemetry)
    checkpoints = providers.Singleton(
        bootstrap.checkpoints, options.provided.episode_dir, options.provided.trust_pickle
    )
    history = providers.Singleton(bootstrap.history_policy, options, project)
    journal = providers.Singleton(
        bootstrap.episode_journal,
        options.provided.episode_dir,
        providers.Callable(bootstrap.notes_folder, tool_settings),
        profile,
    )

    offer = providers.Singleton(bootstrap.offer_limits, options, settings)
    agent = providers.Singleton(
        ZorkAgent,
        llm_session=llm_session,
        settings=settings,
        telemetry=telemetry,
        system_prompt=providers.Callable(system_prompt, profile),
        tool_server=tool_server,
        offer=offer,
    )
    progress = providers.Resource(
        progress, options.provided.plain, retry_notices, telemetry_settings.provided.mcp, activity
    )
    orchestrator = providers.Singleton(
        Orchestrator,
        game=game,
        profile=profile,
        agent=agent,
        telemetry=telemetry,
        episode_id=options.provided.episode_id,
        max_turns=options.provided.max_turns,
        progress=progress,
        checkpoints=checkpoints,
        resume=options.provided.resume,
        history=history,
        journal=journal,
        guard=spend_guard,
        max_unreadable=project.provided.max_unreadable_replies,
    )
