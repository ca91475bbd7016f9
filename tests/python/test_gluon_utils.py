"""gluon.utils: splitting, gradient clipping, SHA-1 checks and the no-network download."""
import hashlib

import numpy as np
import pytest

import mxnet as mx
from mxnet import gluon, nd


def test_split_data_even_and_uneven():
    x = nd.array(np.arange(12).reshape(6, 2))
    parts = gluon.utils.split_data(x, 3)
    assert [p.shape for p in parts] == [(2, 2)] * 3
    np.testing.assert_array_equal(parts[1].asnumpy(), [[4, 5], [6, 7]])
    with pytest.raises(ValueError, match="evenly split"):
        gluon.utils.split_data(x, 4)
    uneven = gluon.utils.split_data(x, 4, even_split=False)
    assert [p.shape[0] for p in uneven] == [2, 2, 1, 1]
    cols = gluon.utils.split_data(nd.array(np.arange(12).reshape(2, 6)), 2, batch_axis=1)
    np.testing.assert_array_equal(cols[1].asnumpy(), [[3, 4, 5], [9, 10, 11]])


def test_split_and_load_places_on_contexts():
    ctxs = [mx.cpu(0), mx.cpu(1)]
    parts = gluon.utils.split_and_load(np.arange(8, dtype=np.float32).reshape(4, 2), ctxs)
    assert [p.context for p in parts] == ctxs
    np.testing.assert_array_equal(parts[1].asnumpy(), [[4, 5], [6, 7]])


def test_clip_global_norm():
    a, b = nd.array([3.0, 0.0]), nd.array([[0.0, 4.0]])
    norm = gluon.utils.clip_global_norm([a, b], 1.0)
    assert norm == pytest.approx(5.0)
    np.testing.assert_allclose(a.asnumpy(), [0.6, 0.0], rtol=1e-5)
    np.testing.assert_allclose(b.asnumpy(), [[0.0, 0.8]], rtol=1e-5)
    c = nd.array([0.1, 0.1])
    gluon.utils.clip_global_norm([c], 1.0)
    np.testing.assert_allclose(c.asnumpy(), [0.1, 0.1], rtol=1e-6)


def test_check_sha1_and_download_without_network(tmp_path):
    f = tmp_path / "blob.bin"
    f.write_bytes(b"hello")
    digest = hashlib.sha1(b"hello").hexdigest()
    assert gluon.utils.check_sha1(str(f), digest)
    assert not gluon.utils.check_sha1(str(f), "0" * 40)
    assert gluon.utils.download("http://example.com/blob.bin", path=str(tmp_path)) == str(f)
    with mx.test_utils.environment("MXNET_GLUON_REPO", "https://mirror.example.org/mx"):
        with pytest.raises(IOError, match="mirror.example.org/mx/.*does not access the network|"
                                          "does not access the network.*mirror.example.org"):
            gluon.utils.download("http://example.com/other.bin", path=str(tmp_path))
