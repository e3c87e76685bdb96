"""The judging room's private part: the golden vectors' loading, comparison and attribution, behind the public
:mod:`advisor_conformance.vectors`. The rest of the room is public: ``catalogue``, ``checks``, ``oracle``,
``strategies``, ``vectors``, ``shaping``, ``wire``, ``carriage``, ``event_streams``, ``classify``,
``partition``, ``scenarios``, ``workspace``.

The room imports the contract and the base modules, never the pytest plugin or the tools.
"""
