"""Model identity across sources: name normalisation, the curated alias map, checkpoint ids.

The same model is spelled differently by each source ("Claude 3.5 Sonnet (20241022)",
"claude-3-5-sonnet-20241022", "meta-llama/Meta-Llama-3.1-8B-Instruct"). Every raw name is reduced
to a *match key*; names with the same key are one model. Hard cases that no rule can see are
listed in ``aliases.csv`` (alias -> model_id). A key maps to exactly one model_id, so an alias can
never point to two models.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

ALIASES_CSV = Path(__file__).with_name("aliases.csv")

_SEP = re.compile(r"[^a-z0-9.]+")
_DIGIT_PAIR = re.compile(r"(?<![0-9.])(\d)-(\d)(?=-|$)")
_SUFFIXES = ("-hf",)
_BARE_SIZE = re.compile(r"^\d+(\.\d+)?[bm]\b")
_UNDERSCORE_DECIMAL = re.compile(r"(?<![0-9])(\d)_(\d+)(?=[bm](?![a-z]))")
_VARIANT = re.compile(
    r"(-(minimal|low|medium|high|xhigh))$|(-\d+k)$|(-thinking(-\d+k)?)$|(-non-thinking|-no-thinking)$"
)


def _ascii_lower(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return text.lower().strip()


def _drop_org(text: str) -> str:
    """'org/repo' -> 'repo', unless the repo name alone says nothing ('CausalLM/14B', 'x/K2')."""
    org, _, repo = text.rpartition("/")
    if org and (_BARE_SIZE.match(repo) or len(repo) <= 2):
        return f"{org.rsplit('/', 1)[-1]}-{repo}"
    return repo


def slugify(name: str) -> str:
    """Readable id: lower case, one '-' between words, single-digit versions '3-5' -> '3.5'.

    The organisation prefix of a Hugging Face id ("meta-llama/") and a leading "meta-" before
    "llama" are dropped, '+' becomes 'plus', a trailing '-hf' (format marker) is removed.
    """
    text = _ascii_lower(name)
    text = _drop_org(text).replace("+", "plus")
    text = _UNDERSCORE_DECIMAL.sub(r"\1.\2", text)
    text = _SEP.sub("-", text).strip("-.")
    text = re.sub(r"-{2,}", "-", text)
    text = re.sub(r"\.(?![0-9])|(?<![0-9])\.", "-", text).strip("-")
    for _ in range(2):
        text = _DIGIT_PAIR.sub(r"\1.\2", text)
    if text.startswith("meta-llama"):
        text = text.removeprefix("meta-")
    for suffix in _SUFFIXES:
        text = text.removesuffix(suffix)
    return re.sub(r"-{2,}", "-", text).strip("-")


def match_key(name: str) -> str:
    """Key under which spellings of one model coincide: the slug without separators."""
    return slugify(name).replace("-", "")


def checkpoint_of(model_id: str) -> str:
    """Weights id shared by reasoning-effort / thinking-mode variants of one model.

    'o3-2025-04-16-high' -> 'o3-2025-04-16'; 'claude-sonnet-4-20250514-8k' ->
    'claude-sonnet-4-20250514'; 'qwen3-235b-a22b-thinking-2507' is left alone (a dated release).
    """
    previous = None
    current = model_id
    while previous != current:
        previous, current = current, _VARIANT.sub("", current)
    return current or model_id


def load_curated_aliases(path: Path = ALIASES_CSV) -> dict[str, str]:
    """Curated map match_key(alias) -> model_id; a key listed twice with two targets is an error."""
    mapping: dict[str, str] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for lineno, row in enumerate(csv.DictReader(fh), start=2):
            alias, target = (row.get("alias") or "").strip(), (row.get("model_id") or "").strip()
            if not alias or not target:
                raise ValueError(f"{path}:{lineno}: empty alias or model_id; fill both columns")
            key = match_key(alias)
            if mapping.get(key, target) != target:
                raise ValueError(
                    f"{path}:{lineno}: alias {alias!r} already maps to {mapping[key]!r}; "
                    "keep one target per alias"
                )
            mapping[key] = target
    return mapping


@dataclass
class ModelRegistry:
    """Assigns model ids: curated alias map first, else the first spelling seen defines the id."""

    curated: dict[str, str] = field(default_factory=dict)
    by_key: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, set[str]] = field(default_factory=dict)

    def resolve(self, name: str) -> str:
        """model_id for a raw source name, recording the name as an alias."""
        key = match_key(name)
        if not key:
            raise ValueError(f"model name {name!r} has no letters or digits")
        model_id = self.curated.get(key) or self.by_key.get(key)
        if model_id is None:
            model_id = slugify(name)
        self.by_key.setdefault(key, model_id)
        self.aliases.setdefault(model_id, set()).add(name.strip())
        return model_id

    def lookup(self, name: str) -> str | None:
        """model_id already known for a spelling, without creating a model."""
        key = match_key(name)
        return self.curated.get(key) or self.by_key.get(key)

    def add_alias(self, name: str, model_id: str) -> bool:
        """Attach another spelling (e.g. a weights repo id) to a model; False if it is taken."""
        key = match_key(name)
        owner = self.curated.get(key) or self.by_key.get(key)
        if owner not in (None, model_id) or not key:
            return False
        self.by_key[key] = model_id
        self.aliases.setdefault(model_id, set()).add(name.strip())
        return True

    def alias_string(self, model_id: str) -> str:
        """';'-joined raw names of one model, excluding the id itself, sorted case-insensitively."""
        names = {a for a in self.aliases.get(model_id, set()) if ";" not in a and a != model_id}
        return ";".join(sorted(names, key=lambda s: (s.lower(), s)))
