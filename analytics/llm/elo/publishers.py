"""Who published a score (docs/elo.md, "Eligibility and ranks"): a rank needs results from at
least two independent publishers, so the publisher count belongs to the rating's eligibility."""

from __future__ import annotations

from urllib.parse import urlparse

import pandas as pd

SHARED_HOSTS = frozenset({
    "arxiv.org", "github.com", "github.io", "githubusercontent.com", "huggingface.co", "hf.co",
    "googleapis.com", "google.com", "openreview.net", "x.com", "twitter.com", "medium.com",
    "substack.com", "notion.site",
})
"""Domains that host many publishers' pages: there the source name is the publisher."""


def publisher_of(source_name: str, source_url: str) -> str:
    """Who published a score: the domain of its page (LMArena's text, vision and WebDev boards
    are one publisher, as are Anthropic's model cards and news posts), or the source name where
    the domain hosts many publishers (:data:`SHARED_HOSTS`: two arXiv papers are two)."""
    host = urlparse(str(source_url or "")).netloc.lower().split(":")[0].removeprefix("www.")
    domain = ".".join(host.split(".")[-2:])
    return str(source_name) if not host or domain in SHARED_HOSTS else domain


def publishers(scores: pd.DataFrame) -> pd.Series:
    """:func:`publisher_of` of every row of a score table with ``source_name`` and
    ``source_url`` (once per distinct pair)."""
    url = scores["source_url"] if "source_url" in scores else pd.Series("", index=scores.index)
    names, urls = scores["source_name"].astype(str).tolist(), url.fillna("").astype(str).tolist()
    pairs = list(zip(names, urls, strict=True))  # lists: iterating Arrow strings costs ~1 us each
    found = {pair: publisher_of(*pair) for pair in set(pairs)}
    return pd.Series([found[p] for p in pairs], index=scores.index, dtype=object)
