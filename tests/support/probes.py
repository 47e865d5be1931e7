"""Probes for a tool server: a tag -> (tool, arguments, what the answer must contain)."""

from __future__ import annotations


def thought_probe(tool: str):
    def probe(tag: str):
        arguments = {
            "thought": f"thinking about {tag}",
            "thoughtNumber": 1,
            "totalThoughts": 2,
            "nextThoughtNeeded": True,
            "branchFromThought": 1,
            "branchId": tag,
        }
        return tool, arguments, tag

    return probe


def look_probe(tag: str):
    return "game.play_action", {"action": "look"}, "West of House"
