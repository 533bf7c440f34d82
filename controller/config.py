"""The appliance's configuration: one TOML file (``/etc/yatzycam/config.toml``).

``load(path) -> Config`` reads and checks it; ``load(None)`` gives the defaults.
Every key has a default, unknown keys are refused, and a wrong key, value or
type raises :class:`ConfigError` with one line naming the key and what is
allowed. ``systemd/config.example.toml`` documents every key (a test keeps the
two in step).

Exit status: a ConfigError carries ``exit_code = 78`` (EX_CONFIG from
sysexits.h) whichever command meets it; the unit lists 78 in
``RestartPreventExitStatus=`` so that a bad config file does not make systemd
restart the service in a loop. Other bad input stays exit 2.

Relative paths in ``[paths]`` are relative to the state directory, the folder
of ``controller.store.default_db_path()``: the service's ``$STATE_DIRECTORY``
(``/var/lib/yatzycam``), else ``$XDG_DATA_HOME/yatzycam``, else
``~/.local/share/yatzycam``; except that the service's own file
(``/etc/yatzycam/config.toml``) always means ``/var/lib/yatzycam``, so that
``sudo yatzycam doctor`` looks where the service does.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.game.game import MAX_PLAYERS, GameError, Setup
from controller.game.rules import LANGUAGES, RulesError
from controller.game.rules import load as load_rules
from controller.store import default_db_path
from controller.tomlfile import read_toml
from vision.inputfile import not_a_file

EX_CONFIG = 78
DEFAULT_PATH = Path("/etc/yatzycam/config.toml")
SERVICE_STATE = Path("/var/lib/yatzycam")  # the unit's StateDirectory=yatzycam
BCM_PINS = range(0, 28)  # GPIO0..GPIO27 on the 40-pin header
HOLD_S = (0.3, 10.0)  # a hold a person makes on purpose: longer than a press, well under the panel's stuck limit
SHUTDOWN_S = (1.0, 11.0)  # the power-off hold: longer than the menu hold, under the 12 s stuck limit


class ConfigError(ValueError):
    """A bad config file: one line naming the key and what is allowed; exit 78."""

    user_error = True
    exit_code = EX_CONFIG


@dataclass(frozen=True)
class PinsConfig:
    throw: int | None = 17  # the one button every setup has: register a throw
    next: int | None = None  # optional extra buttons (None = not wired)
    score: int | None = None
    undo: int | None = None
    leds_throws: tuple[int, ...] = (5, 6, 13)  # ordinary throws left
    leds_bank: tuple[int, ...] = (19, 26, 12, 16, 20, 21)  # banked throws
    hold_time: float = 0.8  # seconds for a "hold" (a long press)
    bounce_time: float | None = 0.03  # seconds of software debounce; None = none
    shutdown_hold: float = 5.0  # seconds holding the throw button to ask for a safe shutdown; 0 = off

    @property
    def buttons(self) -> dict[str, int]:
        """The wired buttons: name -> BCM pin."""
        return {k: v for k in ("throw", "next", "score", "undo") if (v := getattr(self, k)) is not None}

    @property
    def all_pins(self) -> tuple[int, ...]:
        return (*self.buttons.values(), *self.leds_throws, *self.leds_bank)


@dataclass(frozen=True)
class CameraConfig:
    source: str = "picamera2"  # picamera2 | opencv | folder | sim
    size: tuple[int, int] = (1280, 960)  # main stream (the frames that are read)
    lores: tuple[int, int] = (320, 240)  # small stream watched for motion
    exposure: int | None = None  # microseconds; None = "auto" (locked once settled)
    focus: float | None = None  # lens position in dioptres; None = "auto" (Camera Module 3)
    device: int | str = 0  # opencv: camera index or a device path
    folder: Path | None = None  # folder: the image folder (required for source = "folder")


@dataclass(frozen=True)
class DisplayConfig:
    sink: str = "framebuffer"  # framebuffer | window | png | terminal
    device: str = "/dev/fb0"
    size: tuple[int, int] | None = None  # None = "auto": the device's own size
    rotation: int = 0  # 0 | 90 | 180 | 270
    language: str = "sv"  # sv | nb | da | en
    blank_after_s: int = 600  # blank the screen after this many idle seconds; 0 = never
    file: Path = Path("screen.png")  # png sink: pictures screen-000001.png, ... in this file's folder


@dataclass(frozen=True)
class GameConfig:
    rules: str = "yatzy"
    players: int | tuple[str, ...] = ()  # a count, or names; () = the rule set's default number of players
    forced_order: bool | None = None  # None = the rule set's own setting
    banking: bool | None = None  # None = the rule set's own setting
    advisor: bool = False

    @property
    def players_arg(self) -> int | list[str] | None:
        """``players`` as Setup.create takes it (None: the rule set's default)."""
        return self.players if isinstance(self.players, int) else list(self.players) or None


@dataclass(frozen=True)
class PathsConfig:
    db: Path
    calibration: Path
    images: Path  # throw images kept for later checks


@dataclass(frozen=True)
class Config:
    pins: PinsConfig
    camera: CameraConfig
    display: DisplayConfig
    game: GameConfig
    paths: PathsConfig
    source: Path | None = None  # the file it was read from (None = defaults)


# --------------------------------------------------------------------- parsing


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the service keeps its database, calibration and throw images (the store's folder)."""
    return default_db_path(env).parent


def _fmt(v: Any) -> str:
    return repr(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)


def _int(lo: int, hi: int | None = None) -> Callable[[Any], int]:
    def parse(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"must be a whole number, not {_fmt(v)}")
        if v < lo or (hi is not None and v > hi):
            raise ValueError(f"must be {lo}..{hi}" if hi is not None else f"must be at least {lo}", v)
        return v

    return parse


def _seconds(lo: float, hi: float, zero_off: bool = False) -> Callable[[Any], float | None]:
    """A number of seconds lo..hi (NaN and infinity refused); with ``zero_off``, 0 means "off" (None)."""

    def parse(v: Any) -> float | None:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"must be a number of seconds, not {_fmt(v)}")
        if zero_off and v == 0:
            return None
        if not (math.isfinite(v) and lo <= v <= hi):
            raise ValueError(f"must be {lo:g}..{hi:g} seconds" + (" (0 = off)" if zero_off else ""), v)
        return float(v)

    return parse


def _choice(*allowed: Any) -> Callable[[Any], Any]:
    def parse(v: Any) -> Any:
        if not any(type(v) is type(a) and v == a for a in allowed):
            raise ValueError(f"must be one of {', '.join(_fmt(a) for a in allowed)}", v)
        return v

    return parse


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"must be true or false, not {_fmt(v)}")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str) or not v:
        raise ValueError(f"must be a non-empty string, not {_fmt(v)}")
    return v


def _size(lo: int, hi: int, auto: bool = False) -> Callable[[Any], tuple[int, int] | None]:
    def parse(v: Any) -> tuple[int, int] | None:
        if auto and v == "auto":
            return None
        ok = isinstance(v, list) and len(v) == 2 and all(type(x) is int and lo <= x <= hi for x in v)
        if not ok:
            extra = '"auto" or ' if auto else ""
            raise ValueError(f"must be {extra}[width, height] in pixels, each {lo}..{hi}", v)
        return (v[0], v[1])

    return parse


def _pin(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v not in BCM_PINS:
        raise ValueError("must be a BCM GPIO number 0..27 (omit the key if not wired)", v)
    return v


def _pins(max_len: int) -> Callable[[Any], tuple[int, ...]]:
    def parse(v: Any) -> tuple[int, ...]:
        if not isinstance(v, list) or len(v) > max_len:
            raise ValueError(f"must be a list of at most {max_len} BCM GPIO numbers ([] = no LEDs)", v)
        return tuple(_pin(x) for x in v)

    return parse


def _exposure(v: Any) -> int | None:
    if v == "auto":
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 10 <= v <= 1_000_000:
        raise ValueError('must be "auto" or an exposure time in microseconds, 10..1000000', v)
    return v


def _focus(v: Any) -> float | None:
    if v == "auto":
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 32:
        raise ValueError('must be "auto" or a lens position in dioptres, 0..32', v)
    return float(v)


def _device(v: Any) -> int | str:
    if isinstance(v, bool) or not isinstance(v, (int, str)) or (isinstance(v, int) and v < 0) or v == "":
        raise ValueError("must be a camera index (0, 1, ...) or a device path such as \"/dev/video0\"", v)
    return v


def _path(v: Any) -> Path:
    p = Path(_str(v))
    try:
        return p.expanduser()
    except RuntimeError:  # "~name" of no such user, or no home directory to put for "~"
        raise ValueError("starts with ~ but names no user's home directory", v) from None


def _rules(v: Any) -> str:
    name = _str(v)
    try:
        load_rules(name)
    except RulesError as e:
        raise ValueError(str(e)) from None
    return name


def _players(v: Any) -> int | tuple[str, ...]:
    """A count (the game names them in the pad's language) or the names."""
    n = MAX_PLAYERS
    if isinstance(v, int) and not isinstance(v, bool):
        if not 1 <= v <= n:
            raise ValueError(f"a number of players must be 1..{n}", v)
        return v
    if (
        not isinstance(v, list)
        or not 1 <= len(v) <= n
        or not all(isinstance(x, str) and x.strip() for x in v)
        or len({x.strip() for x in v}) != len(v)
    ):
        raise ValueError(f'must be a count 1..{n} or a list of 1..{n} different names, e.g. ["Anna", "Bo"]', v)
    return tuple(x.strip() for x in v)


# section -> key -> parser (the dataclass defaults are the defaults)
_SCHEMA: dict[str, tuple[type, dict[str, Callable[[Any], Any]]]] = {
    "pins": (
        PinsConfig,
        {
            "throw": _pin,
            "next": _pin,
            "score": _pin,
            "undo": _pin,
            "leds_throws": _pins(3),
            "leds_bank": _pins(6),
            "hold_time": _seconds(*HOLD_S),
            "bounce_time": _seconds(0.001, 0.5, zero_off=True),
            "shutdown_hold": _seconds(*SHUTDOWN_S, zero_off=True),
        },
    ),
    "camera": (
        CameraConfig,
        {
            "source": _choice("picamera2", "opencv", "folder", "sim"),
            "size": _size(64, 4608),
            "lores": _size(32, 1920),
            "exposure": _exposure,
            "focus": _focus,
            "device": _device,
            "folder": _path,
        },
    ),
    "display": (
        DisplayConfig,
        {
            "sink": _choice("framebuffer", "window", "png", "terminal"),
            "device": _str,
            "size": _size(32, 7680, auto=True),
            "rotation": _choice(0, 90, 180, 270),
            "language": _choice(*LANGUAGES),
            "blank_after_s": _int(0, 7 * 86400),
            "file": _path,
        },
    ),
    "game": (
        GameConfig,
        {
            "rules": _rules,
            "players": _players,
            "forced_order": _bool,
            "banking": _bool,
            "advisor": _bool,
        },
    ),
    "paths": (PathsConfig, {"db": _path, "calibration": _path, "images": _path}),
}

_PATH_DEFAULTS = {"calibration": "calibration.json", "images": "throws"}  # db: the store's default


def keys() -> list[str]:
    """Every config key as ``section.key`` (the example file documents each)."""
    return [f"{s}.{k}" for s, (_, parsers) in _SCHEMA.items() for k in parsers]


def _key(name: str) -> str:
    """A key as the file spells it, quoted when it holds a line break or another unprintable character."""
    return name if name.isprintable() else repr(name)


def _section(data: dict, name: str, shown: str) -> dict[str, Any]:
    cls, parsers = _SCHEMA[name]
    raw = data.get(name, {})
    if not isinstance(raw, dict):
        raise ConfigError(f"{shown}: [{name}] must be a table")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in parsers:
            raise ConfigError(f"{shown}: {name}.{_key(key)}: unknown key (allowed in [{name}]: {', '.join(parsers)})")
        try:
            out[key] = parsers[key](value)
        except ValueError as e:
            why = e.args[0]
            got = f" (got {_fmt(value)})" if len(e.args) > 1 else ""
            raise ConfigError(f"{shown}: {name}.{key}: {why}{got}") from None
    return out


def parse(data: dict, shown: str = "config", env: Mapping[str, str] | None = None) -> Config:
    """A Config from already-parsed TOML data; ``shown`` names it in errors."""
    for name in data:
        if name not in _SCHEMA:
            raise ConfigError(f"{shown}: [{_key(name)}]: unknown section (allowed: {', '.join(_SCHEMA)})")
    vals = {name: _section(data, name, shown) for name in _SCHEMA}
    base = state_dir(env)
    defaults = {**_PATH_DEFAULTS, "db": default_db_path(env).name}
    paths = {k: base / Path(vals["paths"].get(k, defaults[k])) for k in defaults}
    display = vals["display"]
    display["file"] = base / display.get("file", DisplayConfig.file)
    cfg = Config(
        pins=PinsConfig(**vals["pins"]),
        camera=CameraConfig(**vals["camera"]),
        display=DisplayConfig(**display),
        game=GameConfig(**vals["game"]),
        paths=PathsConfig(**paths),
    )
    _check_whole(cfg, shown)
    return cfg


def _check_whole(cfg: Config, shown: str) -> None:
    """Rules that join several keys."""
    seen: dict[int, str] = {}
    pins = cfg.pins
    named = [(f"pins.{k}", v) for k, v in pins.buttons.items()]
    named += [("pins.leds_throws", p) for p in pins.leds_throws] + [("pins.leds_bank", p) for p in pins.leds_bank]
    for key, pin in named:
        if pin in seen:
            raise ConfigError(f"{shown}: {key}: GPIO{pin} is already used by {seen[pin]}; every pin may be used once")
        seen[pin] = key
    if cfg.camera.source == "folder" and cfg.camera.folder is None:
        raise ConfigError(f'{shown}: camera.folder: required when camera.source = "folder" (a folder of images)')
    if cfg.camera.lores[0] > cfg.camera.size[0] or cfg.camera.lores[1] > cfg.camera.size[1]:
        raise ConfigError(f"{shown}: camera.lores: must not be larger than camera.size {list(cfg.camera.size)}")
    if pins.shutdown_hold is not None and pins.shutdown_hold <= pins.hold_time:
        raise ConfigError(f"{shown}: pins.shutdown_hold: must be longer than pins.hold_time ({pins.hold_time:g} s), or 0 = off")
    for key in ("db", "calibration"):  # files the appliance opens: not a folder or a device (no restart loop on it)
        path = getattr(cfg.paths, key)
        why = not_a_file(path)
        if why:
            raise ConfigError(f"{shown}: paths.{key}: {path}: {why}")
    g = cfg.game
    try:  # the game the config sets up, as `play` will make it (before it makes any database)
        Setup.create(g.rules, g.players_arg, g.forced_order, True if g.banking is None else g.banking)
    except (GameError, RulesError) as e:
        raise ConfigError(f"{shown}: [game]: {e}") from None


def load(path: str | Path | None, env: Mapping[str, str] | None = None) -> Config:
    """Read and check a config file; ``None`` gives the defaults."""
    if path is None:
        return parse({}, "defaults", env)
    path = Path(path)
    data = read_toml(path, ConfigError, "config file", " (copy systemd/config.example.toml)")
    cfg = parse(data, str(path), service_env(path, env))
    return Config(cfg.pins, cfg.camera, cfg.display, cfg.game, cfg.paths, source=path)


def service_env(path: Path, env: Mapping[str, str] | None = None, etc: Path = DEFAULT_PATH.parent) -> Mapping[str, str]:
    """The service's config file means the service's state directory, whoever reads it.

    ``sudo yatzycam doctor`` (no $STATE_DIRECTORY) then checks /var/lib/yatzycam, as the unit sees it.
    """
    env = os.environ if env is None else env
    if not env.get("STATE_DIRECTORY") and path.resolve().parent == etc.resolve():
        return {**env, "STATE_DIRECTORY": str(SERVICE_STATE)}
    return env


def defaults(env: Mapping[str, str] | None = None) -> Config:
    return load(None, env)


# ------------------------------------------------------------- config -> devices


def open_camera(cfg: Config, clock: Any = None) -> Any:
    """The FrameSource the config names (device code imported lazily). Raises CameraError.

    ``sim`` is a simulated tray of the configured rule set's dice (``vision.synthetic``).
    """
    from hardware import camera

    cam = cfg.camera
    if cam.source == "picamera2":
        return camera.PiCameraSource(
            size=cam.size, small=cam.lores, exposure_us=cam.exposure, lens_position=cam.focus, clock=clock
        )
    if cam.source == "opencv":
        return camera.OpenCVSource(device=cam.device, size=cam.size)
    if cam.source == "folder":
        return camera.FolderSource(cam.folder, loop=True)
    import numpy as np

    from vision.synthetic import SimTable

    table = SimTable(load_rules(cfg.game.rules).dice, np.random.default_rng(0), size=cam.size)
    source = camera.SimulatedSource(table, clock or camera.ManualClock())
    source.throw()
    return source


def open_display(cfg: Config) -> tuple[Any, tuple[int, int]]:
    """The display sink the config's ``display`` section names (device code imported lazily) and
    the size screens are drawn at: ``display.size``, else the device's own, else 800x480; a
    rotation of 90 or 270 swaps it (the drawing is turned before it is shown). Raises DisplayError."""
    from hardware import display

    d = cfg.display
    if d.sink == "terminal":
        sink: Any = display.TerminalSink(clear=True)
    elif d.sink == "png":
        sink = display.PngSink(Path(d.file).parent, prefix=Path(d.file).stem)
    elif d.sink == "window":
        sink = display.WindowSink()
    else:
        sink = display.FramebufferSink(d.device)
    w, h = d.size or getattr(sink, "size", None) or (800, 480)
    return sink, ((h, w) if d.rotation in (90, 270) else (w, h))
