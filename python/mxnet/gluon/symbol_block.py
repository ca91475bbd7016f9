"""SymbolBlock: a block made from a symbol (a loaded `-symbol.json`, or any graph), run through
a CachedOp like a hybridized block."""
import copy
import os

import numpy as np

from .. import ndarray as nd
from .. import symbol as _symbol
from .block import HybridBlock
from .hybrid_graph import flatten as _flatten, regroup as _regroup
from .parameter import ParameterDict

__all__ = ["SymbolBlock"]


def _common_prefix(names):
    if not names:
        return ""
    prefix = os.path.commonprefix(names)
    # Only whole name parts: "conv0_" of conv0_weight and conv0_bias, not "conv0_b" of two biases.
    cut = max(prefix.rfind("_"), prefix.rfind("."))
    return prefix[:cut + 1] if cut >= 0 else ""


class SymbolBlock(HybridBlock):
    """SymbolBlock(outputs, inputs, params=None): outputs are the graph's output symbols, inputs
    its input variables (one or a list); every other argument and auxiliary state becomes a
    Parameter (auxiliary states with grad_req 'null'), taken from `params` when given there."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False):
        """Loads a block written by export (or by mx.model.save_checkpoint): the graph from
        symbol_file, input_names as its inputs, parameters from param_file (arg:/aux: keys,
        cast to the saved dtypes) onto ctx."""
        if not os.path.isfile(symbol_file):
            raise ValueError("SymbolBlock.imports: symbol file '%s' does not exist" % symbol_file)
        sym = _symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        known = set(sym.list_inputs())
        for name in input_names:
            if name not in known:
                raise ValueError("SymbolBlock.imports: input '%s' is not an input of the graph in "
                                 "'%s' (its inputs: %s)" % (name, symbol_file,
                                                            ", ".join(sorted(known)[:20])))
        if param_file is None:
            inputs = [_symbol.var(i, dtype=np.float32) for i in input_names]
        else:
            inputs = [_symbol.var(i) for i in input_names]
        ret = SymbolBlock(sym, inputs)
        if param_file is not None:
            ret.collect_params().load(param_file, ctx, allow_missing, ignore_extra,
                                      cast_dtype=True, dtype_source="saved")
        return ret

    def __init__(self, outputs, inputs, params=None):
        super(SymbolBlock, self).__init__(prefix=None, params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        if isinstance(inputs, _symbol.Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        out = _symbol.Group(out) if len(out) > 1 else out[0]
        input_names = set()
        for s in syms:
            if len(s.get_internals().list_outputs()) != 1:
                raise ValueError("SymbolBlock: inputs must be variables, but %s is the output of "
                                 "an operator" % str(s))
            input_names.add(s.name)
        aux = set(out.list_auxiliary_states())
        for name in out.list_inputs():
            if name in input_names:
                continue
            if name in aux:
                self.params.get(name, grad_req="null", allow_deferred_init=True)
            else:
                self.params.get(name, allow_deferred_init=True)
        self._cached_graph = syms, out
        self._graph_epoch = -2  # never rebuilt from hybrid_forward
        prefix_len = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[prefix_len:]: val for key, val in self._params.items()}
        self._active = True

    def _get_graph(self, *args):
        return self._cached_graph

    def _clear_cached_op(self):
        graph = self._cached_graph
        super(SymbolBlock, self)._clear_cached_op()
        self._cached_graph = graph

    def hybridize(self, active=True, **kwargs):
        # A SymbolBlock always runs its graph; hybridize only sets the CachedOp flags.
        super(SymbolBlock, self).hybridize(True, **kwargs)
        if not active:
            self._active = True

    def forward(self, x, *args):
        if isinstance(x, nd.NDArray):
            with x.context:
                return self._call_cached_op(x, *args)
        if not isinstance(x, _symbol.Symbol):
            raise TypeError("SymbolBlock requires the first argument to forward be either Symbol "
                            "or NDArray, but got %s" % type(x))
        flat, _ = _flatten([x] + list(args), "input")
        if len(flat) != len(self._cached_graph[0]):
            raise ValueError("SymbolBlock: %d inputs given, the block has %d (%s)" % (
                len(flat), len(self._cached_graph[0]),
                ", ".join(s.name for s in self._cached_graph[0])))
        ret = copy.copy(self._cached_graph[1])
        ret._compose(**{k.name: v for k, v in zip(self._cached_graph[0], flat)})
        return _regroup(list(ret), self._out_format)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError("SymbolBlock runs its graph; it has no hybrid_forward")

    def __repr__(self):
        outs = ", ".join(self._cached_graph[1].list_outputs())
        return "SymbolBlock(\n  inputs: %s\n  outputs: %s\n)" % (
            ", ".join(s.name for s in self._cached_graph[0]), outs)
