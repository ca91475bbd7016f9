"""MXNet 1.x's array generators of mx.test_utils: random sparse (CSR) arrays and the
large-tensor helpers. mx.test_utils re-exports them; import them from there.

This runtime has dense ('default') and 'csr' arrays; 'row_sparse' requests are refused with a
ValueError naming the supported kinds.
"""
import numpy as np

from .ndarray import arange, array, broadcast_to
from .ndarray.sparse import CSRNDArray, csr_matrix

_STYPES = "'csr' (this runtime has dense 'default' and 'csr' arrays, no 'row_sparse')"


def _context(ctx):
    from .test_utils import default_context
    return ctx if ctx is not None else default_context()


def _check_csr_request(num_rows, num_cols, density, distribution):
    if not 0 <= density <= 1:
        raise ValueError("density must be in [0, 1], got %r" % (density,))
    if num_rows <= 0 or num_cols <= 0:
        raise ValueError("a CSR array needs positive rows and columns, got (%s, %s)" % (num_rows, num_cols))
    if distribution == "powerlaw" and int(num_rows * num_cols * density) < 2 * num_rows:
        raise ValueError("powerlaw CSR of shape (%d, %d) needs num_rows * num_cols * density >= 2 * num_rows "
                         "(density %r is too low)" % (num_rows, num_cols, density))


def _uniform_csr_dense(num_rows, num_cols, density, dtype):
    """Dense values with int(rows*cols*density) non-zeros at uniformly chosen distinct positions,
    each uniform in [0, 1) (as scipy.sparse.rand draws them)."""
    nnz = int(num_rows * num_cols * density)
    dense = np.zeros((num_rows, num_cols), dtype=dtype)
    positions = np.random.choice(num_rows * num_cols, size=nnz, replace=False)
    dense.reshape(-1)[positions] = np.random.uniform(0, 1, size=nnz)
    # A draw of exactly 0 would vanish from the CSR structure; nudge it into the open interval.
    flat = dense.reshape(-1)
    flat[positions[flat[positions] == 0]] = np.finfo(np.float32).tiny
    return dense


def _powerlaw_csr_dense(num_rows, num_cols, density, dtype):
    """Dense values where row i holds min(num_cols, 2**(i+1)) non-zeros (every row at least one),
    filled in row order until int(rows*cols*density) are placed; values in [1.001, 3)."""
    remaining = int(num_rows * num_cols * density)
    counts = np.zeros(num_rows, dtype=np.int64)
    take = min(num_rows, remaining)
    counts[:take] = 1
    remaining -= take
    for row in range(num_rows):
        if remaining <= 0:
            break
        extra = min(min(num_cols, 2 ** (row + 1)) - 1, remaining)
        counts[row] += extra
        remaining -= extra
    for row in range(num_rows):  # rows past the doubling still owe entries: fill them whole
        if remaining <= 0:
            break
        extra = min(num_cols - counts[row], remaining)
        counts[row] += extra
        remaining -= extra
    if remaining > 0:
        raise ValueError("powerlaw CSR of shape (%d, %d) cannot hold density %r" % (num_rows, num_cols, density))
    dense = np.zeros((num_rows, num_cols), dtype=dtype)
    for row, count in enumerate(counts):
        dense[row, :count] = 1 + np.random.uniform(0.001, 2, size=count)
    return dense


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse array and its parts: (csr, (indptr, indices, data)).

    density defaults to a uniform draw in [0, 1); distribution 'uniform' (default: distinct
    positions chosen uniformly, values in [0, 1)) or 'powerlaw' (row i holds about 2**(i+1)
    values); data_init fills every stored value; modifier_func maps each stored value.
    """
    from .test_utils import assign_each, default_dtype
    if stype != "csr":
        raise ValueError("rand_sparse_ndarray: stype %r is not supported; use %s" % (stype, _STYPES))
    if rsp_indices is not None:
        raise ValueError("rand_sparse_ndarray: rsp_indices applies to 'row_sparse' arrays, which this runtime "
                         "does not have")
    if shuffle_csr_indices:
        raise ValueError("rand_sparse_ndarray: shuffle_csr_indices is not supported: CSR arrays of this runtime "
                         "keep each row's column indices sorted")
    if len(shape) != 2:
        raise ValueError("a CSR array is 2-D, got shape %s" % (tuple(shape),))
    density = np.random.rand() if density is None else density
    dtype = np.dtype(default_dtype() if dtype is None else dtype)
    distribution = "uniform" if distribution is None else distribution
    if distribution not in ("uniform", "powerlaw"):
        raise ValueError("rand_sparse_ndarray: distribution %r is not 'uniform' or 'powerlaw'" % (distribution,))
    num_rows, num_cols = shape
    _check_csr_request(num_rows, num_cols, density, distribution)
    make = _uniform_csr_dense if distribution == "uniform" else _powerlaw_csr_dense
    dense = make(num_rows, num_cols, density, dtype)
    stored = dense != 0
    if data_init is not None:
        dense[stored] = data_init
    if modifier_func is not None:
        dense[stored] = assign_each(dense[stored], modifier_func)
    rows, cols = np.nonzero(stored)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=num_rows))]).astype(np.int64)
    csr = csr_matrix((dense[rows, cols], cols.astype(np.int64), indptr), shape=(num_rows, num_cols),
                     ctx=_context(ctx), dtype=dtype)
    return csr, (csr.indptr, csr.indices, csr.data)


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=.5, shuffle_csr_indices=False):
    """rand_sparse_ndarray's array alone (uniform distribution, density 0.5 by default)."""
    if stype != "csr":
        raise ValueError("create_sparse_array: stype %r is not supported; use %s" % (stype, _STYPES))
    arr, _ = rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, data_init=data_init,
                                 rsp_indices=rsp_indices, modifier_func=modifier_func,
                                 shuffle_csr_indices=shuffle_csr_indices)
    return arr


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None,
                           modifier_func=None, shuffle_csr_indices=False):
    """create_sparse_array with an explicit density (0 gives an all-zero CSR array)."""
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices, dtype=dtype,
                               modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)


def shuffle_csr_column_indices(csr):
    """Shuffles each row's column indices (and not the values) of a CSR matrix whose indptr and
    indices are writable numpy arrays (a scipy.sparse.csr_matrix), in place."""
    if isinstance(csr, CSRNDArray):
        raise TypeError("shuffle_csr_column_indices: a CSRNDArray keeps its column indices sorted; pass a "
                        "scipy.sparse.csr_matrix")
    indptr, indices = csr.indptr, csr.indices
    if not isinstance(indices, np.ndarray):
        raise TypeError("shuffle_csr_column_indices expects numpy indptr/indices, got %s" % type(indices))
    for row in range(len(indptr) - 1):
        segment = np.array(indices[indptr[row]:indptr[row + 1]])
        np.random.shuffle(segment)
        indices[indptr[row]:indptr[row + 1]] = segment


# ---- large-tensor helpers ----------------------------------------------------------------
def create_2d_tensor(rows, columns, dtype=np.int64):
    """A rows x columns array whose row i holds i everywhere."""
    column = arange(0, rows, dtype=dtype).reshape((rows, 1))
    return broadcast_to(column, shape=(rows, columns))


def create_vector(size, dtype=np.int64):
    """0, 1, ..., size-1."""
    return arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """The size x size float32 identity matrix."""
    return array(np.eye(size, dtype=np.float32))


def get_identity_mat_batch(size):
    """Two size x size identity matrices stacked: shape (2, size, size)."""
    eye = np.eye(size, dtype=np.float32)
    return array(np.stack([eye, eye]))


__all__ = ["rand_sparse_ndarray", "create_sparse_array", "create_sparse_array_zd", "shuffle_csr_column_indices",
           "create_2d_tensor", "create_vector", "get_identity_mat", "get_identity_mat_batch"]
