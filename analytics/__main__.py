"""Command line: ``python -m analytics <command> ...``.

Each command lives in its own module exposing ``main(argv: list[str]) -> int``.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "snapshot": ("analytics.snapshot", "validate the catalog and build/list snapshots"),
    "ingest": ("analytics.ingest.cli", "rebuild data/catalog from the public sources"),
    "elo": ("analytics.elo_cli", "Bradley-Terry Elo ratings from a long score CSV"),
    "elo-diff": ("analytics.elo_cli", "rating and rank changes between two snapshots"),
    "fit": ("analytics.fit_cli", "hardware-fit calculator"),
    "finetune": ("analytics.fit_cli", "fine-tune fit and cost calculator"),
    "fl-score": ("analytics.fl.cli", "score a folder of federated submission ZIPs"),
    "fl-run": ("analytics.fl.cli", "run the federated reference runs"),
}


def _usage() -> str:
    lines = ["usage: python -m analytics <command> [options]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in {"-h", "--help"}:
        print(_usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(
            f"error: unknown command {name!r}; choose one of: {', '.join(COMMANDS)}",
            file=sys.stderr,
        )
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return int(module.main([name, *rest]) or 0)


if __name__ == "__main__":
    sys.exit(main())
