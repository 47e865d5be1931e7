import pytest
from jericho.game_info import zork1

from tests.contract.game_env_contract import GameEnvContract
from zork_mcp.adapters.jericho_game import JerichoGameEnv


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
