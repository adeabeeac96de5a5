"""Validate the curated catalog and build immutable, versioned Parquet snapshots.

Seed 002, "Versioned snapshots": the catalog (``data/catalog``, CSV and JSON in git) is validated
and built into ``data/snapshots/<version>/``; the version is a content hash of the data, so it
changes only when the data does, and a built version is never rewritten. Seed 002, "Freshness &
contributions": validation enforces referential integrity, score bounds and provenance.

Every problem is one line: ``<file>:<line>: <what is wrong>; fix: <what to do>`` (line 1 is the
CSV header; ``analytics.core.problems`` formats them). See ``docs/store.md`` for the layout and
for registering track validators.

Modules: ``parse`` (catalog files -> typed tables), ``checks`` (validation rules and the track
validator registry), ``manifest`` (versions, manifests, listing), ``build`` (writing a snapshot
atomically), ``verify`` (checking built snapshots against their file hashes, repair), ``cli``
(``python -m analytics snapshot ...``). This package re-exports their public API; note that
``snapshot.build`` is the function (the module is ``snapshot.build`` in ``sys.modules``: import
it with ``importlib.import_module``).
"""

from __future__ import annotations

from analytics.core.snapshot import checks, cli, manifest, parse, verify
from analytics.core.snapshot.build import BuildResult, build
from analytics.core.snapshot.checks import (
    ALLOWED_VALUES,
    CHECK_MODULES,
    REFERENCES,
    CatalogError,
    Validator,
    load_catalog,
    normalise_name,
    register_validator,
    registered_validators,
    validate,
)
from analytics.core.snapshot.cli import main, summary
from analytics.core.snapshot.manifest import (
    BUILDER_FORMAT,
    DamagedSnapshot,
    built_snapshots,
    catalog_version,
    catalog_version_stamped,
    list_snapshots,
    list_versions,
    read_manifest,
)
from analytics.core.snapshot.parse import (
    DATA_SUFFIXES,
    Table,
    catalog_files,
    read_table,
    table_name,
)

__all__ = [
    "ALLOWED_VALUES",
    "BUILDER_FORMAT",
    "CHECK_MODULES",
    "DATA_SUFFIXES",
    "REFERENCES",
    "BuildResult",
    "CatalogError",
    "DamagedSnapshot",
    "Table",
    "Validator",
    "build",
    "built_snapshots",
    "catalog_files",
    "catalog_version",
    "catalog_version_stamped",
    "checks",
    "cli",
    "list_snapshots",
    "list_versions",
    "load_catalog",
    "main",
    "manifest",
    "normalise_name",
    "parse",
    "read_manifest",
    "read_table",
    "register_validator",
    "registered_validators",
    "summary",
    "table_name",
    "validate",
    "verify",
]
