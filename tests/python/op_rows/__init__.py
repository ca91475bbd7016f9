"""Rows of the operator harness (tests/python/test_op_harness.py): each module of this package
exposes CASES (a list of op_testing.Case) and optionally BAD (a list of op_testing.BadCase)."""
import importlib
import pkgutil


def modules():
    """Every row module of the package, imported, sorted by name."""
    out = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        out.append(importlib.import_module("%s.%s" % (__name__, info.name)))
    return out


def all_cases():
    """The Case rows of every module."""
    return [c for m in modules() for c in getattr(m, "CASES", [])]


def all_bad():
    """The BadCase rows of every module."""
    return [b for m in modules() for b in getattr(m, "BAD", [])]


# ---------------------------------------------------------------------------------------------
# The registry by canonical name (an alias resolves to the op it names). Shared by the harness
# coverage, tools/gen_ops_doc.py and tests/python/test_op_registration_grep.py.

def all_registered_names():
    """Every registered op name, aliases included (the numpy front ends' _np_/_npi_/_npx_ names
    too), sorted."""
    import ctypes
    from mxnet.base import _LIB, check_call, py_str
    size = ctypes.c_uint()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(names)))
    return sorted(py_str(names[i]) for i in range(size.value))


def canonical(name):
    """The name the op `name` names was registered under (its own name for a canonical name)."""
    from mxnet import _registry
    c = _CANONICAL.get(name)
    if c is None:
        c = _CANONICAL[name] = _registry.op_info(_registry.op_handle(name)).name
    return c


_CANONICAL = {}


def ops_and_aliases():
    """{canonical op name: sorted aliases} of every registered op."""
    out = {}
    for n in all_registered_names():
        out.setdefault(canonical(n), [])
        if n != canonical(n):
            out[canonical(n)].append(n)
    return {k: sorted(v) for k, v in sorted(out.items())}
