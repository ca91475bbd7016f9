"""Weight initializers (mx.init / mx.initializer).

An initializer fills an NDArray in place. It is called with an InitDesc (the parameter's
name plus attributes); when the description carries an explicit '__init__' entry, that
initializer fills the array whatever the name, otherwise the name's suffix picks the rule
(bias/beta/moving_mean -> 0, gamma/moving_var -> 1, weight -> the initializer's own rule).
Initializers are registered by lower-case class name so strings such as 'xavier' or
'zeros' can stand for them.
"""
import json
import logging
import re

import numpy as np

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed", "Zero", "One",
           "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu", "Bilinear",
           "LSTMBias"]

_REGISTRY = {}


def register(klass):
    """Class decorator: makes `klass` creatable by its lower-case name."""
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def alias(*names):
    """Class decorator: makes `klass` creatable by each of `names` too (lower-case)."""
    def deco(klass):
        for name in names:
            _REGISTRY[name] = klass
        return klass
    return deco


def create(*args, **kwargs):
    """Returns an Initializer from an instance, a class, a registered name or a dumps() string,
    given first or as initializer=...; further arguments go to the class's constructor."""
    if args:
        init, args = args[0], args[1:]
    elif "initializer" in kwargs:
        init = kwargs.pop("initializer")
    else:
        raise TypeError("create() needs the initializer: an instance, a class, a name or a dumps() string")
    if isinstance(init, (Initializer, Load, Mixed)):
        if args or kwargs:
            raise ValueError("create(): %r is already an initializer; extra arguments are invalid" % (init,))
        return init
    if isinstance(init, type) and issubclass(init, Initializer):
        return init(*args, **kwargs)
    if isinstance(init, str):
        text = init.strip()
        if text.startswith("["):
            name, params = json.loads(text)
            return create(name, **params)
        key = text.lower()
        if key not in _REGISTRY:
            raise ValueError("Unknown initializer '%s': registered ones are %s"
                             % (init, ", ".join(sorted(_REGISTRY))))
        return _REGISTRY[key](*args, **kwargs)
    raise TypeError("Expected an Initializer, its name or its dumps() string, got %r" % (init,))


class InitDesc(str):
    """A parameter name with the attributes an initializer may consult."""

    def __new__(cls, name, attrs=None, global_init=None):
        obj = super(InitDesc, cls).__new__(cls, name)
        obj.attrs = attrs or {}
        obj.global_init = global_init
        return obj


def _fill_uniform(arr, low, high):
    from . import ndarray as nd
    arr[:] = nd.random.uniform(low, high, shape=arr.shape, ctx=arr.context, dtype=arr.dtype)


def _fill_normal(arr, loc, scale):
    from . import ndarray as nd
    arr[:] = nd.random.normal(loc, scale, shape=arr.shape, ctx=arr.context, dtype=arr.dtype)


class Initializer(object):
    """Base class: subclasses implement _init_weight (and may override the others)."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Logs a statistic of every array initialised when verbose is on."""
        self._verbose = verbose
        self._print_func = print_func or (lambda x: "%.4g" % float(np.linalg.norm(x.asnumpy()) /
                                                                     np.sqrt(max(x.size, 1))))
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self):
        """JSON text `[name, kwargs]` that create() turns back into this initializer."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        if not isinstance(desc, InitDesc):
            desc = InitDesc(str(desc))
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            chosen = create(init)
            if isinstance(chosen, Initializer):
                chosen._init_weight(desc, arr)
            else:
                chosen(desc, arr)
            self._verbose_print(desc, chosen, arr)
            return
        name = str(desc)
        if name.endswith("weight"):
            self._init_weight(desc, arr)
        elif name.endswith("bias"):
            self._init_bias(desc, arr)
        elif name.endswith("gamma"):
            self._init_gamma(desc, arr)
        elif name.endswith("beta"):
            self._init_beta(desc, arr)
        elif name.endswith("min"):
            self._init_zero(desc, arr)
        elif name.endswith("max"):
            self._init_one(desc, arr)
        elif name.endswith("moving_mean") or name.endswith("running_mean"):
            self._init_zero(desc, arr)
        elif name.endswith("moving_var") or name.endswith("running_var"):
            self._init_one(desc, arr)
        elif name.endswith("moving_inv_var"):
            self._init_zero(desc, arr)
        elif name.endswith("moving_avg"):
            self._init_zero(desc, arr)
        else:
            self._init_default(desc, arr)
        self._verbose_print(desc, self, arr)

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    def _init_bias(self, _, arr):
        arr[:] = 0.0

    def _init_gamma(self, _, arr):
        arr[:] = 1.0

    def _init_beta(self, _, arr):
        arr[:] = 0.0

    def _init_weight(self, name, arr):
        raise NotImplementedError("%s does not define how to fill weights (%s)"
                                  % (self.__class__.__name__, name))

    def _init_default(self, name, _):
        raise ValueError("Unknown initialization pattern for %s. Default initialization is now "
                         "limited to 'weight', 'bias', 'gamma' (1.0), and 'beta' (0.0). Use "
                         "mx.sym.Variable(init=mx.init.*) to set initialization pattern" % name)

    def __eq__(self, other):
        return isinstance(other, Initializer) and self.dumps() == other.dumps()

    def __hash__(self):
        return hash(self.dumps())

    def __repr__(self):
        return "%s(%s)" % (self.__class__.__name__,
                           ", ".join("%s=%r" % kv for kv in sorted(self._kwargs.items())))


@register
class Load(object):
    """Initialises from a dict (or .params file) of arrays, others through default_init."""

    def __init__(self, param, default_init=None, verbose=False):
        from . import ndarray as nd
        if isinstance(param, str):
            param = nd.load(param)
        if not isinstance(param, dict):
            raise TypeError("Load expects a dict of arrays or the name of a .params file")
        self.param = {}
        for name, arr in param.items():
            if name.startswith("arg:") or name.startswith("aux:"):
                name = name[4:]
            self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            src = self.param[name]
            if tuple(arr.shape) != tuple(src.shape):
                raise ValueError("Parameter %s cannot be initialized from loading: shape %s "
                                 "in the file, %s expected" % (name, src.shape, arr.shape))
            arr[:] = src
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            if self.default_init is None:
                raise ValueError("Cannot initialize %s: not found in the loaded parameters "
                                 "and no default initializer given" % name)
            self.default_init(name, arr)


@register
class Mixed(object):
    """Chooses the initializer by the first regular expression matching the name."""

    def __init__(self, patterns, initializers):
        if len(patterns) != len(initializers):
            raise ValueError("Mixed needs as many patterns as initializers")
        self.map = list(zip([re.compile(p) for p in patterns], [create(i) for i in initializers]))

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(str(name)):
                init(name, arr)
                return
        raise ValueError("Parameter name %s did not match any pattern. Consider adding a "
                         "\".*\" pattern at the end with a default Initializer." % name)


@register
@alias("zeros")
class Zero(Initializer):
    """Fills with 0."""

    def _init_weight(self, _, arr):
        arr[:] = 0.0


@register
@alias("ones")
class One(Initializer):
    """Fills with 1."""

    def _init_weight(self, _, arr):
        arr[:] = 1.0


@register
class Constant(Initializer):
    """Fills with a scalar or broadcasts a given array."""

    def __init__(self, value):
        super(Constant, self).__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        value = self.value
        if hasattr(value, "asnumpy"):
            value = value.asnumpy()
        if isinstance(value, (list, tuple, np.ndarray)):
            from . import ndarray as nd
            arr[:] = nd.array(np.broadcast_to(np.asarray(value), arr.shape), dtype=arr.dtype,
                              ctx=arr.context)
        else:
            arr[:] = float(value)

    def dumps(self):
        value = self.value
        if hasattr(value, "asnumpy"):
            value = value.asnumpy().tolist()
        elif isinstance(value, np.ndarray):
            value = value.tolist()
        return json.dumps([self.__class__.__name__.lower(), {"value": value}])


@register
class Uniform(Initializer):
    """Draws from U(-scale, scale)."""

    def __init__(self, scale=0.07):
        super(Uniform, self).__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _fill_uniform(arr, -self.scale, self.scale)


@register
class Normal(Initializer):
    """Draws from N(0, sigma^2)."""

    def __init__(self, sigma=0.01):
        super(Normal, self).__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _fill_normal(arr, 0.0, self.sigma)


@register
class Orthogonal(Initializer):
    """An orthogonal matrix (from the SVD of a random one) scaled by `scale`."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super(Orthogonal, self).__init__(scale=scale, rand_type=rand_type)
        if rand_type not in ("uniform", "normal"):
            raise ValueError("Orthogonal rand_type must be 'uniform' or 'normal', got %r" % rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        from . import ndarray as nd
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:])) if len(arr.shape) > 1 else 1
        if self.rand_type == "uniform":
            tmp = np.random.uniform(-1.0, 1.0, (nout, nin))
        else:
            tmp = np.random.normal(0.0, 1.0, (nout, nin))
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        q = u if u.shape == tmp.shape else v
        arr[:] = nd.array(self.scale * q.reshape(arr.shape), dtype=arr.dtype, ctx=arr.context)


def _fans(shape, who):
    if len(shape) < 2:
        raise ValueError("%s initializer cannot be applied to vector %s. It requires at least "
                         "2D." % (who, shape))
    hw_scale = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
    return shape[1] * hw_scale, shape[0] * hw_scale


@register
class Xavier(Initializer):
    """Glorot initialisation: scale = sqrt(magnitude / factor) with factor from fan in/out."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super(Xavier, self).__init__(rnd_type=rnd_type, factor_type=factor_type,
                                     magnitude=magnitude)
        if rnd_type not in ("uniform", "gaussian"):
            raise ValueError("Xavier rnd_type must be 'uniform' or 'gaussian', got %r" % rnd_type)
        if factor_type not in ("avg", "in", "out"):
            raise ValueError("Xavier factor_type must be 'avg', 'in' or 'out', got %r" % factor_type)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        fan_in, fan_out = _fans(arr.shape, "Xavier")
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[self.factor_type]
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            _fill_uniform(arr, -scale, scale)
        else:
            _fill_normal(arr, 0.0, scale)


@register
class MSRAPrelu(Xavier):
    """He initialisation for PReLU nets: Gaussian with magnitude 2 / (1 + slope^2)."""

    def __init__(self, factor_type="avg", slope=0.25):
        magnitude = 2.0 / (1 + slope ** 2)
        super(MSRAPrelu, self).__init__("gaussian", factor_type, magnitude)
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear upsampling kernels (for Deconvolution weights)."""

    def _init_weight(self, _, arr):
        from . import ndarray as nd
        shape = arr.shape
        weight = np.zeros(int(np.prod(shape)), dtype="float32")
        f = np.ceil(shape[3] / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        for i in range(weight.size):
            x = i % shape[3]
            y = (i // shape[3]) % shape[2]
            weight[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
        arr[:] = nd.array(weight.reshape(shape), dtype=arr.dtype, ctx=arr.context)


@register
class LSTMBias(Initializer):
    """Zero biases except the forget gate's (second quarter), set to forget_bias."""

    def __init__(self, forget_bias=1.0):
        super(LSTMBias, self).__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, _, arr):
        from . import ndarray as nd
        value = np.zeros(arr.shape, dtype="float32")
        hidden = arr.shape[0] // 4
        value[hidden:2 * hidden] = self.forget_bias
        arr[:] = nd.array(value, dtype=arr.dtype, ctx=arr.context)
