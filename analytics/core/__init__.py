"""Shared infrastructure of every track: paths, the store, snapshots, atomic writes, problem lines,
untrusted ZIP reading, jobs and the CLI dispatcher. Imports nothing from the tracks.
"""
