"""One row per checkpoint (seed 002, "Discovery"): reasoning-effort / thinking-mode variants of
one set of weights share a checkpoint, so every list that is about weights (hardware fit,
fine-tuning) shows the checkpoint once, names its variants, and puts the best rating of any
variant beside it.

:func:`one_row_per_checkpoint` is the one implementation every page uses (hardware fit and the
fine-tune lists); it never invents a figure: each field comes from one of the checkpoint's
catalog rows (the default variant first, then the others, for a field the default lacks).
"""

from __future__ import annotations

import re

import pandas as pd

DEFAULT_VARIANT = "default"

# Fields that belong together: taken from one row, the first (in variant order) that has the
# lead field, so a figure never travels without its basis and source.
LINKED_FIELDS: tuple[tuple[str, ...], ...] = (
    ("vram_q4_gb", "vram_q4_basis", "vram_q4_source_url"),
    ("n_layers", "n_kv_heads", "head_dim", "metadata_source_url"),
)
_VARIANT_SUFFIX = re.compile(r"\s*\([^()]*\)\s*$")  # 'Claude 3.7 Sonnet (12k thinking)'


def checkpoint_ids(models: pd.DataFrame) -> pd.Series:
    """Each row's checkpoint: ``checkpoint_id``, else (absent or empty) its own model_id."""
    if "checkpoint_id" not in models:
        return models["model_id"].astype(str)
    key = models["checkpoint_id"]
    blank = key.isna() | (key.astype(str).str.strip() == "")
    return key.where(~blank, models["model_id"]).astype(str)


def checkpoint_name(names: list[str], default_names: list[str]) -> str:
    """The checkpoint's display name: the default variant's name without a trailing
    parenthesised setting ('Claude 3.7 Sonnet (12k thinking)' -> 'Claude 3.7 Sonnet'); without
    a default variant, the shortest such name (alphabetical on ties)."""
    pool = default_names or names
    stripped = [_VARIANT_SUFFIX.sub("", n).strip() or n for n in pool]
    return sorted(stripped, key=lambda n: (len(n), n))[0]


def one_row_per_checkpoint(models: pd.DataFrame, ratings: pd.DataFrame | None) -> pd.DataFrame:
    """One row per checkpoint_id of ``models`` (catalog ``models`` rows, any subset).

    Each row holds the checkpoint's catalog fields (params, Q4 figure with its basis and source,
    architecture, licence, open weights ...) from its default variant, a field it lacks filled
    from the other variants (linked fields - :data:`LINKED_FIELDS` - always from one row), plus:

    - ``checkpoint_id``; ``display_name`` and ``checkpoint_name``: the checkpoint's name without
      the variant setting;
    - ``variants``: every variant's display name, sorted, ", "-joined; ``n_variants``;
    - ``best_rating``: the highest rating of any variant in ``ratings`` (columns model_id,
      rating; None or without them: nothing rated), NaN when none is rated; ``rating`` is the
      same number;
    - ``best_model_id``: that highest-rated variant, else the default variant (else the
      smallest model_id), so it is always a catalog model_id; ``model_id`` is the same id.

    Rows keep the order of each checkpoint's first row in ``models``.
    """
    if models.empty:
        extra = ["checkpoint_name", "variants", "n_variants", "best_model_id", "best_rating"]
        cols = list(dict.fromkeys([*models.columns, "checkpoint_id", "rating", *extra]))
        return pd.DataFrame(columns=cols)
    table = models.reset_index(drop=True).copy()
    table["checkpoint_id"] = checkpoint_ids(table)
    names = table["display_name"] if "display_name" in table else table["model_id"]
    table["_name"] = names.where(names.notna(), table["model_id"]).astype(str)
    table["_rating"] = _ratings_for(table["model_id"], ratings)
    variant = table["variant"] if "variant" in table else pd.Series(DEFAULT_VARIANT, table.index)
    table["_default"] = variant.fillna(DEFAULT_VARIANT).astype(str) == DEFAULT_VARIANT
    table["_first"] = table.groupby("checkpoint_id", sort=False).ngroup()
    table = table.sort_values(["_first", "_default", "model_id"], ascending=[True, False, True])
    groups = table.groupby("_first", sort=True)
    out = groups.first()  # the default variant's fields; a field it lacks from the next variant
    for fields in LINKED_FIELDS:
        present = [f for f in fields if f in table]
        if present and present[0] == fields[0]:
            having = table[table[fields[0]].notna()].drop_duplicates("_first").set_index("_first")
            linked = having[present].reindex(out.index)
            out[present] = linked.astype(table[present].dtypes.to_dict(), errors="ignore")
    first_id = groups["model_id"].first()
    rated = table.dropna(subset=["_rating"]).sort_values(
        ["_first", "_rating", "model_id"], ascending=[True, False, True]
    )
    top = rated.drop_duplicates("_first").set_index("_first")
    best_id = top["model_id"].reindex(out.index).fillna(first_id)
    out["model_id"] = best_id
    out["best_model_id"] = best_id
    out["best_rating"] = top["_rating"].reindex(out.index).astype(float)
    out["rating"] = out["best_rating"]
    names = _checkpoint_names(table).reindex(out.index)
    out["display_name"] = names
    out["checkpoint_name"] = names
    names_of: dict[int, set[str]] = {}
    for group, name in zip(table["_first"].tolist(), table["_name"].tolist(), strict=True):
        names_of.setdefault(group, set()).add(name)  # plain Python: a groupby lambda costs 0.1 s
    out["variants"] = pd.Series({g: ", ".join(sorted(n)) for g, n in names_of.items()})
    out["n_variants"] = groups.size()
    out = out.reset_index(drop=True)
    return out.drop(columns=[c for c in out.columns if c.startswith("_")])


def best_ratings(models: pd.DataFrame, ratings: pd.DataFrame | None) -> pd.DataFrame:
    """checkpoint_id -> ``rating``, the best rating of its variants in ``ratings`` (NaN when
    none is rated): the figure :func:`one_row_per_checkpoint` puts beside each checkpoint,
    without collapsing the other fields."""
    rated = pd.DataFrame(
        {
            "checkpoint_id": checkpoint_ids(models).to_numpy(),
            "rating": _ratings_for(models["model_id"], ratings).to_numpy(),
        }
    )
    return rated.groupby("checkpoint_id", as_index=False, sort=True)["rating"].max()


def _checkpoint_names(table: pd.DataFrame) -> pd.Series:
    """:func:`checkpoint_name` of every ``_first`` group, vectorised."""
    stripped = table["_name"].str.replace(_VARIANT_SUFFIX, "", regex=True).str.strip()
    stripped = stripped.where(stripped != "", table["_name"])
    pick = table.assign(_s=stripped, _len=stripped.str.len()).sort_values(
        ["_first", "_default", "_len", "_s"], ascending=[True, False, True, True]
    )
    return pick.drop_duplicates("_first").set_index("_first")["_s"]


def _ratings_for(model_ids: pd.Series, ratings: pd.DataFrame | None) -> pd.Series:
    """Each model's rating (NaN when unrated or ``ratings`` lacks model_id/rating)."""
    if ratings is None or not {"model_id", "rating"} <= set(ratings.columns):
        return pd.Series(float("nan"), index=model_ids.index)
    rated = ratings.dropna(subset=["rating"]).drop_duplicates("model_id")
    lookup = dict(zip(rated["model_id"], rated["rating"].astype(float), strict=True))
    return model_ids.map(lookup).astype(float)
