"""Zork I's own words read for what a command came to (the same texts are checked against
the real game in tests/e2e/test_turn_facts.py)."""

from __future__ import annotations

from zork_mcp.domain.game.game_text import died, unread
from zork_mcp.domain.game.profile import generic_profile
from zork_mcp.domain.game.trilogy import ZORK1


def test_the_death_banner_is_a_death_and_an_ordinary_answer_is_not():
    assert died("The troll's axe hits you.\n\n    ****  You have died  ****\n\n", ZORK1)
    assert not died("You are in a forest, with trees in all directions.", ZORK1)


def test_a_refusal_is_unread_even_indented_and_the_worlds_refusal_is_read():
    assert unread('   I don\'t know the word "frob".\n', ZORK1)
    assert unread("West of House\n  You can't see any lamp here!", ZORK1)
    assert not unread("You can't go that way.", ZORK1)
    assert not unread('You said "I don\'t know the word", which is fine.', ZORK1)


def test_a_game_whose_words_are_unknown_counts_no_death_and_no_unread_command():
    game = generic_profile("mygame")
    assert not died("\n    ****  You have died  ****\n", game)
    assert not unread('I don\'t know the word "frob".', game)
