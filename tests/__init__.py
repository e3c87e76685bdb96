"""The project's own tests: the reference's unit tests and the tests of the suite itself."""
