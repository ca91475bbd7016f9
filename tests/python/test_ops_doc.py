"""docs/ops.md matches the build: the test regenerates it in memory with tools/gen_ops_doc.py
and fails on any difference, naming the command that rewrites it."""
import difflib
import os
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tools"))
import gen_ops_doc  # noqa: E402  (tools/ is not a package)


def _committed():
    try:
        with open(gen_ops_doc.DOC, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        pytest.fail("docs/ops.md is missing: run `%s`" % gen_ops_doc.REGENERATE)


@pytest.fixture(scope="module")
def generated():
    return gen_ops_doc.generate()


def test_ops_doc_is_current(generated):
    committed = _committed()
    build = gen_ops_doc.build_line()
    documented = gen_ops_doc.documented_build(committed)
    if documented != build:
        pytest.skip("docs/ops.md describes a build with %s; this build has %s" % (documented, build))
    text = generated
    if text != committed:
        diff = list(difflib.unified_diff(committed.splitlines(), text.splitlines(), "docs/ops.md",
                                         "generated", n=0, lineterm=""))
        shown = "\n".join(diff[:40]) + ("\n... (%d more lines)" % (len(diff) - 40) if len(diff) > 40 else "")
        pytest.fail("docs/ops.md is out of date: run `%s` and commit the result\n%s"
                    % (gen_ops_doc.REGENERATE, shown))


def test_generation_is_deterministic(generated):
    assert gen_ops_doc.generate() == generated


def test_every_registered_op_is_documented(generated):
    import op_rows
    missing = [o for o in op_rows.ops_and_aliases() if "| `%s` |" % o not in generated]
    assert not missing, "ops missing from the generated docs/ops.md: %s" % missing
