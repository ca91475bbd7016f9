"""mx.nd names 1.x users call: shape_array / size_array (ops and NDArray methods), split_v2
(function, method and the _split_v2 op in graphs), onehot_encode, slice_assign /
slice_assign_scalar, as_nd_ndarray; and, with the MXNet 1.9.1 peer installed, the names of
mx.nd, mx.nd.random and NDArray this area covers, present here."""
import json
import textwrap

import numpy as np
import pytest

import mxnet as mx
from peer_oracle import needs_peer, run_peer

nd = mx.nd


def test_shape_array_and_size_array():
    x = nd.ones((2, 3, 4), dtype="float16")
    for got in (nd.shape_array(x), x.shape_array()):
        assert got.dtype == np.int64 and got.asnumpy().tolist() == [2, 3, 4]
    for got in (nd.size_array(x), x.size_array()):
        assert got.dtype == np.int64 and got.asnumpy().tolist() == [24]
    assert nd.shape_array(nd.zeros((5,))).asnumpy().tolist() == [5]


def test_shape_array_in_a_graph_and_zero_gradient():
    s = mx.sym.shape_array(mx.sym.var("a"))
    assert s.infer_shape(a=(2, 3))[1] == [(2,)]
    assert s.infer_type(a="float32")[1] == [np.int64]
    assert mx.sym.size_array(mx.sym.var("a")).infer_shape(a=(2, 3))[1] == [(1,)]
    x = nd.ones((2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = nd.shape_array(x)
    y.backward()
    assert x.grad.asnumpy().tolist() == [[0.0] * 3] * 2


def test_split_v2_indices_and_sections():
    x = np.arange(20, dtype=np.float32).reshape(2, 10)
    parts = nd.split_v2(nd.array(x), (2, 5), axis=1)
    for got, want in zip(parts, np.split(x, [2, 5], axis=1)):
        np.testing.assert_array_equal(got.asnumpy(), want)
    empty = nd.split_v2(nd.array(x), (0, 3, 3), axis=1)  # indices (0, 0, 3, 3): four pieces
    assert [p.shape for p in empty] == [(2, 0), (2, 3), (2, 0), (2, 7)]
    halves = nd.split_v2(nd.array(x), 2, axis=0, squeeze_axis=True)
    assert [p.shape for p in halves] == [(10,), (10,)]
    one = nd.array(x).split_v2(1, axis=1)
    assert isinstance(one, nd.NDArray) and one.shape == (2, 10)
    with pytest.raises(mx.MXNetError, match="evenly divide"):
        nd.split_v2(nd.array(x), 3, axis=1)
    with pytest.raises(ValueError, match="int or a tuple"):
        nd.split_v2(nd.array(x), [2, 5])
    with pytest.raises(mx.MXNetError, match="non-decreasing"):
        nd.split_v2(nd.array(x), (5, 2), axis=1)


def test_split_v2_gradient_and_graph():
    x = nd.arange(10).reshape((2, 5))
    x.attach_grad()
    with mx.autograd.record():
        a, b = nd.split_v2(x, (2,), axis=1)
        y = (a * 2).sum() + (b * 3).sum()
    y.backward()
    assert x.grad.asnumpy().tolist() == [[2, 2, 3, 3, 3]] * 2
    s = nd._internal._split_v2  # the op the 1.x graphs hold
    assert s is not None
    sym = mx.sym._internal._split_v2(mx.sym.var("x"), indices=(0, 2), axis=1)
    assert sym.infer_shape(x=(2, 5))[1] == [(2, 2), (2, 3)]
    node = json.loads(sym.tojson())["nodes"][-1]
    assert node["op"] == "_split_v2" and node["attrs"]["indices"] == "(0, 2)"


def test_onehot_encode_writes_out():
    out = nd.zeros((3, 5))
    assert nd.onehot_encode(nd.array([0, 2.7, 4]), out) is out
    assert out.asnumpy().tolist() == [[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 1]]
    nd.onehot_encode(nd.array([0, 7, -1]), out)  # out-of-range indices give zero rows
    assert out.asnumpy().tolist() == [[1, 0, 0, 0, 0], [0] * 5, [0] * 5]
    with pytest.raises(ValueError, match="shape"):
        nd.onehot_encode(nd.array([0, 1, 3]), nd.zeros((2, 5)))


def test_slice_assign_methods_write_in_place():
    x = nd.arange(12).reshape((3, 4))
    assert x.slice_assign(nd.ones((2, 2)), (0, 1), (2, 3), (None, None)) is x
    assert x.slice_assign_scalar(7, (1, 0), (3, 2), ()) is x
    want = np.arange(12, dtype=np.float32).reshape(3, 4)
    want[0:2, 1:3] = 1
    want[1:3, 0:2] = 7
    np.testing.assert_array_equal(x.asnumpy(), want)
    assert x.as_nd_ndarray() is x


COVERED = {
    "nd": ["shape_array", "size_array", "split_v2", "onehot_encode", "random_pdf_uniform", "random_pdf_normal",
           "random_pdf_gamma", "random_pdf_exponential", "random_pdf_poisson", "random_pdf_negative_binomial",
           "random_pdf_generalized_negative_binomial", "random_pdf_dirichlet", "sample_uniform", "sample_normal",
           "sample_gamma", "sample_exponential", "sample_poisson", "sample_negative_binomial",
           "sample_generalized_negative_binomial", "sample_multinomial"],
    "methods": ["shape_array", "size_array", "split_v2", "slice_assign", "slice_assign_scalar", "as_nd_ndarray"],
}


@needs_peer
def test_names_present_in_mxnet191_are_present_here():
    script = textwrap.dedent("""
        import json
        import mxnet as mx
        print(json.dumps({"nd": dir(mx.nd), "random": [n for n in dir(mx.nd.random) if not n.startswith("_")],
                          "methods": dir(mx.nd.NDArray)}))
    """)
    out = run_peer(script, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    peer = json.loads(out.stdout.strip().splitlines()[-1])
    for name in COVERED["nd"]:
        assert name in peer["nd"] and hasattr(nd, name), name
    for name in COVERED["methods"]:
        assert name in peer["methods"] and hasattr(nd.NDArray, name), name
    missing = [n for n in peer["random"] if not hasattr(nd.random, n)]
    assert not missing, "mx.nd.random names of 1.9.1 missing here: %s" % missing
