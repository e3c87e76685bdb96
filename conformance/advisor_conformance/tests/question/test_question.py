"""The caller's question (spec: Payload shaping; clarifications §4)."""

from __future__ import annotations

import pytest
from hypothesis import example, given

from advisor_conformance import oracle
from advisor_conformance import strategies as s
from advisor_conformance.checks import check_equal
from advisor_conformance.shaping import check_segments, files_part, final, params, shape

from ..common.shaped import files_part_of

SNAPSHOT = [{"role": "user", "content": "what do you think?"}]


def _question_part(impl, strings, question, rule):
    request = params(SNAPSHOT, question=question)
    return files_part_of(impl, strings, request, rule), request


def _trim_control(impl, strings, question):
    """Control: the question's own padding, put on both sides of a short core, is trimmed (question.trim), so that
    a question that is not trimmed is never blamed on the rule under test."""
    core = oracle.trim(question)
    if not core or core == question:
        return
    start = question.find(core)
    pad = question[:start] + question[start + len(core):]
    got, request = _question_part(impl, strings, pad + "why?" + pad, "question.trim")
    _check_question(got, "why?", "question.trim", "the question part is not the question trimmed and a blank line",
                    request, strings)


def _check_question(got, text, rule, what, request, strings):
    """The question part is ``text`` (blamed on ``rule``) and then a blank line (question.blank-line)."""
    check_segments(got, [(text, rule), ("\n\n", "question.blank-line")], strings, what, input=request)


@pytest.mark.rule(id="question.trim")
@example(pad_left=" \t", core="why?", pad_right="\n\n").via("question.trim:ascii-padding")
@example(pad_left="\u3000\u00a0", core="why?", pad_right="\u2028\u0085").via("question.trim:unicode-padding")
@example(pad_left="", core="why?", pad_right=" \n").via("question.trim:one-side")
@example(pad_left=" ", core="why  not\tthis?", pad_right=" ").via("question.trim:inner-space")
@example(pad_left="", core="why?", pad_right="").via("question.trim:no-padding")
@given(pad_left=s.go_padding(4),
       core=s.go_trimmed_text(60),
       pad_right=s.go_padding(4))
def test_surrounding_white_space_is_trimmed(impl, strings, pad_left, core, pad_right):
    """White space around the question (Go's set, Unicode spaces included) is trimmed."""
    got, request = _question_part(impl, strings, pad_left + core + pad_right, "question.trim")
    _check_question(got, core, "question.trim", "the question part is not the question trimmed and a blank line",
                    request, strings)


@pytest.mark.rule(id="question.trim")
@pytest.mark.parametrize("edge", s.NOT_GO_SPACES, ids=["file-separator", "byte-order-mark", "zero-width-space"])
def test_characters_outside_gos_space_set_are_kept(impl, strings, edge):
    """Characters that Go does not count as white space (U+001C, U+FEFF, U+200B) are not trimmed."""
    question = f"{edge}why?{edge}"
    got, request = _question_part(impl, strings, question, "question.trim")
    _check_question(got, question, "question.trim",
                    f"the question does not keep {edge!r} at its edges (Go does not count it as white space)",
                    request, strings)


@pytest.mark.rule(id="question.omitted-when-empty")
@pytest.mark.parametrize("question", ["", " ", "\n\n\t", "\u3000\u00a0\u2028"],
                         ids=["empty", "space", "newlines-tab", "unicode-spaces"])
def test_blank_question_leaves_nothing(impl, strings, question):
    """A question that is blank after trimming adds nothing to the trailing message."""
    got, request = _question_part(impl, strings, question, "question.omitted-when-empty")
    check_equal(got, "", "question.omitted-when-empty", "a blank question left text behind", input=request)


@pytest.mark.rule(id="question.omitted-when-empty")
def test_absent_question_leaves_nothing(impl, strings):
    """A call without a question has just the guidance request as its trailing message."""
    request = params(SNAPSHOT)
    got = files_part(final(shape(impl, request, "question.omitted-when-empty")), strings, input=request)
    check_equal(got, "", "question.omitted-when-empty", "a call without a question left text behind", input=request)


@pytest.mark.rule(id="question.cap")
@pytest.mark.parametrize("size", [3999, 4000])
def test_question_up_to_4000_bytes_is_whole(impl, strings, size):
    """A question of at most 4000 bytes is sent whole."""
    question = "q" * size
    got, request = _question_part(impl, strings, question, "question.cap")
    _check_question(got, question, "question.cap", f"a {size}-byte question was changed", request, strings)


@pytest.mark.rule(id="question.cap")
@pytest.mark.parametrize("size", [4001, 9000])
def test_question_over_4000_bytes_is_elided(impl, strings, size):
    """A question over 4000 bytes is its first 4000 bytes and the marker with its length."""
    question = "q" * size
    got, request = _question_part(impl, strings, question, "question.cap")
    _check_question(got, "q" * 4000 + oracle.marker(size), "question.cap",
                    f"a {size}-byte question was not capped at 4000 bytes", request, strings)


@pytest.mark.rule(id="question.cap")
@example(question="q" * 3999 + "\u00e9").via("question.cap:multibyte-split")
@example(question="  " + "q" * 4000 + "\n").via("question.cap:trimmed-under-cap")
@given(question=s.sized_text(3990, 4012))
def test_question_cap_is_by_bytes_after_trimming(impl, strings, question):
    """The cap applies to the trimmed question's UTF-8 bytes, with dangling bytes as U+FFFD."""
    _trim_control(impl, strings, question)
    got, request = _question_part(impl, strings, question, "question.cap")
    expected = oracle.question_block(question)
    if not expected:
        check_equal(got, "", "question.omitted-when-empty", "a blank question left text behind", input=request)
        return
    _check_question(got, expected[:-2], "question.cap", "the question was not capped by bytes", request, strings)


@pytest.mark.rule(id="question.blank-line")
@example(question="?").via("question.blank-line:one-character")
@example(question="why?\n\n\n").via("question.blank-line:trailing-newlines")
@given(question=s.texts(min_size=1, max_size=80).filter(oracle.trim))
def test_question_is_followed_by_a_blank_line(impl, strings, question):
    """The question is followed by a blank line, then the guidance request."""
    _trim_control(impl, strings, question)
    got, request = _question_part(impl, strings, question, "question.blank-line")
    _check_question(got, oracle.trim(question), "question.trim", "the question is not followed by exactly one blank line",
                    request, strings)


@pytest.mark.rule(id="question.omitted-when-empty")
@pytest.mark.parametrize("question", ["?", "\x1c"], ids=["one-character", "only-a-character-go-keeps"])
def test_question_of_one_kept_character_is_sent(impl, strings, question):
    """A question of one character that is not white space in Go's set (even U+001C) is sent, not left out."""
    got, request = _question_part(impl, strings, question, "question.omitted-when-empty")
    _check_question(got, question, "question.omitted-when-empty", "a question that is not blank was left out",
                    request, strings)
