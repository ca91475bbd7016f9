"""mx.nd.sparse: CSRNDArray construction, checks, rows, conversions, dot and its gradient, and
the storage fallback of the other operators."""
import pickle
import warnings

import numpy as np
import pytest

import mxnet as mx
from mxnet.ndarray import sparse
from mxnet.test_utils import environment

try:
    import scipy.sparse as spsp
except ImportError:
    spsp = None
needs_scipy = pytest.mark.skipif(spsp is None, reason="scipy not installed")


def random_dense(rng, rows, cols, density=0.1, empty_rows=(), dtype=np.float64):
    a = rng.uniform(-1, 1, size=(rows, cols))
    a[rng.uniform(size=(rows, cols)) >= density] = 0
    for r in empty_rows:
        a[r] = 0
    return a.astype(dtype)


def parts_of(dense):
    """(data, indices, indptr) of a dense numpy matrix, built independently of the library."""
    data, indices, indptr = [], [], [0]
    for row in dense:
        nz = np.nonzero(row)[0]
        indices.extend(nz)
        data.extend(row[nz])
        indptr.append(len(indices))
    return np.array(data, dtype=dense.dtype), np.array(indices, np.int64), np.array(indptr, np.int64)


def check_csr(x, dense, dtype=None):
    assert isinstance(x, sparse.CSRNDArray) and isinstance(x, mx.nd.NDArray)
    assert x.stype == "csr" and x.shape == dense.shape
    assert x.indices.dtype == np.int64 and x.indptr.dtype == np.int64
    if dtype is not None:
        assert x.dtype == np.dtype(dtype).type and x.data.dtype == np.dtype(dtype).type
    np.testing.assert_array_equal(x.asnumpy(), dense)
    data, indices, indptr = parts_of(dense)
    np.testing.assert_array_equal(x.indptr.asnumpy(), indptr)
    np.testing.assert_array_equal(x.indices.asnumpy(), indices)
    np.testing.assert_array_equal(x.data.asnumpy(), data.astype(x.data.dtype))


EXAMPLE = np.array([[1, 0, 2, 0], [0, 0, 0, 0], [0, 3, 0, 0]], np.float32)


# ---- construction ----

def test_from_parts_with_and_without_shape():
    data, indices, indptr = parts_of(EXAMPLE)
    x = sparse.csr_matrix((data, indices, indptr), shape=(3, 4))
    check_csr(x, EXAMPLE, np.float32)
    assert repr(x) == "\n<CSRNDArray 3x4 @cpu(0)>" and str(x) == repr(x)
    assert len(x) == 3 and x.ndim == 2 and x.context == mx.cpu() and x.ctx == mx.cpu()
    inferred = sparse.csr_matrix((data, indices, indptr))  # cols = max index + 1
    check_csr(inferred, EXAMPLE[:, :3])
    # lists give float32; NDArray parts and int32 indices are taken as they are
    check_csr(sparse.csr_matrix(([1, 2, 3], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4)), EXAMPLE, np.float32)
    x = sparse.csr_matrix((mx.nd.array(data, dtype="float64"), mx.nd.array(indices, dtype="int32"),
                           indptr.astype(np.int32)), shape=(3, 4))
    check_csr(x, EXAMPLE, np.float64)


def test_from_dense_forms():
    check_csr(sparse.csr_matrix(EXAMPLE), EXAMPLE, np.float32)
    check_csr(sparse.csr_matrix(EXAMPLE.astype(np.float64)), EXAMPLE, np.float64)  # numpy keeps its dtype
    check_csr(sparse.csr_matrix(mx.nd.array(EXAMPLE)), EXAMPLE, np.float32)
    check_csr(sparse.csr_matrix(EXAMPLE.tolist()), EXAMPLE, np.float32)
    check_csr(sparse.csr_matrix(EXAMPLE, dtype="float64"), EXAMPLE, np.float64)
    check_csr(mx.nd.array(EXAMPLE).tostype("csr"), EXAMPLE, np.float32)
    nan = np.array([[0, np.nan], [0, 0]], np.float32)  # NaN is not zero: it is stored
    assert sparse.csr_matrix(nan).data.shape == (1,)


def test_empty_forms():
    for x in (sparse.csr_matrix((2, 5)), sparse.zeros("csr", (2, 5)), sparse.empty("csr", (2, 5)),
              mx.nd.zeros((2, 5), stype="csr")):
        check_csr(x, np.zeros((2, 5), np.float32), np.float32)
        assert x.data.shape == (0,)
    check_csr(sparse.zeros("csr", (0, 3), dtype="float64"), np.zeros((0, 3)), np.float64)
    assert isinstance(sparse.zeros("default", (2, 2)), mx.nd.NDArray)
    assert sparse.zeros("default", (2, 2)).stype == "default"


def test_copy_forms_and_context():
    x = sparse.csr_matrix(EXAMPLE)
    y = sparse.csr_matrix(x)
    assert y is not x and y.data is not x.data
    check_csr(y, EXAMPLE)
    check_csr(sparse.csr_matrix(x, dtype="float64"), EXAMPLE, np.float64)
    check_csr(sparse.array(x), EXAMPLE)
    z = mx.nd.array(x)  # as in 1.x, a sparse source gives a sparse array
    assert z.stype == "csr"
    check_csr(z, EXAMPLE)
    assert sparse.csr_matrix(EXAMPLE, ctx=mx.cpu(1)).context == mx.cpu(1)
    with pytest.raises(ValueError, match="CSRNDArray or a scipy"):
        sparse.array(EXAMPLE)


@needs_scipy
def test_scipy_round_trip():
    rng = np.random.RandomState(3)
    dense = random_dense(rng, 7, 9, empty_rows=(2,))
    m = spsp.csr_matrix(dense)
    check_csr(sparse.csr_matrix(m), dense, np.float64)
    check_csr(mx.nd.array(m), dense)
    back = sparse.csr_matrix(dense).asscipy()
    assert back.shape == dense.shape
    np.testing.assert_array_equal(back.toarray(), dense)
    # unsorted indices and duplicates are made canonical (sorted, summed) as scipy reads them
    messy = spsp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2]), np.array([0, 3])), shape=(1, 3))
    check_csr(sparse.csr_matrix(messy), messy.toarray())
    check_csr(sparse.csr_matrix(spsp.coo_matrix(dense)), dense)


def test_asscipy_without_scipy_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(sparse, "_scipy_sparse", lambda: None)
    with pytest.raises(ImportError, match="scipy"):
        sparse.csr_matrix(EXAMPLE).asscipy()


# ---- validation ----

@pytest.mark.parametrize("parts,shape,match", [
    (([1.0, 2.0], [0, 5], [0, 1, 2]), (2, 3), r"column index 5 \(entry 1\) is out of range \[0, 3\)"),
    (([1.0, 2.0], [0, -1], [0, 1, 2]), (2, 3), "column index -1"),
    (([1.0, 2.0], [0, 1], [0, 2, 1]), (2, 3), r"non-decreasing, but indptr\[2\] = 1 < indptr\[1\] = 2"),
    (([1.0, 2.0], [0, 1], [1, 2, 2]), (2, 3), "indptr must start at 0, got 1"),
    (([1.0, 2.0], [0, 1], [0, 1, 1]), (2, 3), "must end at the number of stored values 2, got 1"),
    (([1.0, 2.0], [0, 1], [0, 1, 2, 2]), (2, 3), "rows \\+ 1 = 3 entries, got 4"),
    (([1.0, 2.0], [0], [0, 1, 2]), (2, 3), "same length"),
    (([1.0, 2.0], [1, 0], [0, 2, 2]), (2, 3), "row 0 must be strictly increasing, got 0 after 1"),
    (([1.0, 2.0], [1, 1], [0, 2, 2]), (2, 3), "row 0 must be strictly increasing, got 1 after 1"),
    (([1.0, 2.0], [0.5, 1], [0, 1, 2]), (2, 3), "indices must hold integers"),
    (([[1.0], [2.0]], [0, 1], [0, 1, 2]), (2, 3), "data must be 1-D"),
    (([1.0, 2.0], [0, 1], [0, 1, 2]), (2, 3, 1), "shape must be \\(rows, cols\\)"),
    (([1.0, 2.0], [0, 1], [0, 1, 2]), (2, -3), "non-negative"),
])
def test_bad_structure_is_a_value_error(parts, shape, match):
    with pytest.raises(ValueError, match=match):
        sparse.csr_matrix(parts, shape=shape)


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="2-D"):
        sparse.csr_matrix(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="2-D"):
        mx.nd.ones((4,)).tostype("csr")
    with pytest.raises(ValueError, match="2-D"):
        sparse.csr_matrix((2, 3, 4))
    with pytest.raises(ValueError, match="coordinate"):
        sparse.csr_matrix(([1.0], ([0], [0])), shape=(1, 1))
    with pytest.raises(ValueError, match="does not match"):
        sparse.csr_matrix(EXAMPLE, shape=(2, 2))
    with pytest.raises(TypeError, match="cannot build"):
        sparse.csr_matrix("abc")
    with pytest.raises(ValueError, match="'default' \\(dense\\) and 'csr'"):
        mx.nd.ones((2, 2)).tostype("row_sparse")
    with pytest.raises(ValueError, match="'default' \\(dense\\) and 'csr'"):
        sparse.csr_matrix(EXAMPLE).tostype("row_sparse")
    with pytest.raises(NotImplementedError, match="row_sparse"):
        sparse.row_sparse_array(([1.0], [0]), shape=(2, 2))
    with pytest.raises(ValueError, match="stype"):
        sparse.zeros("row_sparse", (2, 2))


def test_check_format_catches_parts_changed_afterwards():
    x = sparse.csr_matrix(EXAMPLE)
    x.check_format()
    x.indices[:] = 7  # the parts are the array's own
    with pytest.raises(ValueError, match="out of range"):
        x.check_format()
    x.check_format(full_check=False)  # indptr alone is still fine
    # the kernels check the structure too: a clear error, not a wild read
    with pytest.raises(mx.base.MXNetError, match="out of range"):
        x.tostype("default").asnumpy()
    with pytest.raises(mx.base.MXNetError, match="out of range"):
        sparse.dot(x, mx.nd.ones((4, 2))).asnumpy()


# ---- rows, conversions, copies ----

@pytest.mark.parametrize("key", [slice(1, 3), slice(0, 1), slice(None), slice(-2, None), slice(2, 1),
                                 slice(None, 100), 0, 1, -1, 2])
def test_row_selection(key):
    rng = np.random.RandomState(5)
    dense = random_dense(rng, 5, 6, density=0.4, empty_rows=(1,))
    x = sparse.csr_matrix(dense)
    check_csr(x[key], dense[[key]] if isinstance(key, int) else dense[key])
    assert x[key].data.context == x.context


def test_bad_row_selection():
    x = sparse.csr_matrix(EXAMPLE)
    with pytest.raises(IndexError, match="out of range"):
        x[3]
    with pytest.raises(ValueError, match="step"):
        x[::2]
    with pytest.raises(ValueError, match="int or a contiguous slice"):
        x[1:2, 1]
    with pytest.raises(ValueError, match="as a whole"):
        x[0] = 1
    with pytest.raises(NotImplementedError, match="ambiguous"):
        x.size


def test_conversions_and_copies():
    x = sparse.csr_matrix(EXAMPLE)
    d = x.tostype("default")
    assert type(d) is mx.nd.NDArray and d.stype == "default"
    np.testing.assert_array_equal(d.asnumpy(), EXAMPLE)
    np.testing.assert_array_equal(np.asarray(x), EXAMPLE)
    assert x.tostype("csr") is x
    check_csr(d.tostype("csr"), EXAMPLE)
    y = x.copy()
    assert y.data is not x.data
    check_csr(y, EXAMPLE)
    check_csr(x.copyto(mx.cpu(2)), EXAMPLE)
    assert x.copyto(mx.cpu(2)).context == mx.cpu(2)
    assert x.as_in_context(mx.cpu()) is x and x.as_in_context(mx.cpu(1)).context == mx.cpu(1)
    dense_out = mx.nd.zeros((3, 4))
    assert x.copyto(dense_out) is dense_out
    np.testing.assert_array_equal(dense_out.asnumpy(), EXAMPLE)
    target = sparse.zeros("csr", (3, 4))
    assert x.copyto(target) is target
    check_csr(target, EXAMPLE)
    check_csr(x.astype("float64"), EXAMPLE, np.float64)
    assert x.astype("float32", copy=False) is x
    check_csr(x.detach(), EXAMPLE)
    x.wait_to_read()
    check_csr(pickle.loads(pickle.dumps(x)), EXAMPLE, np.float32)
    rows = list(x)  # iteration gives 1-row CSRNDArrays
    assert len(rows) == 3 and all(r.shape == (1, 4) for r in rows)


def test_whole_assignment():
    x = sparse.csr_matrix(EXAMPLE)
    x[:] = np.eye(3, 4)
    check_csr(x, np.eye(3, 4, dtype=np.float32), np.float32)
    x[:] = sparse.csr_matrix(EXAMPLE)
    check_csr(x, EXAMPLE)
    with pytest.raises(ValueError, match="cannot assign"):
        x[:] = np.ones((2, 2))


# ---- dot ----

def dot_cases():
    rng = np.random.RandomState(0)
    yield "random", random_dense(rng, 40, 30, empty_rows=(0, 7, 39))
    yield "all_empty", np.zeros((6, 5))
    yield "no_rows", np.zeros((0, 5))
    yield "dense", rng.uniform(-1, 1, size=(4, 3))
    # big enough for the OpenMP path (nnz * width over MXNET_CPU_PARALLEL_SIZE)
    yield "large", random_dense(rng, 1500, 700, empty_rows=range(0, 1500, 50))


@pytest.mark.parametrize("name,dense", list(dot_cases()), ids=[n for n, _ in dot_cases()])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transpose_a", [False, True])
def test_csr_dot_dense_matches_numpy(name, dense, dtype, transpose_a):
    rng = np.random.RandomState(1)
    rows, cols = dense.shape
    k = rows if transpose_a else cols
    w = rng.uniform(-1, 1, size=(k, 8 if name != "large" else 6))
    x = sparse.csr_matrix(dense, dtype=dtype)
    want = (dense.T if transpose_a else dense).astype(dtype).astype(np.float64) @ w.astype(dtype).astype(np.float64)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    for out in (sparse.dot(x, mx.nd.array(w, dtype=dtype), transpose_a=transpose_a),
                mx.nd.dot(x, mx.nd.array(w, dtype=dtype), transpose_a=transpose_a),
                mx.nd.op.dot(lhs=x, rhs=mx.nd.array(w, dtype=dtype), transpose_a=transpose_a)):
        assert out.stype == "default" and out.dtype == np.dtype(dtype).type
        np.testing.assert_allclose(out.asnumpy(), want, **tol)
    vec = sparse.dot(x, mx.nd.array(w[:, 0], dtype=dtype), transpose_a=transpose_a)  # 1-D rhs
    np.testing.assert_allclose(vec.asnumpy(), want[:, 0], **tol)


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_other_dot_forms(transpose_a, transpose_b):
    rng = np.random.RandomState(2)
    a = random_dense(rng, 9, 7, density=0.3, empty_rows=(4,))
    b = rng.uniform(-1, 1, size=(7, 5))
    op_a = a.T if transpose_a else a
    # csr . dense with transpose_b
    w = rng.uniform(-1, 1, size=(5, op_a.shape[1]))
    got = mx.nd.dot(sparse.csr_matrix(a, dtype="float64"), mx.nd.array(w, dtype="float64"),
                    transpose_a=transpose_a, transpose_b=True)
    np.testing.assert_allclose(got.asnumpy(), op_a @ w.T, rtol=1e-12)
    # dense . csr
    lhs = rng.uniform(-1, 1, size=(3, 9 if not transpose_b else 7))
    op_b = a.T if transpose_b else a
    lhs_given = lhs.T if transpose_a else lhs
    got = mx.nd.dot(mx.nd.array(lhs_given, dtype="float64"), sparse.csr_matrix(a, dtype="float64"),
                    transpose_a=transpose_a, transpose_b=transpose_b)
    np.testing.assert_allclose(got.asnumpy(), lhs @ op_b, rtol=1e-12)
    vec = mx.nd.dot(mx.nd.array(lhs[0], dtype="float64"), sparse.csr_matrix(a, dtype="float64"),
                    transpose_b=transpose_b)
    np.testing.assert_allclose(vec.asnumpy(), lhs[0] @ op_b, rtol=1e-12)
    del b


def test_dot_extras():
    x = sparse.csr_matrix(EXAMPLE)
    w = mx.nd.array(np.arange(8).reshape(4, 2))
    out = mx.nd.zeros((3, 2))
    assert mx.nd.dot(x, w, out=out) is out
    np.testing.assert_allclose(out.asnumpy(), EXAMPLE @ np.arange(8).reshape(4, 2))
    res = sparse.dot(x, w, forward_stype="csr")
    check_csr(res, EXAMPLE @ np.arange(8).reshape(4, 2).astype(np.float32))
    with pytest.warns(sparse.StorageFallbackWarning, match="dot"):
        both = sparse.dot(x, sparse.csr_matrix(np.eye(4, dtype=np.float32)))
    np.testing.assert_allclose(both.asnumpy(), EXAMPLE)
    # dense . dense still goes to the dense op
    np.testing.assert_allclose(sparse.dot(mx.nd.ones((2, 3)), mx.nd.ones((3, 2))).asnumpy(), np.full((2, 2), 3))


def test_dot_errors():
    x = sparse.csr_matrix(EXAMPLE)
    with pytest.raises(ValueError, match="must have 4 rows"):
        mx.nd.dot(x, mx.nd.ones((3, 2)))
    with pytest.raises(ValueError, match="must have 3 rows"):
        mx.nd.dot(x, mx.nd.ones((4, 2)), transpose_a=True)
    with pytest.raises(TypeError, match="float32 and float64"):
        mx.nd.dot(sparse.csr_matrix(EXAMPLE, dtype="int32"), mx.nd.ones((4, 2), dtype="int32"))
    with pytest.raises(TypeError, match="dtype"):
        mx.nd.dot(x, mx.nd.ones((4, 2), dtype="float64"))
    with pytest.raises(ValueError, match="forward_stype"):
        sparse.dot(x, mx.nd.ones((4, 2)), forward_stype="row_sparse")


def test_empty_contraction_in_dense_dot():
    # dense dot with a zero-length contracted axis (what an all-empty fallback can produce)
    np.testing.assert_array_equal(mx.nd.dot(mx.nd.zeros((2, 0)), mx.nd.zeros((0, 3))).asnumpy(), np.zeros((2, 3)))


# ---- autograd ----

@pytest.mark.parametrize("transpose_a", [False, True])
def test_gradient_of_sum_of_dot(transpose_a):
    rng = np.random.RandomState(4)
    a = random_dense(rng, 12, 9, density=0.2, empty_rows=(3,))
    x = sparse.csr_matrix(a, dtype="float64")
    op_a = a.T if transpose_a else a
    w = mx.nd.array(rng.uniform(-1, 1, size=(op_a.shape[1], 4)), dtype="float64")
    r = rng.uniform(-1, 1, size=(op_a.shape[0], 4))
    w.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.sum(mx.nd.dot(x, w, transpose_a=transpose_a))
    loss.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), op_a.T @ np.ones((op_a.shape[0], 4)), rtol=1e-12)
    # a non-uniform head gradient, and the gradient of the stored values
    x.data.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.sum(mx.nd.dot(x, w, transpose_a=transpose_a) * mx.nd.array(r, dtype="float64"))
    loss.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), op_a.T @ r, rtol=1e-12)
    full = (r @ w.asnumpy().T) if not transpose_a else (w.asnumpy() @ r.T)  # d loss / d a, dense
    rows = np.repeat(np.arange(a.shape[0]), np.diff(x.indptr.asnumpy()))
    np.testing.assert_allclose(x.data.grad.asnumpy(), full[rows, x.indices.asnumpy()], rtol=1e-12)


def test_linear_model_trains_on_csr_batches():
    rng = np.random.RandomState(6)
    a = random_dense(rng, 64, 20, density=0.3).astype(np.float32)
    true_w = rng.uniform(-1, 1, size=(20, 1)).astype(np.float32)
    y = mx.nd.array(a @ true_w)
    x = sparse.csr_matrix(a)
    w = mx.nd.zeros((20, 1))
    w.attach_grad()
    losses = []
    for _ in range(60):
        with mx.autograd.record():
            loss = mx.nd.mean(mx.nd.square(mx.nd.dot(x, w) - y))
        loss.backward()
        w[:] = w - 0.5 * w.grad
        losses.append(float(loss.asscalar()))
    assert losses[-1] < 0.1 * losses[0]


def test_gradient_through_fallback_reaches_stored_values():
    x = sparse.csr_matrix(EXAMPLE)
    x.data.attach_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sparse.StorageFallbackWarning)
        with mx.autograd.record():
            loss = mx.nd.sum(mx.nd.square(x))  # square runs on the dense copy
        loss.backward()
    np.testing.assert_allclose(x.data.grad.asnumpy(), 2 * np.array([1, 2, 3]))


# ---- storage fallback ----

@pytest.fixture
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(sparse, "_WARNED", set())


def test_fallback_warns_once_per_operator_and_is_correct(fresh_warnings):
    x = sparse.csr_matrix(EXAMPLE)
    with pytest.warns(sparse.StorageFallbackWarning, match="storage fallback: operator exp") as rec:
        y = mx.nd.exp(x)
    assert len(rec) == 1 and rec[0].filename == __file__  # points at the caller
    assert type(y) is mx.nd.NDArray
    np.testing.assert_allclose(y.asnumpy(), np.exp(EXAMPLE), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(mx.nd.exp(x).asnumpy(), np.exp(EXAMPLE), rtol=1e-6)  # no second warning
    with pytest.warns(sparse.StorageFallbackWarning, match="operator _mul_scalar"):
        np.testing.assert_array_equal((x * 2).asnumpy(), EXAMPLE * 2)  # the op's own name, not an alias
    with pytest.warns(sparse.StorageFallbackWarning, match="operator broadcast_add"):
        np.testing.assert_array_equal((x + mx.nd.ones((3, 4))).asnumpy(), EXAMPLE + 1)
    with pytest.warns(sparse.StorageFallbackWarning, match="operator sum"):
        assert float(x.sum().asscalar()) == 6.0


def test_fallback_warning_can_be_silenced(fresh_warnings):
    x = sparse.csr_matrix(EXAMPLE)
    with environment("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "0"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(mx.nd.relu(x).asnumpy(), EXAMPLE)
    with pytest.warns(sparse.StorageFallbackWarning, match="relu"):
        mx.nd.relu(x)


def test_calls_that_need_one_handle_fail_clearly(tmp_path):
    x = sparse.csr_matrix(EXAMPLE)
    with pytest.raises(TypeError, match="out= cannot be a CSRNDArray"):
        mx.nd.exp(mx.nd.ones((3, 4)), out=x)
    with pytest.raises(TypeError, match="out= cannot be a CSRNDArray"):
        x += 1
    with pytest.raises(TypeError, match="tostype\\('default'\\)"):
        mx.nd.save(str(tmp_path / "x.nd"), [x])
    with pytest.raises(TypeError, match="cannot hold a gradient"):
        x.attach_grad()
    with pytest.raises(TypeError, match="tostype\\('default'\\)"):
        x.reshape((4, 3))


def test_gluon_dense_layer_takes_csr_input_plain_and_hybridized(fresh_warnings):
    net = mx.gluon.nn.Dense(2, in_units=4)
    net.initialize()
    x = sparse.csr_matrix(EXAMPLE)
    want = net(mx.nd.array(EXAMPLE)).asnumpy()
    with pytest.warns(sparse.StorageFallbackWarning, match="FullyConnected"):
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
    net.hybridize()
    with pytest.warns(sparse.StorageFallbackWarning, match="CachedOp"):
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    np.testing.assert_allclose(net.weight.grad().asnumpy(), np.tile(EXAMPLE.sum(axis=0), (2, 1)), rtol=1e-6)
