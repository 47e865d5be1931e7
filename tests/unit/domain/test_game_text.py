"""Zork I's own words read for what a command came to (the same texts are checked against
the real game in tests/e2e/test_turn_facts.py)."""

from __future__ import annotations

from zork_mcp.domain.game.game_text import died, unread


def test_the_death_banner_is_a_death_and_an_ordinary_answer_is_not():
    assert died("The troll's axe hits you.\n\n    ****  You have died  ****\n\n")
    assert not died("You are in a forest, with trees in all directions.")


def test_a_refusal_is_unread_even_indented_and_the_worlds_refusal_is_read():
    assert unread('   I don\'t know the word "frob".\n')
    assert unread("West of House\n  You can't see any lamp here!")
    assert not unread("You can't go that way.")
    assert not unread('You said "I don\'t know the word", which is fine.')
