"""mx.io.ImageRecordIter (and the uint8/int8 variants) on small .rec files written here.

Records are framed with struct and hold PNGs encoded here with zlib, so pixels are known
exactly and nothing but numpy is needed to build them; JPEG records come from mx.recordio
(skipped when it cannot encode). Comparisons with MXNet 1.9.1 run the peer in a subprocess
and skip when it is not installed.
"""
import gc
import os
import struct
import textwrap
import zlib

import numpy as np
import pytest

import mxnet as mx
from peer_oracle import run_peer

MAGIC = 0xCED7230A
H, W = 24, 32
N = 10


# ---- writing test files ------------------------------------------------------------------

def png_bytes(img):
    """HxW gray, HxWx3 RGB or HxWx4 RGBA uint8 -> PNG bytes (no filtering)."""
    img = np.ascontiguousarray(img, dtype=np.uint8)
    ctype = {2: 0, 3: {3: 2, 4: 6}.get(img.shape[-1])}[img.ndim]
    h, w = img.shape[:2]
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def pack(label, image_id, payload):
    """An image record: IRHeader ('IfQQ'), labels when several, then the encoded image."""
    if np.ndim(label) == 0:
        return struct.pack("<IfQQ", 0, float(label), image_id, 0) + payload
    lab = np.asarray(label, dtype=np.float32)
    return struct.pack("<IfQQ", lab.size, 0.0, image_id, 0) + lab.tobytes() + payload


def write_rec(path, records, with_idx=True):
    """dmlc RecordIO framing (a payload word equal to the magic splits the record)."""
    offsets = []
    with open(path, "wb") as f:
        for rec in records:
            offsets.append(f.tell())
            parts, start = [], 0
            for pos in range(0, len(rec) - 3, 4):
                if struct.unpack_from("<I", rec, pos)[0] == MAGIC:
                    parts.append(rec[start:pos])
                    start = pos + 4
            parts.append(rec[start:])
            for i, p in enumerate(parts):
                cflag = 0 if len(parts) == 1 else (1 if i == 0 else (3 if i == len(parts) - 1 else 2))
                f.write(struct.pack("<II", MAGIC, (cflag << 29) | len(p)) + p + b"\x00" * (-len(p) % 4))
    if with_idx:
        with open(os.path.splitext(path)[0] + ".idx", "w") as f:
            for i, o in enumerate(offsets):
                f.write("%d\t%d\n" % (i, o))
    return offsets


def make_images(n=N, h=H, w=W, channels=3, seed=0):
    rng = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    out = []
    for i in range(n):
        # Smooth gradients plus noise: resizes stay well defined, every image differs.
        base = np.stack([(yy * (3 + i) + xx * 2 + 40 * k) % 256 for k in range(channels)], -1)
        noise = rng.randint(0, 40, base.shape)
        out.append(np.clip(base + noise, 0, 255).astype(np.uint8))
    return out


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("imrec")
    imgs = make_images()
    rec = str(d / "rgb.rec")
    write_rec(rec, [pack(i, i, png_bytes(im)) for i, im in enumerate(imgs)])
    rec_noidx = str(d / "noidx.rec")
    write_rec(rec_noidx, [pack(i, i, png_bytes(im)) for i, im in enumerate(imgs)], with_idx=False)
    multi = str(d / "multi.rec")
    write_rec(multi, [pack([i, 100 + i], i, png_bytes(im)) for i, im in enumerate(imgs)])
    lst = str(d / "rgb.lst")
    with open(lst, "w") as f:
        for i in range(N):
            f.write("%d\t%f\t%f\timg_%d.png\n" % (i, 10.0 * i, -1.0 * i, i))
    return {"dir": d, "imgs": imgs, "rec": rec, "idx": str(d / "rgb.idx"), "noidx": rec_noidx,
            "multi": multi, "lst": lst}


def batches(it, n=None):
    out = []
    for b in it:
        out.append((b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad))
        if n is not None and len(out) == n:
            break
    return out


def chw(img):
    return np.asarray(img, dtype=np.float32).transpose(2, 0, 1)


def iter_(data, **kw):
    args = dict(path_imgrec=data["rec"], data_shape=(3, H, W), batch_size=4, verbose=False)
    args.update(kw)
    return mx.io.ImageRecordIter(**args)


# ---- exact paths ---------------------------------------------------------------------------

def test_plain_batches_equal_the_images_normalised(data):
    mean, std, scale = (120.0, 110.0, 100.0), (50.0, 60.0, 70.0), 0.5
    it = iter_(data, mean_r=mean[0], mean_g=mean[1], mean_b=mean[2], std_r=std[0], std_g=std[1], std_b=std[2],
               scale=scale, preprocess_threads=2)
    got = batches(it)
    assert [b[2] for b in got] == [0, 0, 2]
    order = list(range(N)) + [0, 1]  # the last batch wraps to the start
    data_all = np.concatenate([b[0] for b in got])
    labels = np.concatenate([b[1] for b in got])
    np.testing.assert_array_equal(labels, np.array(order, dtype=np.float32))
    assert got[0][0].shape == (4, 3, H, W) and got[0][0].dtype == np.float32 and got[0][1].shape == (4,)
    m = np.array(mean, np.float32)[:, None, None]
    s = np.array(std, np.float32)[:, None, None]
    for row, i in zip(data_all, order):
        np.testing.assert_allclose(row, (chw(data["imgs"][i]) - m) * scale / s, rtol=1e-5, atol=1e-5)
    desc = it.provide_data[0]
    assert tuple(desc.shape) == (4, 3, H, W)


def test_uint8_and_int8_dtypes(data):
    for kw in (dict(dtype="uint8"), {}):
        mk = mx.io.ImageRecordIter if kw else mx.io.ImageRecordUInt8Iter
        d, _, _ = batches(mk(path_imgrec=data["rec"], data_shape=(3, H, W), batch_size=5, verbose=False, **kw), 1)[0]
        assert d.dtype == np.uint8
        np.testing.assert_array_equal(d, np.stack([chw(im) for im in data["imgs"][:5]]).astype(np.uint8))
    d, _, _ = batches(iter_(data, dtype="int8", mean_r=100.4, mean_g=0, mean_b=30.6, batch_size=5), 1)[0]
    assert d.dtype == np.int8
    ref = np.stack([chw(im) for im in data["imgs"][:5]]) - np.array([100, 0, 31], np.float32)[:, None, None]
    np.testing.assert_array_equal(d, np.clip(ref, -128, 127).astype(np.int8))
    d8, _, _ = batches(mx.io.ImageRecordInt8Iter(path_imgrec=data["rec"], data_shape=(3, H, W), batch_size=5,
                                                  verbose=False), 1)[0]
    np.testing.assert_array_equal(d8, np.clip(np.stack([chw(im) for im in data["imgs"][:5]]), 0, 127))
    with pytest.raises(mx.MXNetError, match="mean_r"):
        mx.io.ImageRecordUInt8Iter(path_imgrec=data["rec"], data_shape=(3, H, W), batch_size=5, mean_r=1)


def test_mirror_and_round_batch_false(data):
    d, _, _ = batches(iter_(data, mirror=True, dtype="uint8"), 1)[0]
    np.testing.assert_array_equal(d[0], chw(data["imgs"][0])[:, :, ::-1])
    got = batches(iter_(data, round_batch=False, batch_size=4))
    assert [b[2] for b in got] == [0, 0, 2]
    last_data, last_label, _ = got[-1]
    np.testing.assert_array_equal(last_label[:2], [8, 9])
    assert not last_data[2:].any() and not last_label[2:].any()


def test_channels_gray_and_alpha(tmp_path):
    rgb = make_images(4, channels=3)
    gray_imgs = [im[:, :, 0] for im in rgb]
    rec = str(tmp_path / "gray.rec")
    write_rec(rec, [pack(i, i, png_bytes(im)) for i, im in enumerate(gray_imgs)])
    # A colour iterator over gray images: the channel is repeated.
    d, _, _ = batches(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, H, W), batch_size=4, verbose=False,
                                            dtype="uint8"), 1)[0]
    np.testing.assert_array_equal(d, np.stack([np.stack([g] * 3) for g in gray_imgs]))
    # A gray iterator over colour images: BT.601 luma (OpenCV's rounding: within 1).
    rec3 = str(tmp_path / "rgb.rec")
    write_rec(rec3, [pack(i, i, png_bytes(im)) for i, im in enumerate(rgb)])
    d, _, _ = batches(mx.io.ImageRecordIter(path_imgrec=rec3, data_shape=(1, H, W), batch_size=4, verbose=False), 1)[0]
    luma = np.stack([im.astype(np.float64) @ [0.299, 0.587, 0.114] for im in rgb])[:, None]
    assert np.abs(d - luma).max() <= 1.0
    rgba = make_images(4, channels=4)
    rec4 = str(tmp_path / "rgba.rec")
    write_rec(rec4, [pack(i, i, png_bytes(im)) for i, im in enumerate(rgba)])
    d, _, _ = batches(mx.io.ImageRecordIter(path_imgrec=rec4, data_shape=(4, H, W), batch_size=4, verbose=False,
                                            mean_a=10, std_a=2), 1)[0]
    np.testing.assert_allclose(d[:, :3], np.stack([chw(im)[:3] for im in rgba]))
    np.testing.assert_allclose(d[:, 3], (np.stack([im[:, :, 3] for im in rgba]).astype(np.float32) - 10) / 2)
    with pytest.raises(mx.MXNetError, match="4 channels"):
        mx.io.ImageRecordIter(path_imgrec=rec3, data_shape=(4, H, W), batch_size=4, verbose=False)


def test_center_crop_pad_and_fill(data):
    d, _, _ = batches(iter_(data, data_shape=(3, 16, 20), dtype="uint8"), 1)[0]
    y0, x0 = (H - 16) // 2, (W - 20) // 2
    np.testing.assert_array_equal(d[1], chw(data["imgs"][1])[:, y0:y0 + 16, x0:x0 + 20])
    d, _, _ = batches(iter_(data, data_shape=(3, H + 6, W + 6), pad=3, fill_value=7, dtype="uint8"), 1)[0]
    assert (d[0, :, :3, :] == 7).all() and (d[0, :, :, -3:] == 7).all()
    np.testing.assert_array_equal(d[0, :, 3:-3, 3:-3], chw(data["imgs"][0]))


def bilinear(img, w, h):
    """OpenCV's INTER_LINEAR (half-pixel centres, edge clamp), in float: within 1 of cv2."""
    def coords(n_out, n_in):
        f = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
        i0 = np.floor(f).astype(int)
        t = f - i0
        t[i0 < 0] = 0
        i0 = np.clip(i0, 0, n_in - 1)
        t[i0 >= n_in - 1] = 0
        return i0, np.minimum(i0 + 1, n_in - 1), t
    y0, y1, ty = coords(h, img.shape[0])
    x0, x1, tx = coords(w, img.shape[1])
    im = img.astype(np.float64)
    top = im[y0][:, x0] * (1 - tx)[None, :, None] + im[y0][:, x1] * tx[None, :, None]
    bot = im[y1][:, x0] * (1 - tx)[None, :, None] + im[y1][:, x1] * tx[None, :, None]
    return top * (1 - ty)[:, None, None] + bot * ty[:, None, None]


def test_resize_short_side_then_center_crop_matches_numpy(data):
    d, _, _ = batches(iter_(data, resize=18, data_shape=(3, 18, 18), dtype="uint8"), 1)[0]
    for row, img in zip(d, data["imgs"]):
        r = bilinear(img, W * 18 // H, 18)  # short side 24 -> 18, long 32 -> 24
        x0 = (r.shape[1] - 18) // 2
        assert np.abs(row.astype(np.float64) - r[:, x0:x0 + 18].transpose(2, 0, 1)).max() <= 1.0
    # A data_shape larger than the image: upscaled (aspect kept) to cover it, then centre-cropped.
    d, _, _ = batches(iter_(data, data_shape=(3, 30, 30), dtype="uint8"), 1)[0]
    r = bilinear(data["imgs"][0], 40, 30)  # 24x32 -> 30x40
    assert np.abs(d[0].astype(np.float64) - r[:, 5:35].transpose(2, 0, 1)).max() <= 1.0


# ---- labels ---------------------------------------------------------------------------------

def test_label_width_two_from_header_and_from_lst(data):
    _, lab, _ = batches(iter_(data, path_imgrec=data["multi"], label_width=2), 1)[0]
    assert lab.shape == (4, 2)
    np.testing.assert_array_equal(lab, [[i, 100 + i] for i in range(4)])
    _, lab, _ = batches(iter_(data, path_imglist=data["lst"], label_width=2), 1)[0]
    np.testing.assert_array_equal(lab, [[10.0 * i, -1.0 * i] for i in range(4)])
    _, lab, _ = batches(iter_(data, path_imglist=data["lst"]), 1)[0]
    np.testing.assert_array_equal(lab, [10.0 * i for i in range(4)])
    with pytest.raises(mx.MXNetError, match="label_width"):
        iter_(data, label_width=2)  # the records hold one label each
    short = str(data["dir"] / "short.lst")
    with open(short, "w") as f:
        f.write("0\t1\ta.png\n")
    with pytest.raises(mx.MXNetError, match="image index 1 is not in the image list"):
        iter_(data, path_imglist=short)


# ---- order, shards, determinism ---------------------------------------------------------------

def labels_of(it, epochs=1):
    out = []
    for e in range(epochs):
        if e:
            it.reset()
        out.append([int(x) for b in it for x in b.label[0].asnumpy()[:len(b.label[0]) - b.pad]])
    return out


@pytest.mark.parametrize("rec_key", ["rec", "noidx"])
def test_num_parts_cover_every_record_once(data, rec_key):
    seen = []
    for k in range(3):
        it = iter_(data, path_imgrec=data[rec_key], num_parts=3, part_index=k, batch_size=1, round_batch=False)
        seen += labels_of(it)[0]
    assert sorted(seen) == list(range(N))


@pytest.mark.parametrize("rec_key", ["rec", "noidx"])
def test_shuffle_is_a_fresh_permutation_each_epoch(data, rec_key):
    kw = dict(path_imgrec=data[rec_key], shuffle=True, seed=3, batch_size=2)
    if rec_key == "rec":
        kw["path_imgidx"] = data["idx"]
    e0, e1 = labels_of(iter_(data, **kw), epochs=2)
    assert sorted(e0) == list(range(N)) and sorted(e1) == list(range(N))
    assert e0 != list(range(N)) and e0 != e1
    assert labels_of(iter_(data, **kw), epochs=2) == [e0, e1]
    assert labels_of(iter_(data, **dict(kw, seed=4)))[0] != e0


AUG = dict(rand_crop=True, rand_mirror=True, max_rotate_angle=15, max_shear_ratio=0.1, max_random_scale=1.2,
           min_random_scale=0.9, brightness=0.2, contrast=0.2, saturation=0.2, random_h=10, random_l=10,
           pca_noise=0.05, max_random_contrast=0.1, max_random_illumination=5, data_shape=(3, 20, 20),
           shuffle=True, inter_method=10)


def test_same_batches_whatever_the_thread_count(data):
    results = []
    for threads in (1, 2, 4):
        it = iter_(data, preprocess_threads=threads, prefetch_buffer=2, **AUG)
        run = [b[0] for b in batches(it)]
        it.reset()
        run += [b[0] for b in batches(it)]
        results.append(np.stack(run))
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])


def test_seed_aug_decides_the_augmentation(data):
    def first(**kw):
        return batches(iter_(data, **dict(AUG, shuffle=False, **kw)), 1)[0][0]
    a, a2, b = first(seed_aug=1), first(seed_aug=1), first(seed_aug=2)
    np.testing.assert_array_equal(a, a2)
    assert not np.array_equal(a, b)
    assert not np.array_equal(first(seed=0), first(seed=5))


def test_random_resized_crop_and_affine_keep_shape_and_vary(data):
    it = iter_(data, random_resized_crop=True, min_random_area=0.3, max_aspect_ratio=4 / 3, min_aspect_ratio=3 / 4,
               data_shape=(3, 16, 16), rotate=10, inter_method=9)
    e0 = batches(it)
    it.reset()
    e1 = batches(it)
    assert e0[0][0].shape == (4, 3, 16, 16)
    # Images 2 and 3 open epoch 1 (it continues after the 2 images the last batch wrapped):
    # the same images, drawn anew.
    np.testing.assert_array_equal(e1[0][1][:2], [2, 3])
    assert not np.array_equal(e0[0][0][2:4], e1[0][0][:2])


def test_mean_img_is_computed_saved_and_reused(data, tmp_path):
    path = str(tmp_path / "mean.nd")
    d, _, _ = batches(iter_(data, mean_img=path, data_shape=(3, 16, 16), batch_size=5), 1)[0]
    assert os.path.exists(path)
    crops = np.stack([chw(im)[:, 4:20, 8:24] for im in data["imgs"]])
    mean = crops.mean(0)
    saved = mx.nd.load(path)
    arr = saved["mean_img"] if isinstance(saved, dict) else saved[0]
    np.testing.assert_allclose(arr.asnumpy(), mean, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(d, crops[:5] - mean, atol=1e-4)
    d2, _, _ = batches(iter_(data, mean_img=path, data_shape=(3, 16, 16), batch_size=5), 1)[0]
    np.testing.assert_array_equal(d, d2)
    with pytest.raises(mx.MXNetError, match="mean image"):
        iter_(data, mean_img=path, data_shape=(3, 12, 12))


# ---- errors -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kw,match", [
    (dict(no_such_param=1), "no_such_param"),
    (dict(batch_size=0), "batch_size"),
    (dict(data_shape=(5, 28, 28)), "data_shape"),
    (dict(data_shape=(3, 28)), "data_shape"),
    (dict(dtype="float16"), "dtype"),
    (dict(inter_method=7), "inter_method"),
    (dict(min_random_scale=2.0), "min_random_scale"),
    (dict(num_parts=2, part_index=2), "part_index"),
    (dict(aug_seq="aug_fancy"), "aug_seq"),
    (dict(batch_size=11), "fewer than batch_size"),
    (dict(path_imgrec="/nonexistent/x.rec"), "x.rec"),
    (dict(std_g=0), "std_g"),
])
def test_bad_parameters_name_the_problem(data, kw, match):
    with pytest.raises(mx.MXNetError, match=match):
        iter_(data, **kw)


def test_corrupt_image_names_file_and_record(data, tmp_path):
    imgs = data["imgs"]
    recs = [pack(i, i, png_bytes(im)) for i, im in enumerate(imgs[:6])]
    recs[5] = pack(5, 5, b"\xff\xd8\xff\xe0" + b"\x00" * 64)  # a JPEG start, then nothing decodable
    rec = str(tmp_path / "corrupt.rec")
    write_rec(rec, recs)
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, H, W), batch_size=3, verbose=False,
                               preprocess_threads=3)
    it.next()
    with pytest.raises(mx.MXNetError, match=r"record 5 .*corrupt\.rec"):
        it.next()


def test_truncated_rec_is_an_error(data, tmp_path):
    with open(data["noidx"], "rb") as f:
        raw = f.read()
    rec = str(tmp_path / "trunc.rec")
    with open(rec, "wb") as f:
        f.write(raw[:len(raw) - 50])
    with pytest.raises(mx.MXNetError, match="trunc.rec"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, H, W), batch_size=2, verbose=False)
    # With an index the scan is skipped: the cut record fails when it is read.
    idx = str(tmp_path / "trunc.idx")
    with open(data["idx"]) as src, open(idx, "w") as dst:
        dst.write(src.read())
    it = mx.io.ImageRecordIter(path_imgrec=rec, path_imgidx=idx, data_shape=(3, H, W), batch_size=5, verbose=False,
                               round_batch=False)
    with pytest.raises(mx.MXNetError, match="trunc.rec"):
        for _ in it:
            pass


def test_jpeg_records_match_imdecode(tmp_path):
    try:
        rgb = make_images(3)
        recs = [mx.recordio.pack_img(mx.recordio.IRHeader(0, i, i, 0), np.ascontiguousarray(im[:, :, ::-1]), quality=90)
                for i, im in enumerate(rgb)]
        decoded = [mx.image.imdecode(mx.recordio.unpack(r)[1]).asnumpy() for r in recs]
    except (AttributeError, ImportError, mx.MXNetError) as e:  # pragma: no cover - encoder missing
        pytest.skip("no JPEG encoder in this build: %s" % e)
    rec = str(tmp_path / "jpeg.rec")
    write_rec(rec, recs)
    d, _, _ = batches(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, H, W), batch_size=3, verbose=False), 1)[0]
    np.testing.assert_array_equal(d, np.stack([chw(im) for im in decoded]))


# ---- threads and shutdown -----------------------------------------------------------------------

def thread_count():
    return len(os.listdir("/proc/self/task"))


def test_dropping_the_iterator_mid_epoch_leaves_no_threads(data):
    # Whatever the runtime starts once (engine workers, OpenCV's pool) starts here.
    warm = iter_(data, preprocess_threads=3, batch_size=2, **AUG)
    batches(warm, 3)
    del warm
    gc.collect()
    before = thread_count()
    for i in range(50):
        it = iter_(data, preprocess_threads=1 + i % 4, prefetch_buffer=1 + i % 3, batch_size=2, **AUG)
        if i % 2:
            it.next()
        if i % 5 == 0:
            it.reset()
        del it
    gc.collect()
    assert thread_count() <= before


def test_threads_default_follows_the_rule(run_python, data):
    code = textwrap.dedent("""
        import os, mxnet as mx
        def n(**kw):
            before = len(os.listdir('/proc/self/task'))
            it = mx.io.ImageRecordIter(path_imgrec=%r, data_shape=(3, 24, 32), batch_size=2, verbose=False, **kw)
            return len(os.listdir('/proc/self/task')) - before
        n(preprocess_threads=1)  # starts whatever the runtime starts once
        print(n(preprocess_threads=3), n(ctx='cpu'))
    """ % data["rec"])
    r = run_python(code, OMP_NUM_THREADS="2")
    assert r.returncode == 0, r.stderr
    explicit, cpu = r.stdout.split()
    assert int(explicit) == 3 and int(cpu) == 2


# ---- the MXNet 1.9.1 peer (peer_oracle.run_peer skips when it is not installed) -----------------

@pytest.mark.parametrize("kw,tol", [
    (dict(), 0.0),
    (dict(mean_r=100, mean_g=110, mean_b=120, std_r=50, std_g=60, std_b=70, scale=2.0), 1e-4),
    (dict(data_shape=(3, 16, 20)), 0.0),
    (dict(resize=18, data_shape=(3, 18, 18)), 2.0),
    (dict(resize=40, data_shape=(3, 36, 36), inter_method=2), 2.0),
    (dict(data_shape=(3, 30, 30)), 2.0),
    (dict(dtype="uint8", data_shape=(3, 20, 20)), 0.0),
    (dict(label_width=2), 0.0),
])
def test_matches_mxnet_191_without_random_augmentation(data, tmp_path, kw, tol):
    kw = dict(kw)
    rec = data["multi"] if kw.get("label_width") == 2 else data["rec"]
    args = dict(path_imgrec=rec, data_shape=(3, H, W), batch_size=4, preprocess_threads=1)
    args.update(kw)
    out = str(tmp_path / "peer.npz")
    run_peer(textwrap.dedent("""
        import numpy as np, mxnet as mx
        it = mx.io.ImageRecordIter(**%r)
        ds, ls = [], []
        for b in it:
            ds.append(b.data[0].asnumpy()); ls.append(b.label[0].asnumpy())
        np.savez(%r, data=np.stack(ds), label=np.stack(ls))
    """ % (args, out)))
    peer = np.load(out)
    ours = batches(mx.io.ImageRecordIter(verbose=False, **args))
    mine = np.stack([b[0] for b in ours])
    assert mine.shape == peer["data"].shape and mine.dtype == peer["data"].dtype
    np.testing.assert_array_equal(np.stack([b[1] for b in ours]), peer["label"])
    assert np.abs(mine.astype(np.float64) - peer["data"].astype(np.float64)).max() <= tol


def test_forked_child_builds_its_own_iterator_and_rejects_the_parents(run_python, data):
    code = textwrap.dedent("""
        import os, sys, mxnet as mx
        kw = dict(path_imgrec=%r, data_shape=(3, 24, 32), batch_size=2, verbose=False)
        parent_it = mx.io.ImageRecordIter(preprocess_threads=2, **kw)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                parent_it.next(); parent_it.next()
                code = 3  # the parent's iterator has no threads here: it must refuse
            except mx.MXNetError as e:
                code = 0 if 'forked' in str(e) else 4
            # A DataLoader worker builds its own: threads from MXNET_MP_WORKER_NTHREADS.
            before = len(os.listdir('/proc/self/task'))
            it = mx.io.ImageRecordIter(**kw)
            grown = len(os.listdir('/proc/self/task')) - before
            labels = [float(x) for b in it for x in b.label[0].asnumpy()]
            if labels[:4] != [0.0, 1.0, 2.0, 3.0] or grown != 2:
                code = 5
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        print(os.WEXITSTATUS(status), [float(x) for x in parent_it.next().label[0].asnumpy()])
    """ % data["rec"])
    r = run_python(code, MXNET_MP_WORKER_NTHREADS="2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "0", r.stdout + r.stderr


def test_exit_with_live_iterators_does_not_hang(run_python, data):
    code = textwrap.dedent("""
        import mxnet as mx
        its = [mx.io.ImageRecordIter(path_imgrec=%r, data_shape=(3, 24, 32), batch_size=2, verbose=False,
                                     preprocess_threads=3, prefetch_buffer=1) for _ in range(3)]
        its[0].next()
        print("done")
    """ % data["rec"])
    r = run_python(code)
    assert r.returncode == 0 and "done" in r.stdout, r.stderr


def test_forking_while_the_workers_run_never_deadlocks_the_child(run_python, data):
    # The workers park before each fork, so no child inherits a lock a vanished thread held.
    code = textwrap.dedent("""
        import os, mxnet as mx
        kw = dict(path_imgrec=%r, data_shape=(3, 20, 20), batch_size=2, verbose=False, rand_crop=True,
                  max_rotate_angle=10)
        it = mx.io.ImageRecordIter(preprocess_threads=4, prefetch_buffer=4, **kw)
        bad = 0
        for i in range(20):
            for _ in range(i %% 3):
                if not it.iter_next():
                    it.reset()
            pid = os.fork()
            if pid == 0:
                x = mx.nd.ones((64, 64)) * 2
                child = mx.io.ImageRecordIter(preprocess_threads=1, **kw)
                n = sum(1 for _ in child)
                os._exit(0 if n == 5 and float(x.sum().asscalar()) == 8192.0 else 1)
            _, status = os.waitpid(pid, 0)
            bad += os.WEXITSTATUS(status) != 0
        print(bad)
    """ % data["rec"])
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-1] == "0", r.stdout + r.stderr
