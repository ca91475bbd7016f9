"""mx.image: decoding and encoding (against MXNet 1.9.1 on the same bytes when the peer is
installed, and against numpy), resizing and borders, the crop helpers, every augmenter on a
known image, CreateAugmenter, ImageIter's last-batch handling over .lst, imglist and .rec
sources, imrotate, and OpenCV's threads in forked children."""
import ctypes
import json
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mxnet as mx
from mxnet import nd
from mxnet.base import _LIB

from peer_oracle import PEER_PYTHON, needs_peer, peer_env


def _run_peer(code, cwd):
    env = peer_env()
    proc = subprocess.run([PEER_PYTHON, "-c", textwrap.dedent(code)], cwd=str(cwd), env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _photo(h=57, w=83, seed=0):
    """A BGR uint8 image with smooth structure and noise (JPEG-friendly, not constant)."""
    rs = np.random.RandomState(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 3) % 256, (y * 4) % 256, ((x + y) * 2) % 256], -1) * 0.75
    return (img + rs.randint(0, 60, img.shape)).astype(np.uint8)


# ---------------------------------------------------------------- decode / encode

def test_png_round_trip_and_channel_order():
    bgr = _photo()
    png = mx.image._imencode(bgr, ".png")
    assert isinstance(png, bytes) and png[:4] == b"\x89PNG"
    as_bgr = mx.image.imdecode(png, to_rgb=False)
    assert as_bgr.dtype == np.uint8 and as_bgr.shape == bgr.shape
    np.testing.assert_array_equal(as_bgr.asnumpy(), bgr)
    np.testing.assert_array_equal(mx.image.imdecode(png).asnumpy(), bgr[:, :, ::-1])
    gray = mx.image.imdecode(png, flag=0).asnumpy()
    assert gray.shape == bgr.shape[:2] + (1,)
    luma = bgr[:, :, 2] * 0.299 + bgr[:, :, 1] * 0.587 + bgr[:, :, 0] * 0.114
    assert np.abs(gray[:, :, 0] - luma).max() < 1.5  # OpenCV rounds in fixed point
    # every accepted buffer type decodes the same
    for buf in (bytearray(png), np.frombuffer(png, dtype=np.uint8), nd.array(np.frombuffer(png, np.uint8), dtype="uint8")):
        np.testing.assert_array_equal(mx.image.imdecode(buf, to_rgb=False).asnumpy(), bgr)


def test_encode_jpeg_quality_gray_and_ndarray_input():
    bgr = _photo(64, 64)
    hi, lo = mx.image._imencode(bgr, ".jpg", 95), mx.image._imencode(bgr, img_fmt=".jpeg", quality=20)
    assert hi[:2] == b"\xff\xd8" and len(hi) > len(lo)
    err_hi = np.abs(mx.image.imdecode(hi, to_rgb=False).asnumpy().astype(np.float64) - bgr).mean()
    err_lo = np.abs(mx.image.imdecode(lo, to_rgb=False).asnumpy().astype(np.float64) - bgr).mean()
    assert err_hi < err_lo < 40
    same = mx.image._imencode(nd.array(bgr, dtype="uint8"), ".jpg", 95)
    assert same == hi
    gray_png = mx.image._imencode(bgr[:, :, 0], ".png")
    np.testing.assert_array_equal(mx.image.imdecode(gray_png, flag=0).asnumpy()[:, :, 0], bgr[:, :, 0])
    with pytest.raises(ValueError):
        mx.image._imencode(bgr.astype(np.float32), ".png")
    with pytest.raises(ValueError):
        mx.image._imencode(bgr, ".notaformat")


def test_imread_and_decode_errors(tmp_path):
    bgr = _photo()
    path = tmp_path / "a.png"
    path.write_bytes(mx.image._imencode(bgr, ".png"))
    np.testing.assert_array_equal(mx.image.imread(str(path)).asnumpy(), bgr[:, :, ::-1])
    np.testing.assert_array_equal(mx.image.imread(str(path), flag=1, to_rgb=False).asnumpy(), bgr)
    for bad in (b"", bytearray(), np.zeros(0, np.uint8), b"not an image at all", b"\xff\xd8\xff\xe0broken"):
        with pytest.raises(mx.MXNetError):
            mx.image.imdecode(bad)
    with pytest.raises(ValueError):
        mx.image.imdecode("a.png")
    with pytest.raises(ValueError):
        mx.image.imdecode(mx.image._imencode(bgr, ".png"), flag=3)
    with pytest.raises(mx.MXNetError, match="missing.jpg"):
        mx.image.imread(str(tmp_path / "missing.jpg"))
    # MXNet 1.x's internal op names still reach the decoder
    np.testing.assert_array_equal(nd._internal._cvimdecode(path.read_bytes(), flag=0).asnumpy(),
                                  mx.image.imdecode(path.read_bytes(), flag=0).asnumpy())
    np.testing.assert_array_equal(nd._internal._cvimread(str(path)).asnumpy(), bgr[:, :, ::-1])


def test_opencv_feature_is_reported():
    assert mx.runtime.Features().is_enabled("OPENCV")
    assert mx.runtime.info().get("opencv_version", "").startswith("4.")


@needs_peer
def test_decode_equals_mxnet191_on_the_same_bytes(tmp_path):
    bgr = _photo(97, 131, seed=3)
    files = {"a.jpg": mx.image._imencode(bgr, ".jpg", 90), "b.png": mx.image._imencode(bgr, ".png"),
             "c.jpg": mx.image._imencode(bgr[:, :, 1], ".jpg", 80)}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    _run_peer("""
        import mxnet as mx, numpy as np
        for name in ['a.jpg', 'b.png', 'c.jpg']:
            data = open(name, 'rb').read()
            for flag in (0, 1):
                for rgb in (0, 1):
                    np.save('%s_%d_%d.npy' % (name, flag, rgb), mx.image.imdecode(data, flag=flag, to_rgb=rgb).asnumpy())
        """, tmp_path)
    for name, data in files.items():
        for flag in (0, 1):
            for rgb in (0, 1):
                want = np.load(str(tmp_path / ("%s_%d_%d.npy" % (name, flag, rgb))))
                got = mx.image.imdecode(data, flag=flag, to_rgb=rgb).asnumpy()
                assert got.shape == want.shape, (name, flag, rgb)
                np.testing.assert_array_equal(got, want, err_msg="%s flag=%d to_rgb=%d" % (name, flag, rgb))


def _png(arr, color_type, depth, plte=None, trns=None):
    """A PNG written by hand (so every colour type and bit depth can be made): arr is (H, W) or
    (H, W, C) of sample values; plte a (N, 3) palette; trns the raw tRNS chunk."""
    import struct
    import zlib

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)

    arr = np.asarray(arr)
    h, w = arr.shape[:2]
    raw = b""
    for row in arr.reshape(h, -1):
        if depth == 16:
            packed = row.astype(">u2").tobytes()
        elif depth == 8:
            packed = row.astype(np.uint8).tobytes()
        else:  # 1, 2 or 4 bits per sample, most significant first
            per = 8 // depth
            padded = np.zeros(-(-len(row) // per) * per, np.uint32)
            padded[:len(row)] = row
            shifts = 8 - depth * (1 + np.arange(per))
            packed = (padded.reshape(-1, per) << shifts).sum(1).astype(np.uint8).tobytes()
        raw += b"\0" + packed
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 0))
    if plte is not None:
        out += chunk(b"PLTE", np.asarray(plte, np.uint8).tobytes())
    if trns is not None:
        out += chunk(b"tRNS", trns)
    return out + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def _png_kinds(seed=4, h=9, w=14):
    """name -> (PNG bytes, channels and dtype imdecode(flag=-1) gives)."""
    rs = np.random.RandomState(seed)
    pal = rs.randint(0, 256, (16, 3))
    return {
        "gray1": (_png(rs.randint(0, 2, (h, w)), 0, 1), 1, np.uint8),
        "gray4": (_png(rs.randint(0, 16, (h, w)), 0, 4), 1, np.uint8),
        "gray8_trns": (_png(rs.randint(0, 256, (h, w)), 0, 8, trns=b"\0\7"), 1, np.uint8),
        "gray16": (_png(rs.randint(0, 65536, (h, w)), 0, 16), 1, np.int32),
        "gray_alpha8": (_png(rs.randint(0, 256, (h, w, 2)), 4, 8), 4, np.uint8),
        "gray_alpha16": (_png(rs.randint(0, 65536, (h, w, 2)), 4, 16), 4, np.int32),
        "rgb8": (_png(rs.randint(0, 256, (h, w, 3)), 2, 8), 3, np.uint8),
        "rgb8_trns": (_png(rs.randint(0, 3, (h, w, 3)), 2, 8, trns=b"\0\1\0\2\0\0"), 4, np.uint8),
        "rgb16": (_png(rs.randint(0, 65536, (h, w, 3)), 2, 16), 3, np.int32),
        "rgba8": (_png(rs.randint(0, 256, (h, w, 4)), 6, 8), 4, np.uint8),
        "rgba16": (_png(rs.randint(0, 65536, (h, w, 4)), 6, 16), 4, np.int32),
        "palette4": (_png(rs.randint(0, 16, (h, w)), 3, 4, plte=pal), 3, np.uint8),
        "palette8_trns": (_png(rs.randint(0, 16, (h, w)), 3, 8, plte=pal, trns=bytes(range(0, 160, 20))), 4, np.uint8),
    }


def _with_exif(jpeg, orientation, big_endian=False):
    """jpeg with an APP1 EXIF block right after SOI whose IFD0 holds Make and Orientation."""
    import struct
    e = ">" if big_endian else "<"
    tiff = (b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, 8) + struct.pack(e + "H", 2)
    tiff += struct.pack(e + "HHI", 0x010F, 2, 4) + b"Cam\0"
    tiff += struct.pack(e + "HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(e + "I", 0)
    payload = b"Exif\0\0" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def test_png_kinds_flag_unchanged_keeps_depth_and_alpha():
    for name, (data, channels, dtype) in _png_kinds().items():
        raw = mx.image.imdecode(data, flag=-1, to_rgb=False)
        assert raw.shape == (9, 14, channels) and raw.dtype == dtype, name
        rgb = mx.image.imdecode(data, flag=-1).asnumpy()
        want = raw.asnumpy()
        if channels >= 3:
            want = np.concatenate([want[:, :, 2::-1], want[:, :, 3:]], -1)
        np.testing.assert_array_equal(rgb, want, err_msg=name)
        colour = mx.image.imdecode(data, flag=1, to_rgb=False).asnumpy()
        gray = mx.image.imdecode(data, flag=0).asnumpy()
        assert colour.shape == (9, 14, 3) and colour.dtype == np.uint8, name
        assert gray.shape == (9, 14, 1) and gray.dtype == np.uint8, name
        if dtype == np.int32:  # 16 bits read as colour: the high byte
            np.testing.assert_array_equal(colour[:, :, :min(channels, 3)] if channels >= 3 else colour[:, :, 0],
                                          want[:, :, 2::-1] >> 8 if channels >= 3 else want[:, :, 0] >> 8)
    # 16-bit values themselves
    deep = np.array([[0, 255, 256, 65535]])
    np.testing.assert_array_equal(mx.image.imdecode(_png(deep, 0, 16), flag=-1).asnumpy()[:, :, 0], deep)
    np.testing.assert_array_equal(mx.image.imdecode(_png(deep, 0, 16), flag=0).asnumpy()[:, :, 0], deep >> 8)
    # low bit depths are scaled to 0-255
    np.testing.assert_array_equal(mx.image.imdecode(_png([[0, 1]], 0, 1), flag=0).asnumpy()[:, :, 0], [[0, 255]])


def test_jpeg_exif_orientation():
    bgr = _photo(24, 40, seed=2)
    plain = mx.image._imencode(bgr, ".jpg", 95)
    upright = mx.image.imdecode(plain, to_rgb=False).asnumpy()
    gray = mx.image.imdecode(plain, flag=0).asnumpy()
    turns = {1: lambda a: a, 2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1],
             5: lambda a: a.transpose(1, 0, 2), 6: lambda a: np.rot90(a, -1), 7: lambda a: a[::-1, ::-1].transpose(1, 0, 2),
             8: lambda a: np.rot90(a, 1)}
    for o, turn in turns.items():
        for big_endian in (False, True):
            data = _with_exif(plain, o, big_endian)
            np.testing.assert_array_equal(mx.image.imdecode(data, to_rgb=False).asnumpy(), turn(upright), err_msg=str(o))
            np.testing.assert_array_equal(mx.image.imdecode(data, flag=0).asnumpy(), turn(gray), err_msg=str(o))
            np.testing.assert_array_equal(mx.image.imdecode(data).asnumpy(), turn(upright)[:, :, ::-1])
            # flag -1 returns the image as stored
            np.testing.assert_array_equal(mx.image.imdecode(data, flag=-1, to_rgb=False).asnumpy(), upright)
    # an orientation out of range is ignored
    np.testing.assert_array_equal(mx.image.imdecode(_with_exif(plain, 9), to_rgb=False).asnumpy(), upright)


def test_unsupported_and_damaged_images_are_errors():
    bgr = _photo()
    for data, fmt in ((b"BM" + bytes(60), "BMP"), (b"II*\0" + bytes(60), "TIFF"), (b"RIFF\0\0\0\0WEBPVP8 ", "WebP"),
                      (b"GIF89a" + bytes(20), "GIF"), (b"P6\n2 2\n255\n" + bytes(12), "PNM")):
        with pytest.raises(mx.MXNetError, match=fmt + ".*only JPEG and PNG"):
            mx.image.imdecode(data)
    jpg, png = mx.image._imencode(bgr, ".jpg", 90), mx.image._imencode(bgr, ".png")
    for cut in (png[:len(png) // 2], png[:-12], jpg[:len(jpg) // 8]):
        with pytest.raises(mx.MXNetError):
            mx.image.imdecode(cut)
    # A JPEG cut inside its image data decodes as far as the data goes and libjpeg fills the
    # rest, as MXNet 1.x (OpenCV) returns such images too.
    full = mx.image.imdecode(jpg).asnumpy()
    half = mx.image.imdecode(jpg[:len(jpg) * 3 // 4]).asnumpy()
    assert half.shape == full.shape
    np.testing.assert_array_equal(half[:8], full[:8])
    # A broken JPEG header does not spoil the next decode on this thread.
    broken = bytearray(jpg)
    sof = broken.index(b"\xff\xc0")
    broken[sof + 4] = 200  # sample precision
    for _ in range(3):
        with pytest.raises(mx.MXNetError, match="precision"):
            mx.image.imdecode(bytes(broken))
        np.testing.assert_array_equal(mx.image.imdecode(jpg).asnumpy(), full)
    damaged = bytearray(png)
    damaged[len(png) // 2] ^= 0x55
    with pytest.raises(mx.MXNetError, match="PNG"):
        mx.image.imdecode(bytes(damaged))
    # trailing bytes after the image are fine
    np.testing.assert_array_equal(mx.image.imdecode(jpg + b"junk").asnumpy(), mx.image.imdecode(jpg).asnumpy())
    for fmt in (".bmp", ".tiff", ".webp"):
        with pytest.raises(ValueError, match="jpg.*png"):
            mx.image._imencode(bgr, fmt)


@needs_peer
def test_png_kinds_and_exif_equal_mxnet191(tmp_path):
    files = {name + ".png": data for name, (data, _, _) in _png_kinds().items()}
    plain = mx.image._imencode(_photo(24, 40, seed=2), ".jpg", 90)
    gray = mx.image._imencode(_photo(24, 40, seed=2)[:, :, 1], ".jpg", 90)
    for o in range(1, 9):
        files["exif%d.jpg" % o] = _with_exif(plain, o)
        files["gexif%d.jpg" % o] = _with_exif(gray, o, big_endian=True)
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    _run_peer("""
        import mxnet as mx, numpy as np
        for name in %r:
            data = open(name, 'rb').read()
            for flag in (0, 1):
                for rgb in (0, 1):
                    np.save('%%s_%%d_%%d.npy' %% (name, flag, rgb), mx.image.imdecode(data, flag=flag, to_rgb=rgb).asnumpy())
        """ % sorted(files), tmp_path)
    for name, data in files.items():
        for flag in (0, 1):
            for rgb in (0, 1):
                want = np.load(str(tmp_path / ("%s_%d_%d.npy" % (name, flag, rgb))))
                got = mx.image.imdecode(data, flag=flag, to_rgb=rgb).asnumpy()
                assert got.shape == want.shape, (name, flag, rgb)
                np.testing.assert_array_equal(got, want, err_msg="%s flag=%d to_rgb=%d" % (name, flag, rgb))


# ---------------------------------------------------------------- resize, border, crops

@needs_peer
def test_imresize_and_resize_short_within_3_of_mxnet191(tmp_path):
    rgb = _photo(61, 90, seed=5)
    np.save(str(tmp_path / "img.npy"), rgb)
    _run_peer("""
        import mxnet as mx, numpy as np
        img = mx.nd.array(np.load('img.npy'), dtype='uint8')
        for interp in range(5):
            np.save('up_%d.npy' % interp, mx.image.imresize(img, 130, 77, interp=interp).asnumpy())
            np.save('down_%d.npy' % interp, mx.image.imresize(img, 31, 20, interp=interp).asnumpy())
            np.save('f_%d.npy' % interp, mx.image.imresize(img.astype('float32'), 47, 95, interp=interp).asnumpy())
        for size in (32, 100):
            np.save('short_%d.npy' % size, mx.image.resize_short(img, size).asnumpy())
        np.save('op.npy', mx.nd.image.resize(img, size=(50, 70), interp=2).asnumpy())
        np.save('keep.npy', mx.nd.image.resize(img, size=37, keep_ratio=True).asnumpy())
        """, tmp_path)
    img = nd.array(rgb, dtype="uint8")
    for interp in range(5):
        for name, got in (("up", mx.image.imresize(img, 130, 77, interp=interp)),
                          ("down", mx.image.imresize(img, 31, 20, interp=interp)),
                          ("f", mx.image.imresize(img.astype("float32"), 47, 95, interp=interp))):
            want = np.load(str(tmp_path / ("%s_%d.npy" % (name, interp))))
            assert got.shape == want.shape
            assert np.abs(got.asnumpy().astype(np.float64) - want).max() <= 3, (name, interp)
    for size in (32, 100):
        want = np.load(str(tmp_path / ("short_%d.npy" % size)))
        got = mx.image.resize_short(img, size)
        assert got.shape == want.shape
        assert np.abs(got.asnumpy().astype(np.float64) - want).max() <= 3
    for name, got in (("op", nd.image.resize(img, size=(50, 70), interp=2)),
                      ("keep", nd.image.resize(img, size=37, keep_ratio=True))):
        want = np.load(str(tmp_path / (name + ".npy")))
        assert got.shape == want.shape
        assert np.abs(got.asnumpy().astype(np.float64) - want).max() <= 3


def test_imresize_properties_and_errors():
    flat = nd.array(np.full((9, 13, 3), 77, np.uint8), dtype="uint8")
    for interp in (0, 1, 2, 3, 4, 9, 10):
        out = mx.image.imresize(flat, 20, 5, interp=interp)
        assert out.shape == (5, 20, 3) and out.dtype == np.uint8
        assert (out.asnumpy() == 77).all()
    # nearest picks source pixels at floor(dst * scale)
    src = np.arange(4 * 6 * 1, dtype=np.float32).reshape(4, 6, 1)
    near = mx.image.imresize(nd.array(src), 3, 2, interp=0).asnumpy()
    np.testing.assert_array_equal(near, src[[0, 2]][:, [0, 2, 4]])
    with pytest.raises(ValueError):
        mx.image.imresize(flat, 4, 4, interp=7)
    with pytest.raises(ValueError):
        mx.image._get_interp_method(5)
    assert mx.image._get_interp_method(9, (10, 10, 20, 20)) == 2
    assert mx.image._get_interp_method(9, (10, 10, 5, 5)) == 3
    assert mx.image._get_interp_method(9, (10, 10, 5, 20)) == 1
    assert mx.image._get_interp_method(10) in range(5)
    with pytest.raises(ValueError):
        mx.image.imresize(nd.zeros((2, 3, 4, 3)), 4, 4)


def test_resize_short_sizes():
    img = nd.zeros((300, 200, 3), dtype="uint8")
    assert mx.image.resize_short(img, 150).shape == (225, 150, 3)
    assert mx.image.resize_short(nd.zeros((200, 301, 3), dtype="uint8"), 150).shape == (150, 225, 3)


def test_copy_make_border_equals_numpy_pad():
    img = _photo(7, 9, seed=1)
    x = nd.array(img, dtype="uint8")
    pads = ((2, 3), (4, 1), (0, 0))
    modes = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}
    for border, mode in modes.items():
        got = mx.image.copyMakeBorder(x, 2, 3, 4, 1, type=border).asnumpy()
        np.testing.assert_array_equal(got, np.pad(img, pads, mode=mode), err_msg=mode)
    const = mx.image.copyMakeBorder(x, 2, 3, 4, 1, type=0, values=(1, 2, 3)).asnumpy()
    assert const.shape == (12, 14, 3)
    np.testing.assert_array_equal(const[2:9, 4:13], img)
    np.testing.assert_array_equal(const[0, 0], [1, 2, 3])
    np.testing.assert_array_equal(const[-1, -1], [1, 2, 3])
    plain = mx.image.copyMakeBorder(x, 1, 1, 1, 1, value=9).asnumpy()
    assert (plain[0] == 9).all() and (plain[:, -1] == 9).all()
    f = mx.image.copyMakeBorder(x.astype("float32"), 1, 0, 0, 0, type=1)
    assert f.dtype == np.float32 and f.shape == (8, 9, 3)


def test_scale_down_and_crops():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    assert mx.image.scale_down((640, 480), (320, 240)) == (320, 240)
    assert mx.image.scale_down((100, 50), (80, 80)) == (50, 50)
    img = _photo(30, 40)
    x = nd.array(img, dtype="uint8")
    np.testing.assert_array_equal(mx.image.fixed_crop(x, 5, 3, 10, 8).asnumpy(), img[3:11, 5:15])
    assert mx.image.fixed_crop(x, 5, 3, 10, 8, size=(20, 16)).shape == (16, 20, 3)
    out, (x0, y0, w, h) = mx.image.center_crop(x, (20, 10))
    assert (x0, y0, w, h) == (10, 10, 20, 10)
    np.testing.assert_array_equal(out.asnumpy(), img[10:20, 10:30])
    random.seed(3)
    for _ in range(10):
        out, (x0, y0, w, h) = mx.image.random_crop(x, (12, 9))
        np.testing.assert_array_equal(out.asnumpy(), img[y0:y0 + 9, x0:x0 + 12])
    # a crop larger than the image is scaled down to fit, then resized to the asked size
    out, (x0, y0, w, h) = mx.image.center_crop(x, (80, 40))
    assert out.shape == (40, 80, 3) and (w, h) == (40, 20)
    for _ in range(20):
        out, (x0, y0, w, h) = mx.image.random_size_crop(x, (16, 16), (0.3, 1.0), (0.75, 1.333))
        assert out.shape == (16, 16, 3)
        assert 0 <= x0 and x0 + w <= 40 and 0 <= y0 and y0 + h <= 30
    out, _ = mx.image.random_size_crop(x, (16, 16), 0.5, (0.75, 1.333))
    assert out.shape == (16, 16, 3)


def test_color_normalize_and_aug_against_numpy():
    rs = np.random.RandomState(4)
    img = rs.uniform(0, 255, (5, 6, 3)).astype(np.float32)
    mean, std = np.array([123.68, 116.28, 103.53]), np.array([58.395, 57.12, 57.375])
    want = (img.astype(np.float64) - mean) / std
    got = mx.image.color_normalize(nd.array(img), nd.array(mean), nd.array(std)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    only_mean = mx.image.color_normalize(nd.array(img), nd.array(mean)).asnumpy()
    np.testing.assert_allclose(only_mean, img - mean, rtol=1e-5, atol=1e-4)
    aug = mx.image.ColorNormalizeAug(nd.array(mean), nd.array(std))
    np.testing.assert_allclose(aug(nd.array(img)).asnumpy(), want, rtol=1e-5, atol=1e-5)
    x = nd.array(img)
    assert mx.image.color_normalize(x, nd.array(mean)) is x  # in place


# ---------------------------------------------------------------- augmenters

def _float_img(seed=0, h=12, w=16):
    return np.random.RandomState(seed).uniform(10, 245, (h, w, 3)).astype(np.float32)


def test_geometry_augmenters():
    img = _photo(30, 40)
    x = nd.array(img, dtype="uint8")
    assert mx.image.ResizeAug(15)(x).shape == (15, 20, 3)
    assert mx.image.ForceResizeAug((25, 11))(x).shape == (11, 25, 3)
    np.testing.assert_array_equal(mx.image.CenterCropAug((20, 10))(x).asnumpy(), img[10:20, 10:30])
    random.seed(0)
    crop = mx.image.RandomCropAug((12, 9))(x).asnumpy()
    hits = [(y, c) for y in range(22) for c in range(29) if np.array_equal(img[y:y + 9, c:c + 12], crop)]
    assert hits
    assert mx.image.RandomSizedCropAug((16, 16), 0.3, (0.75, 1.333))(x).shape == (16, 16, 3)
    np.testing.assert_array_equal(mx.image.HorizontalFlipAug(1.0)(x).asnumpy(), img[:, ::-1])
    np.testing.assert_array_equal(mx.image.HorizontalFlipAug(0.0)(x).asnumpy(), img)
    cast = mx.image.CastAug()(x)
    assert cast.dtype == np.float32
    np.testing.assert_array_equal(cast.asnumpy(), img.astype(np.float32))


def test_brightness_contrast_saturation_augmenters():
    img = _float_img()
    f = img.astype(np.float64)
    random.seed(1)
    for _ in range(5):
        out = mx.image.BrightnessJitterAug(0.3)(nd.array(img)).asnumpy()
        ratio = out / f
        assert np.allclose(ratio, ratio.flat[0], rtol=1e-5) and 0.7 <= ratio.flat[0] <= 1.3
    luma = f @ np.array([0.299, 0.587, 0.114])
    for _ in range(5):
        out = mx.image.ContrastJitterAug(0.5)(nd.array(img)).asnumpy().astype(np.float64)
        # out = f * a + mean(luma) * (1 - a): solve a from the spread, then check every pixel
        a = (out[0, 0, 0] - out[1, 1, 1]) / (f[0, 0, 0] - f[1, 1, 1])
        assert 0.5 - 1e-4 <= a <= 1.5 + 1e-4
        np.testing.assert_allclose(out, f * a + luma.mean() * (1 - a), rtol=1e-4, atol=1e-2)
    for _ in range(5):
        out = mx.image.SaturationJitterAug(0.5)(nd.array(img)).asnumpy().astype(np.float64)
        a = (out[0, 0, 0] - out[0, 0, 1]) / (f[0, 0, 0] - f[0, 0, 1])
        assert 0.5 - 1e-4 <= a <= 1.5 + 1e-4
        np.testing.assert_allclose(out, f * a + luma[:, :, None] * (1 - a), rtol=1e-4, atol=1e-2)


def test_hue_lighting_gray_augmenters():
    img = _float_img(2)
    f = img.astype(np.float64)
    luma = f @ np.array([0.299, 0.587, 0.114])
    # no rotation: only the rounding of the published YIQ matrices remains
    np.testing.assert_allclose(mx.image.HueJitterAug(0.0)(nd.array(img)).asnumpy(), img, atol=1.0)
    random.seed(2)
    out = mx.image.HueJitterAug(0.5)(nd.array(img)).asnumpy().astype(np.float64)
    # a rotation of the YIQ chroma plane keeps Y (the YIQ matrices are rounded to 3 digits)
    np.testing.assert_allclose(out @ np.array([0.299, 0.587, 0.114]), luma, atol=1.0)
    assert np.abs(out - f).max() > 1  # and changes the colours

    eigval = np.array([55.46, 4.794, 1.148])
    eigvec = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])
    np.random.seed(7)
    alpha = np.random.normal(0, 0.1, size=(3,))
    np.random.seed(7)
    out = mx.image.LightingAug(0.1, eigval, eigvec)(nd.array(img)).asnumpy()
    np.testing.assert_allclose(out - img, np.broadcast_to(eigvec.dot(alpha * eigval), img.shape), atol=1e-3)

    gray = mx.image.RandomGrayAug(1.0)(nd.array(img)).asnumpy()
    want = f @ np.array([0.21, 0.72, 0.07])
    for c in range(3):
        np.testing.assert_allclose(gray[:, :, c], want, rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(mx.image.RandomGrayAug(0.0)(nd.array(img)).asnumpy(), img)


def test_order_jitter_and_dumps():
    img = _float_img(3)
    random.seed(4)
    out = mx.image.ColorJitterAug(0.2, 0, 0)(nd.array(img)).asnumpy()
    ratio = out / img
    assert np.allclose(ratio, ratio.flat[0], rtol=1e-5) and 0.8 <= ratio.flat[0] <= 1.2
    both = mx.image.RandomOrderAug([mx.image.HorizontalFlipAug(1.0), mx.image.CastAug("float64")])
    got = both(nd.array(img))
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.asnumpy(), img[:, ::-1])
    assert json.loads(mx.image.BrightnessJitterAug(0.3).dumps()) == ["brightnessjitteraug", {"brightness": 0.3}]
    assert json.loads(mx.image.ResizeAug(20, 1).dumps()) == ["resizeaug", {"size": 20, "interp": 1}]
    norm = json.loads(mx.image.ColorNormalizeAug(nd.array([1.0, 2.0, 3.0]), None).dumps())
    assert norm[0] == "colornormalizeaug" and norm[1]["mean"] == [1.0, 2.0, 3.0]


def test_create_augmenter_order():
    names = lambda augs: [type(a).__name__ for a in augs]  # noqa: E731
    assert names(mx.image.CreateAugmenter((3, 24, 24))) == ["CenterCropAug", "CastAug"]
    assert names(mx.image.CreateAugmenter((3, 24, 24), rand_crop=True)) == ["RandomCropAug", "CastAug"]
    full = mx.image.CreateAugmenter((3, 24, 32), resize=30, rand_crop=True, rand_resize=True,
                                    rand_mirror=True, mean=True, std=True, brightness=0.1,
                                    contrast=0.1, saturation=0.1, hue=0.1, pca_noise=0.1,
                                    rand_gray=0.2, inter_method=1)
    assert names(full) == ["ResizeAug", "RandomSizedCropAug", "HorizontalFlipAug", "CastAug",
                           "ColorJitterAug", "HueJitterAug", "LightingAug", "RandomGrayAug",
                           "ColorNormalizeAug"]
    assert full[0].size == 30 and full[0].interp == 1
    assert tuple(full[1].size) == (32, 24) and full[1].area == 0.08
    np.testing.assert_allclose(full[-1].mean.asnumpy(), [123.68, 116.28, 103.53], rtol=1e-6)
    np.testing.assert_allclose(full[-1].std.asnumpy(), [58.395, 57.12, 57.375], rtol=1e-6)
    only_std = mx.image.CreateAugmenter((3, 8, 8), std=np.array([2.0, 2.0, 2.0]))
    assert names(only_std)[-1] == "ColorNormalizeAug" and only_std[-1].mean is None
    with pytest.raises(ValueError):
        mx.image.CreateAugmenter((3, 8, 8), rand_resize=True)
    augs = mx.image.CreateAugmenter((3, 10, 10), resize=12, mean=True)
    out = nd.array(_photo(20, 30), dtype="uint8")
    for a in augs:
        out = a(out)
    assert out.shape == (10, 10, 3) and out.dtype == np.float32


# ---------------------------------------------------------------- imrotate

def test_imrotate_properties():
    rs = np.random.RandomState(0)
    img = rs.uniform(0, 1, (3, 9, 9)).astype(np.float32)
    x = nd.array(img)
    np.testing.assert_allclose(mx.image.imrotate(x, 0).asnumpy(), img, atol=1e-5)
    np.testing.assert_allclose(mx.image.imrotate(x, 180).asnumpy(), img[:, ::-1, ::-1], atol=1e-5)
    quarter = mx.image.imrotate(x, 90).asnumpy()
    assert any(np.allclose(quarter, np.rot90(img, k, axes=(1, 2)), atol=1e-5) for k in (1, 3))
    batch = mx.image.imrotate(nd.array(np.stack([img, img])), nd.array([0, 180]))
    np.testing.assert_allclose(batch.asnumpy()[1], img[:, ::-1, ::-1], atol=1e-5)
    # zoom_out keeps every source pixel in view: the rotated image has empty (zero) corners
    out = mx.image.imrotate(nd.ones((1, 20, 30)), 45, zoom_out=True).asnumpy()
    assert out[0, 0, 0] == 0 and abs(out[0, 10, 15] - 1) < 1e-5
    zin = mx.image.imrotate(nd.ones((1, 20, 30)), 45, zoom_in=True).asnumpy()
    assert zin.min() > 0.85 and (zin > 0.999).mean() > 0.99  # no empty corner, bar border blending
    with pytest.raises(ValueError):
        mx.image.imrotate(x, 10, zoom_in=True, zoom_out=True)
    with pytest.raises(TypeError):
        mx.image.imrotate(nd.array(img, dtype="uint8"), 10)
    with pytest.raises(TypeError):
        mx.image.imrotate(x, [10])
    random.seed(0)
    assert mx.image.random_rotate(x, (-20, 20)).shape == (3, 9, 9)


@needs_peer
def test_imrotate_equals_mxnet191(tmp_path):
    img = np.random.RandomState(0).rand(2, 3, 9, 13).astype(np.float32) * 255
    np.save(str(tmp_path / "in.npy"), img)
    _run_peer("""
        import mxnet as mx, numpy as np
        x = mx.nd.array(np.load('in.npy'))
        for name, kw in (('plain', {}), ('zin', {'zoom_in': True}), ('zout', {'zoom_out': True})):
            for a in (30, -75):
                np.save('%s_%d.npy' % (name, a), mx.image.imrotate(x, a, **kw).asnumpy())
        """, tmp_path)
    x = nd.array(img)
    for name, kw in (("plain", {}), ("zin", {"zoom_in": True}), ("zout", {"zoom_out": True})):
        for a in (30, -75):
            want = np.load(str(tmp_path / ("%s_%d.npy" % (name, a))))
            np.testing.assert_allclose(mx.image.imrotate(x, a, **kw).asnumpy(), want, atol=1e-2)


# ---------------------------------------------------------------- ImageIter

N_IMAGES = 16


def _write_images(root):
    """16 PNGs of constant value 10*i (i = label) under root; returns the .lst path."""
    os.makedirs(str(root), exist_ok=True)
    lines = []
    for i in range(N_IMAGES):
        name = "img%02d.png" % i
        (root / name).write_bytes(mx.image._imencode(np.full((8, 10, 3), 10 * i, np.uint8), ".png"))
        lines.append("%d\t%f\t%s\n" % (i, float(i), name))
    lst = root / "data.lst"
    lst.write_text("".join(lines))
    return lst


def _epoch(it):
    batches = []
    for batch in it:
        data = batch.data[0].asnumpy()
        batches.append((batch.label[0].asnumpy().tolist(), batch.pad, data[:, 0, 0, 0].tolist()))
    return batches


def _check_last_batch_modes(make):
    discard = _epoch(make("discard"))
    assert len(discard) == 5 and all(pad == 0 for _, pad, _ in discard)
    assert [l for labels, _, _ in discard for l in labels] == list(range(15))

    pad = _epoch(make("pad"))
    assert len(pad) == 6 and [p for _, p, _ in pad] == [0] * 5 + [2]
    assert pad[-1][0] == [15.0, 0.0, 1.0] and pad[-1][2] == [150.0, 0.0, 10.0]

    it = make("roll_over")
    first = _epoch(it)
    assert len(first) == 5
    it.reset()
    second = _epoch(it)
    assert second[0][1] == 2 and second[0][0] == [15.0, 0.0, 1.0]
    assert len(second) == 5 and [p for _, p, _ in second[1:]] == [0] * 4
    it.reset()
    third = _epoch(it)
    assert third[0][1] == 1 and third[0][0] == [14.0, 15.0, 0.0]


def test_image_iter_from_lst_and_path_root(tmp_path):
    lst = _write_images(tmp_path)

    def make(mode):
        return mx.image.ImageIter(3, (3, 8, 10), path_imglist=str(lst), path_root=str(tmp_path),
                                  last_batch_handle=mode)
    _check_last_batch_modes(make)
    it = make("pad")
    assert it.provide_data[0].shape == (3, 3, 8, 10) and it.provide_label[0].shape == (3,)
    batch = next(iter(it))
    assert batch.data[0].dtype == np.float32 and batch.data[0].shape == (3, 3, 8, 10)


def test_image_iter_from_imglist_shuffle_and_errors(tmp_path):
    _write_images(tmp_path)
    imglist = [[float(i), "img%02d.png" % i] for i in range(N_IMAGES)]

    def make(mode):
        return mx.image.ImageIter(3, (3, 8, 10), imglist=imglist, path_root=str(tmp_path),
                                  last_batch_handle=mode)
    _check_last_batch_modes(make)
    random.seed(1)
    it = mx.image.ImageIter(4, (3, 8, 10), imglist=imglist, path_root=str(tmp_path), shuffle=True)
    labels = [l for labels, _, _ in _epoch(it) for l in labels]
    assert sorted(labels) == [float(i) for i in range(N_IMAGES)] and labels != sorted(labels)
    multi = mx.image.ImageIter(2, (3, 8, 10), imglist=[[1.0, 2.0, "img01.png"], [3.0, 4.0, "img03.png"]],
                               path_root=str(tmp_path), label_width=2)
    assert next(iter(multi)).label[0].asnumpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    (tmp_path / "broken.png").write_bytes(b"no image here")
    bad = mx.image.ImageIter(1, (3, 8, 10), imglist=[[0.0, "broken.png"]], path_root=str(tmp_path))
    with pytest.raises(RuntimeError, match="Broken image"):
        next(iter(bad))
    (tmp_path / "gone.lst").write_text("0\t1\timg00.png\n7\t0\tmissing.png\n")
    gone = mx.image.ImageIter(2, (3, 8, 10), path_imglist=str(tmp_path / "gone.lst"),
                              path_root=str(tmp_path))
    with pytest.raises(mx.base.MXNetError, match="missing.png.*No such file"):
        next(iter(gone))
    with pytest.raises(ValueError):
        mx.image.ImageIter(1, (1, 8, 10), imglist=imglist, path_root=str(tmp_path))
    with pytest.raises(ValueError):
        mx.image.ImageIter(1, (3, 8, 10))
    with pytest.raises(ValueError):
        mx.image.ImageIter(1, (3, 8, 10), imglist=imglist, last_batch_handle="keep")


def _write_rec(tmp_path, indexed):
    from mxnet import recordio
    rec = str(tmp_path / "data.rec")
    idx = str(tmp_path / "data.idx")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w") if indexed else recordio.MXRecordIO(rec, "w")
    for i in range(N_IMAGES):
        payload = recordio.pack_img(recordio.IRHeader(0, float(i), i, 0),
                                    np.full((8, 10, 3), 10 * i, np.uint8), img_fmt=".png")
        if indexed:
            writer.write_idx(i, payload)
        else:
            writer.write(payload)
    writer.close()
    return rec, idx


def test_image_iter_from_rec(tmp_path):
    rec, _ = _write_rec(tmp_path, indexed=False)

    def make(mode):
        return mx.image.ImageIter(3, (3, 8, 10), path_imgrec=rec, last_batch_handle=mode)
    _check_last_batch_modes(make)


def test_image_iter_from_indexed_rec(tmp_path):
    rec, idx = _write_rec(tmp_path, indexed=True)

    def make(mode):
        return mx.image.ImageIter(3, (3, 8, 10), path_imgrec=rec, path_imgidx=idx, last_batch_handle=mode)
    _check_last_batch_modes(make)
    part = mx.image.ImageIter(2, (3, 8, 10), path_imgrec=rec, path_imgidx=idx, num_parts=2, part_index=1)
    assert [l for labels, _, _ in _epoch(part) for l in labels] == [float(i) for i in range(8, 16)]
    with pytest.raises(ValueError):
        mx.image.ImageIter(2, (3, 8, 10), path_imgrec=rec, shuffle=True)


# ---------------------------------------------------------------- threads after fork

_FORK_CHILD = """
import ctypes, os, sys
import mxnet as mx
from mxnet.base import _LIB

def threads():
    n = ctypes.c_int()
    assert _LIB.MXImageGetNumThreads(ctypes.byref(n)) == 0
    return n.value

assert _LIB.MXImageSetNumThreads(2) == 0
# use OpenCV before the fork, as a DataLoader's parent process would
mx.image.imresize(mx.nd.ones((300, 300, 3)), 500, 500).wait_to_read()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    mx.image.imresize(mx.nd.ones((300, 300, 3)), 400, 400).wait_to_read()
    os.write(w, str(threads()).encode())
    os._exit(0)
os.waitpid(pid, 0)
print(os.read(r, 64).decode(), threads())
"""


@pytest.mark.parametrize("setting", [None, "1", "3"])
def test_forked_child_uses_mp_opencv_num_threads(setting):
    env = dict(os.environ)
    env.pop("MXNET_MP_OPENCV_NUM_THREADS", None)
    if setting is not None:
        env["MXNET_MP_OPENCV_NUM_THREADS"] = setting
    out = subprocess.run([sys.executable, "-c", _FORK_CHILD], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    child, parent = out.stdout.split()
    assert int(child) == (0 if setting is None else int(setting))
    assert int(parent) == 2
    assert mx.runtime.env_vars()["MXNET_MP_OPENCV_NUM_THREADS"].acted_on


def test_codec_thread_setter_rejects_negative():
    assert _LIB.MXImageSetNumThreads(-1) == -1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_image_normalize_keeps_the_data_precision(dtype):
    x = np.array([[[0.1, 0.7]], [[0.3, -0.2]], [[0.9, 1.3]]])
    mean, std = (0.5, 0.25, -1.0), (0.5, 2.0, 4.0)  # exact in float32: only the data rounds
    got = nd.image.normalize(nd.array(x, dtype=dtype), mean=mean, std=std)
    assert got.dtype == np.dtype(dtype)
    want = (x.astype(dtype).astype(np.float64) - np.reshape(mean, (3, 1, 1))) / np.reshape(std, (3, 1, 1))
    tol = 1e-15 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol)
    assert nd.image.normalize(nd.array([[[0.1]]], dtype="float64")).asnumpy()[0, 0, 0] == 0.1
