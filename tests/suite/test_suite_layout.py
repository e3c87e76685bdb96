"""The conformance suite's layout: no test module imports another, and each sits in the folder of its rules' area.

Both checks read the source with ``ast`` (:mod:`tests.support.suite_layout` says the rules, ties and rule-less
modules included); the synthetic trees below show each check failing on what it forbids.
"""

from __future__ import annotations

import textwrap

import pytest

from advisor_conformance._paths import PACKAGE_DIR

from ..support.suite_layout import Suite, import_problems, placement_problems, rules_of

SUITE = Suite(PACKAGE_DIR)


def _tree(tmp_path, files):
    """A package ``pkg`` holding ``files`` (path under ``pkg/`` -> source), with an ``__init__`` in every folder."""
    package = tmp_path / "pkg"
    for name, source in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    for folder in [package, *(path for path in package.rglob("*") if path.is_dir())]:
        (folder / "__init__.py").touch()
    return Suite(package, package="pkg")


def test_no_test_module_of_the_suite_imports_another():
    """No ``test_*`` module of the installed suite imports another ``test_*`` module of it, in any form."""
    assert len(SUITE.test_modules()) >= 40
    problems = import_problems(SUITE)
    assert not problems, "\n".join(problems)


def test_every_test_module_sits_in_the_folder_of_its_area():
    """Every test module of the suite sits directly in the folder of the area most of its rules belong to, and a
    module whose rules come from data (the golden vectors) at the top."""
    modules = SUITE.test_modules()
    assert len({path.parent for path in modules}) >= 16
    assert sum(bool(rules_of(SUITE, path)) for path in modules) >= len(modules) - 1
    problems = placement_problems(SUITE)
    assert not problems, "\n".join(problems)


HELPER = "def f():\n    return 1\n"


@pytest.mark.parametrize(
    "importer, source",
    [
        ("streaming/test_b.py", "import pkg.tests.streaming.test_a\n"),
        ("streaming/test_b.py", "import pkg.tests.streaming.test_a as a\n"),
        ("streaming/test_b.py", "from pkg.tests.streaming.test_a import f\n"),
        ("streaming/test_b.py", "from pkg.tests.streaming import test_a\n"),
        ("streaming/test_b.py", "from .test_a import f\n"),
        ("streaming/test_b.py", "from . import test_a\n"),
        ("streaming/test_b.py", "from . import helpers, test_a\n"),
        ("wire/test_b.py", "from ..streaming.test_a import f\n"),
        ("wire/test_b.py", "from ..streaming import test_a\n"),
        ("wire/test_b.py", "def g():\n    from ..streaming.test_a import f\n    return f()\n"),
    ],
    ids=[
        "import",
        "import-as",
        "from-absolute",
        "from-package-absolute",
        "from-relative",
        "from-dot",
        "from-dot-among-others",
        "from-parent",
        "from-parent-package",
        "inside-a-function",
    ],
)
def test_an_import_of_a_test_module_is_found(tmp_path, importer, source):
    """Each form of import of one test module by another (absolute, relative, of the module or from it, in a
    function) is reported with the importing file and line."""
    suite = _tree(
        tmp_path,
        {"tests/streaming/test_a.py": HELPER, "tests/streaming/helpers.py": HELPER, f"tests/{importer}": source},
    )
    problems = import_problems(suite)
    assert (
        len(problems) == 1 and problems[0].startswith(importer + ":") and "pkg.tests.streaming.test_a" in problems[0]
    ), problems


@pytest.mark.parametrize(
    "source",
    [
        "from .helpers import f\n",
        "from . import helpers\n",
        "from ..common.carriage import f\n",
        "from pkg.tests.streaming.helpers import f\n",
        "import pytest\nfrom pkg.checks import f\n",
        "from .test_missing import f\n",  # no such module: pytest would fail to import it, not this check
    ],
)
def test_imports_of_support_modules_are_allowed(tmp_path, source):
    """Imports of support modules of the suite, of the package and of libraries are not reported."""
    suite = _tree(
        tmp_path,
        {
            "tests/streaming/helpers.py": HELPER,
            "tests/common/carriage.py": HELPER,
            "checks.py": HELPER,
            "tests/streaming/test_b.py": source,
        },
    )
    assert import_problems(suite) == []


def _marked(*rule_ids, prelude=""):
    tests = "".join(
        f"@pytest.mark.rule(id={rule_id})\ndef test_{index}(impl):\n    pass\n\n\n"
        for index, rule_id in enumerate(rule_ids)
    )
    return f"import pytest\n{prelude}\n\n{tests}"


@pytest.mark.parametrize(
    "files, expected",
    [
        ({"tests/wire/test_x.py": _marked('"streaming.a"', '"streaming.b"', '"wire.c"')}, "belongs in streaming/"),
        ({"tests/test_x.py": _marked('"streaming.a"')}, "belongs in streaming/"),
        ({"tests/streaming/deeper/test_x.py": _marked('"streaming.a"')}, "belongs in streaming/"),
        ({"tests/wire/test_x.py": _marked('"streaming.a"', '"wire.b"')}, "split it"),
        ({"tests/streaming/test_x.py": _marked("rule_id", prelude="rule_id = 'x'.upper()")}, "names no rule"),
        (
            {"tests/wire/test_x.py": _marked('RULE["a"]', prelude='RULE = {"a": "streaming.a", "b": "streaming.b"}')},
            "belongs in streaming/",
        ),
        (
            {
                "tests/wire/test_x.py": _marked("RULE[p]", prelude="from pkg.streams import RULE"),
                "streams.py": 'RULE = {"a": "streaming.a", "b": "streaming.b"}\n',
            },
            "belongs in streaming/",
        ),
        (
            {
                "tests/wire/test_x.py": _marked("RULE", prelude="from .helpers import RULE"),
                "tests/wire/helpers.py": "from pkg.streams import *\n",
                "streams.py": 'RULE = "streaming.a"\n',
            },
            "belongs in streaming/",
        ),
        (
            {
                "tests/wire/test_x.py": "import pytest\n\n\n@pytest.mark.parametrize('p', [pytest.param(1, marks=pytest.mark."
                "rule(id='streaming.a'))])\ndef test_p(impl, p):\n    pass\n"
            },
            "belongs in streaming/",
        ),
        (
            {"tests/wire/test_x.py": "import pytest\n\npytestmark = pytest.mark.rule('streaming.a')\n"},
            "belongs in streaming/",
        ),
    ],
    ids=[
        "minority-folder",
        "top-with-rules",
        "nested-folder",
        "tie",
        "rule-less-in-an-area",
        "dict-constant",
        "imported-constant",
        "re-exported-constant",
        "param-mark",
        "module-mark-positional",
    ],
)
def test_a_module_out_of_its_area_folder_is_found(tmp_path, files, expected):
    """A module in the folder of a minority area, at the top or nested deeper, a tie between areas, and a rule-less
    module inside an area's folder are each reported, with rules read from strings, constants (local, imported,
    re-exported), parameter marks and module marks."""
    problems = placement_problems(_tree(tmp_path, files))
    assert len(problems) == 1 and expected in problems[0], problems


@pytest.mark.parametrize(
    "files",
    [
        {"tests/streaming/test_x.py": _marked('"streaming.a"', '"streaming.b"', '"wire.c"')},
        {
            "tests/wire/test_x.py": _marked('"streaming.a"', '"streaming.a"', '"wire.c"', '"wire.d"').replace(
                "def test_0",
                "def test_helper_without_a_rule(impl):\n    pass\n\n\n@pytest.mark.rule(id='streaming.a')\ndef test_0",
            )
        },
        {"tests/test_vectors.py": _marked("rule_id", prelude="rule_id = 'x'.upper()")},
        {"tests/wire/test_x.py": _marked('"wire.a"'), "tests/wire/helpers.py": 'RULE = "streaming.a"\n'},
    ],
    ids=["majority", "distinct-rules-and-unmarked-tests", "rule-less-at-the-top", "support-module-ignored"],
)
def test_a_module_in_its_area_folder_passes(tmp_path, files):
    """A module in the folder of most of its distinct rules (unmarked tests and support modules count for nothing),
    and a module naming no rule at the top, pass."""
    assert placement_problems(_tree(tmp_path, files)) == []
