"""The GameEnv port: Jericho's emulator in a process of its own (`jericho`), and the scripted
fake game.
"""
