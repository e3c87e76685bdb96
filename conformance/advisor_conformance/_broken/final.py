"""Broken implementations of the final message's own blocks: the caller's files (count, caps, rendering) and the
question. Each is the reference with one RequestBuilder step done wrong."""

from __future__ import annotations

from advisor_reference import MAX_FILE_BYTES, CappedContent, RequestBuilder, elide_text, elision_marker, trim_space

from . import breaks

# -- files -----------------------------------------------------------------------------------------------


@breaks("files.per-file-cap")
class PerFileCapInclusive(RequestBuilder):
    """a file of exactly 32768 bytes is elided too (>= instead of >)"""

    def cap_file(self, file):
        if file.size == MAX_FILE_BYTES:
            return CappedContent(file.data, elision_marker(file.size))
        return super().cap_file(file)


@breaks("files.true-size")
class MarkerCountsBytesRead(RequestBuilder):
    """the per-file marker's N counts the bytes read, not the size on disk"""

    def cap_file(self, file):
        capped = super().cap_file(file)
        return CappedContent(capped.kept, elision_marker(len(file.data))) if capped.marker else capped


@breaks("files.render-format")
class FilesKeyedByPath(RequestBuilder):
    """files are gathered in a dict keyed by path, so a repeated path is rendered once, at its first place with its last
    content"""

    def render_files(self, files, snapshot):
        by_path = {}
        for file in files:
            by_path[file.path] = file
        return super().render_files(list(by_path.values()), snapshot)


# -- question --------------------------------------------------------------------------------------------


@breaks("question.omitted-when-empty")
class BlankQuestionLeavesBlankLine(RequestBuilder):
    """the emptiness check comes before trimming, so a blank question leaves a blank line behind"""

    def render_question(self, question):
        if not question:
            return ""
        return elide_text(trim_space(question), 4000) + "\n\n"


@breaks("question.cap")
class QuestionCappedByCharacters(RequestBuilder):
    """the question is capped at 4000 characters (len of the str), not 4000 bytes of UTF-8"""

    def render_question(self, question):
        text = trim_space(question)
        if not text:
            return ""
        if len(text) > 4000:
            text = text[:4000] + elision_marker(len(text))
        return text + "\n\n"


@breaks("question.blank-line")
class QuestionSingleNewline(RequestBuilder):
    """the question is followed by a single newline, not a blank line"""

    def render_question(self, question):
        block = super().render_question(question)
        return block[:-1] if block else block
