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


def test_a_shining_black_top_s_own_corner_is_no_stray_spot_for_light_pips() -> None:
    # a glossy black die's top shines grey against its dark bevel; turned 45 degrees, its diagonal runs
    # along the image's x axis, and in the whiteness image's top-hat (a square kernel on the image's
    # axes, 1.1 a) the top's own corners keep its tone where it narrows under the kernel. A two of light
    # pips on that diagonal is plain within PLAIN_DISC_LIGHT (the disc of PLAIN_DISC reaches the corners).
    import cv2

    from vision.dice import PLAIN_DISC, PLAIN_DISC_LIGHT, _plain
    from vision.pips import fit_layout, odd

    def face(spot: bool = False) -> np.ndarray:
        img = np.full((120, 120), 30, np.uint8)
        # the shining flat top: half side 1.45 a (the rounded bevel takes the rest of 1.75), its corners
        # 2.05 a from the centre along x and y; pips 220 on a top of 140 (whiteness), slightly blurred
        d = 1.45 * A * 2 ** 0.5
        cv2.fillConvexPoly(img, np.round([[c - d, c], [c, c - d], [c + d, c], [c, c + d]]).astype(np.int32), 140)
        for x in xs:
            cv2.circle(img, (round(x), round(c)), 3, 220, -1)
        if spot:  # a stray light spot on the face, off the pips' diagonal
            cv2.circle(img, (round(c), round(c - 0.9 * A)), 2, 220, -1)
        return cv2.GaussianBlur(img, (0, 0), 1.0)

    c = 60.0
    xs = (c - A * 2 ** 0.5, c + A * 2 ** 0.5)  # a two's pips: corner offsets (-1, -1) and (1, 1), turned 45 degrees
    img = face()
    kb = cv2.getStructuringElement(cv2.MORPH_RECT, (odd(1.1 * A), odd(1.1 * A)))
    hat = cv2.morphologyEx(img, cv2.MORPH_TOPHAT, kb)
    contrast = float(hat[round(c), round(xs[0])])
    fit = fit_layout(np.array([[x, c] for x in xs]))
    assert fit is not None and fit.value == 2 and abs(fit.a - A) < 0.1
    light = [Pip(x, c, 3.0, False, contrast, 1.0, 1.0) for x in xs]
    assert PLAIN_DISC_LIGHT < PLAIN_DISC
    assert _plain(hat, light, [0, 1], fit, contrast, narrow=True)
    assert not _plain(hat, light, [0, 1], fit, contrast)  # (a face bigger than PLAIN_LIGHT_GROWN: the wider disc)
    # the same map read as a dark face's (its disc reaching 1.65 a) meets the top's corners
    dark = [Pip(x, c, 3.0, True, contrast, 1.0, 1.0) for x in xs]
    assert not _plain(hat, dark, [0, 1], fit, contrast, narrow=True)
    # a stray light spot between the pips still fails the light face
    hat2 = cv2.morphologyEx(face(spot=True), cv2.MORPH_TOPHAT, kb)
    assert not _plain(hat2, light, [0, 1], fit, contrast, narrow=True)
