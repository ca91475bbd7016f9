"""MXNet 1.x's array helpers of mx.test_utils: tolerances, assertions, random dense and CSR
arrays, large-tensor helpers, platform probes and graph comparisons. Expected values follow
1.x's documented rules (and the 1.9.1 peer where it is installed)."""
import json
import os
import sys
import textwrap

import numpy as np
import pytest

import mxnet as mx
from mxnet import test_utils as tu
from peer_oracle import needs_peer, run_peer


def test_default_tolerance_tables():
    rtols, atols, eps = tu.default_rtols(), tu.default_atols(), tu.default_numeric_eps()
    assert rtols[np.dtype(np.float16)] == 1e-2 and rtols[np.dtype(np.float32)] == 1e-4
    assert rtols[np.dtype(np.float64)] == 1e-5
    assert atols[np.dtype(np.float16)] == 1e-1 and atols[np.dtype(np.float32)] == 1e-3
    assert atols[np.dtype(np.float64)] == 1e-20
    for exact in (np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64):
        assert rtols[np.dtype(exact)] == 0 and atols[np.dtype(exact)] == 0
    assert eps == {np.dtype(np.float16): 1 / 64.0, np.dtype(np.float32): 1 / 512.0,
                   np.dtype(np.float64): 1 / 16384.0}


def test_get_tolerance_and_get_tols():
    f16 = np.zeros(2, np.float16)
    assert tu.get_tolerance(f16, 0.5, tu.default_rtols()) == 0.5
    assert tu.get_tolerance(f16, None, tu.default_rtols()) == 1e-2
    assert tu.get_tolerance(f16, {np.dtype(np.float16): 0.3}, tu.default_rtols()) == 0.3
    assert tu.get_tolerance(f16, {np.dtype(np.float32): 0.3}, tu.default_rtols()) == 1e-2
    # The larger default of the two sides; numbers count as float64 scalars.
    assert tu.get_tols(mx.nd.ones(2), np.ones(2), None, None) == (1e-4, 1e-3)
    assert tu.get_tols(1.0, np.ones(2), None, None) == (1e-5, 1e-20)
    assert tu.get_tols(f16, np.ones(2, np.float32), None, 0.25) == (1e-2, 0.25)
    assert tu.effective_dtype(mx.nd.ones(2, dtype="float16")) == np.dtype(np.float16)


def test_location_error_and_assert_allclose():
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [3.5, 4.0]])
    text = tu.locationError(a, b, (1, 0), ("x", "y"))
    assert text == "Location of error: (1, 0), x=%.8f, y=%.8f" % (3.0, 3.5)
    assert tu.locationError(a, b, (1, 0), ("x", "y"), maxError=True).startswith("Location of maximum error")
    tu.assert_allclose(a, a + 1e-8)
    with pytest.raises(AssertionError):
        tu.assert_allclose(a, b)  # default rtol 1e-7, atol 0
    tu.assert_allclose(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))  # NaNs equal by default
    tu.assert_almost_equal_with_err(a, b, etol=0.3, mismatches=(1, 1))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_with_err(a, b, rtol=1e-3, atol=1e-3, mismatches=(1, 1))


def test_rand_ndarray_dense_modifier_and_csr():
    np.random.seed(3)
    dense = tu.rand_ndarray((4, 5), modifier_func=lambda v: abs(v) + 10)
    values = dense.asnumpy()
    assert dense.dtype == np.float32 and values.min() >= 10 and values.max() <= 11
    csr = tu.rand_ndarray((6, 8), stype="csr", density=0.5, dtype="float64")
    assert csr.stype == "csr" and csr.shape == (6, 8) and csr.dtype == np.float64
    assert int((csr.asnumpy() != 0).sum()) == 24  # int(6 * 8 * 0.5) distinct positions


def test_rand_sparse_ndarray_uniform():
    np.random.seed(0)
    csr, (indptr, indices, data) = tu.rand_sparse_ndarray((10, 20), "csr", density=0.3)
    dense = csr.asnumpy()
    assert csr.dtype == np.float32 and indptr.shape == (11,)
    assert int((dense != 0).sum()) == 60 and data.shape == (60,)
    assert dense.min() >= 0 and dense.max() < 1
    # The parts describe the same matrix, rebuilt here with numpy.
    rebuilt = np.zeros((10, 20), np.float32)
    p, i, d = indptr.asnumpy(), indices.asnumpy(), data.asnumpy()
    for row in range(10):
        rebuilt[row, i[p[row]:p[row + 1]]] = d[p[row]:p[row + 1]]
    np.testing.assert_array_equal(rebuilt, dense)
    filled, _ = tu.rand_sparse_ndarray((4, 4), "csr", density=0.5, data_init=7)
    assert sorted(set(filled.data.asnumpy().tolist())) == [7.0] and filled.data.shape == (8,)


def test_rand_sparse_ndarray_powerlaw_doubles_row_counts():
    csr, (indptr, _, data) = tu.rand_sparse_ndarray((5, 16), "csr", density=0.5, distribution="powerlaw")
    counts = np.diff(indptr.asnumpy())
    # 40 values: 1 per row first, then row i filled up to 2**(i+1), the last row takes the rest.
    assert counts.tolist() == [2, 4, 8, 16, 10]
    values = data.asnumpy()
    assert values.min() >= 1.001 and values.max() < 3
    with pytest.raises(ValueError, match="powerlaw"):
        tu.rand_sparse_ndarray((5, 16), "csr", density=0.1, distribution="powerlaw")


def test_sparse_requests_this_runtime_refuses():
    with pytest.raises(ValueError, match="row_sparse"):
        tu.rand_sparse_ndarray((3, 3), "row_sparse")
    with pytest.raises(ValueError, match="row_sparse"):
        tu.create_sparse_array((3, 3), "row_sparse")
    with pytest.raises(ValueError, match="sorted"):
        tu.rand_sparse_ndarray((3, 3), "csr", shuffle_csr_indices=True)
    with pytest.raises(ValueError, match="distribution"):
        tu.rand_sparse_ndarray((3, 3), "csr", distribution="zipf")
    with pytest.raises(ValueError, match="density"):
        tu.rand_sparse_ndarray((3, 3), "csr", density=1.5)


def test_create_sparse_array_and_zero_density():
    arr = tu.create_sparse_array((6, 4), "csr", data_init=2.0, dtype=np.float64)
    assert arr.stype == "csr" and arr.dtype == np.float64 and int((arr.asnumpy() == 2.0).sum()) == 12
    empty = tu.create_sparse_array_zd((3, 5), "csr", density=0)
    assert empty.shape == (3, 5) and not empty.asnumpy().any()
    negated = tu.create_sparse_array((4, 4), "csr", data_init=3.0, modifier_func=lambda v: -v)
    assert sorted(set(negated.data.asnumpy().tolist())) == [-3.0]


def test_shuffle_csr_column_indices_keeps_each_rows_set():
    class ScipyLikeCSR(object):
        indptr = np.array([0, 3, 3, 7])
        indices = np.array([0, 1, 2, 0, 2, 4, 6])
    csr = ScipyLikeCSR()
    np.random.seed(1)
    tu.shuffle_csr_column_indices(csr)
    assert sorted(csr.indices[0:3].tolist()) == [0, 1, 2]
    assert sorted(csr.indices[3:7].tolist()) == [0, 2, 4, 6]
    with pytest.raises(TypeError, match="sorted"):
        tu.shuffle_csr_column_indices(mx.nd.sparse.csr_matrix(np.eye(3)))


def test_large_tensor_helpers():
    t = tu.create_2d_tensor(3, 4)
    assert t.dtype == np.int64
    np.testing.assert_array_equal(t.asnumpy(), np.repeat(np.arange(3)[:, None], 4, axis=1))
    np.testing.assert_array_equal(tu.create_vector(5, dtype=np.int32).asnumpy(), np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(tu.get_identity_mat(3).asnumpy(), np.eye(3))
    batch = tu.get_identity_mat_batch(2).asnumpy()
    assert batch.shape == (2, 2, 2) and (batch == np.eye(2)).all()


def test_platform_probes(monkeypatch):
    import platform
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert tu.is_aarch64_run() is True
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    assert tu.is_aarch64_run() is False
    tvm = mx.runtime.Features().is_enabled("TVM_OP")
    assert tu.has_tvm_ops() == tvm  # current context is the CPU
    assert tu.is_op_runnable() is True
    with pytest.raises(ValueError, match="gpu context"):
        tu.get_cuda_compute_capability(mx.cpu())


def test_discard_stderr_silences_file_descriptor_2(capfd):
    with tu.discard_stderr():
        os.write(2, b"hidden from stderr\n")
        sys.stderr.write("also hidden\n")
    os.write(2, b"shown\n")
    err = capfd.readouterr().err
    assert "hidden" not in err and "shown" in err


def test_star_import_gives_1x_names():
    ns = {}
    exec("from mxnet.test_utils import *", ns)  # noqa: S102
    assert ns["Context"] is mx.Context and ns["current_context"] is mx.current_context
    assert ns["array"] is mx.nd.array and ns["Symbol"] is mx.sym.Symbol
    assert ns["Features"] is mx.runtime.Features
    for name in ("rand_sparse_ndarray", "download", "DummyIter", "same_symbol_structure", "get_tols"):
        assert name in ns


def test_same_symbol_structure():
    x = mx.sym.var("x")
    a = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=3, name="fc"))
    b = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=5, name="other"))
    c = mx.sym.tanh(mx.sym.FullyConnected(x, num_hidden=3, name="fc"))
    assert tu.same_symbol_structure(a, b)
    assert not tu.same_symbol_structure(a, c)


def _dense_builder(**kwargs):
    net = mx.gluon.nn.HybridSequential(**kwargs)
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(4, activation="tanh", in_units=3))
    return net


def test_check_gluon_hybridize_consistency():
    data = [mx.nd.array(np.random.uniform(-1, 1, (2, 3)))]
    tu.check_gluon_hybridize_consistency(_dense_builder, data)
    with pytest.raises(AssertionError, match="numpy_func"):
        tu.check_gluon_hybridize_consistency(_dense_builder, data, numpy_func=lambda x: np.full((2, 4), 5.0))


@needs_peer
def test_helpers_agree_with_mxnet191():
    script = textwrap.dedent("""
        import json, numpy as np
        import mxnet.test_utils as tu
        a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [3.5, 4.0]])
        print(json.dumps({
            "rtols": {str(k): v for k, v in tu.default_rtols().items()},
            "atols": {str(k): v for k, v in tu.default_atols().items()},
            "eps": {str(k): v for k, v in tu.default_numeric_eps().items()},
            "tols": list(tu.get_tols(np.ones(2, np.float16), np.ones(2, np.float32), None, None)),
            "loc": tu.locationError(a, b, (1, 0), ("x", "y"), maxError=True),
            "eye": tu.get_identity_mat_batch(2).asnumpy().tolist(),
            "t2d": tu.create_2d_tensor(2, 3).asnumpy().tolist(),
        }))
    """)
    out = run_peer(script, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    peer = json.loads(out.stdout.strip().splitlines()[-1])
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [3.5, 4.0]])
    assert peer["rtols"] == {str(k): v for k, v in tu.default_rtols().items()}
    assert peer["atols"] == {str(k): v for k, v in tu.default_atols().items()}
    assert peer["eps"] == {str(k): v for k, v in tu.default_numeric_eps().items()}
    assert peer["tols"] == list(tu.get_tols(np.ones(2, np.float16), np.ones(2, np.float32), None, None))
    assert peer["loc"] == tu.locationError(a, b, (1, 0), ("x", "y"), maxError=True)
    assert peer["eye"] == tu.get_identity_mat_batch(2).asnumpy().tolist()
    assert peer["t2d"] == tu.create_2d_tensor(2, 3).asnumpy().tolist()
