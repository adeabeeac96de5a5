"""LLM leaderboard track: ratings, lineage, profiles, quality, calculators and the importers.
"""
