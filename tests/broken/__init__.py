"""Broken implementations: the reference with exactly one rule broken, the way real implementations get it wrong.

``BROKEN`` maps each entry to the rule it breaks; ``tests/test_broken.py``
runs that rule's conformance tests against it and expects them to fail with a
message that names the rule and shows the input.
"""
