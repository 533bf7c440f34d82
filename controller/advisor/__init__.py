"""The advisor: which dice to keep, when to stop and which box to score.

- ``advice``: ``Advisor`` (picks the strategy for a rule set) and its ``Advice``.
- ``core``: the dice space and the pad model both strategies play on.
- ``exact``: the optimal solitaire table, by dynamic programming, cached on disk.
- ``lookahead``: the lookahead strategy's value of what is left after a score.
- ``sim``: simulated games in lockstep and the self-play tuning of the lookahead values
  (``python -m controller.advisor.sim controller/advisor/tuned.py`` writes ``tuned``).
- ``tuned``: the shipped lookahead values of the built-in pads.
"""
