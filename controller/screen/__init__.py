"""The screen: a ``GameView`` drawn for the small screen and as text (``scoreboard``),
with the bundled fonts (``fonts/``, DejaVu Sans Condensed and its licence).

``python -m controller.screen.scoreboard OUT_DIR [LANG ...]`` writes a PNG of every layout.
"""
