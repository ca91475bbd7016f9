"""Kernel lists: which implementation of an operator runs, and choosing it.

Every operator has, per device, an ordered list of named implementations (for example
Convolution on CPU: winograd, few_channel, onednn, reference); the first that accepts a call
runs, and the plain ``reference`` kernel, last, accepts every call. This module lists them,
forces or excludes them in a ``with`` block (the in-process form of MXNET_KERNEL_FORCE and
MXNET_KERNEL_EXCLUDE), and traces which implementation each call ran::

    with mx.kernels.force({"Convolution": "reference"}):
        y = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=8, no_bias=True)
    with mx.kernels.trace() as t:
        mx.nd.relu(x).wait_to_read()
    print(t.records)   # [("relu", "reference")]
"""
import contextlib
import ctypes

from .base import _LIB, check_call, py_str, mx_uint, c_str
from .context import Context

__all__ = ["implementations", "tags", "force", "exclude", "trace", "Trace", "rules", "set_rules"]


def _device_type(ctx):
    if isinstance(ctx, Context):
        return ctx.device_typeid
    if isinstance(ctx, str):
        name = ctx.split("(")[0]
        if name in ("cpu", "cpu_pinned", "cpu_shared"):
            return 1
        if name == "gpu":
            return 2
    raise ValueError("ctx must be a Context or 'cpu'/'gpu', got %r" % (ctx,))


def _list(op_name, ctx):
    n = mx_uint()
    names = ctypes.POINTER(ctypes.c_char_p)()
    tags = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXKernelListImplementations(c_str(op_name), ctypes.c_int(_device_type(ctx)), ctypes.byref(n),
                                                ctypes.byref(names), ctypes.byref(tags)))
    return [(py_str(names[i]), [t for t in py_str(tags[i]).split(",") if t]) for i in range(n.value)]


def implementations(op_name, ctx="cpu"):
    """The names of op_name's implementations on ctx, in dispatch order ("reference" last)."""
    return [name for name, _ in _list(op_name, ctx)]


def tags(op_name, ctx="cpu"):
    """{implementation: [tags]} of op_name on ctx (tags group implementations for exclusion)."""
    return {name: t for name, t in _list(op_name, ctx)}


def rules():
    """The rules in force as (force, exclude) strings in the environment variables' syntax."""
    f, e = ctypes.c_char_p(), ctypes.c_char_p()
    check_call(_LIB.MXKernelGetRules(ctypes.byref(f), ctypes.byref(e)))
    return py_str(f.value or b""), py_str(e.value or b"")


def set_rules(force="", exclude=""):
    """Replaces the rules (waits for pending work first, so running kernels keep their choice)."""
    from .ndarray import waitall
    waitall()
    check_call(_LIB.MXKernelSetRules(c_str(force), c_str(exclude)))


def _join(*parts):
    return ",".join(p for p in parts if p)


@contextlib.contextmanager
def force(choice):
    """Inside the block, each op of ``choice`` ({op: implementation}) runs only that
    implementation; a call it does not accept raises MXNetError ("... does not accept ...").
    A bare implementation name (a str) forces it for every op that has it."""
    if isinstance(choice, str):
        text = choice
    else:
        text = ",".join("%s:%s" % (op, impl) for op, impl in choice.items())
    old_force, old_exclude = rules()
    set_rules(_join(old_force, text), old_exclude)
    try:
        yield
    finally:
        set_rules(old_force, old_exclude)


@contextlib.contextmanager
def exclude(*names):
    """Inside the block, implementations with these names, tags or "Op:impl" spellings are
    skipped (the reference kernels cannot be excluded)."""
    old_force, old_exclude = rules()
    set_rules(old_force, _join(old_exclude, *names))
    try:
        yield
    finally:
        set_rules(old_force, old_exclude)


class Trace(object):
    """What a ``trace()`` block ran: ``records`` is a list of (op, implementation) in run order."""

    def __init__(self):
        self.records = []

    def implementations(self, op_name):
        """The implementations op_name ran in the block, in order."""
        return [impl for op, impl in self.records if op == op_name]


@contextlib.contextmanager
def trace():
    """Records every kernel run in the block (after waiting for the work pushed inside it)."""
    from .ndarray import waitall
    waitall()
    t = Trace()
    check_call(_LIB.MXKernelTraceStart())
    try:
        yield t
    finally:
        waitall()
        n = mx_uint()
        ops = ctypes.POINTER(ctypes.c_char_p)()
        impls = ctypes.POINTER(ctypes.c_char_p)()
        check_call(_LIB.MXKernelTraceStop(ctypes.byref(n), ctypes.byref(ops), ctypes.byref(impls)))
        t.records = [(py_str(ops[i]), py_str(impls[i])) for i in range(n.value)]
