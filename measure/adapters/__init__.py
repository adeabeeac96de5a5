"""Adapter registry (timm-style): ``@register`` on a class makes it ``--adapter NAME``.

``resolve("path/to/file.py:Class")`` loads an adapter from outside the registry. Importing
this package never imports torch: adapters import their heavy packages inside ``load``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path

from measure.adapters.base import Adapter, AdapterInfo, MissingPackageError, PaperScore, WeightsInfo

__all__ = [
    "Adapter",
    "AdapterInfo",
    "MissingPackageError",
    "PaperScore",
    "WeightsInfo",
    "register",
    "registry",
    "resolve",
    "source_file",
]

_MODULES = (
    "measure.adapters.mtcnn",
    "measure.adapters.torchvision_detectors",
    "measure.adapters.hf_detectors",
)
_REGISTRY: dict[str, type[Adapter]] = {}


def register(cls: type[Adapter]) -> type[Adapter]:
    """Class decorator adding an adapter to the registry under ``cls.name``."""
    if not cls.name or cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"adapter name {cls.name!r} is empty or already registered")
    _REGISTRY[cls.name] = cls
    return cls


def registry() -> dict[str, type[Adapter]]:
    """All registered adapters by name, in registration order."""
    for module in _MODULES:
        importlib.import_module(module)
    return dict(_REGISTRY)


def _load_external(spec: str) -> type[Adapter]:
    file_part, _, class_name = spec.rpartition(":")
    path = Path(file_part).expanduser().resolve()
    if not path.is_file():
        raise ValueError(f"--adapter {spec}: file {path} not found; fix: give path/file.py:Class")
    module_name = f"_atlas_external_{path.stem}"
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise ValueError(f"--adapter {spec}: {path} is not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    module_spec.loader.exec_module(module)
    cls = getattr(module, class_name, None)
    if not inspect.isclass(cls):
        raise ValueError(f"--adapter {spec}: {path} has no class {class_name!r}")
    for attr in ("name", "task", "precisions", "load", "predict"):
        if not hasattr(cls, attr):
            raise ValueError(f"--adapter {spec}: class {class_name} lacks {attr!r}")
    return cls


def resolve(spec: str) -> type[Adapter]:
    """The adapter class for a registry name or ``path/file.py:Class``."""
    if ".py:" in spec:
        return _load_external(spec)
    known = registry()
    if spec not in known:
        raise ValueError(f"--adapter {spec!r} is not registered; choose one of: {', '.join(known)}")
    return known[spec]


def source_file(cls: type) -> Path:
    """The file that defines an adapter class (hashed into every run record)."""
    return Path(inspect.getfile(cls)).resolve()
