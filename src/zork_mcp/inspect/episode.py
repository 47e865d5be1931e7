"""One episode played for an Inspect sample: our composition root with Inspect's model as
the LLM's source (priced and budgeted as any run's) and the sample's record as the progress
observer, played on a thread of its own (every turn runs its own `asyncio.run`, which a
running loop refuses)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import anyio
from dependency_injector import providers
from inspect_ai.model import Model

from zork_mcp.app.container import Container
from zork_mcp.builders.inspect_llm import inspect_llm_session, resolved_model
from zork_mcp.builders.settings import RunOptions, run_options
from zork_mcp.domain.servers.config_advice import McpSwitches
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.controls import EpisodeControls
from zork_mcp.inspect.record import InspectEpisodeRecord

MCP_OFF = (None, False, "off")  # YAML reads `-T mcp_config=off` as False
# The task's MCP as `inspect eval -T` spells it: one parameter names the config or turns it off.
TASK_SWITCHES = McpSwitches(
    config="-T mcp_config=PATH", on="-T mcp_config=PATH", off="-T mcp_config=off"
)


@dataclass(frozen=True)
class EpisodeParameters:
    """The task's parameters, as every sample's episode is played with them."""

    max_turns: int = 100
    mcp_config: str | bool | None = None  # a path to mcp_config.json; None, False or "off"
    mcp_servers: tuple[str, ...] | None = None
    history: str | None = None
    history_turns: int | None = None
    max_score: int | None = None  # an unknown game's most points (None: the config's)
    config: str = "pyproject.toml"

    def run_options(
        self, model: Model, *, game: str | None, seed: int, log_dir: Path, episode_id: str
    ) -> RunOptions:
        """The sample's episode: its game (None: the run's own) and seed, the task's rest."""
        mcp_on = self.mcp_config not in MCP_OFF
        return run_options(
            model=resolved_model(model),
            game=game,
            max_score=self.max_score,
            seed=seed,
            max_turns=self.max_turns,
            config=Path(self.config),
            mcp_config=Path(str(self.mcp_config)) if mcp_on else None,
            mcp=mcp_on,
            mcp_servers=self.mcp_servers,
            mcp_switches=TASK_SWITCHES,
            history=self.history or None,
            history_turns=self.history_turns,
            log_dir=log_dir,
            episode_id=episode_id,
            plain=True,
        )


def episode_container(
    options: RunOptions,
    project: ProjectSettings,
    model: Model,
    record: InspectEpisodeRecord,
    loop: asyncio.AbstractEventLoop,
) -> Container:
    """The sample's run as the CLI's, but for its LLM's source, Inspect's model (which the
    container prices and holds to the run's budget as it does a provider's), and its record
    of progress."""
    container = Container(options=options, project=project)
    container.llm_source.override(providers.Object(inspect_llm_session(model, loop)))
    container.progress.override(providers.Object(record))
    return container


async def play(container: Container, record: InspectEpisodeRecord) -> None:
    """Play the episode on a thread; if Inspect cancels the sample (a time limit, an
    operator), stop it as Ctrl-C would and wait until its servers and game are closed."""
    controls = EpisodeControls()
    played = asyncio.ensure_future(asyncio.to_thread(_play, container, record, controls))
    try:
        await asyncio.shield(played)
    except asyncio.CancelledError:
        with anyio.CancelScope(shield=True):
            controls.interrupt()
            await asyncio.wait([played])
        raise


def _play(container: Container, record: InspectEpisodeRecord, controls: EpisodeControls) -> None:
    orchestrator = None
    try:
        orchestrator = container.orchestrator()
        controls.attach(container.agent())
        orchestrator.run()
    finally:
        if orchestrator is not None:
            record.ended(orchestrator.summary)
        container.shutdown_resources()
