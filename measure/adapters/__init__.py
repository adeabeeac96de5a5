"""Adapter registry (timm-style): ``@register`` on a class makes it ``--adapter NAME``.

``resolve("path/to/file.py:Class")`` loads an adapter from outside the registry; the harness only
does that inside a worker process (``measure.runner``), under the run's timeout, and an import
that fails is one line (``import_problem``). Importing this package never imports torch: adapters
import their heavy packages inside ``load``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path

from analytics.core import problems
from measure.adapters.base import (
    PRECISIONS,
    RANDOM_WEIGHTS_REASON,
    Adapter,
    AdapterError,
    AdapterInfo,
    MissingPackageError,
    PaperScore,
    RandomWeightsError,
    WeightsInfo,
)

__all__ = [
    "RANDOM_WEIGHTS_REASON",
    "Adapter",
    "AdapterError",
    "AdapterInfo",
    "MissingPackageError",
    "PaperScore",
    "RandomWeightsError",
    "WeightsInfo",
    "devices_of",
    "import_problem",
    "register",
    "registry",
    "resolve",
    "source_file",
]

_MODULES = (
    "measure.adapters.mtcnn",
    "measure.adapters.blazeface",
    "measure.adapters.yunet",
    "measure.adapters.opencv_detectors",
    "measure.adapters.dlib_detectors",
    "measure.adapters.ppocr",
    "measure.adapters.torchvision_detectors",
    "measure.adapters.hf_detectors",
)
PROTOCOL_ATTRS = ("name", "task", "precisions", "load", "predict")
"""What an external adapter class must have; ``weight_files``, ``info`` and a ``weights``
keyword of ``__init__`` are optional (docs/measure.md, "External adapters")."""
REQUIRED_METHODS = ("load", "predict")
"""Methods an adapter must define itself: ``Adapter``'s own raise NotImplementedError."""
PROTOCOL_FIX = "see the adapter protocol in docs/measure.md"
DEFINE_FIX = "define load(self, device, precision) and predict(self, image) in the class"
SPEC_FIX = "give path/file.py:Class"
_REGISTRY: dict[str, type[Adapter]] = {}


def unimplemented(cls: type) -> list[str]:
    """The :data:`REQUIRED_METHODS` that ``cls`` inherits unchanged from ``Adapter`` (whose
    bodies raise NotImplementedError), in protocol order."""
    return [m for m in REQUIRED_METHODS if getattr(cls, m, None) is getattr(Adapter, m)]


def register(cls: type[Adapter]) -> type[Adapter]:
    """Class decorator adding an adapter to the registry under ``cls.name``; an AdapterError
    (naming the class) for an empty or taken name, or a required method left as the base's."""
    where = f"adapter class {cls.__module__}.{cls.__qualname__}"
    if not cls.name or cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        what = f"adapter name {cls.name!r} is empty or already registered"
        raise AdapterError(where, what, "give the class a name = '...' of its own")
    missing = unimplemented(cls)
    if missing:
        what = f"does not define {', '.join(missing)} (Adapter's raises NotImplementedError)"
        raise AdapterError(where, what, DEFINE_FIX)
    _REGISTRY[cls.name] = cls
    return cls


def registry() -> dict[str, type[Adapter]]:
    """All registered adapters by name: in ``_MODULES`` order, then registration order within a
    module (so the order never depends on which adapter module was imported first)."""
    for module in _MODULES:
        importlib.import_module(module)
    rank = {module: i for i, module in enumerate(_MODULES)}
    ordered = sorted(_REGISTRY.items(), key=lambda kv: rank.get(kv[1].__module__, len(rank)))
    return dict(ordered)


_PINNED_DEVICES = {"mtcnn-facenet": ("cpu", "cuda")}
"""``devices`` of adapters whose source file committed run records pin by its sha256 (editing it
would fail their ``measure verify``): MTCNN's three networks are plain torch modules."""


def devices_of(cls: type) -> tuple[str, ...]:
    """Where an adapter's runtime can run (``Adapter.devices``)."""
    return _PINNED_DEVICES.get(getattr(cls, "name", ""), getattr(cls, "devices", ("cpu",)))


def _protocol_problem(cls: type) -> str | None:
    """What keeps ``cls`` from implementing the adapter protocol, or None."""
    for attr in PROTOCOL_ATTRS:
        if not hasattr(cls, attr):
            return f"lacks {attr!r}"
    for attr in ("name", "task"):
        if not isinstance(getattr(cls, attr), str) or not getattr(cls, attr):
            return f"{attr!r} must be a non-empty string"
    precisions = cls.precisions
    if not isinstance(precisions, tuple | list) or not precisions:
        return "'precisions' must be a non-empty tuple such as ('fp32',)"
    if not set(precisions) <= set(PRECISIONS):
        return f"'precisions' {tuple(precisions)} not among {PRECISIONS}"
    for attr in ("load", "predict"):
        if not callable(getattr(cls, attr)):
            return f"{attr!r} is not a method"
    missing = unimplemented(cls)
    if missing:
        return f"does not define {', '.join(missing)} (Adapter's raises NotImplementedError)"
    needed = _required_init_args(cls)
    if needed:
        return (
            f"__init__ requires {', '.join(needed)}; the harness builds it as Class() "
            "or Class(weights=...)"
        )
    return None


def _required_init_args(cls: type) -> list[str]:
    """Constructor parameters without a default (other than ``weights``)."""
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in params
        if p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        and p.name != "weights"
    ]


def _takes_weights(cls: type) -> bool:
    """Whether ``cls(weights=...)`` is accepted by its constructor."""
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "weights" or p.kind is p.VAR_KEYWORD for p in params)


def _duck_adapter(cls: type, spec: str) -> type:
    """A subclass of a protocol class (not derived from ``Adapter``) that the harness can
    construct as ``cls(weights=...)`` and that has ``weight_files``."""
    takes_weights = _takes_weights(cls)

    def __init__(self, weights: str | None = None) -> None:  # noqa: N807
        if takes_weights:
            cls.__init__(self, weights=weights)
        elif weights is not None:
            raise AdapterError(
                f"--adapter {spec}",
                f"class {cls.__name__} takes no 'weights' argument",
                "accept __init__(self, weights=None) or drop --weights",
            )
        else:
            cls.__init__(self)
        self.weights = weights

    body = {"__init__": __init__, "__module__": cls.__module__, "__doc__": cls.__doc__}
    if not hasattr(cls, "weight_files"):
        body["weight_files"] = lambda self: []
    return type(cls.__name__, (cls,), body)


IMPORT_FIX = (
    "make the file import on its own (`python FILE` shows the traceback) and keep slow or "
    "heavy work (imports of frameworks, downloads, model loading) inside load()"
)
"""The fix every external adapter import failure names (docs/measure.md, "External adapters")."""


def import_problem(spec: str, path: Path, what: BaseException | str, fix: str | None = None) -> str:
    """One line saying that importing an external adapter's file failed, and how to fix it
    (default ``IMPORT_FIX``).

    ``what`` is the exception its module code raised, or a description (the runner's, when the
    import ended or hung the worker that ran it)."""
    if isinstance(what, SyntaxError):
        where = Path(what.filename).name if what.filename else path.name
        what = f"SyntaxError at {where}:{what.lineno}: {what.msg}"
    elif isinstance(what, SystemExit):
        what = f"its module code called sys.exit({what.code!r})"
    elif isinstance(what, BaseException):
        what = f"{type(what).__name__}: {what}"
    text = " ".join(str(what).split())
    text = text if len(text) <= 300 else text[:299] + "…"
    fix = (fix or IMPORT_FIX).replace("FILE", str(path))
    return problems.line(f"--adapter {spec}", f"importing {path} failed ({text})", fix)


def _load_external(spec: str) -> type:
    file_part, _, class_name = spec.rpartition(":")
    path = Path(file_part).expanduser().resolve()
    if not path.is_file():
        raise AdapterError(f"--adapter {spec}", f"file {path} not found", SPEC_FIX)
    module_name = f"_atlas_external_{path.stem}"
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise AdapterError(f"--adapter {spec}", f"{path} is not a Python file", SPEC_FIX)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    try:
        module_spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # its module code: one line, never a traceback
        sys.modules.pop(module_name, None)
        raise AdapterError(import_problem(spec, path, exc)) from exc
    cls = getattr(module, class_name, None)
    if not inspect.isclass(cls):
        raise AdapterError(f"--adapter {spec}", f"{path} has no class {class_name!r}", SPEC_FIX)
    problem = _protocol_problem(cls)
    if problem:
        raise AdapterError(f"--adapter {spec}", f"class {class_name} {problem}", PROTOCOL_FIX)
    return cls if issubclass(cls, Adapter) else _duck_adapter(cls, spec)


def resolve(spec: str) -> type[Adapter]:
    """The adapter class for a registry name or ``path/file.py:Class``."""
    if ".py:" in spec:
        return _load_external(spec)
    known = registry()
    if spec not in known:
        what = f"--adapter {spec!r} is not registered"
        raise AdapterError(what=what, fix=f"choose one of: {', '.join(known)}")
    return known[spec]


def source_file(cls: type) -> Path:
    """The file that defines an adapter class (hashed into every run record)."""
    return Path(inspect.getfile(cls)).resolve()
