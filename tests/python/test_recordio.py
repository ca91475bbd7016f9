"""mx.recordio: round trips, split records, the index, pickling and process rules, image
record packing, corrupt files, byte compatibility with MXNet 1.9.1 both ways (skipped when
the peer is not installed), and gluon.data.RecordFileDataset."""
import ctypes
import multiprocessing
import os
import pickle
import random
import struct
import subprocess
import textwrap

import numpy as np
import pytest

import mxnet as mx
from mxnet import recordio

from peer_oracle import PEER_PYTHON, needs_peer, peer_env

MAGIC = struct.pack("<I", 0xCED7230A)
N = 255


def _run_peer(code, cwd):
    env = peer_env()
    proc = subprocess.run([PEER_PYTHON, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _write(path, records):
    writer = recordio.MXRecordIO(str(path), "w")
    for r in records:
        writer.write(r)
    writer.close()


def _read_all(path):
    reader = recordio.MXRecordIO(str(path), "r")
    out = []
    while True:
        r = reader.read()
        if r is None:
            break
        out.append(r)
    reader.close()
    return out


def _tricky_records():
    """Records with the magic at aligned and unaligned offsets, empty ones, odd lengths."""
    rng = np.random.RandomState(3)
    recs = [b"", MAGIC, MAGIC + MAGIC, b"x" + MAGIC, b"ab" + MAGIC + b"c", b"abcd" + MAGIC + b"efgh",
            MAGIC + b"1234" + MAGIC + b"5", b"\0" * 7, b"abc" + MAGIC + b"d" + MAGIC]
    recs += [rng.bytes(n) for n in range(0, 40, 3)]
    big = bytearray(rng.bytes(100003))
    for i in range(0, len(big) - 4, 1000):
        big[i:i + 4] = MAGIC
    recs.append(bytes(big))
    return recs


def test_one_char_records_round_trip(tmp_path):
    path = tmp_path / "plain.rec"
    records = [bytes(str(chr(i)), "utf-8") for i in range(N)]
    _write(path, records)
    assert _read_all(path) == records


def test_indexed_records_round_trip_in_shuffled_order(tmp_path):
    idx, rec = str(tmp_path / "ix.idx"), str(tmp_path / "ix.rec")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    for i in range(N):
        writer.write_idx(i, bytes(str(chr(i)), "utf-8"))
    writer.close()
    reader = recordio.MXIndexedRecordIO(idx, rec, "r")
    keys = reader.keys
    assert sorted(keys) == list(range(N))
    random.Random(0).shuffle(keys)
    for i in keys:
        assert reader.read_idx(i) == bytes(str(chr(i)), "utf-8")
    # .idx lines are "<key>\t<offset>" with the offset of the record's first byte.
    with open(idx) as f:
        first = f.readline()
    assert first == "0\t0\n"
    assert reader.idx[1] == 12  # 8-byte header + 1 byte + 3 padding


def test_indexed_string_keys_and_tell(tmp_path):
    idx, rec = str(tmp_path / "s.idx"), str(tmp_path / "s.rec")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w", key_type=str)
    assert writer.tell() == 0
    writer.write_idx("a", b"12345")
    assert writer.tell() == 16
    writer.write_idx("b", b"")
    writer.close()
    reader = recordio.MXIndexedRecordIO(idx, rec, "r", key_type=str)
    assert reader.keys == ["a", "b"] and reader.idx == {"a": 0, "b": 16}
    assert reader.read_idx("b") == b"" and reader.read_idx("a") == b"12345"
    assert reader.tell() == 16
    assert reader.read() == b""
    assert reader.read() is None


def test_magic_empty_and_large_records(tmp_path):
    path = tmp_path / "tricky.rec"
    records = _tricky_records() + [os.urandom(1 << 20)]
    _write(path, records)
    assert _read_all(path) == records
    assert os.path.getsize(path) % 4 == 0


def test_bytearray_and_str_records(tmp_path):
    writer = recordio.MXRecordIO(str(tmp_path / "b.rec"), "w")
    writer.write(bytearray(b"xyz"))
    writer.write(memoryview(b"uvw"))
    with pytest.raises(TypeError):
        writer.write("text")
    writer.close()
    assert _read_all(tmp_path / "b.rec") == [b"xyz", b"uvw"]


def test_reset_truncates_a_writer_and_rewinds_a_reader(tmp_path):
    path = str(tmp_path / "r.rec")
    writer = recordio.MXRecordIO(path, "w")
    for i in range(5):
        writer.write(b"record %d" % i)
    writer.reset()
    writer.write(b"only")
    writer.close()
    assert _read_all(path) == [b"only"]
    reader = recordio.MXRecordIO(path, "r")
    assert reader.read() == b"only" and reader.read() is None
    reader.reset()
    assert reader.read() == b"only"


def test_flags_and_modes(tmp_path):
    path = str(tmp_path / "m.rec")
    with pytest.raises(ValueError):
        recordio.MXRecordIO(path, "a")
    writer = recordio.MXRecordIO(path, "w")
    with pytest.raises(AssertionError):
        writer.read()
    writer.close()
    writer.close()  # twice is fine
    reader = recordio.MXRecordIO(path, "r")
    with pytest.raises(AssertionError):
        reader.write(b"x")
    with pytest.raises(mx.MXNetError, match="missing.rec"):
        recordio.MXRecordIO(str(tmp_path / "missing.rec"), "r")


def test_pickling_closes_and_reopens(tmp_path):
    path = str(tmp_path / "p.rec")
    _write(path, [b"one", b"two"])
    reader = recordio.MXRecordIO(path, "r")
    assert reader.read() == b"one"
    clone = pickle.loads(pickle.dumps(reader))
    assert not reader.is_open  # pickling closed the original
    assert clone.is_open and clone.read() == b"one"
    reader.close()
    closed = pickle.loads(pickle.dumps(reader))
    assert not closed.is_open

    idx = str(tmp_path / "p.idx")
    writer = recordio.MXIndexedRecordIO(idx, path, "w")
    for i in range(4):
        writer.write_idx(i, b"r%d" % i)
    writer.close()
    indexed = recordio.MXIndexedRecordIO(idx, path, "r")
    clone = pickle.loads(pickle.dumps(indexed))
    assert clone.keys == [0, 1, 2, 3] and clone.read_idx(2) == b"r2"
    assert not indexed.is_open and indexed.read_idx(3) == b"r3"  # seek reopens, as in 1.x
    with pytest.raises(RuntimeError, match="closed"):
        reader.read()


def _child_checks(rec_path, idx_path, plain, indexed, writer, queue):
    out = {}
    try:
        plain.read()
        out["plain_read"] = "no error"
    except RuntimeError as err:
        out["plain_read"] = str(err)
    try:
        writer.write(b"x")
        out["write"] = "no error"
    except RuntimeError as err:
        out["write"] = str(err)
    out["indexed"] = [indexed.read_idx(k) for k in (2, 0)]
    writer.close()  # must not flush the parent's buffered bytes a second time
    queue.put(out)


def test_other_process_rules(tmp_path):
    rec, idx = str(tmp_path / "mp.rec"), str(tmp_path / "mp.idx")
    w = recordio.MXIndexedRecordIO(idx, rec, "w")
    for i in range(3):
        w.write_idx(i, b"rec%d" % i)
    w.close()
    plain = recordio.MXRecordIO(rec, "r")
    indexed = recordio.MXIndexedRecordIO(idx, rec, "r")
    indexed.read_idx(1)
    writer = recordio.MXIndexedRecordIO(str(tmp_path / "w.idx"), str(tmp_path / "w.rec"), "w")
    writer.write_idx(7, b"parent")
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child_checks, args=(rec, idx, plain, indexed, writer, queue))
    proc.start()
    out = queue.get(timeout=60)
    proc.join(60)
    assert "Forbidden operation in multiple processes" in out["plain_read"]
    assert "Forbidden operation in multiple processes" in out["write"]
    assert out["indexed"] == [b"rec2", b"rec0"]
    # The parent's handles are untouched, and the child flushed nothing of the writer's.
    assert plain.read() == b"rec0"
    assert indexed.read() == b"rec2"
    writer.write_idx(8, b"after fork")
    writer.close()
    assert _read_all(tmp_path / "w.rec") == [b"parent", b"after fork"]
    assert (tmp_path / "w.idx").read_text() == "7\t0\n8\t16\n"


# ---- image record payloads ----

def test_pack_unpack_label_arrays():
    for n in range(1, 255):
        label = np.random.RandomState(n).uniform(-10, 10, n).astype(np.float32)
        s = recordio.pack(recordio.IRHeader(0, label, n, 0), b"payload")
        assert len(s) == 24 + 4 * n + 7
        header, payload = recordio.unpack(s)
        assert header.flag == n and header.id == n and header.id2 == 0
        assert header.label.dtype == np.float32
        np.testing.assert_array_equal(header.label, label)
        assert payload == b"payload"


def test_pack_scalar_label_forces_flag_zero():
    s = recordio.pack(recordio.IRHeader(7, 3.5, 11, 2), b"img")
    assert s[:24] == struct.pack("IfQQ", 0, 3.5, 11, 2)
    header, payload = recordio.unpack(s)
    assert header == (0, 3.5, 11, 2) and payload == b"img"
    header, _ = recordio.unpack(recordio.pack(recordio.IRHeader(0, np.float32(2), 0, 0), b""))
    assert header.flag == 0 and header.label == 2.0
    header, _ = recordio.unpack(recordio.pack(recordio.IRHeader(0, [4.0], 0, 0), b""))
    assert header.flag == 1 and list(header.label) == [4.0]


def test_unpack_short_records():
    with pytest.raises(mx.MXNetError, match="24-byte header"):
        recordio.unpack(b"\0" * 23)
    with pytest.raises(ValueError, match="3 labels"):
        recordio.unpack(struct.pack("IfQQ", 3, 0, 0, 0) + b"\0" * 8)


def _has_codec():
    try:
        import mxnet.image as image
    except ImportError:
        return False
    return hasattr(image, "_imencode") and hasattr(image, "imdecode")


@pytest.mark.skipif(not _has_codec(), reason="mx.image has no encoder/decoder in this build")
def test_pack_img_unpack_img_png_round_trip():
    img = np.random.RandomState(0).randint(0, 256, (9, 7, 3)).astype(np.uint8)
    s = recordio.pack_img(recordio.IRHeader(0, 1.0, 5, 0), img, quality=3, img_fmt=".png")
    header, decoded = recordio.unpack_img(s)
    assert header.label == 1.0 and header.id == 5
    np.testing.assert_array_equal(decoded, img)
    _, gray = recordio.unpack_img(s, 0)
    assert gray.shape == (9, 7)
    # A one-channel image stays 2-D when decoded as stored, as OpenCV gives it.
    plane = img[:, :, 0]
    _, decoded = recordio.unpack_img(recordio.pack_img((0, 0.0, 0, 0), plane, img_fmt=".png"))
    np.testing.assert_array_equal(decoded, plane)


@pytest.mark.skipif(not _has_codec(), reason="mx.image has no encoder/decoder in this build")
def test_pack_img_jpeg_by_default():
    y, x = np.mgrid[0:32, 0:48]
    img = np.stack([x * 5, y * 7, x + y], axis=-1).astype(np.uint8)
    s = recordio.pack_img(recordio.IRHeader(0, [1.0, 2.0], 3, 0), img)
    header, decoded = recordio.unpack_img(s, 1)
    assert header.flag == 2 and list(header.label) == [1.0, 2.0]
    assert s[24 + 8:24 + 10] == b"\xff\xd8"  # a JPEG stream follows the labels
    assert decoded.shape == img.shape
    assert np.abs(decoded.astype(int) - img).mean() < 4


# ---- corrupt files ----

def _expect_corrupt(path, match):
    with pytest.raises(mx.MXNetError, match=match) as info:
        _read_all(path)
    assert str(path) in str(info.value)
    return str(info.value)


def test_truncated_file(tmp_path):
    path = tmp_path / "t.rec"
    _write(path, [b"first", b"second record"])
    data = path.read_bytes()
    path.write_bytes(data[:-5])
    msg = _expect_corrupt(path, "runs past the end")
    assert "record 1 at byte offset 16" in msg
    path.write_bytes(data[:19])
    _expect_corrupt(path, "truncated header")


def test_truncated_split_record(tmp_path):
    path = tmp_path / "ts.rec"
    _write(path, [b"abcd" + MAGIC + b"efgh"])
    path.write_bytes(path.read_bytes()[:12])  # only the first part
    _expect_corrupt(path, "last part is missing")


def test_wrong_magic(tmp_path):
    path = tmp_path / "m.rec"
    path.write_bytes(b"this is not a recordio file")
    msg = _expect_corrupt(path, "bad magic")
    assert "record 0 at byte offset 0" in msg


def test_length_past_the_end(tmp_path):
    path = tmp_path / "l.rec"
    path.write_bytes(MAGIC + struct.pack("<I", (1 << 29) - 1) + b"tiny")
    _expect_corrupt(path, "length 536870911 .*runs past the end")


def test_bad_part_sequence(tmp_path):
    path = tmp_path / "seq.rec"
    path.write_bytes(MAGIC + struct.pack("<I", 3 << 29 | 4) + b"abcd")
    _expect_corrupt(path, "has flag 3")
    path.write_bytes(MAGIC + struct.pack("<I", 1 << 29 | 4) + b"abcd" + MAGIC + struct.pack("<I", 4) + b"efgh")
    _expect_corrupt(path, "has flag 0")


def test_index_offset_past_the_end(tmp_path):
    rec, idx = str(tmp_path / "o.rec"), str(tmp_path / "o.idx")
    _write(rec, [b"abc"])
    with open(idx, "w") as f:
        f.write("0\t0\n1\t4096\n2\t2\n")
    reader = recordio.MXIndexedRecordIO(idx, rec, "r")
    assert reader.read_idx(0) == b"abc"
    with pytest.raises(mx.MXNetError, match="past the end") as info:
        reader.read_idx(1)
    assert rec in str(info.value)
    with pytest.raises(mx.MXNetError, match="multiples of 4"):
        reader.read_idx(2)


@pytest.mark.parametrize("line", ["0\t0\nabc\t12\n", "0 0\n", "0\t-4\n", "0\t1\t2\n", "0\tx\n"])
def test_bad_index_line(tmp_path, line):
    rec, idx = str(tmp_path / "bad.rec"), str(tmp_path / "bad.idx")
    _write(rec, [b"abc", b"def"])
    with open(idx, "w") as f:
        f.write(line)
    with pytest.raises(mx.MXNetError, match="Bad line") as info:
        recordio.MXIndexedRecordIO(idx, rec, "r")
    assert idx in str(info.value)


# ---- MXNet 1.9.1 compatibility ----

@needs_peer
def test_our_files_equal_mxnet191_files_and_read_there(tmp_path):
    records = [bytes(str(chr(i)), "utf-8") for i in range(N)] + _tricky_records()
    with open(tmp_path / "records.pkl", "wb") as f:
        pickle.dump(records, f, protocol=2)
    writer = recordio.MXIndexedRecordIO(str(tmp_path / "ours.idx"), str(tmp_path / "ours.rec"), "w")
    for i, r in enumerate(records):
        writer.write_idx(i, r)
    writer.close()
    _run_peer("""
        import pickle, random
        import mxnet as mx
        records = pickle.load(open("records.pkl", "rb"))
        w = mx.recordio.MXIndexedRecordIO("peer.idx", "peer.rec", "w")
        for i, r in enumerate(records):
            w.write_idx(i, r)
        w.close()
        # Reads ours, sequentially and by key in shuffled order.
        r = mx.recordio.MXIndexedRecordIO("ours.idx", "ours.rec", "r")
        keys = list(r.keys)
        assert keys == list(range(len(records))), keys[:5]
        random.Random(1).shuffle(keys)
        for k in keys:
            assert r.read_idx(k) == records[k], k
        plain = mx.recordio.MXRecordIO("ours.rec", "r")
        for k, rec in enumerate(records):
            assert plain.read() == rec, k
        assert plain.read() is None
        print("peer ok")
    """, str(tmp_path))
    assert (tmp_path / "ours.rec").read_bytes() == (tmp_path / "peer.rec").read_bytes()
    assert (tmp_path / "ours.idx").read_bytes() == (tmp_path / "peer.idx").read_bytes()
    reader = recordio.MXIndexedRecordIO(str(tmp_path / "peer.idx"), str(tmp_path / "peer.rec"), "r")
    for k in reversed(reader.keys):
        assert reader.read_idx(k) == records[k]


@needs_peer
def test_mxnet191_packed_image_records_unpack_here(tmp_path):
    _run_peer("""
        import numpy as np, mxnet as mx
        w = mx.recordio.MXRecordIO("packed.rec", "w")
        for n in range(0, 6):
            label = float(n) if n == 0 else np.arange(n, dtype=np.float32)
            w.write(mx.recordio.pack(mx.recordio.IRHeader(0, label, n, 0), b"img%d" % n))
        w.close()
    """, str(tmp_path))
    for n, rec in enumerate(_read_all(tmp_path / "packed.rec")):
        header, payload = recordio.unpack(rec)
        assert header.id == n and payload == b"img%d" % n
        if n == 0:
            assert header.flag == 0 and header.label == 0.0
        else:
            np.testing.assert_array_equal(header.label, np.arange(n, dtype=np.float32))
        assert recordio.pack(recordio.IRHeader(0, header.label, n, 0), payload) == rec


# ---- gluon.data.RecordFileDataset ----

def _as_list(samples):
    return list(samples)


def test_record_file_dataset(tmp_path):
    rec, idx = str(tmp_path / "data.rec"), str(tmp_path / "data.idx")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    for i in (5, 3, 9):  # item i is the record of keys[i], in index order
        writer.write_idx(i, b"sample %d" % i)
    writer.close()
    dataset = mx.gluon.data.RecordFileDataset(rec)
    assert len(dataset) == 3
    assert [dataset[i] for i in range(3)] == [b"sample 5", b"sample 3", b"sample 9"]
    assert dataset[-1] == b"sample 9"
    clone = pickle.loads(pickle.dumps(dataset))
    assert clone[1] == b"sample 3"
    for workers in (0, 2):  # forked workers reopen the file on their first seek
        loader = mx.gluon.data.DataLoader(dataset, batch_size=2, num_workers=workers, batchify_fn=_as_list)
        assert list(loader) == [[b"sample 5", b"sample 3"], [b"sample 9"]]
        assert dataset[0] == b"sample 5"  # the parent's handle still works


def test_c_api_rejects_a_handle_of_the_other_kind(tmp_path):
    from mxnet.base import _LIB, check_call
    path = str(tmp_path / "h.rec")
    _write(path, [b"abc"])
    reader = recordio.MXRecordIO(path, "r")
    with pytest.raises(mx.MXNetError, match="not a RecordIO writer handle"):
        check_call(_LIB.MXRecordIOWriterTell(reader.handle, ctypes.byref(ctypes.c_size_t())))
    buf, size = ctypes.c_char_p(), ctypes.c_size_t()
    check_call(_LIB.MXRecordIOReaderReadRecord(reader.handle, ctypes.byref(buf), ctypes.byref(size)))
    assert ctypes.string_at(buf, size.value) == b"abc"
    check_call(_LIB.MXRecordIOReaderReadRecord(reader.handle, ctypes.byref(buf), ctypes.byref(size)))
    assert not buf and size.value == 0  # NULL and 0 at the end of the file
