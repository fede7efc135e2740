"""--curriculum: the order `citeflow train nli` feeds its pairs in when the other sets come first.

The added sets (--add, each as many times as its weight says) make one pass, then the export's own pairs (with their
augmentations and corpus pairs) make --epochs passes; one learning-rate schedule runs over the whole. Each pass is
shuffled with the seed and grouped by length the way transformers' group_by_length sampler does (batches of similar
length inside mega-batches of 50 batches), so padding costs what it costs without a curriculum; the trainer then
reads the examples in this order (its "sequential" sampler), which also makes a resumed run take up where it stopped.
"""
from __future__ import annotations

import random

MEGA_BATCHES = 50


def one_pass(indices: list[int], lengths: list[int], batch: int, rng: random.Random) -> list[int]:
    """The indices shuffled, then sorted longest first within each mega-batch."""
    order = indices[:]
    rng.shuffle(order)
    size = MEGA_BATCHES * batch
    return [i for start in range(0, len(order), size) for i in sorted(order[start:start + size], key=lambda i: -lengths[i])]


def curriculum_order(first: int, total: int, lengths: list[int], epochs: int, batch: int, seed: int) -> list[int]:
    """Examples 0..first-1 (the added sets) once, then examples first..total-1 (the export's) `epochs` times."""
    rng = random.Random(f"curriculum:{seed}")
    order = one_pass(list(range(first)), lengths, batch, rng)
    for _ in range(epochs):
        order += one_pass(list(range(first, total)), lengths, batch, rng)
    return order
