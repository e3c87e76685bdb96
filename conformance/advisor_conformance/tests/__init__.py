"""The conformance tests: one folder per area of the spec (the part of a rule ID before the dot); each test names its
catalogue rules. Test modules never import each other: shared helpers live in support modules, an area's in its
folder, those of several areas in ``common/``."""
