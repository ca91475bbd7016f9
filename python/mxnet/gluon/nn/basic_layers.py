"""Containers and basic layers: Sequential, HybridSequential, Dense, Dropout, Flatten,
BatchNorm, LayerNorm, InstanceNorm, GroupNorm, Embedding, Lambda, HybridLambda."""
import warnings

import numpy as np

from ... import ndarray as nd
from ..block import Block, HybridBlock
from ..utils import _indent
from .activations import Activation

__all__ = ["Sequential", "HybridSequential", "Dense", "Dropout", "Embedding", "BatchNorm",
           "BatchNormReLU", "InstanceNorm", "LayerNorm", "GroupNorm", "Flatten", "Lambda",
           "HybridLambda"]


def _run_chain(children, x, args):
    for block in children:
        x = block(x, *args)
        args = []
        if isinstance(x, (tuple, list)):
            args = x[1:]
            x = x[0]
    if args:
        x = tuple([x] + list(args))
    return x


def _chain_repr(block):
    lines = ["  ({key}): {block}".format(key=key, block=_indent(repr(child), 2))
             for key, child in block._children.items()]
    return "{name}(\n{mods}\n)".format(name=block.__class__.__name__, mods="\n".join(lines))


class Sequential(Block):
    """Runs its children one after the other."""

    def __init__(self, prefix=None, params=None):
        super(Sequential, self).__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        """Appends blocks (named '0', '1', ... in save_parameters keys)."""
        for block in blocks:
            self.register_child(block)

    def forward(self, x, *args):
        return _run_chain(list(self._children.values()), x, args)

    def __repr__(self):
        return _chain_repr(self)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)

    def hybridize(self, active=True, **kwargs):
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. Consider "
                          "using HybridSequential for the best performance." % self.prefix,
                          stacklevel=2)
        super(Sequential, self).hybridize(active, **kwargs)


class HybridSequential(HybridBlock):
    """Runs its (hybrid) children one after the other. Hybridized, the chain is one graph, and
    in inference the subgraph backend fuses Convolution + BatchNorm (+ Activation) and the
    other patterns it knows, whatever blocks produced them."""

    def __init__(self, prefix=None, params=None):
        super(HybridSequential, self).__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        for block in blocks:
            self.register_child(block)

    def hybrid_forward(self, F, x, *args):
        return _run_chain(list(self._children.values()), x, args)

    def __repr__(self):
        return _chain_repr(self)

    def __getitem__(self, key):
        return Sequential.__getitem__(self, key)

    def __len__(self):
        return len(self._children)


class Dense(HybridBlock):
    """Fully connected layer: y = activation(x W^T + b).

    flatten=True collapses all but the first input axis; otherwise only the last is contracted.
    in_units=0 leaves the input size to the first forward.
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32",
                 weight_initializer=None, bias_initializer="zeros", in_units=0, **kwargs):
        super(Dense, self).__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + "_") \
                if activation is not None else None

    def infer_shape(self, x, *args):
        in_units = int(np.prod(x.shape[1:])) if self._flatten else x.shape[-1]
        self.weight.shape = (self._units, in_units)

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            out = F.FullyConnected(x, weight, no_bias=True, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        else:
            out = F.FullyConnected(x, weight, bias, num_hidden=self._units, flatten=self._flatten,
                                   name="fwd")
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self):
        shape = self.weight.shape
        return "{name}({layout}, {act})".format(
            name=self.__class__.__name__, act=self.act if self.act else "linear",
            layout="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]))


class Dropout(HybridBlock):
    """Zeroes a fraction `rate` of the inputs while training (scaling the rest by 1/(1-rate));
    identity otherwise. `axes` share one mask along those axes."""

    def __init__(self, rate, axes=(), **kwargs):
        super(Dropout, self).__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            if self._axes:
                return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd")
            return F.Dropout(x, p=self._rate, name="fwd")
        return F.identity(x)

    def __repr__(self):
        return "{name}(p = {_rate}, axes={_axes})".format(name=self.__class__.__name__,
                                                          **self.__dict__)


class BatchNorm(HybridBlock):
    """Batch normalisation over `axis` with running statistics (aux parameters
    running_mean/running_var, updated while training)."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels=0, **kwargs):
        super(BatchNorm, self).__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        self._axis = axis
        if in_channels != 0:
            self.in_channels = in_channels
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null",
                                            shape=(in_channels,),
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null",
                                           shape=(in_channels,),
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def infer_shape(self, x, *args):
        channels = x.shape[self._axis]
        for p in (self.gamma, self.beta, self.running_mean, self.running_var):
            p.shape = (channels,)

    def cast(self, dtype):
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super(BatchNorm, self).cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        args = ", ".join("=".join([k, repr(v)]) for k, v in self._kwargs.items())
        return "{name}({content}, in_channels={ch})".format(
            name=self.__class__.__name__, content=args, ch=in_channels if in_channels else None)


class BatchNormReLU(BatchNorm):
    """BatchNorm followed by a ReLU, as one op (`contrib.BatchNormWithReLU`): the same
    parameters, running statistics and arguments as BatchNorm."""

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.BatchNormWithReLU(x, gamma, beta, running_mean, running_var,
                                           name="fwd", **self._kwargs)


class _AffineNorm(HybridBlock):
    """Shared parts of the norms with a gamma/beta pair sized by one input axis."""

    def __init__(self, axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                 in_channels, **kwargs):
        super(_AffineNorm, self).__init__(**kwargs)
        self._axis = axis
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True)

    def infer_shape(self, x, *args):
        channels = x.shape[self._axis]
        self.gamma.shape = (channels,)
        self.beta.shape = (channels,)

    def __repr__(self):
        return "{name}(axis={axis}, eps={eps}, center={c}, scale={s}, in_channels={ch})".format(
            name=self.__class__.__name__, axis=self._axis, eps=self._epsilon, c=self._center,
            s=self._scale, ch=self.gamma.shape[0] or None)


class LayerNorm(_AffineNorm):
    """Normalises over `axis` (default last) per sample, then scales and shifts."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super(LayerNorm, self).__init__(axis, epsilon, center, scale, beta_initializer,
                                        gamma_initializer, in_channels, **kwargs)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma, beta, axis=self._axis, eps=self._epsilon, name="fwd")


class InstanceNorm(_AffineNorm):
    """Normalises each (sample, channel) over its spatial positions; channels on `axis`."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super(InstanceNorm, self).__init__(axis, epsilon, center, scale, beta_initializer,
                                           gamma_initializer, in_channels, **kwargs)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, eps=self._epsilon)
        x = F.swapaxes(x, dim1=1, dim2=self._axis)
        out = F.InstanceNorm(x, gamma, beta, eps=self._epsilon)
        return F.swapaxes(out, dim1=1, dim2=self._axis)


class GroupNorm(HybridBlock):
    """Splits the channels (axis 1) into num_groups groups and normalises each group per
    sample; gamma and beta hold one value per group, as in MXNet 1.x."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super(GroupNorm, self).__init__(**kwargs)
        self._num_groups = num_groups
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(num_groups,), init=gamma_initializer)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(num_groups,), init=beta_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma, beta, num_groups=self._num_groups, eps=self._epsilon, name="fwd")

    def __repr__(self):
        return "{name}(num_groups={g}, eps={e}, center={c}, scale={s})".format(
            name=self.__class__.__name__, g=self._num_groups, e=self._epsilon, c=self._center,
            s=self._scale)


class Embedding(HybridBlock):
    """Looks up rows of a (input_dim, output_dim) weight by integer index."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super(Embedding, self).__init__(**kwargs)
        if sparse_grad:
            raise ValueError("Embedding(sparse_grad=True) needs row_sparse gradients, which this "
                             "build does not support; use sparse_grad=False")
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True)

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return "{block_name}({input_dim} -> {output_dim}, {dtype})".format(
            block_name=self.__class__.__name__, **self._kwargs)


class Flatten(HybridBlock):
    """Collapses all axes but the first: (N, d1, d2, ...) -> (N, d1*d2*...)."""

    def hybrid_forward(self, F, x):
        return F.Flatten(x)

    def __repr__(self):
        return self.__class__.__name__


class Lambda(Block):
    """Wraps a function (or the name of an mx.nd operator) as a Block."""

    def __init__(self, function, prefix=None):
        super(Lambda, self).__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise ValueError("Function name %s is not found in ndarray." % function)
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError("Unrecognized function in lambda: {} of type {}"
                             .format(function, type(function)))

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return "{name}({function})".format(name=self.__class__.__name__,
                                           function=self._func_impl.__name__)


class HybridLambda(HybridBlock):
    """Wraps function(F, x, ...) (or the name of an operator) as a HybridBlock."""

    def __init__(self, function, prefix=None):
        super(HybridLambda, self).__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise ValueError("Function name %s is not found in symbol/ndarray." % function)
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise ValueError("Unrecognized function in lambda: {} of type {}"
                             .format(function, type(function)))

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return "{name}({function})".format(name=self.__class__.__name__, function=self._func_name)
