"""What the terminal shows of a failure: hypothesis's notes, bounded."""

from __future__ import annotations

from advisor_conformance._pytest_plugin.terminal import NOTE_LINES, NOTE_WIDTH, _bound_notes, bounded_note


def test_a_long_note_is_cut_to_its_bounds_saying_how_much_was_left_out():
    """A note of many long lines keeps its first lines, each cut to the width with its true length, and says how many
    lines are not shown."""
    note = "Falsifying explicit example: test_x(\n" + "".join(f"    arg{i}='{'v' * 1000}',\n" for i in range(40)) + ")"
    bounded = bounded_note(note)
    lines = bounded.split("\n")
    assert len(lines) == NOTE_LINES + 1
    assert all(len(line) <= NOTE_WIDTH + 60 for line in lines)
    assert str(len(note.split("\n")[1])) in lines[1] and str(len(note.split("\n")) - NOTE_LINES) in lines[-1]
    assert lines[0] == "Falsifying explicit example: test_x("


def test_a_short_note_is_kept_as_it_is():
    """A note within the bounds is unchanged."""
    assert bounded_note("Falsifying example: test_x(value=1)") == "Falsifying example: test_x(value=1)"


def test_notes_of_every_exception_of_a_group_are_bounded():
    """The notes of each leaf of an exception group (several failing explicit examples) and of its cause are bounded."""
    leaves = [ValueError("a"), ValueError("b")]
    for leaf in leaves:
        leaf.add_note("x" * 5000)
    group = ExceptionGroup("two", leaves)
    group.__cause__ = KeyError("c")
    group.__cause__.add_note("y\n" * 100)
    _bound_notes(group, set())
    assert all(len(leaf.__notes__[0]) < NOTE_WIDTH + 60 for leaf in group.exceptions)
    assert len(group.__cause__.__notes__[0].split("\n")) == NOTE_LINES + 1
