"""The SweepBackend port: a sweep's episodes in local worker processes, on a Ray cluster, or on
threads of this process.
"""
