"""This repository's pytest configuration: the hypothesis profiles of the project's own CI.

``ci`` (the default here, derandomized, no example database) is what CI runs;
``explore`` runs many random examples: ``pytest --hypothesis-profile=explore``.

Our own run starts hundreds of Python processes (the meta tests run the suite in subprocesses, xdist starts its
workers): they cache bytecode as Python does by default, even where the environment turns that off
(``PYTHONDONTWRITEBYTECODE``), or each of them compiles and assertion-rewrites every module again.
"""

import os
import sys

from hypothesis import settings

from advisor_conformance._pytest_plugin.plugin import CI_PROFILE, EXPLORE_PROFILE, register_profiles

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # inherited by the xdist workers, started after this
sys.dont_write_bytecode = False

register_profiles()
settings.register_profile("ci", parent=settings.get_profile(CI_PROFILE))
settings.register_profile("explore", parent=settings.get_profile(EXPLORE_PROFILE))
