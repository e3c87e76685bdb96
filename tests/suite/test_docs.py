"""The README stays a short front page, and the documents under docs/ hang together: every relative link of the
README and of docs/ resolves to a file of the repository, nothing links outside it, and every file under docs/ is
reachable from the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..support.runner import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: The README is also the package's page on PyPI: the pitch, install, the quickstart, "start here" and links.
README_MAX_LINES = 150

_FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
_AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.-]*:[^<>\s]*)>")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _prose(text: str) -> str:
    """The text with fenced code blocks and code spans blanked out (their brackets are not links); a code span keeps
    a placeholder, so link text written as code (`` [`docs/x.md`](docs/x.md) ``) stays a link."""
    return _CODE_SPAN.sub("code", _FENCE.sub("", text))


def links(text: str) -> list[str]:
    """The link targets of a markdown text: inline links and images, reference definitions and autolinks."""
    prose = _prose(text)
    return (
        [match[1] for match in _INLINE_LINK.finditer(prose)]
        + [match[1] for match in _REFERENCE_DEFINITION.finditer(prose)]
        + [match[1] for match in _AUTOLINK.finditer(prose)]
    )


def pages() -> list[Path]:
    """The README and every markdown page under docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def _resolve(page: Path, target: str) -> Path | None:
    """The repository file a relative link of `page` points at, or None for a link to a place in the same page."""
    path = target.split("#", 1)[0].split("?", 1)[0]
    return (page.parent / path).resolve() if path else None


def link_problems(page: Path, text: str) -> list[str]:
    """What is wrong with the links of one page (its path and text): a URL or absolute path, a target outside the
    repository, or a target that is not a file."""
    problems = []
    for target in links(text):
        where = f"{page.relative_to(ROOT)}: ({target})"
        if not target:
            problems.append(f"{where} is empty")
        elif _SCHEME.match(target) or target.startswith(("/", "\\")):
            problems.append(f"{where} is not a relative link")
        elif (resolved := _resolve(page, target)) is None:
            continue
        elif ROOT.resolve() not in resolved.parents:
            problems.append(f"{where} points outside the repository")
        elif not resolved.is_file():
            problems.append(f"{where} is not a file of the repository")
    return problems


def test_readme_stays_under_150_lines():
    """The README (the package's page on PyPI) has fewer than 150 lines; the rest of the documentation is in docs/."""
    count = len(README.read_text(encoding="utf-8").splitlines())
    assert count < README_MAX_LINES, (
        f"README.md has {count} lines (at most {README_MAX_LINES - 1}): move a section to docs/"
    )


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_is_relative_and_resolves_to_a_repository_file(page):
    """Every link of the README and of each page under docs/ is relative and names a file of the repository."""
    assert not (problems := link_problems(page, page.read_text(encoding="utf-8"))), "\n".join(problems[:20])


def test_no_page_names_an_address_outside_the_repository():
    """No URL appears in the prose of the README or of docs/ (the project links nothing outside itself)."""
    found = [
        f"{page.relative_to(ROOT)}: {match[0]}"
        for page in pages()
        for match in re.finditer(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S*", _prose(page.read_text(encoding="utf-8")))
    ]
    assert not found, "\n".join(found[:20])


def test_every_docs_file_is_reachable_from_the_readme():
    """Every file under docs/ is reached from the README by following relative links through the README and the
    pages under docs/."""
    seen: set[Path] = set()
    queue = [README.resolve()]
    while queue:
        page = queue.pop()
        if page in seen:
            continue
        seen.add(page)
        if page.suffix != ".md" or (page != README.resolve() and DOCS.resolve() not in page.parents):
            continue
        for target in links(page.read_text(encoding="utf-8")):
            resolved = None if _SCHEME.match(target) else _resolve(page, target)
            if resolved is not None and resolved.is_file():
                queue.append(resolved)
    unreached = sorted(
        str(path.relative_to(ROOT)) for path in DOCS.rglob("*") if path.is_file() and path.resolve() not in seen
    )
    assert not unreached, f"not linked from the README or a page it reaches: {unreached}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see [the page](docs/a.md) and [`b.md`](b.md#part)", ["docs/a.md", "b.md#part"]),
        ('an image ![x](img.png "title") and <https://example.org>', ["img.png", "https://example.org"]),
        ("[ref]: docs/c.md\n", ["docs/c.md"]),
        ("```sh\necho '[x](not-a-link.md)'\n```\nand `[y](nor-this.md)` in code", []),
        ("a [link with [brackets] inside](d.md)", ["d.md"]),
    ],
)
def test_links_are_read_from_prose_not_code(text, expected):
    """The link reader finds inline links, images, reference definitions and autolinks, and none inside code."""
    assert sorted(links(text)) == sorted(expected)


@pytest.mark.parametrize(
    ("target", "bad"),
    [
        ("https://example.org", True),
        ("/etc/passwd", True),
        ("../../outside.md", True),
        ("missing.md", True),
        ("", True),
        ("rules.md", False),
        ("#section", False),
        ("../README.md#quickstart", False),
        ("ci/github-actions-python.yml", False),
    ],
)
def test_each_kind_of_bad_link_is_reported(target, bad):
    """A URL, an absolute path, a link climbing out of the repository, a missing file and an empty target are each
    reported; a link to a file of the repository, or to a place in the same page, is not."""
    problems = link_problems(DOCS / "page.md", f"see [this]({target})")
    assert len(problems) == bad, problems
