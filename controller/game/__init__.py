"""The game, pure: no device, no file but the rule sets.

- ``rules``: scoring kinds and the ``RuleSet`` engine; the built-in pads are ``rulesets/*.toml``.
- ``game``: ``Game`` (state = replay of events), legal moves, the bank, declared throws.
- ``view``: ``GameView``, what the screen and the LEDs show of a game.
"""
