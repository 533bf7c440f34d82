"""vision.dice.group on hand-placed pips: which faces it takes with a known die size (the reader's
calibrated path). The hat maps are blank (a plain face everywhere), so only the grouping rules act."""

from __future__ import annotations

import numpy as np

from vision.dice import Limits, alike, group
from vision.pips import Pip

A = 8.0  # corner-pip offset, working pixels
LIM = Limits(max_err=0.15, min_aniso=0.8, a_hint=A)
BLANK = np.zeros((200, 200), np.uint8)


def _pip(x: float, y: float, contrast: float = 200.0, r: float = 3.0) -> Pip:
    return Pip(x, y, r, True, contrast, 1.0, 1.0)


def _faces(pips, accept=None):
    g = group(pips, BLANK, BLANK, LIM, accept)
    return sorted((f.value, round(f.cx), round(f.cy)) for f in g.faces), g.leftover


def test_a_faint_speck_a_diagonal_from_a_one_is_no_two() -> None:
    # a one's pip and, a two's diagonal away, a speck twenty times fainter (felt fibre, bevel shading)
    pips = [_pip(100, 100), _pip(100 + 2 * A, 100 + 2 * A, contrast=10.0)]
    faces, left = _faces(pips)
    assert faces[0] == (1, 100, 100)  # the one stands
    assert (2, 108, 108) not in faces
    # alike contrasts do make the two
    faces, _ = _faces([_pip(100, 100), _pip(100 + 2 * A, 100 + 2 * A, contrast=120.0)])
    assert faces == [(2, 108, 108)]
    assert alike(50, 200) and not alike(40, 200)


def test_of_two_pairings_sharing_a_pip_the_right_size_wins() -> None:
    # an L of three pips: (100,100)-(116,116) is a two of the calibrated size (a = 8); (100,100)-(118,82)
    # would be one 10% too big. Listed so that the wrong pair comes first.
    pips = [_pip(100, 100), _pip(100 + 2.2 * A, 100 - 2.2 * A), _pip(100 + 2 * A, 100 + 2 * A)]
    faces, left = _faces(pips)
    assert (2, 108, 108) in faces
    assert not any(v == 2 and cy < 100 for v, cx, cy in faces)


def test_a_face_the_caller_refuses_leaves_its_pips_to_the_next() -> None:
    pips = [_pip(100, 100), _pip(100 + 2 * A, 100 + 2 * A), _pip(100 - 2 * A, 100 + 2 * A)]
    faces, _ = _faces(pips)
    first = [f for f in faces if f[0] == 2]
    assert len(first) == 1
    refused = first[0]
    # refuse that two: the other pairing through the shared pip is taken instead
    faces, _ = _faces(pips, accept=lambda f: (f.value, round(f.cx), round(f.cy)) != refused)
    assert refused not in faces
    assert any(v == 2 for v, _, _ in faces)
    # refuse everything: nothing is read, every pip is left over
    faces, left = _faces(pips, accept=lambda f: False)
    assert faces == [] and sorted(left) == [0, 1, 2]


def test_of_two_exact_twos_the_one_of_a_die_s_size_ranks_first() -> None:
    """The reader keeps one of two faces closer than a die: two pips fit a two exactly, so their
    strengths tie but for float noise, and then the size decides."""
    from vision.dice import Face
    from vision.pips import fit_layout
    from vision.reader import _rank

    def two(x, y, a, nudge=0.0):
        fit = fit_layout(np.array([[x - a, y - a], [x + a, y + a]]))
        return Face(2, fit.cx, fit.cy, fit.a, fit.angle, 3.0, True, nudge, (0, 1), fit)

    right, big = two(100, 100, A), two(96, 96, 1.12 * A)
    assert _rank(right, A) > _rank(big, A)
    assert _rank(two(100, 100, A, nudge=6e-14), A) > _rank(big, A)  # the float noise of an exact fit
    assert _rank(two(100, 100, A, nudge=0.05), A) < _rank(big, A)  # a worse fit still loses


def test_a_pair_much_bigger_than_a_measured_die_is_no_two() -> None:
    # a one-pip and a touching die's pip (or a light patch of a white die's face), 1.2 two-diagonals
    # apart: a die on the rim looks at most ~11% bigger, so with a size measured on a reference
    # throw two pips this far apart are two dice's; a size only estimated allows 25%
    from dataclasses import replace

    from vision.dice import MEASURED_GROWN

    measured = replace(LIM, max_grown=MEASURED_GROWN)
    far = [_pip(100, 100), _pip(100 + 2.4 * A, 100 + 2.4 * A)]
    assert [f.value for f in group(far, BLANK, BLANK, measured).faces] == [1, 1]
    assert [f.value for f in group(far, BLANK, BLANK, LIM).faces] == [2]
    near = [_pip(100, 100), _pip(100 + 2.2 * A, 100 + 2.2 * A)]  # 10% bigger: a two either way
    assert [f.value for f in group(near, BLANK, BLANK, measured).faces] == [2]
