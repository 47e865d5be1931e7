import warnings

import pytest
from jericho import FrotzEnv
from jericho.game_info import zork1

from tests.contract.game_env_contract import GameEnvContract
from zork_mcp.adapters.game.jericho import JerichoGameEnv
from zork_mcp.domain.game.status_line import StatusLine


class TestJerichoGameEnv(GameEnvContract):
    @pytest.fixture
    def env(self, zork_game):
        env = JerichoGameEnv(zork_game, seed=12)
        yield env
        env.close()

    def test_the_status_line_is_parsed_and_kept_out_of_the_text(self, env):
        env.reset()
        observation = env.step("open mailbox")
        assert observation.text == "Opening the small mailbox reveals a leaflet."
        assert (observation.room, observation.moves) == ("West of House", 1)

    def test_the_walkthrough_scores_350_and_ends_the_game(self, env):
        env.reset()
        for command in zork1["walkthrough"].split("/"):
            observation = env.step(command)
        assert (observation.score, observation.moves, observation.game_over) == (350, 394, True)


def test_a_checkpoint_from_before_the_game_process_still_restores(zork_game):
    """Checkpoints used to hold Jericho's own state tuple; --resume reads them still."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jericho = FrotzEnv(str(zork_game), seed=12)
    try:
        jericho.reset()
        jericho.step("open mailbox")
        old = (jericho.get_state(), StatusLine("West of House", 0, 1))
    finally:
        jericho.close()
    env = JerichoGameEnv(zork_game, seed=12)
    try:
        env.reset()
        assert env.restore_state(old).moves == 1
        assert env.step("take leaflet").text == "Taken."
        with pytest.raises(TypeError, match="not a snapshot"):
            env.restore_state(("garbage",))
    finally:
        env.close()
