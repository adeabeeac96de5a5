"""Sources that disagree on a weight fact: the value most independent publishers
agree on wins, and every disagreement is kept for the metadata audit (table ``disagreements``).

Two facts are compared: the release date (stated days only: a proxy day never votes) and the
total parameter count. Publishers vote, not files (:data:`PUBLISHER`):

- Epoch AI's two datasets are one publisher; its newer dataset speaks for it (it comes first in
  the field's source order).
- The Open LLM Leaderboard and llmfit both read the Hugging Face Hub: one publisher, whose day
  is its earliest upload (a later one is a re-upload) and whose count is its first.
- A day that cannot be a release of the checkpoint does not vote, whoever states it: a
  placeholder day such as the Hub's migration day, or a day before the date the id writes
  (``dated.refused_release_day``).

Two values agree when days are at most :data:`DAYS_AGREE` apart or counts within
:data:`COUNT_AGREE`. The winner is the value the most publishers agree with; a tie goes to the
field's source order, as before this rule. When the Hub's count agrees with the winner, the
catalog shows the Hub's exact count (read from the weights; a publisher states a rounded size).
A disagreement is recorded when the publishers'
values spread wider than :data:`DAYS_APART` or :data:`COUNT_APART`. It is settled when the
value shown is backed by two or more publishers and by more than any other value, when the id
writes the date, or by an override row with its source; every other one is an unresolved line
of ``python -m analytics audit metadata``.
"""

from __future__ import annotations

from dataclasses import dataclass

from analytics.llm.ingest.common import ModelObs, day_of
from analytics.llm.ingest.dated import refused_release_day
from analytics.llm.ingest.families import off_the_name
from analytics.llm.ingest.llmfit import CONFIGS_URL

HUB = "Hugging Face Hub"
PUBLISHER = {
    "epoch": "Epoch AI",
    "epoch-2026": "Epoch AI",
    "open-llm-leaderboard": HUB,
    "llmfit": HUB,
    "llmstats": "LLM Stats",
    "artificial-analysis": "Artificial Analysis",
    "livebench": "LiveBench",
    "models-dev": "models.dev",
    "metergraph": "the maker's announcement (via metergraph)",
}
"""importer -> publisher (an importer not listed is its own publisher)."""
DAYS_AGREE = 7
DAYS_APART = 31
COUNT_AGREE = 0.10
COUNT_APART = 0.10
FIELDS = ("release_date", "total_params_b")
LOW_RANK = {
    HUB: "the day a repository was created, before a release or a later re-upload",
    "models.dev": "a copy that dates an API name by its current snapshot",
}




def _agree(attr: str, a: object, b: object) -> bool:
    if attr == "release_date":
        return abs((day_of(a) - day_of(b)).days) <= DAYS_AGREE
    return abs(float(a) - float(b)) <= COUNT_AGREE * max(float(a), float(b))


def same_count(a: float, b: float) -> bool:
    """Two parameter counts that agree (one a rounding of the other, as publishers write them)."""
    return _agree("total_params_b", a, b)


def votes(
    observations: list[ModelObs], attr: str, order: tuple[str, ...], name: str = ""
) -> list[tuple]:
    """(publisher, value, observation) per publisher, in the field's source order; a count
    that contradicts the one size the checkpoint's ``name`` writes does not vote
    (``families.off_the_name``)."""
    ranked = sorted(
        (o for o in observations if o.source in order and getattr(o, attr) is not None),
        key=lambda o: order.index(o.source),
    )
    out: dict[str, tuple] = {}
    for obs in ranked:
        value = getattr(obs, attr)
        if attr == "total_params_b" and off_the_name(name, float(value)):
            continue
        if attr == "release_date":
            if obs.release_date_basis or day_of(value) is None:
                continue  # a proxy day never votes
            if refused_release_day(value, name):
                continue
        publisher = PUBLISHER.get(obs.source, obs.source)
        held = out.get(publisher)
        if held is None:
            out[publisher] = (publisher, value, obs)
        elif publisher == HUB and attr == "release_date" and day_of(value) < day_of(held[1]):
            out[publisher] = (publisher, value, obs)  # the Hub's earliest upload
        elif publisher == HUB and attr == "total_params_b" and _unpacked(obs, held[2]):
            out[publisher] = (publisher, value, obs)  # the Hub's count of the tensors
    return list(out.values())


def _unpacked(obs: ModelObs, held: ModelObs) -> bool:
    """``obs`` is the Hub table of configs' count of unpacked tensors (llmfit 1.1.17) and
    ``held`` is not: the older llmfit file and the leaderboard's column give gpt-oss-120b
    120.4 billion, where its weights hold 116.8."""
    return obs.metadata_source_url == CONFIGS_URL != held.metadata_source_url


def choose(
    observations: list[ModelObs], attr: str, order: tuple[str, ...], name: str = ""
) -> tuple[ModelObs | None, int]:
    """The observation whose value the most publishers agree with and how many agree; (None,
    0) when no publisher states the field. A tie goes to the first in ``order``, except that a
    count the Hub read from the weights beats a stated one (often the size in the name)."""
    cast = votes(observations, attr, order, name)
    best, support = None, 0
    for publisher, value, obs in cast:
        n = sum(_agree(attr, value, other) for _, other, _ in cast)
        hub_tie = (
            attr == "total_params_b" and publisher == HUB and n == support
            and not _agree(attr, value, best.total_params_b)
        )
        if n > support or hub_tie:  # a tie on a count: the one read from the weights
            best, support = obs, n
    if attr == "total_params_b" and best is not None:
        exact = [o for p, v, o in cast if p == HUB and _agree(attr, v, best.total_params_b)]
        if exact:  # the winning count as the weights state it, not a publisher's rounded size
            best = exact[0]
    return best, support


@dataclass(frozen=True)
class Disagreement:
    """Publishers' values of one fact of one checkpoint that spread beyond agreement."""

    checkpoint_id: str
    field: str
    values: tuple[tuple[str, str], ...]  # (publisher, value) in source order
    chosen: str
    support: int

    def majority(self) -> bool:
        """The chosen value has two or more publishers and more than any value apart from it."""
        if self.support < 2:
            return False
        apart = [v for _, v in self.values if not _agree(self.field, v, self.chosen)]
        return all(
            sum(_agree(self.field, v, w) for _, w in self.values) < self.support for v in apart
        )

    def ranked(self) -> str:
        """Why the chosen value stands between exactly two publishers that disagree ('' when
        it does not): a Hub day is when a repository was created (before a release, or a later
        re-upload) and models.dev is a copy below every editorial source, so the other's day
        stands; a count the Hub read from the weights stands against a stated one."""
        if len(self.values) != 2:
            return ""
        (first, _), (second, _) = self.values
        chosen_by = next(p for p, v in self.values if v == self.chosen)
        if self.field == "total_params_b":
            return "the Hub's count is read from the weights" if chosen_by == HUB else ""
        low = {HUB, "models.dev"}
        if second in low and first not in low and chosen_by == first:
            return f"{first}'s day stands against {second}'s ({LOW_RANK[second]})"
        return ""

    def values_text(self) -> str:
        return "; ".join(f"{p} {v}" for p, v in self.values)


COUNT_DECIMALS = 3
"""Counts are compared as the models table stores them (billions, three decimals)."""


def _text(attr: str, value: object) -> str:
    if attr == "release_date":
        return str(value)[:10]
    return f"{round(float(value), COUNT_DECIMALS):g}"


def disagreement(
    checkpoint_id: str, observations: list[ModelObs], attr: str, order: tuple[str, ...]
) -> Disagreement | None:
    """The checkpoint's disagreement on ``attr``, or None when its publishers agree."""
    cast = votes(observations, attr, order, checkpoint_id)
    if len(cast) < 2:
        return None
    values = [v for _, v, _ in cast]
    if attr == "release_date":
        days = [day_of(v) for v in values]
        if (max(days) - min(days)).days <= DAYS_APART:
            return None
    elif max(map(float, values)) <= (1 + COUNT_APART) * min(map(float, values)):
        return None
    chosen, support = choose(observations, attr, order, checkpoint_id)
    return Disagreement(
        checkpoint_id,
        attr,
        tuple((p, _text(attr, v)) for p, v, _ in cast),
        _text(attr, getattr(chosen, attr)),
        support,
    )


COLUMNS = ("checkpoint_id", "field", "value", "values", "settled")


def table_rows(
    model_rows: list[dict],
    pooled: dict[str, list[ModelObs]],
    orders: dict[str, tuple[str, ...]],
    overridden: set[tuple[str, str]],
    id_dated: set[str],
) -> list[dict]:
    """One row per disagreement of a catalog checkpoint: the value shown, every publisher's
    value, and how it is settled ('' = unresolved). ``overridden``: (checkpoint, field) pairs
    an override row sets; ``id_dated``: checkpoints whose id writes their release day."""
    shown = {}
    for row in model_rows:
        if row["model_id"] == row["checkpoint_id"] or row["checkpoint_id"] not in shown:
            shown[row["checkpoint_id"]] = row
    out = []
    for checkpoint in sorted(shown):
        for attr in FIELDS:
            found = disagreement(checkpoint, pooled.get(checkpoint, []), attr, orders[attr])
            if found is None:
                continue
            value = shown[checkpoint][attr]
            value_text = _text(attr, value) if value is not None else ""
            if (checkpoint, attr) in overridden:
                settled = "an override row sets it, citing its source"
            elif attr == "release_date" and checkpoint in id_dated:
                settled = "the id writes its release day"
            elif found.majority() and value_text == found.chosen:
                settled = f"{found.support} of {len(found.values)} publishers agree"
            elif found.ranked() and value_text == found.chosen:
                settled = found.ranked()
            else:
                settled = ""
            out.append({
                "checkpoint_id": checkpoint, "field": attr, "value": value_text,
                "values": found.values_text(), "settled": settled,
            })
    return out
