"""Read a TOML file, turning every way it can fail into one line of the caller's error class."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_toml(path: str | Path, error: type[Exception], what: str, hint: str = "") -> dict[str, Any]:
    """The parsed file, or ``error("PATH: why")``; ``what`` names the file's kind ("rule-set file")."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{shown}: no such {what}{hint}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise error(f"{shown}: cannot read: {e}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise error(f"{shown}: not valid TOML: {e}") from None
