"""mx.nd.sparse: CSR matrices (MXNet 1.x's CSRNDArray) on a dense-only runtime.

A CSRNDArray is three dense NDArrays -- ``data`` (the stored values), ``indices`` (int64 column
indices, strictly increasing within a row) and ``indptr`` (int64, rows + 1 row starts) -- and a
2-D shape. The library never sees a sparse array: operators with a CSR path (``dot``) take the
three parts as inputs, and any other operator given a CSRNDArray runs on a dense copy of it,
with a one-time warning naming the operator (1.x's "storage fallback";
MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0 silences it); so does a CachedOp (hybridized block). Other
calls that need a single array handle (save, kvstore, attach_grad, out=) raise a TypeError.
"""
import ctypes
import warnings

import numpy as np

from .. import _registry
from ..base import _LIB, c_str, check_call
from ..context import Context, current_context
from .ndarray import CSRHandleError, NDArray, _op, array as _dense_array, zeros as _dense_zeros
from .register import _STYPE_HOOKS, imperative_invoke

__all__ = ["CSRNDArray", "csr_matrix", "zeros", "empty", "array", "dot", "row_sparse_array",
           "StorageFallbackWarning"]


class StorageFallbackWarning(UserWarning):
    """An operator without a CSR implementation ran on a dense copy of a CSRNDArray."""


def _scipy_sparse():
    try:
        import scipy.sparse as spsp
    except ImportError:
        return None
    return spsp


def _is_scipy_sparse(x):
    # Checked by module name first, so scipy is imported only when a scipy object is given.
    return type(x).__module__.startswith("scipy.sparse") and _scipy_sparse() is not None and \
        _scipy_sparse().issparse(x)


def _host_int64(x, what):
    a = x.asnumpy() if isinstance(x, NDArray) else np.asarray(x)
    if a.ndim != 1:
        raise ValueError("csr_matrix: %s must be 1-D, got shape %s" % (what, a.shape))
    if a.size and not np.issubdtype(a.dtype, np.integer):
        if not np.all(np.mod(a, 1) == 0):
            raise ValueError("csr_matrix: %s must hold integers" % what)
    return a.astype(np.int64)


def _check_structure(indices, indptr, shape, nnz):
    """Raises ValueError naming what is wrong with a CSR structure (numpy int64 arrays)."""
    rows, cols = shape
    if indptr.shape != (rows + 1,):
        raise ValueError("csr_matrix: indptr must have rows + 1 = %d entries, got %d" % (rows + 1, indptr.size))
    if indices.shape != (nnz,):
        raise ValueError("csr_matrix: indices and data must have the same length, got %d and %d"
                         % (indices.size, nnz))
    if indptr[0] != 0:
        raise ValueError("csr_matrix: indptr must start at 0, got %d" % indptr[0])
    steps = np.diff(indptr)
    if np.any(steps < 0):
        i = int(np.argmax(steps < 0))
        raise ValueError("csr_matrix: indptr must be non-decreasing, but indptr[%d] = %d < indptr[%d] = %d"
                         % (i + 1, indptr[i + 1], i, indptr[i]))
    if indptr[-1] != nnz:
        raise ValueError("csr_matrix: indptr must end at the number of stored values %d, got %d"
                         % (nnz, indptr[-1]))
    bad = (indices < 0) | (indices >= cols)
    if np.any(bad):
        j = int(np.argmax(bad))
        raise ValueError("csr_matrix: column index %d (entry %d) is out of range [0, %d)" % (indices[j], j, cols))
    if nnz > 1:
        row_of = np.repeat(np.arange(rows), steps)
        unsorted = (np.diff(indices) <= 0) & (row_of[1:] == row_of[:-1])
        if np.any(unsorted):
            j = int(np.argmax(unsorted)) + 1
            raise ValueError("csr_matrix: the column indices of row %d must be strictly increasing, got %d after %d"
                             % (row_of[j], indices[j], indices[j - 1]))


def _shape2(shape):
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError("csr_matrix: shape must be a (rows, cols) tuple, got %r" % (shape,)) from None
    if len(shape) != 2 or shape[0] < 0 or shape[1] < 0:
        raise ValueError("csr_matrix: shape must be (rows, cols) with non-negative sizes, got %s" % (shape,))
    return shape


def _from_host(values, indices, indptr, shape, ctx, dtype):
    """A CSRNDArray from checked numpy parts."""
    return CSRNDArray(_dense_array(np.asarray(values), ctx=ctx, dtype=dtype),
                      _dense_array(indices, ctx=ctx, dtype=np.int64),
                      _dense_array(indptr, ctx=ctx, dtype=np.int64), shape)


def _dense_to_csr(dense, ctx, dtype):
    """CSR of a 2-D numpy array: the non-zero entries (NaN included), row by row."""
    if dense.ndim != 2:
        raise ValueError("a CSR matrix must be 2-D, got an array of shape %s" % (dense.shape,))
    mask = dense != 0
    indptr = np.concatenate([[0], np.cumsum(mask.sum(axis=1))]).astype(np.int64)
    indices = np.nonzero(mask)[1].astype(np.int64)
    return _from_host(dense[mask], indices, indptr, dense.shape, ctx, dtype)


class CSRNDArray(NDArray):
    """A 2-D matrix in compressed sparse row form (see the module docstring).

    ``data``, ``indices`` and ``indptr`` are the array's own parts, not copies. Row slicing
    (``x[a:b]``, ``x[i]``) gives CSRNDArrays sharing the stored values.
    """
    __slots__ = ["_data", "_indices", "_indptr", "_shape"]

    def __init__(self, data, indices, indptr, shape):
        # Parts are trusted here; csr_matrix() checks what users give.
        self._data, self._indices, self._indptr = data, indices, indptr
        self._shape = (int(shape[0]), int(shape[1]))
        self.writable = True

    def __del__(self):
        pass  # the parts free themselves

    @property
    def handle(self):
        raise CSRHandleError("a CSRNDArray has no single array handle, and this call needs dense arrays: convert "
                             "it with .tostype('default')")

    # ---- properties ----
    @property
    def data(self):
        return self._data

    @property
    def indices(self):
        return self._indices

    @property
    def indptr(self):
        return self._indptr

    @property
    def shape(self):
        return self._shape

    @property
    def ndim(self):
        return 2

    @property
    def size(self):
        raise NotImplementedError("size of a CSRNDArray is ambiguous: use .shape (dense) or .data.size (stored)")

    @property
    def stype(self):
        return "csr"

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def _dtype_flag(self):
        return self._data._dtype_flag

    @property
    def context(self):
        return self._data.context

    ctx = context

    def __len__(self):
        return self._shape[0]

    def __repr__(self):
        return "\n<%s %s @%s>" % (self.__class__.__name__, "x".join(str(d) for d in self._shape), self.context)

    def __reduce__(self):
        return (_rebuild, (self._data.asnumpy(), self._indices.asnumpy(), self._indptr.asnumpy(), self._shape,
                           np.dtype(self.dtype).name))

    # ---- conversions ----
    def asnumpy(self):
        values = self._data.asnumpy()
        out = np.zeros(self._shape, dtype=values.dtype)
        indptr = self._indptr.asnumpy()
        rows = np.repeat(np.arange(self._shape[0]), np.diff(indptr))
        out[rows, self._indices.asnumpy()] = values
        return out

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy()
        return a if dtype is None else a.astype(dtype)

    def asscipy(self):
        """A scipy.sparse.csr_matrix copy (needs scipy)."""
        spsp = _scipy_sparse()
        if spsp is None:
            raise ImportError("asscipy() needs scipy, which is not installed")
        return spsp.csr_matrix((self._data.asnumpy(), self._indices.asnumpy(), self._indptr.asnumpy()),
                               shape=self._shape)

    def tostype(self, stype):
        if stype == "csr":
            return self
        if stype == "default":
            return _op("_sparse_csr_to_dense", self._data, self._indices, self._indptr, shape=self._shape)
        raise ValueError("cannot convert to stype %r: this runtime has 'default' (dense) and 'csr' arrays" % (stype,))

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == np.dtype(self.dtype):
            return self
        return CSRNDArray(self._data.astype(dtype), self._indices.copy(), self._indptr.copy(), self._shape)

    def copy(self):
        return self.copyto(self.context)

    def copyto(self, other):
        if isinstance(other, Context):
            return CSRNDArray(self._data.copyto(other), self._indices.copyto(other), self._indptr.copyto(other),
                              self._shape)
        if isinstance(other, CSRNDArray):
            if other is not self:
                other[:] = self
            return other
        if isinstance(other, NDArray):
            return self.tostype("default").copyto(other)
        raise TypeError("copyto does not support type " + str(type(other)))

    def as_in_context(self, context):
        return self if self.context == context else self.copyto(context)

    as_in_ctx = as_in_context

    def detach(self):
        return CSRNDArray(self._data.detach(), self._indices, self._indptr, self._shape)

    def attach_grad(self, grad_req="write", stype=None):
        raise TypeError("a CSRNDArray cannot hold a gradient: attach it to .data (the stored values) or to the dense "
                        "operand instead")

    def wait_to_read(self):
        for part in (self._data, self._indices, self._indptr):
            part.wait_to_read()

    def check_format(self, full_check=True):
        """Raises ValueError if the structure is not valid CSR (full_check also reads indices)."""
        indptr = self._indptr.asnumpy()
        nnz = self._data.shape[0]
        if full_check:
            _check_structure(self._indices.asnumpy(), indptr, self._shape, nnz)
        elif indptr.shape != (self._shape[0] + 1,) or indptr[0] != 0 or indptr[-1] != nnz:
            raise ValueError("CSRNDArray: indptr does not match the shape and the stored values")

    # ---- rows ----
    def __getitem__(self, key):
        rows = self._shape[0]
        if isinstance(key, (int, np.integer)):
            i = int(key)
            if not -rows <= i < rows:
                raise IndexError("row %d is out of range for a CSRNDArray with %d rows" % (i, rows))
            i %= rows
            start, stop = i, i + 1
        elif isinstance(key, slice):
            if key.step not in (None, 1):
                raise ValueError("CSRNDArray supports contiguous row slices only (step 1), got step %r" % (key.step,))
            start, stop, _ = key.indices(rows)
            stop = max(start, stop)
        else:
            raise ValueError("CSRNDArray supports an int or a contiguous slice of rows, got %r" % (key,))
        indptr = self._indptr.asnumpy()[start:stop + 1]
        lo, hi = int(indptr[0]), int(indptr[-1])
        part = _dense_array(indptr - lo, ctx=self.context, dtype=np.int64)
        return CSRNDArray(self._data[lo:hi], self._indices[lo:hi], part, (stop - start, self._shape[1]))

    def __setitem__(self, key, value):
        if not (isinstance(key, slice) and key == slice(None)):
            raise ValueError("a CSRNDArray can only be assigned as a whole (x[:] = value), got key %r" % (key,))
        src = value if isinstance(value, CSRNDArray) else csr_matrix(value, ctx=self.context, dtype=self.dtype)
        if src.shape != self._shape:
            raise ValueError("cannot assign a %s matrix to a CSRNDArray of shape %s" % (src.shape, self._shape))
        ctx = self.context
        self._data = src.data.astype(self.dtype).as_in_context(ctx).copy()
        self._indices = src.indices.as_in_context(ctx).copy()
        self._indptr = src.indptr.as_in_context(ctx).copy()


def _rebuild(values, indices, indptr, shape, dtype):
    return _from_host(values, indices, indptr, shape, current_context(), dtype)


# ---- constructors ---------------------------------------------------------------------------

def _is_shape(arg):
    return isinstance(arg, (tuple, list)) and len(arg) in (2, 3) and \
        all(isinstance(s, (int, np.integer)) for s in arg)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from:

    - ``(data, indices, indptr)`` with ``shape`` (rows, cols); without shape, rows = len(indptr) - 1
      and cols = max(indices) + 1;
    - a scipy.sparse matrix (duplicates are summed, indices sorted);
    - a dense 2-D numpy array, NDArray or nested list (its non-zero entries);
    - a CSRNDArray (a copy);
    - a ``(rows, cols)`` shape: an empty matrix.

    The structure is checked: indptr starts at 0, never decreases and ends at len(data);
    column indices lie in [0, cols) and increase strictly within each row (ValueError).
    dtype defaults to that of the values given (float32 for lists and shapes).
    """
    ctx = ctx or current_context()
    if isinstance(arg1, CSRNDArray):
        out = arg1.astype(dtype or arg1.dtype).as_in_context(ctx)
        return out.copy() if out is arg1 else out
    if _is_shape(arg1):
        if len(arg1) != 2:
            raise ValueError("csr_matrix: a CSR matrix is 2-D, got shape %s" % (tuple(arg1),))
        shape = _shape2(arg1)
        return zeros("csr", shape, ctx=ctx, dtype=dtype)
    if _is_scipy_sparse(arg1):
        m = arg1.tocsr(copy=True)
        m.sum_duplicates()  # sorts the indices too
        if shape is not None and _shape2(shape) != m.shape:
            raise ValueError("csr_matrix: shape %s does not match the scipy matrix's %s" % (shape, m.shape))
        return _from_host(m.data, m.indices.astype(np.int64), m.indptr.astype(np.int64), m.shape, ctx,
                          dtype or m.dtype)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        values, indices, indptr = arg1
        if isinstance(values, NDArray):
            values_np = values.asnumpy()
        else:
            values_np = np.asarray(values)
            if not isinstance(values, np.ndarray):
                values_np = values_np.astype(np.float32)
        if values_np.ndim != 1:
            raise ValueError("csr_matrix: data must be 1-D, got shape %s" % (values_np.shape,))
        indices_np = _host_int64(indices, "indices")
        indptr_np = _host_int64(indptr, "indptr")
        if shape is None:
            if indptr_np.size == 0:
                raise ValueError("csr_matrix: indptr must have rows + 1 entries, got none")
            shape = (indptr_np.size - 1, int(indices_np.max()) + 1 if indices_np.size else 0)
        shape = _shape2(shape)
        _check_structure(indices_np, indptr_np, shape, values_np.shape[0])
        return _from_host(values_np, indices_np, indptr_np, shape, ctx, dtype or values_np.dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], (tuple, list)):
        raise ValueError("csr_matrix: (data, (row, col)) coordinate input is not supported; pass "
                         "(data, indices, indptr), a scipy matrix or a dense array")
    if isinstance(arg1, NDArray):
        dense, default_dtype = arg1.asnumpy(), arg1.dtype
    elif isinstance(arg1, np.ndarray):
        dense, default_dtype = arg1, arg1.dtype
    elif isinstance(arg1, (list, tuple)):
        dense, default_dtype = np.asarray(arg1, dtype=np.float32), np.float32
    else:
        raise TypeError("csr_matrix: cannot build a CSR matrix from %s" % type(arg1).__name__)
    if shape is not None and _shape2(shape) != dense.shape:
        raise ValueError("csr_matrix: shape %s does not match the array's %s" % (shape, dense.shape))
    return _dense_to_csr(dense, ctx, dtype or default_dtype)


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array: stype 'csr' (nothing stored) or 'default' (dense)."""
    if stype == "default":
        return _dense_zeros(shape, ctx=ctx, dtype=dtype, **kwargs)
    if stype != "csr":
        raise ValueError("zeros: stype %r is not supported; use 'csr' or 'default'" % (stype,))
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = _shape2(shape)
    ctx = ctx or current_context()
    return _from_host(np.zeros((0,), dtype=np.dtype(dtype or np.float32)), np.zeros((0,), np.int64),
                      np.zeros((shape[0] + 1,), np.int64), shape, ctx, dtype or np.float32)


def empty(stype, shape, ctx=None, dtype=None):
    """As zeros (a CSR matrix with nothing stored is empty)."""
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A CSRNDArray from a CSRNDArray or a scipy.sparse matrix."""
    if isinstance(source_array, CSRNDArray) or _is_scipy_sparse(source_array):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise ValueError("mx.nd.sparse.array takes a CSRNDArray or a scipy.sparse matrix, got %s"
                     % type(source_array).__name__)


def row_sparse_array(*args, **kwargs):
    """Not available: this runtime has dense and CSR arrays only."""
    raise NotImplementedError("row_sparse arrays are not supported: this runtime has 'default' (dense) and 'csr' "
                              "arrays")


# ---- dot ------------------------------------------------------------------------------------

def _csr_dot(csr, dense, transpose_a, out=None):
    keys = ["shape", "transpose_a"]
    vals = [str(csr.shape), str(bool(transpose_a))]
    return imperative_invoke(_registry.op_handle("_sparse_csr_dot_dense"),
                             [csr.data, csr.indices, csr.indptr, dense], keys, vals, out)


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None, out=None):
    """Dot product where either operand may be a CSRNDArray (1.x mx.nd.sparse.dot).

    - csr . dense (transpose_a, transpose_b): computed on the CSR structure, float32/float64,
      differentiable w.r.t. the dense operand and the stored values;
    - dense . csr: as (op(csr)^T . op(dense)^T)^T on the same kernel;
    - csr . csr: rhs runs dense (storage fallback).
    The result is dense (1.x gives row_sparse for csr^T . dense); forward_stype='csr' converts it.
    """
    if forward_stype not in (None, "default", "csr"):
        raise ValueError("dot: forward_stype %r is not supported; use None, 'default' or 'csr'" % (forward_stype,))
    lhs_csr, rhs_csr = isinstance(lhs, CSRNDArray), isinstance(rhs, CSRNDArray)
    if lhs_csr:
        if rhs_csr:
            rhs = storage_fallback("dot", rhs)
        if transpose_b:
            if rhs.ndim != 2:
                raise ValueError("dot: transpose_b needs a 2-D rhs, got shape %s" % (rhs.shape,))
            rhs = _op("transpose", rhs)
        res = _csr_dot(lhs, rhs, transpose_a, out if forward_stype != "csr" else None)
    elif rhs_csr:
        if lhs.ndim == 1:  # v . op(B) = op(B)^T . v
            res = _csr_dot(rhs, lhs, not transpose_b)
        elif lhs.ndim == 2:
            lhs_t = lhs if transpose_a else _op("transpose", lhs)
            res = _op("transpose", _csr_dot(rhs, lhs_t, not transpose_b))
        else:
            raise ValueError("dot: a dense lhs of a CSR rhs must be 1-D or 2-D, got shape %s" % (lhs.shape,))
    else:
        res = _op("dot", lhs, rhs, transpose_a=transpose_a, transpose_b=transpose_b)
    if forward_stype == "csr":
        res = res.tostype("csr")
        return res if out is None else res.copyto(out)
    if out is not None and res is not out:
        return res.copyto(out)
    return res


def _dot_hook(info, args, kwargs):
    """mx.nd.dot's CSR path: NotImplemented unless an operand is a CSRNDArray."""
    named = dict(kwargs)
    _registry.name_positional(info, args, named)
    if not isinstance(named.get("lhs"), CSRNDArray) and not isinstance(named.get("rhs"), CSRNDArray):
        return NotImplemented
    named.pop("name", None)
    return dot(**named)


_STYPE_HOOKS["dot"] = _dot_hook


# ---- storage fallback -------------------------------------------------------------------------

_WARNED = set()  # op names already warned about


def _fallback_verbose():
    value = ctypes.c_char_p()
    check_call(_LIB.MXGetEnv(c_str("MXNET_STORAGE_FALLBACK_LOG_VERBOSE"), ctypes.byref(value)))
    return value.value is None or value.value.decode().strip().lower() not in ("0", "false", "no", "off")


def storage_fallback(op_name, x):
    """x as a dense NDArray for operator op_name, warning once per operator."""
    if op_name not in _WARNED and _fallback_verbose():
        _WARNED.add(op_name)
        warnings.warn("storage fallback: operator %s has no CSR implementation and runs on a dense copy of its "
                      "CSRNDArray input (set MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0 to silence this)" % op_name,
                      StorageFallbackWarning, stacklevel=_caller_stacklevel())
    return x.tostype("default")


def _op_name(handle):
    """The registered name of the op behind a handle (aliases give the op's own name)."""
    if not isinstance(handle, ctypes.c_void_p):
        handle = ctypes.c_void_p(handle)
    return _registry.op_info(handle).name


def _caller_stacklevel():
    """warnings.warn's stacklevel for the first frame outside the mxnet package."""
    import os
    import sys
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(pkg):
        frame, level = frame.f_back, level + 1
    return level


def dense_inputs(op_handle, inputs, out):
    """imperative_invoke's fallback: its inputs with every CSRNDArray made dense."""
    name = _op_name(op_handle)
    outs = out if isinstance(out, (list, tuple)) else ([] if out is None else [out])
    if any(isinstance(o, CSRNDArray) for o in outs):
        raise TypeError("%s: out= cannot be a CSRNDArray (operators write dense arrays)" % name)
    return [storage_fallback(name, a) if isinstance(a, CSRNDArray) else a for a in inputs]
