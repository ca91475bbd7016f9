"""Convolution and pooling layers (1-3 spatial dims, NCW/NCHW/NCDHW or channels-last)."""
import numbers

from ..block import HybridBlock
from .activations import Activation

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D",
           "AvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
           "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D"]


def _tuple(value, n, what):
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError("%s must be a number or a list of %d ints, got %s" % (what, n, value))
    return value


def _take_positional(names, values, kwargs):
    """Moves positional arguments into kwargs under `names`, rejecting ones also given by name."""
    for key, value in zip(names, values):
        if key in kwargs:
            raise TypeError("got multiple values for argument '%s'" % key)
        kwargs[key] = value


def _check_layout(layout, ndim):
    if len(layout) != ndim + 2:
        raise ValueError("layout %r does not have %d dimensions" % (layout, ndim + 2))


def _weight_shape(op_name, layout, channels, in_channels, groups, kernel):
    """Weight shape of Convolution (out, in/groups, *k) or Deconvolution (in, out/groups, *k);
    channels-last layouts put the kernel dims before the input-channel dim."""
    cin = in_channels // groups if in_channels else 0
    if op_name == "Convolution":
        if layout.index("C") == 1:
            return (channels, cin) + kernel
        return (channels,) + kernel + (cin,)
    if layout.index("C") == 1:
        return (in_channels, channels // groups) + kernel
    return (in_channels,) + kernel + (channels // groups,)


class _Conv(HybridBlock):
    """Shared implementation of the convolution layers."""

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", op_name="Convolution", adj=None, prefix=None,
                 params=None):
        super(_Conv, self).__init__(prefix=prefix, params=params)
        ndim = len(kernel_size)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            self._groups = groups
            self._layout = layout
            self._op_name = op_name
            self._kernel = tuple(kernel_size)
            self._kwargs = {"kernel": self._kernel,
                            "stride": _tuple(strides, ndim, "strides"),
                            "dilate": _tuple(dilation, ndim, "dilation"),
                            "pad": _tuple(padding, ndim, "padding"),
                            "num_filter": channels, "num_group": groups,
                            "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = _tuple(adj, ndim, "output_padding")
            self.weight = self.params.get(
                "weight", shape=_weight_shape(op_name, layout, channels, in_channels, groups,
                                              self._kernel),
                init=weight_initializer, allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + "_") \
                if activation is not None else None

    def infer_shape(self, x, *args):
        in_channels = x.shape[self._layout.index("C")]
        if in_channels % self._groups:
            raise ValueError("%s: %d input channels are not divisible by groups=%d"
                             % (self.name, in_channels, self._groups))
        self.weight.shape = _weight_shape(self._op_name, self._layout, self._channels,
                                          in_channels, self._groups, self._kernel)

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        out = (op(x, weight, name="fwd", **self._kwargs) if bias is None
               else op(x, weight, bias, name="fwd", **self._kwargs))
        if self.act is not None:
            out = self.act(out)
        return out

    def _alias(self):
        return "conv"

    def __repr__(self):
        s = "{name}({mapping}, kernel_size={kernel}, stride={stride}"
        len_kernel = len(self._kwargs["kernel"])
        if self._kwargs["pad"] != (0,) * len_kernel:
            s += ", padding={pad}"
        if self._kwargs["dilate"] != (1,) * len_kernel:
            s += ", dilation={dilate}"
        if self._kwargs["num_group"] != 1:
            s += ", groups={num_group}"
        if self.bias is None:
            s += ", bias=False"
        if self.act:
            s += ", {}".format(self.act)
        s += ")"
        shape = self.weight.shape
        mapping = "{0} -> {1}".format(shape[1] * self._groups if shape[1] else None, shape[0]) \
            if self._op_name == "Convolution" else \
            "{0} -> {1}".format(shape[0] if shape[0] else None, shape[1] * self._groups)
        return s.format(name=self.__class__.__name__, mapping=mapping, **self._kwargs)


def _make_conv(ndim, default_layout, transpose):
    op_name = "Deconvolution" if transpose else "Convolution"

    def __init__(self, channels, kernel_size, strides=1, padding=0, *rest, **kwargs):
        # Positional order after padding: [output_padding,] dilation, groups, layout,
        # activation, use_bias, weight_initializer, bias_initializer, in_channels.
        names = (["output_padding"] if transpose else []) + \
            ["dilation", "groups", "layout", "activation", "use_bias", "weight_initializer",
             "bias_initializer", "in_channels"]
        if len(rest) > len(names):
            raise TypeError("too many positional arguments")
        _take_positional(names, rest, kwargs)
        output_padding = kwargs.pop("output_padding", 0) if transpose else None
        dilation = kwargs.pop("dilation", 1)
        groups = kwargs.pop("groups", 1)
        layout = kwargs.pop("layout", default_layout)
        activation = kwargs.pop("activation", None)
        use_bias = kwargs.pop("use_bias", True)
        weight_initializer = kwargs.pop("weight_initializer", None)
        bias_initializer = kwargs.pop("bias_initializer", "zeros")
        in_channels = kwargs.pop("in_channels", 0)
        _check_layout(layout, ndim)
        kernel_size = _tuple(kernel_size, ndim, "kernel_size")
        if transpose:
            self.outpad = _tuple(output_padding, ndim, "output_padding")
        _Conv.__init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                       in_channels, activation, use_bias, weight_initializer, bias_initializer,
                       op_name=op_name, adj=output_padding if transpose else None, **kwargs)

    return __init__


class Conv1D(_Conv):
    """1-D convolution over (N, C, W) inputs."""
    __init__ = _make_conv(1, "NCW", False)


class Conv2D(_Conv):
    """2-D convolution over (N, C, H, W) inputs (or NHWC with layout='NHWC')."""
    __init__ = _make_conv(2, "NCHW", False)


class Conv3D(_Conv):
    """3-D convolution over (N, C, D, H, W) inputs."""
    __init__ = _make_conv(3, "NCDHW", False)


class Conv1DTranspose(_Conv):
    """1-D transposed convolution (Deconvolution)."""
    __init__ = _make_conv(1, "NCW", True)


class Conv2DTranspose(_Conv):
    """2-D transposed convolution (Deconvolution); output_padding adds to the output size."""
    __init__ = _make_conv(2, "NCHW", True)


class Conv3DTranspose(_Conv):
    """3-D transposed convolution (Deconvolution)."""
    __init__ = _make_conv(3, "NCDHW", True)


class _Pooling(HybridBlock):
    """Shared implementation of the pooling layers (prefix 'pool<n>_')."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super(_Pooling, self).__init__(**kwargs)
        ndim = len(pool_size)
        if strides is None:
            strides = pool_size
        self._kwargs = {"kernel": tuple(pool_size), "stride": _tuple(strides, ndim, "strides"),
                        "pad": _tuple(padding, ndim, "padding"), "global_pool": global_pool,
                        "pool_type": pool_type, "layout": layout,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        s = "{name}(size={kernel}, stride={stride}, padding={pad}, ceil_mode={ceil_mode}"
        s += ", global_pool={global_pool}, pool_type={pool_type}, layout={layout})"
        return s.format(name=self.__class__.__name__,
                        ceil_mode=self._kwargs["pooling_convention"] == "full", **self._kwargs)


def _make_pool(ndim, default_layout, pool_type, default_size, ceil_first=False):
    # MXNet's positional order: MaxPool*D and AvgPool1D take layout before ceil_mode,
    # AvgPool2D/3D take ceil_mode first.
    def __init__(self, pool_size=default_size, strides=None, padding=0, *rest, **kwargs):
        names = ["ceil_mode", "layout"] if ceil_first else ["layout", "ceil_mode"]
        _take_positional(names, rest[:2], kwargs)
        rest = rest[2:]
        layout = kwargs.pop("layout", default_layout)
        ceil_mode = kwargs.pop("ceil_mode", False)
        _check_layout(layout, ndim)
        extra = {}
        if pool_type == "avg":
            count_include_pad = rest[0] if rest else kwargs.pop("count_include_pad", True)
            extra["count_include_pad"] = count_include_pad
        elif rest:
            raise TypeError("too many positional arguments")
        _Pooling.__init__(self, _tuple(pool_size, ndim, "pool_size"), strides, padding,
                          ceil_mode, False, pool_type, layout, **dict(extra, **kwargs))
    return __init__


def _make_global_pool(ndim, default_layout, pool_type):
    def __init__(self, layout=default_layout, **kwargs):
        _check_layout(layout, ndim)
        _Pooling.__init__(self, (1,) * ndim, None, 0, True, True, pool_type, layout, **kwargs)
    return __init__


class MaxPool1D(_Pooling):
    """Max pooling over W."""
    __init__ = _make_pool(1, "NCW", "max", 2)


class MaxPool2D(_Pooling):
    """Max pooling over H, W (strides default to pool_size)."""
    __init__ = _make_pool(2, "NCHW", "max", (2, 2))


class MaxPool3D(_Pooling):
    """Max pooling over D, H, W."""
    __init__ = _make_pool(3, "NCDHW", "max", (2, 2, 2))


class AvgPool1D(_Pooling):
    """Average pooling over W."""
    __init__ = _make_pool(1, "NCW", "avg", 2)


class AvgPool2D(_Pooling):
    """Average pooling over H, W; count_include_pad counts padded cells in the divisor."""
    __init__ = _make_pool(2, "NCHW", "avg", (2, 2), ceil_first=True)


class AvgPool3D(_Pooling):
    """Average pooling over D, H, W."""
    __init__ = _make_pool(3, "NCDHW", "avg", (2, 2, 2), ceil_first=True)


class GlobalMaxPool1D(_Pooling):
    """Max over all of W: (N, C, W) -> (N, C, 1)."""
    __init__ = _make_global_pool(1, "NCW", "max")


class GlobalMaxPool2D(_Pooling):
    """Max over all of H, W: (N, C, H, W) -> (N, C, 1, 1)."""
    __init__ = _make_global_pool(2, "NCHW", "max")


class GlobalMaxPool3D(_Pooling):
    """Max over all of D, H, W."""
    __init__ = _make_global_pool(3, "NCDHW", "max")


class GlobalAvgPool1D(_Pooling):
    """Mean over all of W."""
    __init__ = _make_global_pool(1, "NCW", "avg")


class GlobalAvgPool2D(_Pooling):
    """Mean over all of H, W: (N, C, H, W) -> (N, C, 1, 1)."""
    __init__ = _make_global_pool(2, "NCHW", "avg")


class GlobalAvgPool3D(_Pooling):
    """Mean over all of D, H, W."""
    __init__ = _make_global_pool(3, "NCDHW", "avg")
