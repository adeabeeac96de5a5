"""Community results (seed 000, "Community results"): bundles, the review inbox, status, access.

Contributors package a run record with ``python -m measure submit``; the inbox validates it
(``validate``), queues it, and a maintainer (``auth``) accepts or rejects it, each decision in
the audit log (``audit``). Accepted results become Parquet rows under
``data/runs/community_results/``; ``status`` says whether each is Reproduced or Unverified.
Nothing here imports streamlit. Documented in docs/community.md.
"""
