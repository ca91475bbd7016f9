"""LibSVMIter: CSR batches from LibSVM text, labels, round_batch, parts, errors, and the same
files through MXNet 1.9.1 when its peer is installed (benchmark/.peers/mxnet191)."""
import ctypes
import os
import subprocess

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError
from mxnet.ndarray.sparse import CSRNDArray

from peer_oracle import PEER_PYTHON, needs_peer, peer_env

# 1.x's documented example.
DATA = "1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n"
DENSE = np.array([[0.5, 0, 1.2], [0, 0, 0], [0.6, 2.4, 1.2], [0, 0, -1.2]], np.float32)
LABELS = np.array([1, -2, -3, 4], np.float32)
LABEL_FILE = "1.0\n-2.0 0:0.125\n-3.0 2:1.2\n4 1:1.0 2:-1.2\n"
LABEL_DENSE = np.array([[0, 0, 0], [0.125, 0, 0], [0, 0, 1.2], [0, 1.0, -1.2]], np.float32)


def write(path, text):
    path.write_text(text)
    return str(path)


def batches(it):
    return [(b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad, list(b.index)) for b in it]


# ---- the documented example ----

def test_example_batches_wrap_and_continue(tmp_path):
    it = mx.io.LibSVMIter(data_libsvm=write(tmp_path / "d.t", DATA), data_shape=(3,), batch_size=3)
    assert it.provide_data[0].name == "data" and it.provide_data[0].shape == (3, 3)
    assert it.provide_label[0].name == "softmax_label" and it.provide_label[0].shape == (3,)
    assert it.provide_data[0].dtype == np.float32
    first = it.next()
    data = first.data[0]
    assert isinstance(data, CSRNDArray) and data.stype == "csr" and data.shape == (3, 3)
    assert repr(data) == "\n<CSRNDArray 3x3 @cpu(0)>"
    assert data.indices.dtype == np.int64 and data.indptr.dtype == np.int64
    np.testing.assert_array_equal(data.indptr.asnumpy(), [0, 2, 2, 5])
    np.testing.assert_array_equal(data.indices.asnumpy(), [0, 2, 0, 1, 2])
    assert first.label[0].stype == "default" and first.label[0].shape == (3,)
    # reset() only after a full pass: read-ahead may already have wrapped (as in 1.x)
    epochs = [[(data.asnumpy(), first.label[0].asnumpy(), first.pad, list(first.index))] + batches(it)]
    it.reset()
    for _ in range(2):
        epochs.append(batches(it))
        it.reset()
    order = [[[0, 1, 2], [3, 0, 1]], [[2, 3, 0]], [[1, 2, 3]]]  # each epoch goes on after the wrapped rows
    pads = [[0, 2], [1], [0]]
    for got, rows, pad in zip(epochs, order, pads):
        assert [b[2] for b in got] == pad
        assert [b[3] for b in got] == rows
        for (d, l, _, _), r in zip(got, rows):
            np.testing.assert_allclose(d, DENSE[r], rtol=1e-7)
            np.testing.assert_array_equal(l, LABELS[r])


def test_label_file_gives_csr_labels(tmp_path):
    it = mx.io.LibSVMIter(data_libsvm=write(tmp_path / "d.t", DATA), data_shape=(3,),
                          label_libsvm=write(tmp_path / "l.t", LABEL_FILE), label_shape=(3,), batch_size=3)
    assert it.provide_label[0].shape == (3, 3)
    got = []
    for b in it:
        assert isinstance(b.label[0], CSRNDArray)
        got.append((b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad))
    assert [g[2] for g in got] == [0, 2]
    np.testing.assert_allclose(got[0][0], DENSE[:3], rtol=1e-7)
    np.testing.assert_allclose(got[0][1], LABEL_DENSE[:3], rtol=1e-7)
    np.testing.assert_allclose(got[1][1], LABEL_DENSE[[3, 0, 1]], rtol=1e-7)


def test_round_batch_false_completes_with_empty_rows(tmp_path):
    it = mx.io.LibSVMIter(data_libsvm=write(tmp_path / "d.t", DATA), data_shape=(3,), batch_size=3,
                          round_batch=False)
    got = batches(it)
    assert [g[2] for g in got] == [0, 2]
    np.testing.assert_allclose(got[1][0], np.vstack([DENSE[3:], np.zeros((2, 3))]), rtol=1e-7)
    np.testing.assert_array_equal(got[1][1], [4, 0, 0])
    it.reset()  # no wrapped rows: the next epoch starts at the top
    assert [g[3] for g in batches(it)][0] == [0, 1, 2]


def test_dtype_float64_and_extra_arguments(tmp_path):
    it = mx.io.LibSVMIter(data_libsvm=write(tmp_path / "d.t", DATA), data_shape=(3,), batch_size=4,
                          dtype="float64", prefetch_buffer=1, ctx="cpu")
    b = it.next()
    assert b.data[0].dtype == np.float64 and b.label[0].dtype == np.float64
    # parsed as double, not float then widened
    np.testing.assert_array_equal(b.data[0].asnumpy(), [[0.5, 0, 1.2], [0, 0, 0], [0.6, 2.4, 1.2], [0, 0, -1.2]])


def test_line_forms(tmp_path):
    text = ("# a comment line\n"
            "1 0:1 2:2 # trailing comment\r\n"
            "\n"
            "   \t\n"
            "0:5 1:6\n"               # no label: label 0
            "+2 qid:7 1:+1e-1\n"       # qid is skipped, '+' accepted
            "3")                       # no final newline, no features
    it = mx.io.LibSVMIter(data_libsvm=write(tmp_path / "d.t", text), data_shape=(3,), batch_size=4)
    (d, l, pad, idx), = batches(it)
    np.testing.assert_allclose(d, [[1, 0, 2], [5, 6, 0], [0, 0.1, 0], [0, 0, 0]], rtol=1e-7)
    np.testing.assert_array_equal(l, [1, 0, 2, 3])
    assert pad == 0 and idx == [0, 1, 2, 3]


def test_directory_is_read_in_name_order(tmp_path):
    d = tmp_path / "dir"
    d.mkdir()
    write(d / "b.t", "2 0:2\n")
    write(d / "a.t", "1 0:1")  # no trailing newline: the next file still starts a line
    write(d / ".hidden.t", "9 0:9\n")
    it = mx.io.LibSVMIter(data_libsvm=str(d), data_shape=(3,), batch_size=1)
    assert [int(b.label[0].asnumpy()[0]) for b in it] == [1, 2]


# ---- parts ----

def random_lines(rng, n, cols, max_nnz=8, label_fn=None):
    lines = []
    for i in range(n):
        k = rng.randint(0, max_nnz + 1)
        c = np.sort(rng.choice(cols, k, replace=False))
        label = label_fn(i) if label_fn else rng.randint(0, 5)
        lines.append("%s %s" % (label, " ".join("%d:%.6g" % (j, rng.uniform(-3, 3)) for j in c)))
    return lines


def part_labels(path, num_parts, cols, **kw):
    out = []
    for p in range(num_parts):
        try:
            it = mx.io.LibSVMIter(data_libsvm=path, data_shape=(cols,), batch_size=1, num_parts=num_parts,
                                  part_index=p, **kw)
        except MXNetError as e:
            assert "gives no batch" in str(e)  # an empty part
            out.append([])
            continue
        out.append([int(b.label[0].asnumpy()[0]) for b in it])
    return out


@pytest.mark.parametrize("num_parts", [1, 2, 3, 7, 16])
def test_parts_are_contiguous_and_cover_every_line_once(tmp_path, num_parts):
    rng = np.random.RandomState(num_parts)
    lines = random_lines(rng, 300, 40, label_fn=lambda i: i)
    path = write(tmp_path / "d.t", "\n".join(lines) + "\n")
    parts = part_labels(path, num_parts, 40)
    assert sum(parts, []) == list(range(300))
    # split by bytes: a line belongs to the part holding the byte before it
    size = os.path.getsize(path)
    step = -(-size // num_parts)
    starts = np.cumsum([0] + [len(s) + 1 for s in lines])[:-1]
    want = [min((s - 1) // step if s else 0, num_parts - 1) for s in starts]
    assert [p for p, labels in enumerate(parts) for _ in labels] == want


def test_line_starting_exactly_at_a_part_boundary(tmp_path):
    path = write(tmp_path / "d.t", "1 0:1.000\n2 0:1.000\n3 0:1.000\n4 0:1.000\n")  # 10 bytes a line
    assert part_labels(path, 2, 3) == [[1, 2, 3], [4]]  # the line at byte 20 goes to part 0 (as 1.x)
    assert part_labels(path, 4, 3) == [[1, 2], [3], [4], []]


def test_label_file_rows_follow_the_data_rows_of_each_part(tmp_path):
    rng = np.random.RandomState(9)
    data = random_lines(rng, 120, 10, label_fn=lambda i: i)
    labels = ["0 %d:1" % (i % 10) for i in range(120)]
    dpath = write(tmp_path / "d.t", "\n".join(data) + "\n")
    lpath = write(tmp_path / "l.t", "\n".join(labels) + "\n")
    seen = []
    for p in range(3):
        it = mx.io.LibSVMIter(data_libsvm=dpath, data_shape=(10,), label_libsvm=lpath, label_shape=(10,),
                              batch_size=1, num_parts=3, part_index=p)
        seen += [int(np.argmax(b.label[0].asnumpy()[0])) for b in it]
    assert seen == [i % 10 for i in range(120)]


# ---- errors ----

@pytest.mark.parametrize("line,match", [
    ("1 0:1 -1:2", "column index -1 is negative"),
    ("1 0:1 3:2", r"column index 3 is out of range \[0, 3\)"),
    ("1 2:1 0:2", "column indices are not sorted: 0 after 2"),
    ("1 1:1 1:2", "column index 1 appears twice"),
    ("1 0:abc", "malformed token '0:abc': cannot read the value 'abc'"),
    ("1 0:", "malformed token '0:': cannot read the value ''"),
    ("1 x:1", "malformed token 'x:1': cannot read the column index 'x'"),
    ("1 1.5:1", "malformed token '1.5:1': cannot read the column index '1.5'"),
    ("1 0:1 junk", "malformed token 'junk': expected index:value"),
    ("one 0:1", "cannot read the label 'one'"),
])
def test_bad_lines_name_the_file_and_line(tmp_path, line, match):
    path = write(tmp_path / "bad.t", "1 0:1\n\n2 1:2\n%s\n" % line)
    with pytest.raises(MXNetError, match=r"data_libsvm .*bad\.t:4: " + match):
        it = mx.io.LibSVMIter(data_libsvm=path, data_shape=(3,), batch_size=2)
        for _ in it:
            pass


def test_bad_line_in_a_later_part_names_its_line(tmp_path):
    lines = ["%d 0:1" % i for i in range(100)]
    lines[80] = "80 0:1 -5:1"
    path = write(tmp_path / "d.t", "\n".join(lines) + "\n")
    with pytest.raises(MXNetError, match=r"d\.t:81: column index -5 is negative"):
        it = mx.io.LibSVMIter(data_libsvm=path, data_shape=(3,), batch_size=1, num_parts=2, part_index=1)
        for _ in it:
            pass


def test_bad_label_file_rows(tmp_path):
    data = write(tmp_path / "d.t", DATA)
    with pytest.raises(MXNetError, match=r"label_libsvm .*l\.t:2: column index 5 is out of range"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(3,), label_libsvm=write(tmp_path / "l.t", "0:1\n5:1\n"),
                         label_shape=(3,), batch_size=2)
    with pytest.raises(MXNetError, match=r"label_libsvm ends before data_libsvm: no label row for the row at .*d\.t:2"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(3,), label_libsvm=write(tmp_path / "s.t", "0:1\n"),
                         label_shape=(3,), batch_size=2)
    with pytest.raises(MXNetError, match="label_libsvm has more rows than data_libsvm"):
        it = mx.io.LibSVMIter(data_libsvm=data, data_shape=(3,), label_libsvm=write(tmp_path / "m.t", "1\n" * 5),
                              label_shape=(3,), batch_size=2)
        for _ in it:
            pass


@pytest.mark.parametrize("kwargs,kind,match", [
    (dict(label_shape=(2,)), ValueError, r"label_shape must be \(1,\) when label_libsvm is 'NULL'"),
    (dict(data_shape=(3, 2)), ValueError, r"data_shape must be \(number of columns,\)"),
    (dict(data_shape=(0,)), ValueError, "positive"),
    (dict(num_parts=2, part_index=2), ValueError, "part_index 2 must be less than num_parts 2"),
    (dict(batch_size=10), ValueError, "the data has 4 rows, fewer than batch_size 10"),
    (dict(data_libsvm="/nonexistent/x.t"), IOError, "data_libsvm '/nonexistent/x.t' does not exist"),
    (dict(dtype="int32"), ValueError, "dtype"),
    (dict(bogus=1), ValueError, "unknown argument 'bogus'"),
])
def test_bad_arguments(tmp_path, kwargs, kind, match):
    args = dict(data_libsvm=write(tmp_path / "d.t", DATA), data_shape=(3,), batch_size=2)
    args.update(kwargs)
    with pytest.raises(kind, match=match):
        mx.io.LibSVMIter(**args)


def test_c_api_for_csr_batches(tmp_path):
    it = mx.io.LibSVMIter(data_libsvm=write(tmp_path / "d.t", DATA), data_shape=(3,), batch_size=3)
    lib = mx.base._LIB
    h = mx.base.NDArrayHandle()
    assert lib.MXDataIterGetData(it.handle, ctypes.byref(h)) == -1
    assert "MXDataIterGetCSRData" in mx.base.py_str(lib.MXGetLastError())
    assert lib.MXDataIterGetLabel(it.handle, ctypes.byref(h)) == 0  # the dense label
    mx.nd.NDArray(h)  # frees it
    parts = (mx.base.NDArrayHandle * 3)()
    rows, cols, is_csr = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int()
    assert lib.MXDataIterGetCSRData(it.handle, 1, parts, ctypes.byref(rows), ctypes.byref(cols),
                                    ctypes.byref(is_csr)) == 0
    assert is_csr.value == 0 and rows.value == 0 and not parts[0]
    assert lib.MXDataIterGetCSRData(it.handle, 0, parts, ctypes.byref(rows), ctypes.byref(cols),
                                    ctypes.byref(is_csr)) == 0
    assert is_csr.value == 1 and (rows.value, cols.value) == (3, 3)
    for p in parts:
        mx.nd.NDArray(mx.base.NDArrayHandle(p))
    assert lib.MXDataIterGetCSRData(it.handle, 2, parts, ctypes.byref(rows), ctypes.byref(cols),
                                    ctypes.byref(is_csr)) == -1


def test_training_a_linear_model_from_the_iterator(tmp_path):
    rng = np.random.RandomState(11)
    true_w = rng.uniform(-1, 1, size=20)
    lines = []
    for _ in range(200):
        c = np.sort(rng.choice(20, 5, replace=False))
        v = rng.uniform(-1, 1, size=5)
        lines.append("%.6f %s" % (v @ true_w[c], " ".join("%d:%.6f" % p for p in zip(c, v))))
    it = mx.io.LibSVMIter(data_libsvm=write(tmp_path / "d.t", "\n".join(lines)), data_shape=(20,),
                          batch_size=25)
    w = mx.nd.zeros((20, 1))
    w.attach_grad()
    first = last = None
    for epoch in range(15):
        total = 0.0
        for b in it:
            with mx.autograd.record():
                loss = mx.nd.mean(mx.nd.square(mx.nd.dot(b.data[0], w).reshape((-1,)) - b.label[0]))
            loss.backward()
            w[:] = w - 0.5 * w.grad
            total += float(loss.asscalar())
        it.reset()
        first = total if first is None else first
        last = total
    assert last < 0.05 * first


# ---- the same files through MXNet 1.9.1 ----

_PEER_SCRIPT = """
import sys, numpy as np, mxnet as mx
out = sys.argv[1]
args = eval(sys.argv[2])
it = mx.io.LibSVMIter(**args)
arrays = {}
for epoch in range(2):
    for i, b in enumerate(it):
        arrays["e%d_b%d_data" % (epoch, i)] = b.data[0].asnumpy()
        arrays["e%d_b%d_label" % (epoch, i)] = b.label[0].asnumpy()
        arrays["e%d_b%d_pad" % (epoch, i)] = np.array(b.pad)
        arrays["e%d_b%d_index" % (epoch, i)] = np.array(b.index, dtype=np.int64)
    it.reset()
np.savez(out, **arrays)
"""


def peer_batches(tmp_path, args):
    out = str(tmp_path / "peer.npz")
    env = peer_env(drop=("PYTHON", "OMP_"))
    res = subprocess.run([PEER_PYTHON, "-c", _PEER_SCRIPT, out, repr(args)], env=env, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return dict(np.load(out))


def our_batches(args):
    it = mx.io.LibSVMIter(**args)
    arrays = {}
    for epoch in range(2):
        for i, b in enumerate(it):
            arrays["e%d_b%d_data" % (epoch, i)] = b.data[0].asnumpy()
            arrays["e%d_b%d_label" % (epoch, i)] = b.label[0].asnumpy()
            arrays["e%d_b%d_pad" % (epoch, i)] = np.array(b.pad)
            arrays["e%d_b%d_index" % (epoch, i)] = np.array(b.index, dtype=np.int64)
        it.reset()
    return arrays


@needs_peer
@pytest.mark.parametrize("variant", ["labels_in_data", "label_file", "part_1_of_3", "batch_1000"])
def test_matches_mxnet191(tmp_path, variant):
    rng = np.random.RandomState(12)
    lines = random_lines(rng, 1000, 50, max_nnz=10)
    lines[17] = "3"  # an empty row
    args = dict(data_libsvm=write(tmp_path / "d.t", "\n".join(lines) + "\n"), data_shape=(50,), batch_size=64)
    if variant == "label_file":
        labels = random_lines(rng, 1000, 6, max_nnz=3)
        args.update(label_libsvm=write(tmp_path / "l.t", "\n".join(labels) + "\n"), label_shape=(6,))
    elif variant == "part_1_of_3":
        args.update(num_parts=3, part_index=1, batch_size=50)
    elif variant == "batch_1000":
        args.update(batch_size=1000)
    ours, theirs = our_batches(args), peer_batches(tmp_path, args)
    assert sorted(ours) == sorted(theirs)
    for k in sorted(theirs):
        a, b = ours[k], theirs[k]
        assert a.shape == b.shape and a.dtype == b.dtype, k
        np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=k)
