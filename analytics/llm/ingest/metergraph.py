"""Importer for metergraph's model list (``metergraph-core-0.7.4/models.yaml``, from PyPI package
metergraph-core 0.7.4, upstream github.com/metergraph/metergraph, Apache-2.0).

Metadata only: release dates. Each model entry states ``released: 'YYYY-MM-DD'`` with the
announcement it took the day from as a YAML comment after it. A day is kept only when that
comment's link is on the maker's own domain (:data:`MAKER_DOMAINS`: OpenAI's community forum,
Google's ai.google.dev, x.ai); a day taken from a post on X, Wikipedia, a news site or another
model's tracker is dropped and counted, since the copy cannot show it is the maker's. The file
is read line by line (top-level keys of each model are indented two spaces), so no YAML
library is needed and the comment, which a YAML parser drops, stays with its day.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

from analytics.llm.ingest.common import Drops, IngestError, ModelObs, iso_day

SOURCE = "metergraph"
FILE = "metergraph-core-0.7.4/models.yaml"
PACKAGE_URL = "https://pypi.org/project/metergraph-core/0.7.4/"

MAKER_DOMAINS: dict[str, tuple[str, ...]] = {
    "openai": ("openai.com",),
    "anthropic": ("anthropic.com",),
    "google": ("google.com", "google.dev", "blog.google", "deepmind.google"),
    "meta": ("meta.com", "fb.com"),
    "mistral": ("mistral.ai",),
    "xai": ("x.ai",),
    "deepseek": ("deepseek.com",),
    "alibaba": ("alibabacloud.com", "qwen.ai", "alizila.com"),
    "minimax": ("minimax.io",),
    "moonshotai": ("moonshot.ai", "moonshot.cn"),
    "zai": ("z.ai", "zhipuai.cn"),
    "nvidia": ("nvidia.com",),
    "inception": ("inceptionlabs.ai",),
    "fireworks": ("fireworks.ai",),
}
"""metergraph publisher -> the maker's own domains (a subdomain counts: community.openai.com)."""

NOT_THE_MAKER = "release day whose announcement link is not on the maker's own domain"
_KEY = re.compile(r"^(?:- |  )(canonical_id|display_name|publisher|released):\s*(.*?)\s*$")
_RELEASED = re.compile(r"^'?(\d{4}-\d{2}-\d{2})'?(?:\s+#\s*(\S+))?$")


def makers_domain(url: str | None, publisher: str) -> bool:
    """Whether ``url``'s host is one of the publisher's own domains or a subdomain of one."""
    host = (urlparse(url or "").hostname or "").lower()
    return any(host == d or host.endswith(f".{d}") for d in MAKER_DOMAINS.get(publisher, ()))


def read_entries(path: Path) -> list[dict[str, str]]:
    """One dict per model (canonical_id, display_name, publisher, released, url)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise IngestError(str(path), f"unreadable ({exc.strerror})", "restore the file") from None
    entries: list[dict[str, str]] = []
    for line in lines:
        found = _KEY.match(line)
        if not found:
            continue
        key, value = found.groups()
        if key == "canonical_id":
            entries.append({})
        elif not entries:
            raise IngestError(str(path), f"'{key}' before any canonical_id", "restore the file")
        if key == "released":
            day = _RELEASED.match(value)
            if day is None:
                raise IngestError(str(path), f"released value {value!r} is not a quoted day",
                                  "restore the file")
            entries[-1]["released"], entries[-1]["url"] = day.group(1), day.group(2) or ""
        else:
            entries[-1][key] = value.strip("'\"")
    return entries


def load(path: Path, drops: Drops) -> list[ModelObs]:
    """Release-date observations of the models whose day the maker's own page gives."""
    out = []
    for entry in read_entries(path):
        if not entry.get("released"):
            continue
        if not makers_domain(entry.get("url"), entry.get("publisher", "")):
            drops.add(SOURCE, NOT_THE_MAKER)
            continue
        names = [entry.get("display_name"), entry.get("canonical_id", "").split("/")[-1]]
        for name in dict.fromkeys(n for n in names if n):
            out.append(ModelObs(
                name=name, source=SOURCE, release_date=iso_day(entry["released"]),
                metadata_source_url=entry["url"],
            ))
    return out
