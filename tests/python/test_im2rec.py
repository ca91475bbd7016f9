"""tools/im2rec.py: list files and packed records, checked by reading them back."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IM2REC = os.path.join(ROOT, "tools", "im2rec.py")


def _im2rec(*args, ok=True):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    proc = subprocess.run([sys.executable, IM2REC] + [str(a) for a in args], env=env,
                          capture_output=True, text=True, timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def _image(rs, h, w, c=3):
    return rs.randint(0, 256, (h, w, c)).astype(np.uint8)


@pytest.fixture
def tree(tmp_path):
    """root/{cat,dog}/*.png plus a non-image file; returns (root, {relpath: BGR array})."""
    rs = np.random.RandomState(0)
    root = tmp_path / "root"
    images = {}
    for folder, count in (("cat", 3), ("dog", 2)):
        os.makedirs(root / folder)
        for i in range(count):
            img = _image(rs, 20 + 4 * i, 30 - 2 * i)
            rel = os.path.join(folder, "%d.png" % i)
            (root / rel).write_bytes(mx.image._imencode(img, ".png", 1))
            images[rel] = img
    (root / "cat" / "notes.txt").write_text("not an image")
    return root, images


def _read_lst(path):
    rows = []
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            rows.append((int(fields[0]), [float(x) for x in fields[1:-1]], fields[-1]))
    return rows


def test_list_recursive_labels_follow_folders(tree, tmp_path):
    root, images = tree
    proc = _im2rec("--list", "--recursive", "--no-shuffle", tmp_path / "data", root)
    rows = _read_lst(tmp_path / "data.lst")
    assert [r[2] for r in rows] == sorted(images)
    assert [r[0] for r in rows] == list(range(5))
    assert all(r[1] == [0.0 if r[2].startswith("cat") else 1.0] for r in rows)
    assert "cat 0" in proc.stdout and "dog 1" in proc.stdout


def test_list_shuffle_is_seeded_and_splits_follow_ratios(tree, tmp_path):
    root, _ = tree
    _im2rec("--list", "--recursive", tmp_path / "a", root)
    _im2rec("--list", "--recursive", tmp_path / "b", root)
    first = _read_lst(tmp_path / "a.lst")
    assert first == _read_lst(tmp_path / "b.lst")
    assert sorted(r[0] for r in first) == list(range(5))
    _im2rec("--list", "--recursive", "--train-ratio", "0.6", "--test-ratio", "0.2",
            tmp_path / "s", root)
    test, train, val = (_read_lst(tmp_path / ("s_%s.lst" % n)) for n in ("test", "train", "val"))
    assert (len(test), len(train), len(val)) == (1, 3, 1)
    assert test + train + val == first


def test_pack_png_round_trips_pixels_and_labels(tree, tmp_path):
    root, images = tree
    _im2rec("--list", "--recursive", tmp_path / "data", root)
    _im2rec("--encoding", ".png", tmp_path / "data", root)
    rows = {r[0]: r for r in _read_lst(tmp_path / "data.lst")}
    rec = mx.recordio.MXIndexedRecordIO(str(tmp_path / "data.idx"), str(tmp_path / "data.rec"),
                                        "r")
    assert sorted(rec.keys) == sorted(rows)
    for key in rec.keys:
        header, img = mx.recordio.unpack_img(rec.read_idx(key))
        index, labels, rel = rows[key]
        assert header.id == index and header.label == labels[0] and header.flag == 0
        np.testing.assert_array_equal(img, images[rel])


def test_pack_resize_center_crop_and_multi_label(tmp_path):
    rs = np.random.RandomState(1)
    root = tmp_path / "root"
    os.makedirs(root)
    wide, tall = _image(rs, 40, 100), _image(rs, 90, 30)
    (root / "wide.png").write_bytes(mx.image._imencode(wide, ".png", 1))
    (root / "tall.png").write_bytes(mx.image._imencode(tall, ".png", 1))
    (tmp_path / "r.lst").write_text("0\t1.5\t2.5\twide.png\n1\t3\t4\ttall.png\nbad line\n")
    _im2rec("--resize", "20", "--encoding", ".png", "--pack-label", tmp_path / "r", root)
    rec = mx.recordio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "r")
    header, img = mx.recordio.unpack_img(rec.read_idx(0))
    assert img.shape == (20, 100 * 20 // 40, 3)  # short side 20, long = long * 20 // short
    assert header.flag == 2 and list(header.label) == [1.5, 2.5]
    want = mx.image.imresize(mx.nd.array(wide, dtype=np.uint8), 50, 20, interp=1).asnumpy()
    np.testing.assert_array_equal(img, want)
    header, img = mx.recordio.unpack_img(rec.read_idx(1))
    assert img.shape == (90 * 20 // 30, 20, 3) and list(header.label) == [3.0, 4.0]

    _im2rec("--center-crop", "--encoding", ".png", tmp_path / "r", root)
    rec = mx.recordio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "r")
    header, img = mx.recordio.unpack_img(rec.read_idx(0))
    np.testing.assert_array_equal(img, wide[:, 30:70])
    assert header.flag == 0 and header.label == 1.5  # without --pack-label: the first label


def test_pack_threads_keep_order_and_skip_unreadable(tree, tmp_path):
    root, images = tree
    lst = "".join("%d\t%d\t%s\n" % (i, i, rel) for i, rel in enumerate(sorted(images)))
    lst += "9\t9\tcat/missing.png\n"
    (tmp_path / "t.lst").write_text(lst)
    proc = _im2rec("--num-thread", "2", "--encoding", ".png", tmp_path / "t", root)
    assert "missing.png" in proc.stderr
    reader = mx.recordio.MXRecordIO(str(tmp_path / "t.rec"), "r")
    ids = []
    while True:
        item = reader.read()
        if item is None:
            break
        ids.append(mx.recordio.unpack(item)[0].id)
    assert ids == list(range(len(images)))
    # One process stops at the unreadable image with an error naming it.
    proc = _im2rec("--encoding", ".png", tmp_path / "t", root, ok=False)
    assert proc.returncode != 0 and "missing.png" in proc.stderr


def test_pass_through_keeps_the_file_bytes(tree, tmp_path):
    root, images = tree
    _im2rec("--list", "--recursive", "--no-shuffle", tmp_path / "p", root)
    _im2rec("--pass-through", tmp_path / "p", root)
    reader = mx.recordio.MXRecordIO(str(tmp_path / "p.rec"), "r")
    for rel in sorted(images):
        _, payload = mx.recordio.unpack(reader.read())
        assert payload == (root / rel).read_bytes()
