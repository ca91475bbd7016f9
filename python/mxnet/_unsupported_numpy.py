"""mx.np / mx.npx (MXNet 2.0's NumPy interface) are not part of this runtime; say so clearly."""
import types

_MESSAGE = ("mx.%s (MXNet 2.0's NumPy interface) is not supported by this runtime. Supported: the MXNet 1.x "
            "API - mx.nd (NDArray), mx.autograd, mx.random, mx.context, mx.test_utils.")


class UnsupportedModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(_MESSAGE % self.__name__.rsplit(".", 1)[-1])
