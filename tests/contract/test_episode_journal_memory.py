import pytest

from tests.contract.episode_journal_contract import EpisodeJournalContract
from zork_mcp.adapters.storage.fake_journal import FakeJournal


class TestMemoryJournal(EpisodeJournalContract):
    @pytest.fixture
    def journal(self):
        return FakeJournal()
