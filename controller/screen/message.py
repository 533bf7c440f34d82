"""Screens that are not the scoreboard: words in large letters (``render_message``) and a picture
with a caption under it (``render_picture``): `calibrate-live`'s steps and the floor it found.

Both return a numpy RGB uint8 array of shape (h, w, 3) and use the scoreboard's font, colours and
text helpers (``scoreboard.font``, ``wrap_text``, ``text_mask``). A line break in the text starts
a new paragraph; the first paragraph is bold. The letters are as large as the words allow: the
largest size from about a sixth of the screen's height (a caption: a fifteenth) down to the
scoreboard's smallest (``min_text_px``) at which every word fits (or up to 15% smaller when that
saves a line); below that the first paragraph (what happened) is cut with an ellipsis and the
others (what to do) are kept.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from PIL import Image

from controller.screen import scoreboard as sb

LINE = 1.25  # line height in ems
SMALLER = 0.85  # the letters may be this much smaller when that saves a line


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in text.splitlines() if p.strip()] or [""]


def _wrap(paras: Sequence[str], width: int, px: int, max_lines: int) -> list[tuple[str, bool]] | None:
    """Every paragraph wrapped at ``px`` (the first bold); None when a word is wider than ``width``
    or the lines are more than ``max_lines``."""
    out: list[tuple[str, bool]] = []
    for i, p in enumerate(paras):
        bold = i == 0
        if any(sb.text_width(w, px, bold) > width for w in p.split()):
            return None
        out += [(line, bold) for line in sb.wrap_text(p, width, px, 1000, bold)]
    return out if len(out) <= max_lines else None


def _block(text: str, width: int, height: int, max_px: int, min_px: int, max_lines: int = 1000) -> tuple[int, list[tuple[str, bool]]]:
    """The largest font size (from ``max_px`` down to ``min_px``) at which ``text`` fits in
    width x height, with its lines; at ``min_px`` what does not fit is cut."""
    paras = _paragraphs(text)
    best: tuple[int, list[tuple[str, bool]]] | None = None
    for px in range(max_px, min_px - 1, -1):
        lines = _wrap(paras, width, px, min(max_lines, int(height // (px * LINE))))
        if lines is None:
            continue
        if best is None:
            best = px, lines
        elif len(lines) < len(best[1]):  # a size a little smaller that needs a line less (no word alone on a line)
            return px, lines
        if px < best[0] * SMALLER:
            break
    if best is not None:
        return best
    # at the smallest size the first paragraph (what happened) is cut, the rest (what to do) kept
    room = max(1, min(max_lines, int(height // (min_px * LINE))))
    rest = [(line, False) for p in paras[1:] for line in sb.wrap_text(p, width, min_px, room, False)]
    rest = rest[: max(0, room - 1)] if len(paras) > 1 else []
    first = [(line, True) for line in sb.wrap_text(paras[0], width, min_px, room - len(rest), True)]
    return min_px, first + rest


def _paste_lines(img: Image.Image, lines: Sequence[tuple[str, bool]], px: int, box: tuple[int, int, int, int],
                 colors: tuple[sb.RGB, sb.RGB], centre: bool) -> None:
    """The lines in ``box`` (x0, y0, x1, y1), block centred vertically; bold lines in colors[0]."""
    x0, y0, x1, y1 = box
    lh = round(px * LINE)
    top = y0 + max(0, (y1 - y0 - lh * len(lines)) // 2)
    for i, (line, bold) in enumerate(lines):
        if not line:
            continue
        anchor = "mm" if centre else "lm"
        mask, dx, dy = sb.text_mask(line, px, bold, anchor)
        x = (x0 + x1) // 2 if centre else x0
        y = top + i * lh + lh // 2
        img.paste(colors[0] if bold else colors[1], (x + dx, y + dy), mask)


def render_message(text: str, size: tuple[int, int] = (800, 480)) -> np.ndarray:
    """``text`` in large letters, centred on the scoreboard's background."""
    W, H = int(size[0]), int(size[1])
    margin = max(8, round(min(W, H) / 16))
    min_px = sb.min_text_px((W, H))
    px, lines = _block(text, W - 2 * margin, H - 2 * margin, max(min_px, round(H / 6)), min_px)
    img = Image.new("RGB", (W, H), sb.BG)
    _paste_lines(img, lines, px, (margin, margin, W - margin, H - margin), (sb.TEXT, sb.TEXT), centre=True)
    return np.asarray(img)


def render_picture(picture: np.ndarray, text: str, size: tuple[int, int] = (800, 480), max_lines: int = 3) -> np.ndarray:
    """``picture`` (RGB) scaled to fit above a caption band holding ``text`` (at most ``max_lines``
    lines; the first paragraph bold and white, the rest yellow, as the scoreboard's options)."""
    from hardware.display import fit_to

    W, H = int(size[0]), int(size[1])
    min_px = sb.min_text_px((W, H))
    pad = max(6, round(min(W, H) / 60))
    px, lines = _block(text, W - 2 * pad, H / 3, max(min_px, round(min(W, H) / 15)), min_px, max_lines)
    band = round(px * LINE) * len(lines) + 2 * pad
    img = Image.new("RGB", (W, H), sb.PANEL)
    if H - band > 0:
        img.paste(Image.fromarray(fit_to(picture, W, H - band)), (0, 0))
    _paste_lines(img, lines, px, (pad, H - band + pad, W - pad, H - pad), (sb.TEXT, sb.OPTION), centre=False)
    return np.asarray(img)
