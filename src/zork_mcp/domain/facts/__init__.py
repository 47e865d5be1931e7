"""Typed facts: the events, spans and turn facts the ports carry and the logs keep, written and
read through one type each."""
