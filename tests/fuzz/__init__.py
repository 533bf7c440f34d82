"""Generated junk thrown at every input kind through the command's own entry point
(``controller.cli.main.main(argv)``, in-process), and a corpus of known bad inputs run as real
subprocesses (tests/fuzz/corpus).

Two hypothesis profiles: ``FAST`` (500 inputs per kind, in ``make test``) and ``SLOW`` (5,000 per
kind, the ``slow``-marked twins of the same tests). No example database is kept (nothing is
written into the tree).
"""

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, database=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
settings.register_profile("yatzycam-fuzz", max_examples=500, **_COMMON)
settings.register_profile("yatzycam-fuzz-slow", max_examples=5000, **_COMMON)
FAST = settings.get_profile("yatzycam-fuzz")
SLOW = settings.get_profile("yatzycam-fuzz-slow")
