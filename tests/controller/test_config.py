"""controller.config: defaults, the shipped example, and one-line errors naming the key."""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from controller import config

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "systemd" / "config.example.toml"
ENV = {"STATE_DIRECTORY": "/var/lib/yatzycam"}


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "config.toml"
    p.write_text(text)
    return p


def test_example_loads_and_states_the_defaults():
    cfg = config.load(EXAMPLE, ENV)
    assert replace(cfg, source=None) == config.defaults(ENV)
    assert cfg.source == EXAMPLE


def test_every_key_is_documented_in_the_example():
    text = EXAMPLE.read_text()
    section = None
    documented: set[str] = set()
    for line in text.splitlines():
        if m := re.match(r"^\[(\w+)\]", line):
            section = m.group(1)
        elif section and (m := re.match(r"^#?\s?(\w+) = ", line)):
            documented.add(f"{section}.{m.group(1)}")
    assert set(config.keys()) <= documented, set(config.keys()) - documented
    # and nothing documented that the loader would refuse
    assert documented <= set(config.keys()), documented - set(config.keys())


def test_commented_examples_in_the_example_are_valid(tmp_path):
    # Uncomment every commented key line: the result must still load.
    lines = []
    for line in EXAMPLE.read_text().splitlines():
        if re.match(r"^# (\w+) = ", line) and "folder" not in line:
            line = line[2:]
        lines.append(line)
    cfg = config.load(write(tmp_path, "\n".join(lines)), ENV)
    assert cfg.pins.buttons == {"throw": 17, "next": 27, "score": 22, "undo": 23}
    assert cfg.game.players == ("Anna", "Bo")
    assert cfg.game.forced_order is True and cfg.game.banking is False


def test_defaults_and_paths_under_the_state_directory():
    cfg = config.defaults(ENV)
    assert cfg.pins.buttons == {"throw": 17}
    assert len(cfg.pins.leds_throws) == 3 and len(cfg.pins.leds_bank) == 6
    assert len(set(cfg.pins.all_pins)) == len(cfg.pins.all_pins) == 10
    assert cfg.paths.db == Path("/var/lib/yatzycam/yatzycam.sqlite")
    assert cfg.paths.calibration == Path("/var/lib/yatzycam/calibration.json")
    assert cfg.paths.images == Path("/var/lib/yatzycam/throws")
    assert cfg.camera.exposure is None and cfg.display.size is None
    home = config.defaults({"HOME": "/home/anna"})
    assert home.paths.db == Path("/home/anna/.local/share/yatzycam/yatzycam.sqlite")
    xdg = config.defaults({"XDG_DATA_HOME": "/x", "HOME": "/home/anna"})
    assert xdg.paths.db == Path("/x/yatzycam/yatzycam.sqlite")


def test_values_are_read(tmp_path):
    p = write(
        tmp_path,
        """
[pins]
throw = 4
undo = 24
leds_throws = []
leds_bank = [7, 8]
bounce_time = 0.02
[camera]
source = "opencv"
device = "/dev/video2"
exposure = 8000
focus = 4
size = [640, 480]
[display]
sink = "png"
size = [480, 320]
rotation = 270
language = "nb"
file = "/tmp/screen.png"
[game]
rules = "special8"
players = 3
advisor = true
[paths]
db = "/data/games.db"
images = "pics"
""",
    )
    cfg = config.load(p, ENV)
    assert cfg.pins.buttons == {"throw": 4, "undo": 24}
    assert cfg.pins.leds_throws == () and cfg.pins.leds_bank == (7, 8)
    assert cfg.pins.bounce_time == 0.02
    assert (cfg.camera.source, cfg.camera.device, cfg.camera.exposure, cfg.camera.focus) == ("opencv", "/dev/video2", 8000, 4.0)
    assert cfg.display.size == (480, 320) and cfg.display.rotation == 270 and cfg.display.language == "nb"
    assert cfg.display.file == Path("/tmp/screen.png")
    assert cfg.game.rules == "special8" and cfg.game.players == 3 and cfg.game.advisor
    assert cfg.paths.db == Path("/data/games.db") and cfg.paths.images == Path("/var/lib/yatzycam/pics")


BAD = [
    ("[pins]\nthrow = 40\n", "pins.throw", "0..27"),
    ("[pins]\nthrow = true\n", "pins.throw", "BCM GPIO"),
    ("[pins]\nthrow = 5\n", "pins.leds_throws", "GPIO5 is already used by pins.throw"),
    ("[pins]\nleds_throws = [1, 2, 3, 4]\n", "pins.leds_throws", "at most 3"),
    ("[pins]\nhold_time = 0\n", "pins.hold_time", "0.3..10 seconds"),
    ("[pins]\nhold_time = nan\n", "pins.hold_time", "0.3..10 seconds"),
    ("[pins]\nhold_time = inf\n", "pins.hold_time", "0.3..10 seconds"),
    ("[pins]\nhold_time = 20\n", "pins.hold_time", "0.3..10 seconds"),
    ("[pins]\nshutdown_hold = 0.5\n", "pins.shutdown_hold", "1..11 seconds"),
    ("[pins]\nshutdown_hold = nan\n", "pins.shutdown_hold", "1..11 seconds"),
    ("[pins]\nhold_time = 3\nshutdown_hold = 2\n", "pins.shutdown_hold", "longer than pins.hold_time (3 s)"),
    ("[pins]\nbounce_time = -1\n", "pins.bounce_time", "0 = off"),
    ("[pins]\nthrow_button = 17\n", "pins.throw_button", "unknown key"),
    ("[camera]\nsource = \"webcam\"\n", "camera.source", "'picamera2', 'opencv', 'folder', 'sim'"),
    ("[camera]\nsource = \"folder\"\n", "camera.folder", "required"),
    ("[camera]\nsize = [640]\n", "camera.size", "[width, height]"),
    ("[camera]\nsize = [300, 240]\n", "camera.lores", "not be larger"),
    ("[camera]\nexposure = \"manual\"\n", "camera.exposure", "microseconds"),
    ("[camera]\nfocus = 100\n", "camera.focus", "dioptres"),
    ("[camera]\ndevice = -1\n", "camera.device", "camera index"),
    ("[display]\nrotation = 45\n", "display.rotation", "0, 90, 180, 270"),
    ("[display]\nrotation = 90.0\n", "display.rotation", "0, 90, 180, 270"),
    ("[display]\nlanguage = \"de\"\n", "display.language", "'sv', 'nb', 'da', 'en'"),
    ("[display]\nsize = \"big\"\n", "display.size", '"auto" or [width, height]'),
    ("[display]\nblank_after_s = -5\n", "display.blank_after_s", "0..604800"),
    ("[game]\nrules = \"poker\"\n", "game.rules", "unknown rule set"),
    ("[game]\nplayers = [\"Anna\", \"Anna\"]\n", "game.players", "different names"),
    ("[game]\nplayers = 0\n", "game.players", "1..6"),
    ("[game]\nplayers = 8\n", "game.players", "1..6"),
    ("[game]\nplayers = [\"A\", \"B\", \"C\", \"D\", \"E\", \"F\", \"G\"]\n", "game.players", "1..6 different names"),
    ("[game]\nadvisor = \"yes\"\n", "game.advisor", "true or false"),
    ("[paths]\ndb = \"\"\n", "paths.db", "non-empty"),
    ("[sound]\nvolume = 3\n", "[sound]", "unknown section"),
    ("pins = 3\n", "[pins]", "must be a table"),
    ("[pins\n", "not valid TOML", ""),
]


@pytest.mark.parametrize("text,key,why", BAD, ids=[b[1] + ":" + b[2][:12] for b in BAD])
def test_bad_values_name_the_key_in_one_line(tmp_path, text, key, why):
    p = write(tmp_path, text)
    with pytest.raises(config.ConfigError) as e:
        config.load(p, ENV)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{p}: {key}") or (key == "not valid TOML" and key in msg)
    assert why in msg
    assert e.value.exit_code == 78 and e.value.user_error


def test_missing_file(tmp_path):
    with pytest.raises(config.ConfigError, match="no such config file"):
        config.load(tmp_path / "nope.toml")


def test_example_is_plain_toml():
    # the installer copies it verbatim; it must stay parseable by any TOML reader
    assert set(tomllib.loads(EXAMPLE.read_text())) == {"pins", "camera", "display", "game", "paths"}


def test_the_service_config_means_the_service_state_dir(tmp_path):
    etc = tmp_path / "etc" / "yatzycam"
    etc.mkdir(parents=True)
    cfg = etc / "config.toml"
    cfg.write_text("")
    assert config.service_env(cfg, {"HOME": "/root"}, etc)["STATE_DIRECTORY"] == "/var/lib/yatzycam"
    # under systemd the unit's own value wins; any other file keeps the user's directory
    assert config.service_env(cfg, {"STATE_DIRECTORY": "/srv/y"}, etc)["STATE_DIRECTORY"] == "/srv/y"
    assert "STATE_DIRECTORY" not in config.service_env(write(tmp_path, ""), {"HOME": "/root"}, etc)


def test_a_bad_config_exits_78_through_the_cli(tmp_path, capsys):
    # what the unit's RestartPreventExitStatus=78 relies on (play and calibrate-live load it the same way)
    from controller.cli.main import main

    p = write(tmp_path, '[display]\nrotation = 45\n')
    for cmd in (["calibrate-live", "--keyboard"], ["play"]):
        code = main([*cmd, "--config", str(p)])
        err = capsys.readouterr().err
        assert code == 78, (cmd, err)
        assert err == f"yatzycam {cmd[0]}: {p}: display.rotation: must be one of 0, 90, 180, 270 (got 45)\n"


def test_a_database_or_calibration_path_that_can_never_be_a_file_is_a_config_error(tmp_path):
    # (exit 78: the unit does not restart on it every 10 s, as it would on play's exit 2)
    (tmp_path / "folder").mkdir()
    (tmp_path / "plain").write_text("")
    for key, value, why in (("db", "/dev/null", "/dev/null: is a device, not a file"),
                            ("calibration", str(tmp_path / "folder"), "folder: is a folder, not a file"),
                            ("db", str(tmp_path / "plain" / "g.db"), "Not a directory"),
                            ("calibration", str(tmp_path / ("x" * 300)), "File name too long")):
        p = write(tmp_path, f'[paths]\n{key} = "{value}"\n')
        with pytest.raises(config.ConfigError) as e:
            config.load(p, ENV)
        assert str(e.value).startswith(f"{p}: paths.{key}: ") and why in str(e.value) and e.value.exit_code == 78
    p = write(tmp_path, f'[paths]\ndb = "{tmp_path / "new" / "g.db"}"\n')
    assert config.load(p, ENV).paths.db == tmp_path / "new" / "g.db"  # not there yet: made by the store
