"""Registration has one spelling: every registered op is found in src/ by
`grep 'MXNET_REGISTER_OP(Name'`, or by the name of a family macro listed below whose first
argument is the op's literal name; every kernel implementation an op lists is found by
`grep 'MXNET_REGISTER_KERNEL(Name, kCPU, impl'`. A name built at run time (pasted from pieces,
concatenated strings, looked up in a table, passed to a helper that calls
OpRegistry::Register) cannot be found that way and fails here."""
import fnmatch
import os
import re

import pytest

import mxnet as mx
import op_rows

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "src"))
SOURCE_EXTENSIONS = (".cc", ".h", ".cu", ".cuh")

# Family macros: each registers through MXNET_REGISTER_OP's expansion and takes the op's literal
# name as its first argument; the values are the op names one use registers ("{}" is that first
# argument).
FAMILY_MACROS = {
    # src/operator/common/op_family.h: the op, its builder handed to a family function
    "MXNET_REGISTER_OP_FAMILY": ("{}",),
    # src/operator/nn/softmax.cc: softmax, log_softmax, softmin and their gradients
    "MXNET_REGISTER_SOFTMAX": ("{}", "_backward_{}"),
    # src/operator/nn/norm_layers.cc: LayerNorm, GroupNorm, InstanceNorm and their gradients
    "MXNET_REGISTER_NORM": ("{}", "_backward_{}"),
    # src/operator/tensor/elemwise_unary.cc: a unary math op and its gradient op
    "MXNET_REGISTER_UNARY": ("{}", "_backward_{}"),
    # src/operator/tensor/elemwise_unary.cc: rounding, sign, logical_not (gradient zero, no op)
    "MXNET_REGISTER_UNARY_ZERO_GRADIENT": ("{}",),
}

# Ops the scan does not find, in files not converted yet: by file, with how the name is spelled
# there. An entry goes once its file spells the names out (test_waivers_are_current fails on a
# stale one).
WAIVED = {}


# Family macros that register kernel implementations: (op, device, implementation) per use, "{}"
# being the macro's first argument.
KERNEL_FAMILY_MACROS = {
    # src/operator/nn/softmax.cc: the tiled kernels of softmax, log_softmax, softmin and their gradients
    "MXNET_REGISTER_SOFTMAX": (("{}", "cpu", "tiled"), ("_backward_{}", "cpu", "tiled")),
    # src/operator/onednn/onednn_softmax_kernels.cc: their oneDNN kernels
    "MXNET_REGISTER_ONEDNN_SOFTMAX": (("{}", "cpu", "onednn"), ("_backward_{}", "cpu", "onednn")),
    # src/operator/onednn/onednn_tensor_kernels.cc: the same_layout kernel of a position-wise tensor op
    "MXNET_REGISTER_SAME_LAYOUT_KERNEL": (("{}", "cpu", "same_layout"),),
}

# Kernel implementations (op:device:implementation, fnmatch patterns) the scan does not find, in
# files not converted yet, by file. A pattern goes once it matches nothing the scan misses.
KERNELS_WAIVED = {}

# ---------------------------------------------------------------------------------------------
# Reading the sources

_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define\b(?:[^\n]*\\\n)*[^\n]*", re.M)


def _strip_comments(text):
    """text with comments and macro definitions blanked (string literals kept): a name in a
    comment, or a macro parameter in a definition's body, counts for nothing."""
    def repl(m):
        s = m.group(0)
        return s if s[0] in "\"'" else re.sub(r"[^\n]", " ", s)
    return _DEFINE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), _TOKENS.sub(repl, text))


def read_sources():
    """{path relative to the repository: text without comments} of every C++ source under src/."""
    out = {}
    for root, dirs, files in os.walk(SRC):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(SOURCE_EXTENSIONS):
                path = os.path.join(root, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    out[os.path.relpath(path, os.path.dirname(SRC))] = _strip_comments(fh.read())
    return out


def _macro_uses(text, macro):
    """The first arguments of the uses of `macro` in text (comments and definitions stripped)."""
    return re.findall(r"\b%s\(\s*(\w+)\s*[,)]" % re.escape(macro), text)


def registered_in_source(sources):
    """{op name: [files]} of every op name registration spells out in the sources."""
    out = {}
    macros = dict(FAMILY_MACROS, MXNET_REGISTER_OP=("{}",))
    for path, text in sources.items():
        for macro, templates in macros.items():
            for arg in _macro_uses(text, macro):
                for t in templates:
                    out.setdefault(t.format(arg), []).append(path)
    return out


def kernels_in_source(sources):
    """{(op, device, impl)} of every MXNET_REGISTER_KERNEL use (and kernel family macro use)."""
    pat = re.compile(r"\bMXNET_REGISTER_KERNEL\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)")
    devices = {"kCPU": "cpu", "kGPU": "gpu"}
    out = set()
    for text in sources.values():
        for op_name, dev, impl in pat.findall(text):
            out.add((op_name, devices.get(dev, dev), impl))
        for macro, kernels in KERNEL_FAMILY_MACROS.items():
            for arg in _macro_uses(text, macro):
                out.update((t.format(arg), dev, impl) for t, dev, impl in kernels)
    return out


def _kernel_devices():
    return ["cpu"] + (["gpu"] if mx.runtime.Features().is_enabled("CUDA") else [])


def unfound_kernels(sources):
    """"op:device:impl" of every listed implementation (reference kernels aside) the scan misses."""
    found = kernels_in_source(sources)
    missing = []
    for op_name in op_rows.ops_and_aliases():
        for dev in _kernel_devices():
            for impl in mx.kernels.implementations(op_name, dev):
                if impl != "reference" and (op_name, dev, impl) not in found:
                    missing.append("%s:%s:%s" % (op_name, dev, impl))
    return missing


@pytest.fixture(scope="module")
def sources():
    return read_sources()


# ---------------------------------------------------------------------------------------------
# Tests

def test_every_op_is_registered_by_a_greppable_name(sources):
    found = registered_in_source(sources)
    waived = {op: path for path, ops in WAIVED.items() for op in ops}
    ops = sorted(op_rows.ops_and_aliases())
    missing = [o for o in ops if o not in found and o not in waived]
    assert not missing, (
        "%d registered ops are not found by `grep 'MXNET_REGISTER_OP(<name>'` (nor by a family macro of "
        "FAMILY_MACROS in %s) under src/: %s; register each with MXNET_REGISTER_OP(<name>) or a family macro "
        "taking the literal name" % (len(missing), os.path.basename(__file__), missing))


def test_waivers_are_current(sources):
    found = registered_in_source(sources)
    ops = set(op_rows.ops_and_aliases())
    stale = sorted("%s (%s)" % (o, path) for path, names in WAIVED.items() for o in names
                   if o in found or o not in ops)
    assert not stale, "waived ops now spelled out in src/ or no longer registered; remove them from WAIVED: %s" % stale


def test_family_macros_are_used(sources):
    unused = sorted(m for m in FAMILY_MACROS if not any(_macro_uses(t, m) for t in sources.values()))
    assert not unused, "family macros listed in FAMILY_MACROS but used nowhere in src/: %s" % unused


def test_no_op_is_registered_twice_in_source(sources):
    found = registered_in_source(sources)
    twice = {o: paths for o, paths in found.items() if len(paths) > 1}
    assert not twice, "op names registered by more than one use in src/: %s" % twice


@pytest.mark.skipif(not hasattr(mx, "kernels"), reason="mx.kernels is not in this build")
def test_every_kernel_implementation_is_registered_by_a_greppable_name(sources):
    patterns = [p for ps in KERNELS_WAIVED.values() for p in ps]
    missing = [k for k in unfound_kernels(sources) if not any(fnmatch.fnmatchcase(k, p) for p in patterns)]
    assert not missing, (
        "kernel implementations not found by `grep 'MXNET_REGISTER_KERNEL(<op>, <kCPU|kGPU>, <impl>)'` (nor by a "
        "macro of KERNEL_FAMILY_MACROS in %s) under src/: %s" % (os.path.basename(__file__), missing))


@pytest.mark.skipif(not hasattr(mx, "kernels"), reason="mx.kernels is not in this build")
def test_kernel_waivers_are_current(sources):
    missing = unfound_kernels(sources)
    stale = sorted("%s (%s)" % (p, path) for path, ps in KERNELS_WAIVED.items() for p in ps
                   if not any(fnmatch.fnmatchcase(k, p) for k in missing))
    assert not stale, "KERNELS_WAIVED patterns that match no unfound implementation; remove them: %s" % stale


def test_kernel_family_macros_are_used(sources):
    unused = sorted(m for m in KERNEL_FAMILY_MACROS if not any(_macro_uses(t, m) for t in sources.values()))
    assert not unused, "macros listed in KERNEL_FAMILY_MACROS but used nowhere in src/: %s" % unused


def test_the_scan_reads_comments_out():
    text = _strip_comments('MXNET_REGISTER_OP(a)\n// MXNET_REGISTER_OP(b)\n/* MXNET_REGISTER_OP(c) */ "//x"\n')
    assert _macro_uses(text, "MXNET_REGISTER_OP") == ["a"]
    assert '"//x"' in text
    text = _strip_comments("#define F(n) \\\n  MXNET_REGISTER_OP(n) \\\n  .g()\nMXNET_REGISTER_OP(d).f()\n")
    assert _macro_uses(text, "MXNET_REGISTER_OP") == ["d"]
