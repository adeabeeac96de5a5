"""The seven task datasets of our reference runs: bundled with scikit-learn or generated from seeds.

Nothing is downloaded: four are scikit-learn's bundled sets, three are seeded synthetic tasks.
Features are standardised with the training split's mean and standard deviation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn import datasets as skd
from sklearn.model_selection import train_test_split

TEST_FRACTION = 0.25


@dataclass(frozen=True)
class Task:
    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    n_classes: int

    @property
    def n_features(self) -> int:
        return int(self.x_train.shape[1])


def _bundled(loader: Callable) -> Callable[[int], tuple[np.ndarray, np.ndarray]]:
    def load(seed: int) -> tuple[np.ndarray, np.ndarray]:
        x, y = loader(return_X_y=True)
        return np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.int64)

    return load


def _synth_linear(seed: int) -> tuple[np.ndarray, np.ndarray]:
    x, y = skd.make_classification(
        n_samples=1200,
        n_features=20,
        n_informative=8,
        n_redundant=4,
        n_classes=4,
        n_clusters_per_class=1,
        class_sep=1.2,
        random_state=seed,
    )
    return x, y.astype(np.int64)


def _synth_noisy(seed: int) -> tuple[np.ndarray, np.ndarray]:
    x, y = skd.make_classification(
        n_samples=1200,
        n_features=30,
        n_informative=10,
        n_redundant=5,
        n_classes=2,
        flip_y=0.05,
        class_sep=0.8,
        random_state=seed + 1,
    )
    return x, y.astype(np.int64)


def _synth_moons(seed: int) -> tuple[np.ndarray, np.ndarray]:
    x, y = skd.make_moons(n_samples=1000, noise=0.25, random_state=seed + 2)
    return x, y.astype(np.int64)


LOADERS: dict[str, Callable[[int], tuple[np.ndarray, np.ndarray]]] = {
    "digits": _bundled(skd.load_digits),
    "wine": _bundled(skd.load_wine),
    "breast_cancer": _bundled(skd.load_breast_cancer),
    "iris": _bundled(skd.load_iris),
    "synth_linear": _synth_linear,
    "synth_noisy": _synth_noisy,
    "synth_moons": _synth_moons,
}
DATASETS = tuple(LOADERS)


def load_task(name: str, seed: int) -> Task:
    """Train/test split (stratified, seeded) with standardised features."""
    if name not in LOADERS:
        raise ValueError(f"unknown dataset {name!r}; fix: use one of {', '.join(DATASETS)}")
    x, y = LOADERS[name](seed)
    x_tr, x_te, y_tr, y_te = train_test_split(
        x, y, test_size=TEST_FRACTION, stratify=y, random_state=seed
    )
    mean, std = x_tr.mean(axis=0), x_tr.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    return Task(name, (x_tr - mean) / std, y_tr, (x_te - mean) / std, y_te, int(y.max()) + 1)
