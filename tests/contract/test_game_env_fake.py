import pytest

from tests.contract.game_env_contract import GameEnvContract
from zork_mcp.adapters.game.fake import FakeGameEnv


class TestFakeGameEnv(GameEnvContract):
    @pytest.fixture
    def env(self):
        return FakeGameEnv()

    def test_taking_the_treasure_scores_and_ends_the_game(self, env):
        env.reset()
        for command in ("north", "east", "take egg"):
            observation = env.step(command)
        assert observation.score == 10 and observation.game_over
