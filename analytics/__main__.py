"""Command line: ``python -m analytics <command> ...``.

Each command lives in its own module exposing ``main(argv: list[str]) -> int``.
"""

from __future__ import annotations

import sys

from analytics.core.dispatch import dispatch

COMMANDS: dict[str, tuple[str, str]] = {
    "snapshot": ("analytics.core.snapshot.cli", "validate the catalog and build/list snapshots"),
    "ingest": ("analytics.llm.ingest.cli", "rebuild data/catalog from the public sources"),
    "elo": ("analytics.llm.elo_cli", "Bradley-Terry Elo ratings from a long score CSV"),
    "elo-diff": ("analytics.llm.elo_cli", "rating and rank changes between two snapshots"),
    "derive": ("analytics.llm.derive_cli", "recompute (--check: verify) a snapshot's derived data"),
    "fit": ("analytics.llm.fit_cli", "hardware-fit calculator"),
    "finetune": ("analytics.llm.fit_cli", "fine-tune fit and cost calculator"),
    "fl-score": ("analytics.fl.cli", "score a folder of federated submission ZIPs"),
    "fl-run": ("analytics.fl.cli", "run the federated reference runs"),
    "fl-review": ("analytics.fl.cli", "list federated uploads and their review status"),
    "fl-derive": ("analytics.fl.derive", "recompute (--check: verify) the cached FL validations"),
    "audit": ("analytics.llm.audit.cli", "identity, protocol and metadata audits of the catalog"),
}


def main(argv: list[str] | None = None) -> int:
    return dispatch("analytics", COMMANDS, list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
