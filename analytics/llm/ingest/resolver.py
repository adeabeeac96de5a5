"""Source names -> catalog model ids: the resolver over the override table and the identity
rules (``identity.py``), the folding of undated names into their one dated snapshot, and the ids
published before, kept as aliases of the model they now belong to (``former_ids.txt``)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from analytics.llm.ingest.identity import (
    ModelRegistry,
    canonical_variant,
    date_of,
    loose_key,
    match_key,
    name_date,
    split_variant,
    variant_model_id,
    without_date,
)
from analytics.llm.ingest.overrides import Overrides


@dataclass
class Resolver:
    """Raw source names -> (model_id, checkpoint_id, variant) through the override table and the
    identity rules (analytics/llm/ingest/identity.py)."""

    registry: ModelRegistry
    overrides: Overrides
    checkpoints: dict[str, str] = field(default_factory=dict)
    variants: dict[str, str] = field(default_factory=dict)

    def resolve(self, raw: str, variant: str | None = None) -> str:
        key = match_key(raw)
        whole = key in self.overrides.weights or key in self.overrides.distinct
        base, in_name = (raw, None) if whole else split_variant(raw)
        found = canonical_variant(variant) or in_name or self.overrides.alias_variants.get(key)
        checkpoint = self.registry.resolve(base, loose=key not in self.overrides.distinct)
        model_id, label = variant_model_id(checkpoint, found)
        self.checkpoints[model_id] = checkpoint
        self.variants[model_id] = label
        # the raw name names the variant only when it spells the setting itself
        spelling = raw.strip() if in_name or label == "default" else f"{raw.strip()} ({label})"
        if key in self.overrides.alias_variants and model_id != checkpoint:
            self.registry.aliases.get(checkpoint, set()).discard(raw.strip())  # one setting's name
            spelling = raw.strip()
        self.registry.aliases.setdefault(model_id, set()).add(spelling)
        return model_id

    def lookup(self, raw: str) -> str | None:
        """model_id already known for a spelling (metadata-only sources never create models)."""
        base, found = split_variant(raw)
        found = found or self.overrides.alias_variants.get(match_key(raw))
        checkpoint = self.registry.lookup(base)
        if checkpoint is None:
            return None
        return variant_model_id(checkpoint, found)[0]

    def remap(self, mapping: dict[str, str]) -> dict[str, str]:
        """Fold checkpoints into others (undated names into their one dated snapshot); returns
        old model_id -> new model_id for every model that moved."""
        moved = {}
        for model_id in sorted(self.checkpoints):
            checkpoint = self.checkpoints[model_id]
            if checkpoint not in mapping:
                continue
            label = self.variants[model_id]
            new_id = variant_model_id(mapping[checkpoint], None if label == "default" else label)[0]
            moved[model_id] = new_id
        for old, new in moved.items():
            self.checkpoints[new] = mapping[self.checkpoints.pop(old)]
            self.variants[new] = self.variants.pop(old)
            names = self.registry.aliases.pop(old, set()) | {old}
            self.registry.aliases.setdefault(new, set()).update(names)
        for key, owner in self.registry.by_key.items():
            if owner in mapping:
                self.registry.by_key[key] = mapping[owner]
        return moved


def undated_merges(checkpoints: set[str], pinned: set[str]) -> dict[str, str]:
    """Undated checkpoint -> the one dated snapshot with the same name (several: kept apart)."""
    dated: dict[str, list[str]] = defaultdict(list)
    for cp in checkpoints:
        if date_of(cp):
            dated[without_date(loose_key(cp))].append(cp)
    out = {}
    for cp in sorted(checkpoints):
        if date_of(cp) or cp in pinned:
            continue
        matches = dated.get(loose_key(cp), [])
        if len(matches) == 1:
            out[cp] = matches[0]
    return out


FORMER_IDS = Path(__file__).with_name("former_ids.txt")


def _former_ids() -> set[str]:
    lines = FORMER_IDS.read_text(encoding="utf-8").splitlines()
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


FORMER = _former_ids()


def keep_former_ids(resolver: Resolver) -> list[str]:
    """Every id published before stays an alias of the model it now belongs to; returns the
    former ids that no current model claims (listed by ``ingest``)."""
    unresolved = []
    for former in sorted(FORMER):
        if former in resolver.checkpoints:
            continue
        target = resolver.lookup(former)
        if target not in resolver.checkpoints:  # that setting of the snapshot is gone: the
            # undated model holds it once a contradiction kept the two apart
            undated = resolver.lookup(name_date(former)[0])
            target = undated if undated in resolver.checkpoints else None
        target = target or _by_repo_name(resolver, former)
        if target is None:
            unresolved.append(former)
        else:
            resolver.registry.aliases.setdefault(target, set()).add(former)
    return unresolved


def _by_repo_name(resolver: Resolver, former: str) -> str | None:
    """The one model with a weights-repo alias 'org/<former>' (ids once dropped the org of
    bare-size repos such as 'CausalLM/14B')."""
    key = match_key(former)
    owners = {
        model_id
        for model_id, names in resolver.registry.aliases.items()
        for name in names
        if "/" in name and match_key(name.rsplit("/", 1)[1]) == key
    }
    return owners.pop() if len(owners) == 1 else None


def make_resolver(overrides: Overrides) -> Resolver:
    """A resolver whose registry knows the override table's aliases and pinned names."""
    curated = dict(overrides.aliases)
    curated.update({k: v for k, v in overrides.distinct.items() if v})
    registry = ModelRegistry(curated=curated, pinned=set(overrides.distinct))
    return Resolver(registry=registry, overrides=overrides)
