"""Organisation audit: every model names one maker, never a list of organisations nor a Hugging
Face namespace (the table of makers: ``analytics/llm/ingest/organisations.py``)."""

from __future__ import annotations

import pandas as pd

from analytics.llm.audit import Finding
from analytics.llm.ingest.organisations import HF_ORGS, ORG_SYNONYMS

FIX = "add the namespace or spelling to analytics/llm/ingest/organisations.py and re-ingest"


def _makers() -> set[str]:
    return {m.lower() for m in (*HF_ORGS.values(), *ORG_SYNONYMS.values())}


def audit(models: pd.DataFrame) -> list[Finding]:
    """One unresolved line per model whose organisation is a list, or the lower-case namespace of
    one of its own Hub repositories that the table does not name as a maker."""
    makers = _makers()
    out = []
    for model_id, org, aliases in zip(
        models["model_id"], models["organisation"], models["aliases"], strict=True
    ):
        org = str(org or "").strip()
        if "," in org:
            out.append(Finding(model_id, f"organisation {org!r} is a list; fix: {FIX}"))
            continue
        spaces = {a.split("/")[0].strip().lower() for a in str(aliases or "").split(";")
                  if a.count("/") == 1}
        # a namespace as the Hub writes it ('mlabonne', 'rhymes-ai'); a maker's own name that
        # is also its namespace ('Anthropic', 'LLM360') is written with capitals
        if org and org == org.lower() and org in spaces and org not in makers:
            out.append(Finding(model_id, f"organisation {org!r} is a Hub namespace; fix: {FIX}"))
    return out
