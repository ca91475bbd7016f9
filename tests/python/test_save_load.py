"""The .params format: round trips for every dtype, MXNet's bytes, the legacy fixture,
and malformed files rejected with errors naming the file and offset."""
import os
import struct

import numpy as np
import pytest

import mxnet as mx

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures", "mxnet",
                       "legacy_ndarray.v0")
DTYPES = [np.float32, np.float64, np.float16, np.uint8, np.int8, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES + ["bfloat16"])
def test_roundtrip_every_dtype(tmp_path, dtype):
    src = (np.arange(30).reshape(5, 6) % 5).astype(np.float32 if dtype == "bfloat16" else dtype)
    a = mx.nd.array(src, dtype=dtype)
    fname = str(tmp_path / "x.params")
    mx.nd.save(fname, {"w": a, "b": mx.nd.ones((2,))})
    out = mx.nd.load(fname)
    assert sorted(out) == ["b", "w"]
    assert out["w"].dtype == a.dtype
    np.testing.assert_array_equal(out["w"].asnumpy(), a.asnumpy())


def test_list_and_single(tmp_path):
    fname = str(tmp_path / "l.params")
    mx.nd.save(fname, [mx.nd.zeros((2, 2)), mx.nd.ones((3,))])
    out = mx.nd.load(fname)
    assert isinstance(out, list) and [o.shape for o in out] == [(2, 2), (3,)]
    mx.nd.save(fname, mx.nd.ones((1,)))
    assert len(mx.nd.load(fname)) == 1


def test_bytes_match_mxnet_example(tmp_path):
    fname = str(tmp_path / "e.params")
    mx.nd.save(fname, [mx.nd.array([1, 2])])
    expect = struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiiQ", 0xF993FAC9, 0, 1, 2) + \
        struct.pack("<iii", 1, 0, 0) + struct.pack("<ff", 1.0, 2.0) + struct.pack("<Q", 0)
    with open(fname, "rb") as f:
        assert f.read() == expect


def test_names_bytes(tmp_path):
    fname = str(tmp_path / "n.params")
    mx.nd.save(fname, {"arg:w": mx.nd.array([3])})
    with open(fname, "rb") as f:
        data = f.read()
    assert data.endswith(struct.pack("<QQ", 1, 5) + b"arg:w")


def test_load_frombuffer_and_v1_record():
    # V1 record: magic C8, TShape int32 ndim + int64 dims, ctx, dtype int32 (4), data
    rec = struct.pack("<IiqIIi", 0xF993FAC8, 1, 3, 1, 0, 4) + struct.pack("<iii", 7, 8, 9)
    buf = struct.pack("<QQQ", 0x112, 0, 1) + rec + struct.pack("<Q", 0)
    out = mx.nd.load_frombuffer(buf)
    assert out[0].dtype == np.int32
    np.testing.assert_array_equal(out[0].asnumpy(), [7, 8, 9])


def test_legacy_fixture():
    if not os.path.exists(FIXTURE):
        pytest.skip("fixture not present: %s" % FIXTURE)
    out = mx.nd.load(FIXTURE)
    assert len(out) == 6
    for a in out:
        np.testing.assert_array_equal(a.asnumpy(), np.arange(128, dtype=np.float32))


def _good_bytes():
    return struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiiQ", 0xF993FAC9, 0, 1, 2) + \
        struct.pack("<iii", 1, 0, 0) + struct.pack("<ff", 1.0, 2.0) + struct.pack("<Q", 0)


@pytest.mark.parametrize("cut", [0, 4, 8, 20, 30, 40, 50, 56, 60])
def test_truncated_files_rejected(tmp_path, cut):
    fname = str(tmp_path / "t.params")
    with open(fname, "wb") as f:
        f.write(_good_bytes()[:cut])
    with pytest.raises(mx.MXNetError) as err:
        mx.nd.load(fname)
    assert fname in str(err.value) and "offset" in str(err.value)


def test_corrupt_sizes_rejected_without_allocating(tmp_path):
    fname = str(tmp_path / "c.params")
    huge_count = struct.pack("<QQQ", 0x112, 0, 1 << 60)
    huge_dim = struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiiQ", 0xF993FAC9, 0, 1, 1 << 40) + \
        struct.pack("<iii", 1, 0, 0)
    bad_dtype = struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiiQ", 0xF993FAC9, 0, 1, 1) + \
        struct.pack("<iii", 1, 0, 99) + b"\0" * 8
    bad_header = struct.pack("<QQQ", 0x113, 0, 0)
    for data, what in ((huge_count, "count"), (huge_dim, "larger"), (bad_dtype, "dtype"),
                       (bad_header, "header")):
        with open(fname, "wb") as f:
            f.write(data)
        with pytest.raises(mx.MXNetError, match=what) as err:
            mx.nd.load(fname)
        assert "offset" in str(err.value)


def test_save_is_atomic_on_failure(tmp_path):
    fname = str(tmp_path / "keep.params")
    mx.nd.save(fname, [mx.nd.ones((2,))])
    with pytest.raises(TypeError):
        mx.nd.save(fname, [mx.nd.ones((2,)), "not an array"])
    np.testing.assert_array_equal(mx.nd.load(fname)[0].asnumpy(), [1, 1])
    assert os.listdir(str(tmp_path)) == ["keep.params"]


def test_missing_file_names_it(tmp_path):
    fname = str(tmp_path / "nope.params")
    with pytest.raises(mx.MXNetError, match="nope.params"):
        mx.nd.load(fname)


def test_save_through_a_symlink_replaces_the_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "real.params"
    link = tmp_path / "link.params"
    mx.nd.save(str(real), {"a": mx.nd.array([1, 2])})
    os.symlink(str(real), str(link))
    mx.nd.save(str(link), {"b": mx.nd.array([3, 4, 5])})
    assert os.path.islink(str(link))
    loaded = mx.nd.load(str(real))
    assert list(loaded) == ["b"]
    np.testing.assert_array_equal(loaded["b"].asnumpy(), [3, 4, 5])


def test_save_to_a_pipe_writes_into_it_and_leaves_it_a_pipe(tmp_path):
    import stat
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(str(fifo))
    received = []
    reader = threading.Thread(target=lambda: received.append(open(str(fifo), "rb").read()))
    reader.start()
    data = {"w": mx.nd.array([[1, 2], [3, 4]])}
    mx.nd.save(str(fifo), data)
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.stat(str(fifo)).st_mode)
    regular = tmp_path / "regular.params"
    mx.nd.save(str(regular), data)
    assert received and received[0] == regular.read_bytes()
