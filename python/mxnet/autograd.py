"""mx.autograd: recording scopes, backward, grad, and user-defined Functions."""
import ctypes
import traceback
from threading import Lock

from .base import _LIB, MXCallbackList, NDArrayHandle, SymbolHandle, check_call, c_handle_array
from .ndarray.ndarray import NDArray, _GRAD_REQ

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training", "set_recording",
           "set_training", "mark_variables", "backward", "grad", "Function"]


def set_recording(is_recording):
    prev = ctypes.c_int()
    check_call(_LIB.MXAutogradSetIsRecording(ctypes.c_int(is_recording), ctypes.byref(prev)))
    return bool(prev.value)


def set_training(train_mode):
    prev = ctypes.c_int()
    check_call(_LIB.MXAutogradSetIsTraining(ctypes.c_int(train_mode), ctypes.byref(prev)))
    return bool(prev.value)


def is_recording():
    curr = ctypes.c_bool()
    check_call(_LIB.MXAutogradIsRecording(ctypes.byref(curr)))
    return curr.value


def is_training():
    curr = ctypes.c_bool()
    check_call(_LIB.MXAutogradIsTraining(ctypes.byref(curr)))
    return curr.value


class _RecordingStateScope(object):
    def __init__(self, is_record, train_mode):
        self._enter_is_record = is_record
        self._enter_train_mode = train_mode
        self._prev_is_record = None
        self._prev_train_mode = None

    def __enter__(self):
        if self._enter_is_record is not None:
            self._prev_is_record = set_recording(self._enter_is_record)
        if self._enter_train_mode is not None:
            self._prev_train_mode = set_training(self._enter_train_mode)

    def __exit__(self, ptype, value, trace):
        if self._enter_is_record is not None and self._prev_is_record != self._enter_is_record:
            set_recording(self._prev_is_record)
        if self._enter_train_mode is not None and self._prev_train_mode != self._enter_train_mode:
            set_training(self._prev_train_mode)


def record(train_mode=True):
    return _RecordingStateScope(True, train_mode)


def pause(train_mode=False):
    return _RecordingStateScope(False, train_mode)


def train_mode():
    return _RecordingStateScope(None, True)


def predict_mode():
    return _RecordingStateScope(None, False)


def mark_variables(variables, gradients, grad_reqs="write"):
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for r in grad_reqs:
        if r not in _GRAD_REQ:
            raise ValueError("grad_req must be one of %s, got %r" % (sorted(_GRAD_REQ), r))
    reqs = (ctypes.c_uint * len(variables))(*[_GRAD_REQ[r] for r in grad_reqs])
    check_call(_LIB.MXAutogradMarkVariables(len(variables), c_handle_array(variables), reqs,
                                            c_handle_array(gradients)))


def _parse_head(heads, head_grads):
    if isinstance(heads, NDArray):
        heads = [heads]
    if isinstance(head_grads, NDArray):
        head_grads = [head_grads]
    head_handles = c_handle_array(heads)
    if head_grads is None:
        return heads, head_handles, None
    if len(heads) != len(head_grads):
        raise ValueError("heads and head_grads must be lists of the same length")
    hg = (NDArrayHandle * len(heads))(*[g.handle if g is not None else None for g in head_grads])
    return heads, head_handles, hg


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    heads, head_handles, hg = _parse_head(heads, head_grads)
    check_call(_LIB.MXAutogradBackwardEx(len(heads), head_handles, hg, 0, None, ctypes.c_int(retain_graph), 0,
                                         ctypes.c_int(train_mode), None, None))


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False, train_mode=True):
    heads, head_handles, hg = _parse_head(heads, head_grads)
    if isinstance(variables, NDArray):
        variables = [variables]  # the result is still a list, as in 1.x
    if retain_graph is None:
        retain_graph = create_graph
    grad_vars = ctypes.POINTER(NDArrayHandle)()
    grad_stypes = ctypes.POINTER(ctypes.c_int)()
    check_call(_LIB.MXAutogradBackwardEx(len(heads), head_handles, hg, len(variables), c_handle_array(variables),
                                         ctypes.c_int(retain_graph), ctypes.c_int(create_graph),
                                         ctypes.c_int(train_mode), ctypes.byref(grad_vars),
                                         ctypes.byref(grad_stypes)))
    return [NDArray(NDArrayHandle(grad_vars[i])) for i in range(len(variables))]


def get_symbol(x):
    """The recorded computation that produced NDArray `x`, as a Symbol.

    Leaves become variables: arrays marked with attach_grad/mark_variables are named var<N>,
    other inputs null<N>; each recorded op is a node named node_<N> with its parameters.
    Raises MXNetError when `x` was not computed under record() nor marked.
    """
    from .symbol.symbol import Symbol  # late: the symbol package imports ndarray, as this module does

    if not isinstance(x, NDArray):
        raise TypeError("autograd.get_symbol: expected an NDArray, got %s" % type(x).__name__)
    handle = SymbolHandle()
    check_call(_LIB.MXAutogradGetSymbol(x.handle, ctypes.byref(handle)))
    return Symbol(handle)


class Function(object):
    """User-defined differentiable function: override forward and backward (NDArrays in, out)."""
    _bwd_functype = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_void_p)
    _del_functype = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
    _registry_lock = Lock()
    _registry = {}
    _next = 0

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        self.saved_tensors = args

    def __call__(self, *inputs):
        assert not self._used, "Each Function instance can only be called once. Please create another instance."
        self._used = True
        prev_recording = set_recording(False)
        try:
            outputs = self.forward(*inputs)
        finally:
            set_recording(prev_recording)
        if not prev_recording:
            return outputs
        ret_outputs = outputs
        if isinstance(outputs, NDArray):
            outputs = (outputs,)

        def backward_entry(num_ograds, num_igrads, ptrs, reqs, is_train, _):
            try:
                output_grads = [NDArray(NDArrayHandle(ptrs[i])) for i in range(num_ograds)]
                input_grads = [NDArray(NDArrayHandle(ptrs[i])) for i in range(num_ograds, num_ograds + num_igrads)]
                reqs = [reqs[i] for i in range(num_igrads)]
                rets = self.backward(*output_grads)
                if isinstance(rets, NDArray):
                    rets = (rets,)
                if len(rets) != len(input_grads):
                    raise ValueError("%s.backward must return exactly %d gradients, got %d" % (
                        self.__class__.__name__, len(input_grads), len(rets)))
                for igrad, ret, req in zip(input_grads, rets, reqs):
                    if not isinstance(ret, NDArray):
                        raise TypeError("backward must return NDArrays, got %s" % type(ret))
                    if req == 3:
                        igrad[:] = igrad + ret
                    elif req != 0:
                        igrad[:] = ret
            except Exception:  # noqa: BLE001 - reported through the C boundary
                print("Error in Function.backward: %s" % traceback.format_exc())
                return False
            return True

        key = [None]

        def delete_entry(_):
            with Function._registry_lock:
                Function._registry.pop(key[0], None)
            return True

        callbacks = [Function._bwd_functype(backward_entry), Function._del_functype(delete_entry)]
        cb_ptrs = [ctypes.cast(c, ctypes.CFUNCTYPE(ctypes.c_int)) for c in callbacks]
        context = MXCallbackList(ctypes.c_int(len(callbacks)),
                                 (ctypes.CFUNCTYPE(ctypes.c_int) * len(cb_ptrs))(*cb_ptrs),
                                 (ctypes.c_void_p * len(cb_ptrs))(None, None))
        with Function._registry_lock:
            key[0] = Function._next
            Function._next += 1
            Function._registry[key[0]] = (callbacks, context, self)
        check_call(_LIB.MXCustomFunctionRecord(len(inputs), c_handle_array(inputs), len(outputs),
                                               c_handle_array(outputs), ctypes.byref(context)))
        return ret_outputs

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, *output_grads):
        raise NotImplementedError
