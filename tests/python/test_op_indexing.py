"""Joining/splitting, slicing, index and padding ops: forward vs numpy on several shapes and
dtypes, gradients vs finite differences, one bad input per op naming the op; and NDArray
indexing built on them."""
import numpy as np
import pytest

import mxnet as mx
from op_testing import check_grad, rounded, to_nd, to_np

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "int8"]
RS = np.random.RandomState(0)


def _data(shape, dtype, seed=0):
    x = np.random.RandomState(seed).randint(0, 50, shape)
    return x.astype(np.float64), to_nd(x, dtype)


def _eq(out, expect, dtype):
    np.testing.assert_array_equal(to_np(out).astype(np.float64), rounded(expect, dtype))


# ---- forward table: (name, fn(mx arrays...), reference(numpy arrays...), input shapes) ----
FORWARD = [
    ("Concat", lambda a, b: mx.nd.Concat(a, b, dim=1), lambda a, b: np.concatenate([a, b], 1), [(2, 3, 4), (2, 5, 4)]),
    ("concat", lambda a, b: mx.nd.concat(a, b, dim=-1), lambda a, b: np.concatenate([a, b], -1), [(3, 2), (3, 4)]),
    ("concat3", lambda a, b, c: mx.nd.concat(a, b, c, dim=0), lambda a, b, c: np.concatenate([a, b, c], 0),
     [(1, 4), (2, 4), (3, 4)]),
    ("stack", lambda a, b: mx.nd.stack(a, b, axis=1), lambda a, b: np.stack([a, b], 1), [(2, 3), (2, 3)]),
    ("stack_last", lambda a, b: mx.nd.stack(a, b, axis=-1), lambda a, b: np.stack([a, b], -1), [(2, 3, 4)] * 2),
    ("slice", lambda a: mx.nd.slice(a, begin=(1, None), end=(None, 3)), lambda a: a[1:, :3], [(3, 4, 2)]),
    ("slice_step", lambda a: mx.nd.slice(a, begin=(None, -1), end=(None, None), step=(2, -2)),
     lambda a: a[::2, -1::-2], [(5, 6)]),
    ("crop", lambda a: mx.nd.crop(a, begin=(0, 1, 1), end=(2, 3, 4)), lambda a: a[0:2, 1:3, 1:4], [(2, 3, 4)]),
    ("slice_axis", lambda a: mx.nd.slice_axis(a, axis=1, begin=-3, end=None), lambda a: a[:, -3:], [(2, 5, 3)]),
    ("slice_axis0", lambda a: mx.nd.slice_axis(a, axis=0, begin=1, end=3), lambda a: a[1:3], [(4, 2)]),
    ("slice_like", lambda a, b: mx.nd.slice_like(a, b), lambda a, b: a[:2, :3, :1], [(3, 4, 2), (2, 3, 1)]),
    ("slice_like_axes", lambda a, b: mx.nd.slice_like(a, b, axes=(0, -1)), lambda a, b: a[:2, :, :1],
     [(3, 4, 2), (2, 3, 1)]),
    ("take", lambda a: mx.nd.take(a, mx.nd.array([[0, 2], [1, 0]]), axis=1), lambda a: np.take(a, [[0, 2], [1, 0]], 1),
     [(2, 3, 4)]),
    ("take_wrap", lambda a: mx.nd.take(a, mx.nd.array([4, -1], dtype="int32"), mode="wrap"),
     lambda a: np.take(a, [4, -1], 0, mode="wrap"), [(3, 2)]),
    ("take_clip", lambda a: mx.nd.take(a, mx.nd.array([5, -3]), axis=-1),
     lambda a: np.take(a, [5, -3], -1, mode="clip"), [(2, 4)]),
    ("pick", lambda a: mx.nd.pick(a, mx.nd.array([0, 2, 1]), axis=1),
     lambda a: a[np.arange(3), [0, 2, 1]], [(3, 4)]),
    ("pick_keep", lambda a: mx.nd.pick(a, mx.nd.array([[1, 0, 1]]), axis=0, keepdims=True),
     lambda a: a[[1, 0, 1], np.arange(3)][None], [(2, 3)]),
    ("gather_nd", lambda a: mx.nd.gather_nd(a, mx.nd.array([[0, 1, 1], [2, 0, -1]])),
     lambda a: a[[0, 1, 1], [2, 0, -1]], [(2, 3, 4)]),
    ("where", lambda c, x, y: mx.nd.where(c > 20, x, y), lambda c, x, y: np.where(c > 20, x, y), [(3, 4)] * 3),
    ("where_rows", lambda c, x, y: mx.nd.where(c > 20, x, y), lambda c, x, y: np.where((c > 20)[:, None], x, y),
     [(3,), (3, 2), (3, 2)]),
    ("tile", lambda a: mx.nd.tile(a, reps=(2, 3)), lambda a: np.tile(a, (2, 3)), [(2, 3, 2)]),
    ("tile_promote", lambda a: mx.nd.tile(a, reps=(2, 1, 2)), lambda a: np.tile(a, (2, 1, 2)), [(3, 2)]),
    ("repeat", lambda a: mx.nd.repeat(a, repeats=3, axis=1), lambda a: np.repeat(a, 3, 1), [(2, 3, 2)]),
    ("repeat_flat", lambda a: mx.nd.repeat(a, repeats=2), lambda a: np.repeat(a, 2), [(2, 3)]),
    ("pad_constant", lambda a: mx.nd.pad(a, mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 2, 1), constant_value=7),
     lambda a: np.pad(a, ((0, 0), (0, 0), (1, 2), (2, 1)), constant_values=7), [(1, 2, 3, 3)]),
    ("pad_edge", lambda a: mx.nd.Pad(a, mode="edge", pad_width=(0, 0, 0, 0, 2, 1, 0, 3)),
     lambda a: np.pad(a, ((0, 0), (0, 0), (2, 1), (0, 3)), mode="edge"), [(2, 1, 3, 2)]),
    ("pad_reflect", lambda a: mx.nd.pad(a, mode="reflect", pad_width=(0, 0, 0, 0, 2, 1, 1, 2)),
     lambda a: np.pad(a, ((0, 0), (0, 0), (2, 1), (1, 2)), mode="reflect"), [(1, 2, 3, 4)]),
    ("diag", lambda a: mx.nd.diag(a), lambda a: np.diag(a), [(3, 4)]),
    ("diag_k", lambda a: mx.nd.diag(a, k=-1), lambda a: np.diag(a, -1), [(4, 3)]),
    ("diag_1d", lambda a: mx.nd.diag(a, k=2), lambda a: np.diag(a, 2), [(3,)]),
    ("diag_nd", lambda a: mx.nd.diag(a, k=1, axis1=-1, axis2=0), lambda a: np.diagonal(a, 1, -1, 0), [(3, 2, 4)]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,ref,shapes", FORWARD, ids=[r[0] for r in FORWARD])
def test_forward(name, fn, ref, shapes, dtype):
    pairs = [_data(s, dtype, seed=i) for i, s in enumerate(shapes)]
    out = fn(*[p[1] for p in pairs])
    expect = ref(*[rounded(p[0], dtype) for p in pairs])
    assert out.shape == expect.shape
    assert out.dtype == pairs[0][1].dtype
    _eq(out, expect, dtype)


GRADS = [
    ("Concat", lambda a, b: mx.nd.Concat(a, b, dim=1), [(2, 3, 2), (2, 1, 2)]),
    ("stack", lambda a, b: mx.nd.stack(a, b, axis=2), [(2, 3), (2, 3)]),
    ("split", lambda a: mx.nd.split(a, num_outputs=3, axis=1)[1] * 2, [(2, 3, 2)]),
    ("split_squeeze", lambda a: mx.nd.stack(*mx.nd.split(a, num_outputs=2, axis=0, squeeze_axis=True), axis=1),
     [(2, 3)]),
    ("slice", lambda a: mx.nd.slice(a, begin=(None, 2), end=(None, 0), step=(1, -1)), [(2, 4)]),
    ("slice_axis", lambda a: mx.nd.slice_axis(a, axis=-1, begin=1, end=3), [(2, 4)]),
    ("slice_like", lambda a, b: mx.nd.slice_like(a, b, axes=(1,)), [(2, 4), (1, 2)]),
    ("take", lambda a: mx.nd.take(a, mx.nd.array([1, 1, 0]), axis=1), [(2, 3)]),
    ("pick", lambda a: mx.nd.pick(a, mx.nd.array([2, 0]), axis=-1), [(2, 3)]),
    ("gather_nd", lambda a: mx.nd.gather_nd(a, mx.nd.array([[0, 1, 0], [1, 1, 1]])), [(2, 3)]),
    ("scatter_nd", lambda a: mx.nd.scatter_nd(a, mx.nd.array([[0, 1], [2, 0]]), shape=(2, 3)), [(2,)]),
    ("where", lambda x, y: mx.nd.where(mx.nd.array([[1, 0], [0, 1]], dtype="float64"), x, y), [(2, 2), (2, 2)]),
    ("tile", lambda a: mx.nd.tile(a, reps=(2, 1, 3)), [(2, 2)]),
    ("repeat", lambda a: mx.nd.repeat(a, repeats=2, axis=0), [(2, 3)]),
    ("pad_reflect", lambda a: mx.nd.pad(a, mode="reflect", pad_width=(0, 0, 0, 0, 1, 2, 2, 1)), [(1, 1, 3, 3)]),
    ("pad_edge", lambda a: mx.nd.pad(a, mode="edge", pad_width=(0, 0, 0, 0, 1, 2, 2, 1)), [(1, 1, 2, 3)]),
    ("diag", lambda a: mx.nd.diag(a, k=1), [(3, 3)]),
    ("diag_1d", lambda a: mx.nd.diag(a, k=-1), [(3,)]),
    ("slice_assign", lambda a, b: mx.nd._internal._slice_assign(a, b, begin=(0, 1), end=(2, 3)), [(3, 4), (2, 2)]),
]


@pytest.mark.parametrize("name,fn,shapes", GRADS, ids=[r[0] for r in GRADS])
def test_gradient(name, fn, shapes):
    arrays = [RS.uniform(-1, 1, s) for s in shapes]
    check_grad(fn, arrays)


def test_split_forward():
    x = np.arange(24).reshape(2, 6, 2)
    for dtype in ("float32", "int64", "float16"):
        outs = mx.nd.split(mx.nd.array(x, dtype=dtype), num_outputs=3, axis=1)
        for o, e in zip(outs, np.split(x, 3, axis=1)):
            np.testing.assert_array_equal(o.asnumpy(), e)
    outs = mx.nd.SliceChannel(mx.nd.array(x), num_outputs=2, axis=0, squeeze_axis=True)
    assert [o.shape for o in outs] == [(6, 2), (6, 2)]
    np.testing.assert_array_equal(outs[1].asnumpy(), x[1])
    single = mx.nd.split(mx.nd.array(x), num_outputs=1, axis=2)
    assert single.shape == x.shape


def test_joins_and_splits_above_the_parallel_size_match_numpy():
    # Over MXNET_CPU_PARALLEL_SIZE elements the threads split the joined array into equal
    # ranges; with these odd widths the range edges fall inside pieces and inside rows.
    rs = np.random.RandomState(5)
    pieces = [rs.rand(3, w, 7, 11).astype(np.float32) for w in (1001, 7, 0, 1313)]
    got = mx.nd.concat(*[mx.nd.array(p) for p in pieces], dim=1)
    np.testing.assert_array_equal(got.asnumpy(), np.concatenate(pieces, axis=1))
    one_image = [p[:1] for p in pieces]
    got = mx.nd.concat(*[mx.nd.array(p) for p in one_image], dim=1)
    np.testing.assert_array_equal(got.asnumpy(), np.concatenate(one_image, axis=1))
    stacked = mx.nd.stack(*[mx.nd.array(pieces[0][i]) for i in range(3)], axis=1)
    np.testing.assert_array_equal(stacked.asnumpy(), np.stack(list(pieces[0]), axis=1))
    whole = rs.rand(2, 3 * 4001, 29).astype(np.float32)
    for o, e in zip(mx.nd.split(mx.nd.array(whole), num_outputs=3, axis=1), np.split(whole, 3, axis=1)):
        np.testing.assert_array_equal(o.asnumpy(), e)
    # the gradient of a concat splits the head gradient, each piece added to what it holds
    xs = [mx.nd.array(p) for p in pieces[:2]]
    for x in xs:
        x.attach_grad(grad_req="add")
    head = rs.rand(3, 1008, 7, 11).astype(np.float32)
    for _ in range(2):
        with mx.autograd.record():
            y = mx.nd.concat(*xs, dim=1)
        y.backward(mx.nd.array(head))
    np.testing.assert_allclose(xs[0].grad.asnumpy(), 2 * head[:, :1001], rtol=1e-6)
    np.testing.assert_allclose(xs[1].grad.asnumpy(), 2 * head[:, 1001:], rtol=1e-6)


def test_scatter_nd_and_backward_gather_nd():
    data = np.array([1.0, 2.0, 3.0])
    idx = mx.nd.array([[0, 1, 0], [1, 0, 1]])
    out = mx.nd.scatter_nd(mx.nd.array(data), idx, shape=(2, 2))
    np.testing.assert_array_equal(out.asnumpy()[1, 0], 2.0)
    acc = mx.nd._internal._backward_gather_nd(mx.nd.array(data), idx, shape=(2, 2))
    np.testing.assert_array_equal(acc.asnumpy(), [[0, 4], [2, 0]])
    rows = mx.nd.scatter_nd(mx.nd.ones((2, 3), dtype="int32"), mx.nd.array([[2, 0]]), shape=(3, 3))
    np.testing.assert_array_equal(rows.asnumpy(), [[1, 1, 1], [0, 0, 0], [1, 1, 1]])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "float16"])
def test_one_hot(dtype):
    idx = np.array([[1, 0], [3, -1]])
    out = mx.nd.one_hot(mx.nd.array(idx, dtype="int32"), depth=3, on_value=5, off_value=-1 if dtype != "uint8" else 2,
                        dtype=dtype)
    off = -1 if dtype != "uint8" else 2
    expect = np.where(np.arange(3) == idx[..., None], 5, off)
    assert out.dtype == np.dtype(dtype) and out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out.asnumpy(), expect)


def test_slice_assign_ops():
    x = np.arange(12.0).reshape(3, 4)
    out = mx.nd._internal._slice_assign(mx.nd.array(x), mx.nd.ones((2, 2)), begin=(1, None), end=(None, None),
                                        step=(1, 2))
    e = x.copy()
    e[1:, ::2] = 1
    np.testing.assert_array_equal(out.asnumpy(), e)
    out = mx.nd._internal._slice_assign_scalar(mx.nd.array(x), scalar=-2, begin=(None,), end=(2,))
    e = x.copy()
    e[:2] = -2
    np.testing.assert_array_equal(out.asnumpy(), e)


def test_take_raise_mode():
    with pytest.raises(mx.base.MXNetError, match="take"):
        mx.nd.take(mx.nd.ones((3, 2)), mx.nd.array([0, 3]), mode="raise").asnumpy()
    out = mx.nd.take(mx.nd.array([[1, 2], [3, 4]]), mx.nd.array([-1]), mode="raise")
    np.testing.assert_array_equal(out.asnumpy(), [[3, 4]])


def test_large_parallel_paths():
    x = RS.rand(300, 400).astype(np.float32)
    nx = mx.nd.array(x)
    np.testing.assert_array_equal(mx.nd.concat(nx, nx, dim=0).asnumpy(), np.concatenate([x, x]))
    idx = RS.randint(0, 400, 5000)
    np.testing.assert_array_equal(mx.nd.take(nx, mx.nd.array(idx), axis=1).asnumpy(), x[:, idx])
    np.testing.assert_array_equal(mx.nd.slice(nx, begin=(1, 3), end=(299, 400), step=(2, 3)).asnumpy(),
                                  x[1:299:2, 3::3])
    np.testing.assert_array_equal(mx.nd.tile(nx, reps=(2, 2)).asnumpy(), np.tile(x, (2, 2)))


BAD = [
    ("Concat", lambda: mx.nd.Concat(mx.nd.ones((2, 3)), mx.nd.ones((3, 3)), dim=1)),
    ("stack", lambda: mx.nd.stack(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)))),
    ("SliceChannel", lambda: mx.nd.split(mx.nd.ones((2, 5)), num_outputs=2, axis=1)),
    ("slice", lambda: mx.nd.slice(mx.nd.ones((2, 3)), begin=(0, 0, 0), end=(1, 1, 1))),
    ("slice", lambda: mx.nd.slice(mx.nd.ones((2, 3)), begin=(0,), end=(1,), step=(0,))),
    ("slice_axis", lambda: mx.nd.slice_axis(mx.nd.ones((2, 3)), axis=2, begin=0, end=1)),
    ("slice_like", lambda: mx.nd.slice_like(mx.nd.ones((2, 3)), mx.nd.ones((3, 3)))),
    ("take", lambda: mx.nd.take(mx.nd.ones((2, 3)), mx.nd.array([0]), axis=3)),
    ("pick", lambda: mx.nd.pick(mx.nd.ones((2, 3)), mx.nd.array([0, 1, 2]), axis=1)),
    ("gather_nd", lambda: mx.nd.gather_nd(mx.nd.ones((2, 3)), mx.nd.array([[0], [1], [0]]))),
    ("gather_nd", lambda: mx.nd.gather_nd(mx.nd.ones((2, 3)), mx.nd.array([[2], [0]])).asnumpy()),
    ("scatter_nd", lambda: mx.nd.scatter_nd(mx.nd.ones((3,)), mx.nd.array([[0, 1]]), shape=(2, 2))),
    ("one_hot", lambda: mx.nd.one_hot(mx.nd.array([1]), depth=-1)),
    ("where", lambda: mx.nd.where(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)), mx.nd.ones((3, 2)))),
    ("where", lambda: mx.nd.where(mx.nd.ones((3,)), mx.nd.ones((2, 3)), mx.nd.ones((2, 3)))),
    ("tile", lambda: mx.nd.tile(mx.nd.ones((2, 3)), reps=(-1,))),
    ("repeat", lambda: mx.nd.repeat(mx.nd.ones((2, 3)), repeats=2, axis=-3)),
    ("Pad", lambda: mx.nd.pad(mx.nd.ones((1, 1, 2, 2)), mode="constant", pad_width=(0, 0, 1, 1))),
    ("Pad", lambda: mx.nd.pad(mx.nd.ones((1, 1, 2, 2)), mode="reflect", pad_width=(0, 0, 0, 0, 2, 2, 0, 0))),
    ("diag", lambda: mx.nd.diag(mx.nd.ones((2, 3)), axis1=1, axis2=1)),
    ("_slice_assign", lambda: mx.nd._internal._slice_assign(mx.nd.ones((3, 3)), mx.nd.ones((2, 2)), begin=(0,),
                                                             end=(1,))),
]


@pytest.mark.parametrize("name,fn", BAD, ids=["%s-%d" % (r[0], i) for i, r in enumerate(BAD)])
def test_bad_input(name, fn):
    with pytest.raises(mx.base.MXNetError, match=name):
        fn()
    assert mx.nd.ones((1,)).asnumpy()[0] == 1  # the process carries on


# ---- NDArray indexing on these ops ----


def test_ndarray_basic_indexing():
    x = np.arange(60.0).reshape(3, 4, 5)
    nx = mx.nd.array(x)
    for key in [(slice(1, 3), slice(None, None, 2)), (Ellipsis, 1), (slice(None), -1, slice(4, 0, -2)),
                (1, slice(None), None, 2), (slice(None, None, -1),), 2, (0, 1, 2)]:
        out = nx[key]
        expect = x[key]
        np.testing.assert_array_equal(out.asnumpy().reshape(expect.shape), expect)


def test_ndarray_advanced_indexing():
    x = np.arange(24.0).reshape(4, 6)
    nx = mx.nd.array(x)
    np.testing.assert_array_equal(nx[[0, 2]].asnumpy(), x[[0, 2]])
    np.testing.assert_array_equal(nx[[-1, 0]].asnumpy(), x[[-1, 0]])
    idx = np.array([[0, 3], [1, 1]])
    np.testing.assert_array_equal(nx[mx.nd.array(idx)].asnumpy(), x[idx])
    np.testing.assert_array_equal(nx[[1, 2], [0, 5]].asnumpy(), x[[1, 2], [0, 5]])


def test_ndarray_slice_assignment():
    x = np.zeros((4, 5))
    nx = mx.nd.zeros((4, 5))
    nx[1:3] = 2
    x[1:3] = 2
    nx[:, ::2] = mx.nd.ones((4, 3)) * 5
    x[:, ::2] = 5
    nx[[0, 3], 1] = -1
    x[[0, 3], 1] = -1
    np.testing.assert_array_equal(nx.asnumpy(), x)


def test_indexing_gradient():
    x = RS.rand(4, 5)
    check_grad(lambda a: a[1:3, ::2], [x])
    check_grad(lambda a: a[[0, 2, 2]], [x])
