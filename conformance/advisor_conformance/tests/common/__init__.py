"""Helpers shared by the tests of several areas (each area's own helpers live in its folder)."""
