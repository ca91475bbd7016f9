"""Names MXNet 1.9.1 exports that this package leaves out on purpose, with the reason;
read by tools/api_coverage.py. Keyed by the module label used there, then by name."""

# Reasons shared by many entries.
_IMPORTED = "1.x's module imports it for its own use; its public home is %s"
_NUMPY = "part of MXNet 2.0's NumPy interface (mx.np/mx.npx arrays), which this runtime does not provide"
_GENERATED = ("a source file 1.x writes at build time for its generated operators; here they are generated "
              "into mx.nd and its namespaces at import")
_RTC = "handle for mx.rtc (CUDA runtime compilation of user kernels), which this runtime does not provide"

ABSENT = {
    "mx": {
        "api": "MXNet 2.0's packed-function FFI namespace, which only mx.np uses",
        "np_array": _NUMPY,
        "np_symbol": _NUMPY,
        "numpy_dispatch_protocol": _NUMPY,
        "numpy_op_fallback": _NUMPY,
        "numpy_op_signature": _NUMPY,
        "use_np": _NUMPY,
        "use_np_array": _NUMPY,
        "ndarray_doc": "docstring templates for generated operators; operator docs come from the registry",
        "symbol_doc": "docstring templates for generated operators; operator docs come from the registry",
        "rtc": "CUDA runtime compilation of user kernels is not provided",
        "th": "bridge to the Lua Torch plugin, which this runtime does not build",
        "torch": "bridge to the Lua Torch plugin, which this runtime does not build",
        "tvmop": "TVM-generated operators are not built (the TVM_OP feature is off)",
    },
    "mx.nd": {
        "gen__internal": _GENERATED, "gen_contrib": _GENERATED, "gen_image": _GENERATED,
        "gen_linalg": _GENERATED, "gen_op": _GENERATED, "gen_sparse": _GENERATED,
        "np": _NUMPY, "npx": _NUMPY, "numpy": _NUMPY, "numpy_extension": _NUMPY,
        "get_indexing_dispatch_code": "an internal helper of 1.x's indexing code; indexing is NDArray.__getitem__",
        "get_oshape_of_gather_nd_op": "an internal helper of 1.x's indexing code; indexing is NDArray.__getitem__",
        "indexing_key_expand_implicit_axes": "an internal helper of 1.x's indexing code; indexing is "
                                             "NDArray.__getitem__",
        "utils": "1.x's module of private helpers for its sparse and save/load code",
        "imdecode": "deprecated in 1.x, whose own version fails under Python 3; mx.image.imdecode decodes images",
    },
    "mx.autograd": {
        "Symbol": _IMPORTED % "mx.sym.Symbol",
        "SymbolHandle": _IMPORTED % "mx.base.SymbolHandle",
        "c_array": _IMPORTED % "mx.base.c_array",
        "c_array_buf": _IMPORTED % "mx.base.c_array_buf",
        "mx_uint": _IMPORTED % "mx.base.mx_uint",
        "string_types": _IMPORTED % "mx.base.string_types",
    },
    "mx.initializer": {
        "FusedRNN": "initializes the packed weights of the fused RNN operator, which this runtime does not "
                    "register",
        "NDArray": _IMPORTED % "mx.nd.NDArray",
        "is_np_array": _IMPORTED % "mx.util.is_np_array",
        "load": _IMPORTED % "mx.nd.load (the initializer that loads is mx.init.Load)",
        "ndarray": _IMPORTED % "mx.nd",
        "random": _IMPORTED % "mx.random",
        "registry": "1.x's module imports its registry helpers for its own use; mx.init.register and "
                    "mx.init.alias are the public entry points",
        "string_types": _IMPORTED % "mx.base.string_types",
    },
    "mx.metric": {
        "Caffe": "evaluates through the Caffe plugin, which this runtime does not build",
        "Torch": "evaluates through the Lua Torch plugin, which this runtime does not build",
        "ndarray": _IMPORTED % "mx.nd",
        "numeric_types": _IMPORTED % "mx.base.numeric_types",
        "registry": "1.x's module imports its registry helpers for its own use; mx.metric.register and "
                    "mx.metric.alias are the public entry points",
        "string_types": _IMPORTED % "mx.base.string_types",
    },
    "mx.random": {
        "integer_types": _IMPORTED % "mx.base.integer_types",
    },
    "mx.context": {
        "classproperty": _IMPORTED % "mx.base.classproperty",
        "with_metaclass": _IMPORTED % "mx.base.with_metaclass",
    },
    "mx.attribute": {
        "classproperty": _IMPORTED % "mx.base.classproperty",
        "string_types": _IMPORTED % "mx.base.string_types",
        "with_metaclass": _IMPORTED % "mx.base.with_metaclass",
    },
    "mx.name": {
        "classproperty": _IMPORTED % "mx.base.classproperty",
        "with_metaclass": _IMPORTED % "mx.base.with_metaclass",
    },
    "mx.monitor": {
        "NDArray": _IMPORTED % "mx.nd.NDArray",
        "ndarray": _IMPORTED % "mx.nd",
        "py_str": _IMPORTED % "mx.base.py_str",
    },
    "mx.base": {
        "CudaKernelHandle": _RTC,
        "CudaModuleHandle": _RTC,
        "RtcHandle": _RTC,
        "DLPackHandle": "the C API has no DLPack entry points (MXNDArrayToDLPack and friends)",
        "FunctionHandle": "handle of the legacy MXListFunctions/MXFuncInvoke API, which the library does not "
                          "export (operators are called through MXImperativeInvoke)",
    },
    "mx.util": {
        "py_str": _IMPORTED % "mx.base.py_str",
        "np_array": _NUMPY,
        "np_ufunc_legal_option": _NUMPY,
        "set_np": _NUMPY + "; mx.util.set_np_shape turns on NumPy shape semantics",
        "use_np": _NUMPY,
        "use_np_array": _NUMPY,
        "wrap_np_binary_func": _NUMPY,
        "wrap_np_unary_func": _NUMPY,
    },
    "mx.test_utils": {
        "np_symbol": _NUMPY,
        "use_np": _NUMPY,
        "ss": "scipy.stats under a short name (None without scipy), imported for chi_square_check; "
              "import scipy.stats directly",
    },
    "mx.gluon.loss": {
        "is_np_array": _IMPORTED % "mx.util.is_np_array",
        "ndarray": _IMPORTED % "mx.nd",
        "numeric_types": _IMPORTED % "mx.base.numeric_types",
    },
    "mx.gluon.data.vision.transforms": {
        "is_np_array": _IMPORTED % "mx.util.is_np_array",
        "numeric_types": _IMPORTED % "mx.base.numeric_types",
    },
}
