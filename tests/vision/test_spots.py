"""Pips of a known size (the calibrated path): centre-surround spots, split when blurred together,
and kept only on a plain face."""

from __future__ import annotations

import cv2
import numpy as np

from vision.pips import spots_at, spots_response

A = 8.0  # corner-pip offset, px (the reader's working scale)


def _die(pips: list[tuple[float, float]], blur: float, felt: int = 60, body: int = 230, pip: int = 30) -> np.ndarray:
    """A grey picture: one square die, side 4a, at (60, 60) on felt, with dark pips at template positions."""
    img = np.full((120, 120), felt, np.uint8)
    cv2.rectangle(img, (60 - 16, 60 - 16), (60 + 16, 60 + 16), body, -1)
    for u, v in pips:
        cv2.circle(img, (int(round(60 + u * A)), int(round(60 + v * A))), 3, pip, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), blur)


SIX = [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]


def test_a_blurred_six_gives_six_spots() -> None:
    g = _die(SIX, blur=1.3)  # the column's pips run together at half their peak
    dark, _ = spots_response(g, None, A)
    spots = spots_at(dark, True, 0.38 * A, 30.0, base=g, ring=0.6 * A)
    assert len(spots) == 6
    for u, v in SIX:
        assert any(abs(p.x - (60 + u * A)) < 1.5 and abs(p.y - (60 + v * A)) < 1.5 for p in spots)


def test_a_crevice_between_touching_dice_is_no_pip() -> None:
    """Two dice 2 px apart on dark felt: the crevice's ends look like dark spots, but their ring
    runs over both dice and the felt, not over one plain face."""
    img = np.full((120, 160), 60, np.uint8)
    cv2.rectangle(img, (30, 44), (62, 76), 230, -1)
    cv2.rectangle(img, (64, 44), (96, 76), 230, -1)
    g = cv2.GaussianBlur(img, (0, 0), 1.0)
    dark, _ = spots_response(g, None, A)
    assert len(spots_at(dark, True, 0.38 * A, 30.0)) > 0  # without the ring test: false pips
    assert spots_at(dark, True, 0.38 * A, 30.0, base=g, ring=0.6 * A) == []


def test_where_limits_the_search() -> None:
    g = _die([(0, 0)], blur=1.0)
    dark, _ = spots_response(g, None, A)
    assert len(spots_at(dark, True, 0.38 * A, 30.0)) == 1
    nowhere = np.zeros(g.shape, bool)
    assert spots_at(dark, True, 0.38 * A, 30.0, nowhere) == []


def _faint_six(faint: int) -> np.ndarray:
    """A BGR die with a six: one column of strong pips (grey 30 on 230) and one of faint ones."""
    g = np.full((120, 120), 60, np.uint8)
    cv2.rectangle(g, (60 - 29, 60 - 29), (60 + 29, 60 + 29), 230, -1)  # side 3.6 a, a = 16 px
    for (u, v), pip in zip(SIX, [30, 30, 30, faint, faint, faint]):
        cv2.circle(g, (int(round(60 + u * 16)), int(round(60 + v * 16))), 6, pip, -1, cv2.LINE_AA)
    return cv2.cvtColor(cv2.GaussianBlur(g, (0, 0), 1.5), cv2.COLOR_GRAY2BGR)


def test_a_faint_column_is_found_by_a_second_look_near_the_loose_pips(monkeypatch) -> None:
    import vision.reader as reader

    faint = _faint_six(130)
    # the first look alone finds only some pips: no face
    monkeypatch.setattr(reader, "T_SECOND", reader.T_SPOT)
    monkeypatch.setattr(reader, "SECOND_ODD", 5)
    assert reader.detect(faint, 16.0, True, kinds="dark").faces == ()
    monkeypatch.undo()
    # the second, lower and more tolerant around the loose pips, finds the rest: a six
    assert [f.value for f in reader.detect(faint, 16.0, True, kinds="dark").faces] == [6]
    # a clear six reads the same; a blank where the faint column was leaves the half six unread
    assert [f.value for f in reader.detect(_faint_six(30), 16.0, True, kinds="dark").faces] == [6]
    assert reader.detect(_faint_six(230), 16.0, True, kinds="dark").faces == ()


def _glossy_black(pips: list[tuple[float, float]], core: int, top: int = 12, face: int = 118, bevel: int = 15,
                  felt: int = 40) -> np.ndarray:
    """A whiteness picture of a glossy black die in bright light: its flat top (2 `top` px wide) shines
    grey (`face`), its wide bevel stays black out to 4 a, and its white pips show as a small bright
    core (`core`) in a darker rim: a low-contrast pip. a = 8 px."""
    img = np.full((120, 120), felt, np.uint8)
    cv2.rectangle(img, (60 - 16, 60 - 16), (60 + 16, 60 + 16), bevel, -1)
    cv2.rectangle(img, (60 - top, 60 - top), (60 + top, 60 + top), face, -1)
    for u, v in pips:
        c = (int(round(60 + u * A)), int(round(60 + v * A)))
        cv2.circle(img, c, 3, face - 10, -1, cv2.LINE_AA)
        cv2.circle(img, c, 2, core, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), 0.8)


def test_a_faint_light_pip_on_a_wholly_even_face_is_found_with_t_even() -> None:
    w = _glossy_black([(0, 0)], core=185)
    _, light = spots_response(None, w, A)
    assert spots_at(light, False, 0.38 * A, 30.0, base=w, ring=0.6 * A) == []  # under the threshold
    found = spots_at(light, False, 0.38 * A, 30.0, base=w, ring=0.6 * A, t_even=18.0)
    assert len(found) == 1 and abs(found[0].x - 60) < 1.0 and abs(found[0].y - 60) < 1.0
    # a fainter speck stays no pip
    w = _glossy_black([(0, 0)], core=150)
    _, light = spots_response(None, w, A)
    assert spots_at(light, False, 0.38 * A, 30.0, base=w, ring=0.6 * A, t_even=18.0) == []


def test_a_light_corner_pip_by_a_black_bevel_passes_a_one_sided_ring() -> None:
    w = _glossy_black([(1, 1)], core=200, top=11)
    _, light = spots_response(None, w, A)
    # the ring around the corner pip runs over the grey top and the black bevel: not even
    assert spots_at(light, False, 0.38 * A, 30.0, base=w, ring=0.6 * A) == []
    found = spots_at(light, False, 0.38 * A, 30.0, base=w, ring=0.6 * A, one_sided=True)
    assert len(found) == 1 and abs(found[0].x - 68) < 1.0 and abs(found[0].y - 68) < 1.0


def test_a_white_die_corner_against_its_shadow_fails_a_one_sided_ring() -> None:
    """A white die's corner next to its dark shadow is a light spot, but no brighter than the die."""
    img = np.full((120, 120), 120, np.uint8)
    cv2.rectangle(img, (30, 30), (70, 70), 235, -1)
    cv2.rectangle(img, (70, 40), (90, 80), 25, -1)  # the shadow beside it
    w = cv2.GaussianBlur(img, (0, 0), 1.0)
    _, light = spots_response(None, w, A)
    assert spots_at(light, False, 0.38 * A, 30.0, base=w, ring=0.6 * A, one_sided=True, t_even=18.0) == []
