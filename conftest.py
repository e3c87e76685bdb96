"""This repository's pytest configuration: the hypothesis profiles of the project's own CI.

``ci`` (the default here, derandomized, no example database) is what CI runs;
``explore`` runs many random examples: ``pytest --hypothesis-profile=explore``.
"""

from hypothesis import settings

from advisor_conformance._pytest_plugin.plugin import CI_PROFILE, EXPLORE_PROFILE, register_profiles

register_profiles()
settings.register_profile("ci", parent=settings.get_profile(CI_PROFILE))
settings.register_profile("explore", parent=settings.get_profile(EXPLORE_PROFILE))
