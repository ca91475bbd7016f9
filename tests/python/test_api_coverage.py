"""tools/api_coverage.py: its name listing on this package, its public-name rule, and the report
it renders (the comparison with MXNet 1.9.1 itself needs the peer and is not run here)."""
import importlib.util
import os
import types
from collections import OrderedDict

import numpy

from conftest import REPO

TOOLS = os.path.join(REPO, "tools")


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(TOOLS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


coverage = _load("api_coverage")


def test_list_names_on_this_package():
    labels = {"mx.base", "mx.autograd", "NDArray", "mx.gluon.nn"}
    names = coverage.list_names(labels)
    assert set(names) == labels | {"__operators__"}
    for label in labels:
        listed = names[label]
        assert isinstance(listed, list) and listed == sorted(listed) and listed
        assert all(isinstance(n, str) and not n.startswith("_") for n in listed)
    assert "check_call" in names["mx.base"] and "MXNetError" in names["mx.base"]
    assert "mx_real_t" in names["mx.base"]  # an alias of a numpy type under a new name stays
    for foreign in ("np", "ctypes", "os", "atexit", "builtins"):
        assert foreign not in names["mx.base"]
    assert {"record", "backward", "Function"} <= set(names["mx.autograd"])
    assert {"asnumpy", "shape", "context"} <= set(names["NDArray"])
    assert "Dense" in names["mx.gluon.nn"]


def test_resolve_reports_an_absent_module_as_none():
    import mxnet as mx
    assert coverage.resolve(mx, "no_such_module") is None
    assert coverage.resolve(mx, "gluon.data.vision.transforms") is mx.gluon.data.vision.transforms


def test_public_name_rule_on_a_synthetic_module():
    fake = types.ModuleType("mxnet.fake")
    fake.np = numpy                    # foreign module: dropped
    fake.OrderedDict = OrderedDict     # foreign class under its own name: dropped
    fake.real_t = numpy.float32        # foreign class under a new name: kept
    fake.kinds = (int, float)          # a value: kept
    fake._hidden = 1                   # underscore: dropped
    fake.nd = types.ModuleType("mxnet.ndarray")  # an mxnet module: kept

    def helper():
        return None
    helper.__module__ = "mxnet.fake"
    fake.helper = helper

    def generated():
        return None
    generated.__module__ = "ndarray"  # generated operators carry a bare module name: kept
    fake.generated = generated
    assert coverage.public_names(fake) == ["generated", "helper", "kinds", "nd", "real_t"]


def test_compare_and_render():
    peer = {"mx.base": ["a", "b", "c", "d"], "mx.nd": ["zeros", "Convolution", "waitall"],
            "__operators__": ["Convolution"]}
    ours = {"mx.base": ["a", "b", "extra"], "mx.nd": ["zeros"]}
    rows = coverage.compare(peer, ours, {"mx.base": {"d": "left out"}})
    by_label = {r[0]: r for r in rows}
    label, owner, names, present, missing, skipped = by_label["mx.base"]
    assert (owner, names, present, missing, skipped) == (coverage.FRONT_END, ["a", "b", "c", "d"], ["a", "b"],
                                                         ["c"], {"d": "left out"})
    assert by_label[coverage.ND_OPERATORS_LABEL][2:5] == (["Convolution"], [], ["Convolution"])
    assert by_label[coverage.ND_REST_LABEL][2:5] == (["zeros", "waitall"], ["zeros"], ["waitall"])
    text = coverage.render(rows)
    assert "| mx.base | front-end | 4 | 2 | 1 | 1 | 75.0 |" in text
    assert "Missing (1): `c`" in text and "- `d`: left out" in text
    covered, total = coverage.front_end_coverage(rows)
    assert (covered, total) == (3 + 1, 4 + 2)


def test_absent_table_is_well_formed():
    absent = _load("api_coverage_absent").ABSENT
    labels = {t[0] for t in coverage.TARGETS}
    for label, reasons in absent.items():
        assert label in labels, label
        for name, reason in reasons.items():
            assert not name.startswith("_") and isinstance(reason, str) and len(reason) > 10, (label, name)
