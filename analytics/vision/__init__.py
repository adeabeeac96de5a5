"""Verified vision track, read side: summaries of measured runs for pages and notebooks."""
