#!/usr/bin/env python3
"""Compares the public Python names of MXNet 1.9.1 with this package's, module by module, and
writes docs/api_coverage.md.

    python tools/api_coverage.py                  # rewrite docs/api_coverage.md
    python tools/api_coverage.py --dump [LABELS]  # print this interpreter's names as JSON

Each interpreter lists its own names in a subprocess (`--dump`): the 1.9.1 peer
(benchmark/.peers/mxnet191/bin/python, or --peer) and this checkout (PYTHONPATH=python,
MXNET_LIBRARY_PATH=build/libmxnet.so).

Which names count as public (see `public_names`):
  * names from dir() that do not start with an underscore;
  * minus modules from outside mxnet (`np`, `ctypes`, `os`, ...): a module counts only when its
    __name__ is under `mxnet` (so `mx.nd` counts, `mx.base.np` does not);
  * minus classes and functions imported from another package under their own name
    (`OrderedDict`, `reduce`, `contextmanager`): their __module__'s top package is loaded and is
    not mxnet. An alias under a new name (`mx_real_t = numpy.float32`) stays, as do plain
    values (tuples, numbers, strings). Generated operators, whose __module__ is a bare
    `ndarray`/`symbol`, stay.
For a class target (NDArray, Symbol) the names are its dir() without a leading underscore.

Names that 1.9.1 has and this package leaves out on purpose, with the reason, live in
tools/api_coverage_absent.py; they are reported apart from the missing ones.
"""
import argparse
import importlib
import inspect
import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOC = os.path.join(REPO, "docs", "api_coverage.md")
PEER_PYTHON = os.path.join(REPO, "benchmark", ".peers", "mxnet191", "bin", "python")
OURS_LIBRARY = os.path.join(REPO, "build", "libmxnet.so")

FRONT_END = "front-end"
# (label, dotted path from `mx`, owner area). A label of "mx.nd" is split in the report into
# its operator names (owner: operators) and the rest (owner: front-end).
TARGETS = (
    ("mx", "", FRONT_END),
    ("mx.nd", "nd", FRONT_END),
    ("NDArray", "nd.NDArray", FRONT_END),
    ("mx.nd.random", "nd.random", "operators"),
    ("mx.nd.linalg", "nd.linalg", "operators"),
    ("mx.nd.contrib", "nd.contrib", "operators"),
    ("mx.nd.sparse", "nd.sparse", "operators"),
    ("mx.nd.image", "nd.image", "operators"),
    ("mx.autograd", "autograd", FRONT_END),
    ("mx.optimizer", "optimizer", FRONT_END),
    ("mx.initializer", "initializer", FRONT_END),
    ("mx.metric", "metric", FRONT_END),
    ("mx.lr_scheduler", "lr_scheduler", FRONT_END),
    ("mx.random", "random", FRONT_END),
    ("mx.context", "context", FRONT_END),
    ("mx.base", "base", FRONT_END),
    ("mx.util", "util", FRONT_END),
    ("mx.test_utils", "test_utils", FRONT_END),
    ("mx.attribute", "attribute", FRONT_END),
    ("mx.name", "name", FRONT_END),
    ("mx.monitor", "monitor", FRONT_END),
    ("mx.callback", "callback", FRONT_END),
    ("mx.gluon.loss", "gluon.loss", FRONT_END),
    ("mx.gluon.data.vision.transforms", "gluon.data.vision.transforms", FRONT_END),
    ("mx.gluon", "gluon", "gluon"),
    ("mx.gluon.nn", "gluon.nn", "gluon"),
    ("mx.gluon.utils", "gluon.utils", "gluon"),
    ("mx.gluon.model_zoo.vision", "gluon.model_zoo.vision", "gluon"),
    ("mx.gluon.contrib", "gluon.contrib", "gluon"),
    ("mx.gluon.rnn", "gluon.rnn", "operators"),
    ("mx.gluon.data", "gluon.data", "data"),
    ("mx.gluon.data.vision", "gluon.data.vision", "data"),
    ("mx.io", "io", "data"),
    ("mx.image", "image", "data"),
    ("mx.recordio", "recordio", "data"),
    ("mx.sym", "sym", "graph"),
    ("Symbol", "sym.Symbol", "graph"),
    ("mx.mod", "mod", "graph"),
    ("mx.model", "model", "graph"),
    ("mx.executor", "executor", "graph"),
    ("mx.visualization", "visualization", "graph"),
    ("mx.kv", "kv", "kvstore"),
    ("mx.profiler", "profiler", "runtime"),
    ("mx.runtime", "runtime", "runtime"),
)
ND_OPERATORS_LABEL = "mx.nd (operators)"
ND_REST_LABEL = "mx.nd (non-operator names)"


def _is_foreign(value):
    """True for a module or class/function that comes from a package other than mxnet."""
    if inspect.ismodule(value):
        return not value.__name__.split(".")[0] == "mxnet"
    if inspect.isclass(value) or inspect.isroutine(value):
        module = getattr(value, "__module__", None) or ""
        top = module.split(".")[0]
        return top != "mxnet" and top in sys.modules
    return False


def public_names(target):
    """Sorted public names of a module or class, by the rule in this file's docstring."""
    names = [n for n in dir(target) if not n.startswith("_")]
    if inspect.isclass(target):
        return sorted(names)
    kept = []
    for name in names:
        try:
            value = getattr(target, name)
        except Exception:  # a lazy attribute that fails to load is still a name the module has
            kept.append(name)
            continue
        if _is_foreign(value) and (inspect.ismodule(value) or getattr(value, "__name__", None) == name):
            continue
        kept.append(name)
    return sorted(kept)


def resolve(mx, path):
    """The object at `mx.<path>`, importing submodules that are not attributes yet; None if absent."""
    obj = mx
    dotted = "mxnet"
    for part in [p for p in path.split(".") if p]:
        dotted += "." + part
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(dotted)
        except ImportError:
            return None
    return obj


def list_names(labels=None):
    """{label: sorted names or None when the module/class is absent} for this interpreter's mxnet,
    plus "__operators__": the registered operator names when the library lists them."""
    import mxnet as mx
    result = {}
    for label, path, _owner in TARGETS:
        if labels and label not in labels:
            continue
        obj = resolve(mx, path)
        result[label] = None if obj is None else public_names(obj)
    lister = getattr(getattr(mx, "operator", None), "get_all_registered_operators", None)
    result["__operators__"] = sorted(lister()) if lister else []
    return result


def _dump_with(python, env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MXNET_")}
    env.pop("PYTHONPATH", None)
    env.update(env_extra)
    out = subprocess.run([python, os.path.abspath(__file__), "--dump"], env=env, capture_output=True,
                         text=True, timeout=600, cwd=REPO)
    if out.returncode != 0:
        raise RuntimeError("listing names with %s failed:\n%s" % (python, out.stderr[-4000:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


def _absent_reasons():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from api_coverage_absent import ABSENT  # noqa: E402
    return ABSENT


def compare(peer, ours, absent):
    """Rows (label, owner, peer names, present, missing, deliberately absent {name: reason})."""
    operators = set(peer.get("__operators__", []))
    rows = []
    for label, _path, owner in TARGETS:
        peer_names = peer.get(label) or []
        our_names = set(ours.get(label) or [])
        groups = [(label, owner, peer_names)]
        if label == "mx.nd":
            groups = [(ND_REST_LABEL, FRONT_END, [n for n in peer_names if n not in operators]),
                      (ND_OPERATORS_LABEL, "operators", [n for n in peer_names if n in operators])]
        for row_label, row_owner, names in groups:
            reasons = absent.get(label, {})
            present = [n for n in names if n in our_names]
            skipped = {n: reasons[n] for n in names if n not in our_names and n in reasons}
            missing = [n for n in names if n not in our_names and n not in reasons]
            rows.append((row_label, row_owner, names, present, missing, skipped))
    return rows


def _percent(covered, total):
    return 100.0 if total == 0 else 100.0 * covered / total


def render(rows):
    lines = ["# Python API coverage against MXNet 1.9.1", "",
             "Generated by `python tools/api_coverage.py`; the rule for which names count as public is",
             "in that script's docstring. *Covered* = present + deliberately absent (reasons below, kept",
             "in `tools/api_coverage_absent.py`).", "",
             "Owner areas: *front-end* (the top-level namespace, mx.nd's non-operator names, NDArray",
             "methods, autograd, optimizer, initializer, metric, lr_scheduler, random, context, base,",
             "util, test_utils, attribute, name, monitor, callback, gluon.loss, vision transforms);",
             "*operators* (mx.nd's operators and its random/linalg/contrib/sparse/image namespaces,",
             "gluon.rnn); *graph* (symbol, Symbol methods, module, model, executor, visualization);",
             "*data* (io, image, recordio, gluon.data); *gluon* (blocks, layers, utils, model zoo);",
             "*kvstore*; *runtime* (profiler, runtime).", "",
             "| module | owner | 1.9.1 names | present | missing | deliberately absent | % covered |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for label, owner, names, present, missing, skipped in rows:
        lines.append("| %s | %s | %d | %d | %d | %d | %.1f |" % (
            label, owner, len(names), len(present), len(missing), len(skipped),
            _percent(len(present) + len(skipped), len(names))))
    lines += ["", "## Coverage by owner area", "", "| owner | 1.9.1 names | covered | % covered |",
              "|---|---:|---:|---:|"]
    for owner in sorted({r[1] for r in rows}):
        total = sum(len(r[2]) for r in rows if r[1] == owner)
        covered = sum(len(r[3]) + len(r[5]) for r in rows if r[1] == owner)
        lines.append("| %s | %d | %d | %.1f |" % (owner, total, covered, _percent(covered, total)))
    for label, _owner, _names, _present, missing, skipped in rows:
        if not missing and not skipped:
            continue
        lines += ["", "## %s" % label, ""]
        if missing:
            lines += ["Missing (%d): %s" % (len(missing), ", ".join("`%s`" % n for n in missing)), ""]
        if skipped:
            lines.append("Deliberately absent (%d):" % len(skipped))
            lines.append("")
            lines += ["- `%s`: %s" % (n, skipped[n]) for n in sorted(skipped)]
    return "\n".join(lines) + "\n"


def front_end_coverage(rows):
    total = sum(len(r[2]) for r in rows if r[1] == FRONT_END)
    covered = sum(len(r[3]) + len(r[5]) for r in rows if r[1] == FRONT_END)
    return covered, total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dump", nargs="*", metavar="LABEL",
                        help="print this interpreter's public names as JSON (optionally only LABELs)")
    parser.add_argument("--peer", default=PEER_PYTHON, help="python of the MXNet 1.9.1 peer")
    parser.add_argument("--library", default=OURS_LIBRARY, help="libmxnet.so of this package")
    parser.add_argument("--output", default=DOC)
    args = parser.parse_args(argv)
    if args.dump is not None:
        print(json.dumps(list_names(set(args.dump) or None)))
        return 0
    if not os.path.isfile(args.peer):
        parser.error("MXNet 1.9.1 peer python not found at %s" % args.peer)
    peer = _dump_with(args.peer, {})
    ours = _dump_with(sys.executable, {"PYTHONPATH": os.path.join(REPO, "python"),
                                       "MXNET_LIBRARY_PATH": args.library})
    rows = compare(peer, ours, _absent_reasons())
    with open(args.output, "w") as f:
        f.write(render(rows))
    covered, total = front_end_coverage(rows)
    print("front-end areas: %d of %d names covered (%.1f%%); wrote %s"
          % (covered, total, _percent(covered, total), os.path.relpath(args.output, REPO)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
