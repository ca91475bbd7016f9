"""What hybridization needs besides the block classes: nesting of arguments, building a
block's symbol with F = mx.sym (with errors that point at the user's line), and the structure
epoch that tells cached graphs the block tree changed."""
import os
import sys
import traceback

from .. import ndarray as nd
from .. import symbol as _symbol

__all__ = ["flatten", "regroup", "structure_changed", "structure_epoch", "trace_symbol"]

_EPOCH = [0]


def structure_changed():
    """A block tree changed (children, parameters, flags, dtype): cached graphs are rebuilt."""
    _EPOCH[0] += 1


def structure_epoch():
    return _EPOCH[0]


def flatten(args, what):
    """(flat list of arrays/symbols/None, nesting format) of a nested list/tuple structure."""
    if isinstance(args, (nd.NDArray, _symbol.Symbol)):
        if isinstance(args, _symbol.Symbol):
            n = len(args.list_outputs())
            return ([args] if n == 1 else [args[i] for i in range(n)]), (0 if n == 1 else n)
        return [args], 0
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError("HybridBlock %s must be (nested) list of Symbol or NDArray, but got %s of "
                         "type %s" % (what, str(args), type(args).__name__))
    flat, fmts = [], []
    for a in args:
        f, fmt = flatten(a, what)
        flat.extend(f)
        fmts.append(fmt)
    return flat, fmts


def regroup(args, fmt):
    """Inverse of flatten: the nested structure fmt describes, filled from args."""
    def _regroup(args, fmt):
        if isinstance(fmt, int):
            if fmt == 0:
                return args[0], args[1:]
            if fmt == -1:  # flatten's None placeholder takes one slot
                return None, args[1:]
            return args[:fmt], args[fmt:]
        ret = []
        for i in fmt:
            res, args = _regroup(args, i)
            ret.append(res)
        return ret, args
    return _regroup(list(args), fmt)[0]


_THIS_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_frame(tb):
    """The innermost traceback frame outside the mxnet package (the user's line), else the
    innermost hybrid_forward."""
    frames = traceback.extract_tb(tb)
    for fr in reversed(frames):
        if not os.path.abspath(fr.filename).startswith(_THIS_PACKAGE):
            return fr
    for fr in reversed(frames):
        if fr.name == "hybrid_forward":
            return fr
    return frames[-1] if frames else None


def trace_symbol(block, inputs, params):
    """Runs block.hybrid_forward(mx.sym, *inputs, **params) under its name scope; an error
    becomes one that names the block, the line, and how to avoid it."""
    try:
        with block.name_scope():
            return block.hybrid_forward(_symbol, *inputs, **params)
    except HybridizeError:
        raise
    except Exception as err:  # pylint: disable=broad-except
        fr = _user_frame(sys.exc_info()[2])
        where = ("%s:%d in %s: %s" % (fr.filename, fr.lineno, fr.name, (fr.line or "").strip())
                 if fr else "hybrid_forward")
        raise HybridizeError(
            "%s (%s) cannot be hybridized: its hybrid_forward failed when run with F = mx.sym at %s\n"
            "  %s: %s\n"
            "A hybridized block is compiled once into a graph, so hybrid_forward may only use F's "
            "operators on its inputs: no reading values (asnumpy, asscalar, float(), Python if/while "
            "on an array), no NDArray-only methods or attributes (.shape, .context), no operators "
            "without a symbolic form. Use F's operators (e.g. F.where instead of if, "
            "F.contrib.foreach/while_loop), or call hybridize(False) on this block to run it "
            "imperatively." % (block.name, type(block).__name__, where, type(err).__name__, err)) from err


class HybridizeError(RuntimeError):
    """hybrid_forward cannot be expressed as a symbol."""
