"""The renderer draws the existing pools' scenes to the same pixels as before calibration's own trays
(vision.synthetic.random_tray) were added: the detector's render cache and the vision bench's holdout
scenes depend on it. The hashes were taken before that change."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from vision import synthetic as S

FROZEN = {
    ("classic", 7): ("694a5f4dea102bf4a22a", "d906091e042c1e3fc9d7", "daa2b1f508e2147d045e"),
    ("train", 11): ("955cd48045db34c81116", "61e9b7478e07893f19a6", "1b6bbb14cc8db4dc3637"),
    ("holdout", 13): ("df9c5c982073b997c147", "e24917941615355f4fa8", "d28b226f6d96eba7200d"),
}


def _pixels_hash(img: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(img).tobytes()).hexdigest()[:20]


def frozen_hashes(pool: str, seed: int) -> tuple[str, str, str]:
    """(scene, its empty frame, a reference throw on the same table) at 640x480."""
    sc = S.random_scene(np.random.default_rng(seed), 5, size=(640, 480), pool=None if pool == "classic" else pool)
    ref = S.reference_scene(np.random.default_rng(seed + 1), 5, like=sc)
    return _pixels_hash(S.render(sc)), _pixels_hash(S.render_empty(sc)), _pixels_hash(S.render(ref))


@pytest.mark.parametrize("pool,seed", sorted(FROZEN))
def test_existing_scenes_render_as_before(pool, seed):
    assert frozen_hashes(pool, seed) == FROZEN[(pool, seed)]


if __name__ == "__main__":  # prints the table (run on the renderer before a change)
    for key in sorted(FROZEN):
        print(key, frozen_hashes(*key))
