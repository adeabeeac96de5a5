"""The reference runs' training settings, which the ranked page discloses beside its results.

Plain constants, apart from the code that trains with them (``runner``, which imports torch):
the app's server imports the board at start-up and should not load torch for five numbers.
"""

from __future__ import annotations

LEARNING_RATE = 0.05  # client SGD
# Client minibatch size B and local epochs E per dataset (B from McMahan et al. 2017's grid):
# Fashion-MNIST clients hold 600 images (12 steps a round); the small sets hold 40 (MNIST subset,
# 4 steps) and 13 (digits; E = 2 gives 4 steps).
LOCAL_TRAINING = {"fashion_mnist": (50, 1), "mnist": (10, 1), "digits": (10, 2)}
LOCAL_ONLY_CLIENTS = 10  # Local Only trains and evaluates clients 0..9 of the split only
LOCAL_ONLY_EVAL_EVERY = 5  # rounds between Local Only checkpoints (10 models per checkpoint)
CENTRAL_EPOCHS = 5  # Centralized: one checkpoint per epoch over all training data
