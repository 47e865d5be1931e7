"""What several adapters need of the operating system: waiting on any descriptor, however high
its number.
"""
