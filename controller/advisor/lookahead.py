"""The lookahead strategy's value of what is left after a score, shared by the advisor
(which plays by it) and the self-play that tunes it (:mod:`controller.advisor.sim`).

``LookaheadValue``: a weight per open box, the upper bonus times the chance of still
making it (``bonus_table`` from a per-face count distribution such as ``binomial_counts``)
and a value per banked throw. ``save_json`` writes a tuned value's file atomically.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from controller.advisor.core import PadModel


@dataclass(frozen=True, eq=False)
class LookaheadValue:
    """Value of what is left after a score: box weights + upper-bonus chance (+ bank throws)."""

    model: PadModel
    weights: np.ndarray  # (B,) expected points of each box when it is left open
    bonus_value: np.ndarray  # (64, U): bonus x P(bonus) by open upper faces and capped upper sum
    throw_value: float  # value of one banked throw at the start of a later turn

    def __post_init__(self) -> None:
        # per byte of the mask: the sum of the open boxes' weights, the open upper faces
        m = self.model
        nbytes = (m.B + 7) // 8
        wsum = np.zeros((nbytes, 256))
        faces = np.zeros((nbytes, 256), np.int64)
        for k in range(nbytes):
            for byte in range(256):
                for i in range(8):
                    b = 8 * k + i
                    if b < m.B and byte >> i & 1:
                        wsum[k, byte] += self.weights[b]
                        if m.face[b]:
                            faces[k, byte] |= 1 << (m.face[b] - 1)
        object.__setattr__(self, "_wsum", wsum)
        object.__setattr__(self, "_faces", faces)

    def __call__(self, masks: np.ndarray, us: np.ndarray, armed: np.ndarray) -> np.ndarray:
        v = np.zeros(masks.shape)
        openf = np.zeros(masks.shape, np.int64)
        for k in range(self._wsum.shape[0]):
            byte = (masks >> (8 * k)) & 255
            v += self._wsum[k, byte]
            openf |= self._faces[k, byte]
        return v + self.bonus_value[openf, us]


def binomial_counts(n: int, p_face: float) -> np.ndarray:
    """(7, n + 1): for each face (row f), P(c dice of f) ~ Binomial(n, p_face)."""
    pmf = np.array([math.comb(n, c) * p_face**c * (1 - p_face) ** (n - c) for c in range(n + 1)])
    return np.tile(pmf, (7, 1))


def bonus_table(model: PadModel, counts_pmf: np.ndarray) -> np.ndarray:
    """(64, U): bonus x P(the upper sum reaches the threshold) when each open upper face f
    brings c dice of f with probability counts_pmf[f, c]; 0 once the threshold is reached
    (the bonus is paid then)."""
    U, T, n = model.U, model.T, model.n
    out = np.zeros((64, U))
    if not T:
        return out
    for sub in range(64):
        # distribution of the capped sum still to come
        dist = np.zeros(T + 1)
        dist[0] = 1.0
        for f in range(1, 7):
            if sub >> (f - 1) & 1:
                nd = np.zeros(T + 1)
                for c in range(n + 1):
                    nd[np.minimum(np.arange(T + 1) + f * c, T)] += dist * counts_pmf[f, c]
                dist = nd
        tail = np.cumsum(dist[::-1])[::-1]  # tail[x] = P(X >= x)
        for u in range(T):
            out[sub, u] = model.bonus * tail[T - u]
    return out


def save_json(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)
    except OSError:
        pass
