"""Importers that rebuild the curated LLM catalog (``data/catalog``) from public data files.

One module per public format; ``build`` assembles the tables and ``cli`` writes them atomically.
See docs/data.md for the schema, the source-kind rule, alias resolution and unit conversions.
"""
