"""Command line: ``python -m measure <command> ...`` (table-driven like ``python -m analytics``).

Each command lives in a module exposing ``main(argv: list[str]) -> int`` and receives
``[command, *args]``. ``submit`` and ``inbox`` are provided by their own modules.
"""

from __future__ import annotations

import sys

from analytics.core.dispatch import dispatch

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("measure.cli", "measure one adapter under the protocol and store its record"),
    "verify": ("measure.verify", "recompute a record's figures and check its hashes"),
    "check": ("measure.verify", "check every stored run is whole (record, tables, manifest)"),
    "sweep": ("measure.cli", "measure every registered adapter, each in its own process"),
    "submit": ("measure.community.cli", "package a run record as a community submission"),
    "inbox": ("measure.community.cli", "queue, list, accept or reject community submissions"),
    "maintainer": ("measure.community.cli", "make a maintainer password hash"),
    "audit": ("measure.community.cli", "verify the inbox audit log's hash chain"),
    "gpu-check": ("measure.gpu_check", "check the CUDA/NVML path once on a real NVIDIA GPU"),
}


def main(argv: list[str] | None = None) -> int:
    return dispatch("measure", COMMANDS, list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
