"""One language for every command: --lang, else the config's, else the locale's."""

import subprocess
import sys

import pytest

from controller import language as L
from controller.cli.main import main


@pytest.mark.parametrize("value,lang", [
    ("sv_SE.UTF-8", "sv"), ("nb_NO.UTF-8", "nb"), ("nn_NO", "nb"), ("no_NO", "nb"), ("da_DK.UTF-8", "da"),
    ("en_GB.UTF-8", "en"), ("de_DE.UTF-8", "en"), ("C", "en"), ("C.UTF-8", "en"), ("POSIX", "en"), ("", "en"),
])
def test_locale(value, lang):
    assert L.from_locale({"LANG": value}) == lang


def test_lc_all_wins_over_lang():
    assert L.from_locale({"LANG": "en_US.UTF-8", "LC_ALL": "sv_SE.UTF-8"}) == "sv"


def test_flag_then_config_then_locale(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[display]\nlanguage = "da"\n')
    env = {"LANG": "sv_SE.UTF-8"}
    assert L.resolve("nb", cfg, env) == "nb"
    assert L.resolve(None, cfg, env) == "da"
    assert L.resolve(None, tmp_path / "none.toml", env) == "sv"
    cfg.write_text("[display]\n")  # the key not set: the locale
    assert L.resolve(None, cfg, env) == "sv"


def test_every_command_follows_the_locale(monkeypatch, capsys):
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setattr(L, "from_config", lambda path: None)
    monkeypatch.setenv("LANG", "sv_SE.UTF-8")
    assert main(["score", "--rules", "yatzy", "11111"]) == 0
    sv = capsys.readouterr().out
    assert main(["rules", "yatzy"]) == 0
    sv_rules = capsys.readouterr().out
    monkeypatch.setenv("LANG", "C")
    assert main(["score", "--rules", "yatzy", "11111"]) == 0
    en = capsys.readouterr().out
    assert main(["rules", "yatzy"]) == 0
    en_rules = capsys.readouterr().out
    assert "Ettor" in sv and "Ones" in en and "Ettor" not in en
    assert "Ettor" in sv_rules and "Ones" in en_rules
    assert main(["score", "--rules", "yatzy", "--lang", "sv", "11111"]) == 0
    assert "Ettor" in capsys.readouterr().out


def test_demo_share_out_of_range_is_one_line():
    for flag in ("--cocked", "--off"):
        r = subprocess.run([sys.executable, "-m", "controller.cli", "demo", flag, "-0.5", "--quiet"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and r.stdout == ""
        assert len(r.stderr.strip().splitlines()) == 1 and flag in r.stderr


def test_every_saying_is_there_in_every_language_with_the_same_blanks():
    import string

    from controller.game.rules import LANGUAGES
    from controller.language import SAYINGS

    for key, words in SAYINGS.items():
        assert set(words) == set(LANGUAGES), key
        blanks = {lang: sorted(f for _, f, _, _ in string.Formatter().parse(t) if f) for lang, t in words.items()}
        assert all(b == blanks["en"] for b in blanks.values()), (key, blanks)
        assert all(t.strip() for t in words.values())
        if key not in ("start", "undo"):  # (a word two languages share)
            assert len(set(words.values())) >= 3, (key, words)  # not English left in place


@pytest.mark.parametrize("lang, again, back", [("sv", "Kasta igen: en tärning ligger snett", "Tillbaka"),
                                               ("nb", "Kast igjen: en terning ligger skjevt", "Tilbake"),
                                               ("da", "Slå igen: en terning ligger skævt", "Tilbage"),
                                               ("en", "Throw again: a die is cocked", "Back")])
def test_the_appliance_speaks_the_players_language(tmp_path, lang, again, back):
    from controller import app as A
    from hardware.camera import ManualClock
    from controller.game.rules import LANGUAGES
    from controller.language import say

    shown = []

    class Screen:
        def show(self, view):
            shown.append(view)

    with A.simulated_rig("yatzy", 2, seed=2, db_path=str(tmp_path / "g.db"), screen=Screen(), clock=ManualClock(),
                         gpio=False, cocked_rate=1.0, off_rate=0.0, lang=lang) as r:
        r.source.throw()
        r.app.throw()
        reasons = r.app.last_result.reasons
        assert r.app.last_result.outcome == "reroll" and reasons[0] == "cocked"
        assert shown[-1].notice.startswith(again)
        assert shown[-1].notice == say(lang, "throw_again", why=", ".join(say(lang, x) for x in reasons))
        r.app.open_menu()
        labels = [m.label for m in r.app.menu.items]
        assert labels[-1] == back and say(lang, "another_game") in labels
        assert any(v.notice and v.notice.startswith("> ") for v in [r.app.view()])
        others = [la for la in LANGUAGES if la != lang]
        english_only = {say(o, k) for o in others for k in ("back", "another_game", "undo")} - {say(lang, k) for k in ("back", "another_game", "undo")}
        assert not english_only & set(labels)  # no other language's words in the menu
