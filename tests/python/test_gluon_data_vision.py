"""gluon.data.vision: the transforms (against numpy, mx.image and MXNet 1.9.1's operators when
the peer is installed; random ones by the range of what they can produce), the colour
operators behind them, ImageFolderDataset and ImageRecordDataset (with worker processes)."""
import colorsys
import os
import random
import subprocess
import textwrap
import warnings

import numpy as np
import pytest

import mxnet as mx
from mxnet import nd
from mxnet.gluon import nn
from mxnet.gluon.data import DataLoader
from mxnet.gluon.data.vision import ImageFolderDataset, ImageRecordDataset, transforms

from peer_oracle import PEER_PYTHON, needs_peer, peer_env

EIGVAL = np.array([55.46, 4.794, 1.148])
EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])
LUMA = np.array([0.299, 0.587, 0.114])


def _img(h=10, w=12, seed=0, dtype=np.float32):
    return np.random.RandomState(seed).uniform(20, 235, (h, w, 3)).astype(dtype)


# ---------------------------------------------------------------- tensor, normalise, resize, crops

def test_to_tensor_and_normalize():
    img = np.random.RandomState(1).randint(0, 256, (6, 5, 3)).astype(np.uint8)
    t = transforms.ToTensor()(nd.array(img, dtype="uint8")).asnumpy()
    np.testing.assert_allclose(t, img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    batch = transforms.ToTensor()(nd.array(np.stack([img, img]), dtype="uint8"))
    assert batch.shape == (2, 3, 6, 5)
    norm = transforms.Normalize((0.1, 0.2, 0.3), (0.5, 0.6, 0.7))(nd.array(t)).asnumpy()
    want = (t - np.array([0.1, 0.2, 0.3])[:, None, None]) / np.array([0.5, 0.6, 0.7])[:, None, None]
    np.testing.assert_allclose(norm, want, rtol=1e-5)
    one = transforms.Normalize(0.5, 0.25)(nd.array(t[:1])).asnumpy()
    np.testing.assert_allclose(one, (t[:1] - 0.5) / 0.25, rtol=1e-5)
    with pytest.raises(mx.MXNetError):
        transforms.Normalize((0.1, 0.2), (1, 1))(nd.array(t)).asnumpy()
    with pytest.raises(mx.MXNetError):
        transforms.ToTensor()(nd.zeros((4, 4))).asnumpy()


def test_resize_equals_imresize_and_keeps_ratio():
    img = nd.array(_img(30, 20, dtype=np.uint8), dtype="uint8")
    for interp in range(5):
        np.testing.assert_array_equal(transforms.Resize((15, 40), interpolation=interp)(img).asnumpy(),
                                      mx.image.imresize(img, 15, 40, interp=interp).asnumpy())
    tall = nd.zeros((300, 200, 3), dtype="uint8")
    assert transforms.Resize(150, keep_ratio=True)(tall).shape == (225, 150, 3)
    wide = nd.zeros((200, 300, 3), dtype="uint8")
    assert transforms.Resize(150, keep_ratio=True)(wide).shape == (150, 225, 3)
    assert transforms.Resize(150, keep_ratio=True)(nd.zeros((200, 301, 3))).shape == (150, 225, 3)
    assert transforms.Resize(7)(nd.zeros((2, 20, 30, 3))).shape == (2, 7, 7, 3)
    with pytest.raises(mx.MXNetError):
        transforms.Resize(10)(nd.zeros((20, 30))).asnumpy()
    with pytest.raises(mx.MXNetError):
        transforms.Resize(10, interpolation=6)(tall).asnumpy()


def test_center_crop_random_resized_crop_crop_resize():
    img = _img(30, 40, dtype=np.uint8)
    x = nd.array(img, dtype="uint8")
    np.testing.assert_array_equal(transforms.CenterCrop((20, 10))(x).asnumpy(), img[10:20, 10:30])
    np.testing.assert_array_equal(transforms.CenterCrop(10)(x).asnumpy(), img[10:20, 15:25])
    big = transforms.CenterCrop((80, 60))(x)
    assert big.shape == (60, 80, 3)
    batch = transforms.CenterCrop(10)(nd.array(np.stack([img, img]), dtype="uint8"))
    assert batch.shape == (2, 10, 10, 3)
    random.seed(0)
    for _ in range(10):
        assert transforms.RandomResizedCrop(16)(x).shape == (16, 16, 3)
        assert transforms.RandomResizedCrop((12, 8), scale=(0.5, 1.0))(x).shape == (8, 12, 3)
    np.testing.assert_array_equal(transforms.CropResize(5, 3, 10, 8)(x).asnumpy(), img[3:11, 5:15])
    resized = transforms.CropResize(5, 3, 10, 8, size=(20, 16), interpolation=0)(x).asnumpy()
    np.testing.assert_array_equal(resized, img[3:11, 5:15][np.arange(16) // 2][:, np.arange(20) // 2])


# ---------------------------------------------------------------- colour operators and transforms

def _blend_factor(out, ref, other):
    """a in out = ref * a + other * (1 - a), solved by least squares."""
    d = (ref - other).ravel()
    return float(np.dot(d, (out - other).ravel()) / np.dot(d, d))


def test_colour_operators_exact_factors():
    img = _img(seed=2)
    f = img.astype(np.float64)
    x = nd.array(img)
    for a in (0.5, 1.5):
        np.testing.assert_allclose(nd.image.random_brightness(x, min_factor=a, max_factor=a).asnumpy(), f * a, rtol=1e-5)
        want = f * a + (f @ LUMA).mean() * (1 - a)
        np.testing.assert_allclose(nd.image.random_contrast(x, min_factor=a, max_factor=a).asnumpy(), want,
                                   rtol=1e-4, atol=1e-2)
        want = f * a + (f @ LUMA)[:, :, None] * (1 - a)
        np.testing.assert_allclose(nd.image.random_saturation(x, min_factor=a, max_factor=a).asnumpy(), want,
                                   rtol=1e-4, atol=1e-2)
    # uint8: computed in float, saturated, truncated
    u = img.astype(np.uint8)
    got = nd.image.random_brightness(nd.array(u, dtype="uint8"), min_factor=1.5, max_factor=1.5).asnumpy()
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, np.clip(np.floor(u * 1.5), 0, 255))
    for alpha in ((1, 0, 0), (0.2, -0.5, 1.0)):
        shift = EIGVEC.dot(np.array(alpha) * EIGVAL)
        np.testing.assert_allclose(nd.image.adjust_lighting(x, alpha=alpha).asnumpy(), f + shift, atol=1e-3)


def _hls(img):
    return np.array([[colorsys.rgb_to_hls(*(p / 255.0)) for p in row] for row in img])


def test_hue_operator_rotates_hls_hue():
    img = _img(5, 6, seed=3)
    for turns in (0.1, 0.5, 1.25):
        got = nd.image.random_hue(nd.array(img), min_factor=turns, max_factor=turns).asnumpy()
        want = []
        for row in img:
            out_row = []
            for p in row:
                h, l, s = colorsys.rgb_to_hls(*(p / 255.0))
                out_row.append(np.array(colorsys.hls_to_rgb((h + turns) % 1.0, l, s)) * 255)
            want.append(out_row)
        np.testing.assert_allclose(got, np.array(want), atol=0.05)
    same = nd.image.random_hue(nd.array(img), min_factor=1.0, max_factor=1.0).asnumpy()
    np.testing.assert_allclose(same, img, atol=1e-3)
    with pytest.raises(mx.MXNetError):
        nd.image.random_hue(nd.zeros((4, 4, 1)), min_factor=1, max_factor=1).asnumpy()


@needs_peer
def test_colour_operators_equal_mxnet191(tmp_path):
    img = _img(9, 11, seed=4)
    np.save(str(tmp_path / "img.npy"), img)
    code = """
        import mxnet as mx, numpy as np
        x = mx.nd.array(np.load('img.npy'))
        u = x.astype('uint8')
        for a in (0.6, 1.4):
            for op in ('brightness', 'contrast', 'hue'):
                fn = getattr(mx.nd.image, 'random_' + op)
                np.save('%s_%s.npy' % (op, a), fn(x, min_factor=a, max_factor=a).asnumpy())
                np.save('%s_u_%s.npy' % (op, a), fn(u, min_factor=a, max_factor=a).asnumpy())
        np.save('light.npy', mx.nd.image.adjust_lighting(x, alpha=(0.3, -1.0, 2.0)).asnumpy())
        np.save('light_u.npy', mx.nd.image.adjust_lighting(u, alpha=(0.3, -1.0, 2.0)).asnumpy())
    """
    env = peer_env()
    proc = subprocess.run([PEER_PYTHON, "-c", textwrap.dedent(code)], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    x = nd.array(img)
    u = x.astype("uint8")
    for a in (0.6, 1.4):
        for op in ("brightness", "contrast", "hue"):
            fn = getattr(nd.image, "random_" + op)
            np.testing.assert_allclose(fn(x, min_factor=a, max_factor=a).asnumpy(),
                                       np.load(str(tmp_path / ("%s_%s.npy" % (op, a)))), atol=0.02)
            got = fn(u, min_factor=a, max_factor=a).asnumpy().astype(np.int64)
            assert np.abs(got - np.load(str(tmp_path / ("%s_u_%s.npy" % (op, a))))).max() <= 1, op
    np.testing.assert_allclose(nd.image.adjust_lighting(x, alpha=(0.3, -1.0, 2.0)).asnumpy(),
                               np.load(str(tmp_path / "light.npy")), atol=1e-3)
    got = nd.image.adjust_lighting(u, alpha=(0.3, -1.0, 2.0)).asnumpy().astype(np.int64)
    assert np.abs(got - np.load(str(tmp_path / "light_u.npy"))).max() <= 1


def test_random_colour_transforms_stay_in_range():
    img = _img(seed=5)
    f = img.astype(np.float64)
    mx.random.seed(11)
    x = nd.array(img)
    seen = {"b": [], "c": [], "s": []}
    for _ in range(40):
        b = transforms.RandomBrightness(0.3)(x).asnumpy() / f
        assert np.allclose(b, b.flat[0], rtol=1e-5)
        seen["b"].append(b.flat[0])
        c = transforms.RandomContrast(0.4)(x).asnumpy()
        seen["c"].append(_blend_factor(c, f, np.full_like(f, (f @ LUMA).mean())))
        s = transforms.RandomSaturation(0.5)(x).asnumpy()
        seen["s"].append(_blend_factor(s, f, np.repeat((f @ LUMA)[:, :, None], 3, axis=2)))
    for key, amount in (("b", 0.3), ("c", 0.4), ("s", 0.5)):
        vals = np.array(seen[key])
        assert vals.min() >= 1 - amount - 1e-4 and vals.max() <= 1 + amount + 1e-4, key
        assert vals.min() < 1 - amount / 3 and vals.max() > 1 + amount / 3, key  # both sides reached
        assert len(set(np.round(vals, 5))) > 30, key  # each call draws anew
    hls = _hls(img)
    for _ in range(10):
        h = _hls(transforms.RandomHue(0.2)(x).asnumpy())
        np.testing.assert_allclose(h[..., 1:], hls[..., 1:], atol=2e-3)  # lightness, saturation kept
        shift = (h[..., 0] - hls[..., 0] + 0.5) % 1.0 - 0.5
        assert np.abs(shift).max() <= 0.2 + 1e-3 and np.allclose(shift, np.median(shift), atol=2e-3)
    for _ in range(10):
        out = transforms.RandomLighting(0.1)(x).asnumpy() - f
        assert np.allclose(out, out[0, 0], atol=1e-3)  # one RGB shift for the image
        alpha = np.linalg.solve(EIGVEC * EIGVAL, out[0, 0])
        assert np.abs(alpha).max() < 0.6
    jitter = transforms.RandomColorJitter(brightness=0.2)(x).asnumpy() / f
    assert np.allclose(jitter, jitter.flat[0], rtol=1e-5) and 0.8 - 1e-5 <= jitter.flat[0] <= 1.2 + 1e-5
    full = transforms.RandomColorJitter(0.1, 0.1, 0.1, 0.1)
    assert full(x).shape == x.shape and full(nd.array(np.stack([img, img]))).shape == (2,) + img.shape
    with pytest.raises(ValueError):
        transforms.RandomBrightness(-0.1)


def test_random_transforms_follow_the_seed():
    x = nd.array(_img(seed=6))
    t = transforms.RandomColorJitter(0.3, 0.3, 0.3, 0.1)
    mx.random.seed(5)
    a = t(x).asnumpy()
    mx.random.seed(5)
    np.testing.assert_array_equal(t(x).asnumpy(), a)


# ---------------------------------------------------------------- rotation, RandomApply, Compose

def test_rotate_and_random_rotation():
    img = np.random.RandomState(7).uniform(0, 1, (3, 8, 8)).astype(np.float32)
    x = nd.array(img)
    np.testing.assert_allclose(transforms.Rotate(180)(x).asnumpy(), img[:, ::-1, ::-1], atol=1e-5)
    np.testing.assert_allclose(transforms.Rotate(0)(x).asnumpy(), img, atol=1e-5)
    random.seed(0)
    np.testing.assert_array_equal(transforms.RandomRotation((10, 20), rotate_with_proba=0.0)(x).asnumpy(), img)
    quarter = transforms.RandomRotation((90, 90))(x).asnumpy()
    np.testing.assert_allclose(quarter, mx.image.imrotate(x, 90).asnumpy(), atol=1e-6)
    with pytest.raises(ValueError):
        transforms.RandomRotation((20, 10))
    with pytest.raises(ValueError):
        transforms.RandomRotation((0, 10), rotate_with_proba=1.5)


class _AddOne(nn.Block):
    def forward(self, x):
        return x + 1


def test_random_apply_fires_about_half_the_time():
    random.seed(123)
    t = transforms.RandomApply(_AddOne(), p=0.5)
    x = nd.zeros((1,))
    hits = sum(int(t(x).asscalar()) for _ in range(1000))
    assert 430 <= hits <= 570
    assert int(transforms.RandomApply(_AddOne(), p=1.0)(x).asscalar()) == 1
    assert int(transforms.RandomApply(_AddOne(), p=0.0)(x).asscalar()) == 0


def test_compose_hybridizes_runs_of_hybrid_blocks():
    t = transforms.Compose([transforms.Resize(8), transforms.CenterCrop(6), transforms.ToTensor(),
                            transforms.Normalize(0.5, 0.25), transforms.RandomBrightness(0.0)])
    children = list(t._children.values())
    assert isinstance(children[0], transforms.Resize)  # a run of one is added as is
    assert isinstance(children[1], transforms.CenterCrop)
    assert isinstance(children[2], nn.HybridSequential) and children[2]._active
    assert len(children[2]) == 3
    img = _img(12, 16, dtype=np.uint8)
    out = t(nd.array(img, dtype="uint8")).asnumpy()
    crop = mx.image.imresize(nd.array(img, dtype="uint8"), 8, 8).asnumpy()[1:7, 1:7]
    np.testing.assert_allclose(out, (crop.transpose(2, 0, 1) / 255.0 - 0.5) / 0.25, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- datasets

def _image_folder(root):
    for k, cls in enumerate(("cat", "dog")):
        os.makedirs(str(root / cls))
        for i in range(8):
            img = np.full((6 + i, 7, 3), 30 * k + i, np.uint8)
            ext = ".png" if i % 2 == 0 else ".PNG"
            (root / cls / ("%02d%s" % (i, ext))).write_bytes(mx.image._imencode(img, ".png"))
        (root / cls / "notes.txt").write_text("not an image")
    (root / "README").write_text("stray file")


def test_image_folder_dataset(tmp_path):
    _image_folder(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = ImageFolderDataset(str(tmp_path))
    assert len(ds) == 16 and ds.synsets == ["cat", "dog"]
    assert len(caught) == 3  # README, and one notes.txt per class
    assert [label for _, label in ds.items] == [0] * 8 + [1] * 8
    img, label = ds[10]
    assert label == 1 and img.shape == (8, 7, 3) and img.dtype == np.uint8
    assert (img.asnumpy() == 32).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gray = ImageFolderDataset(str(tmp_path), flag=0, transform=lambda d, l: (d.astype("float32"), l + 10))
    d, l = gray[0]
    assert d.shape == (6, 7, 1) and d.dtype == np.float32 and l == 10


def _record_file(tmp_path, n=20):
    from mxnet import recordio
    rec, idx = str(tmp_path / "imgs.rec"), str(tmp_path / "imgs.idx")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    for i in range(n):
        img = np.full((5, 4, 3), (i * 7) % 256, np.uint8)
        img[0, 0] = (1, 2, 3)  # BGR, to see the RGB swap
        writer.write_idx(i, recordio.pack_img(recordio.IRHeader(0, float(i), i, 0), img, img_fmt=".png"))
    writer.close()
    return rec


@pytest.mark.parametrize("workers", [0, 2])
def test_image_record_dataset_keeps_label_order(tmp_path, workers):
    rec = _record_file(tmp_path)
    ds = ImageRecordDataset(rec)
    assert len(ds) == 20
    img, label = ds[3]
    assert label == 3.0 and img.shape == (5, 4, 3)
    np.testing.assert_array_equal(img.asnumpy()[0, 0], [3, 2, 1])
    assert (img.asnumpy()[1:] == 21).all()
    tds = ImageRecordDataset(rec, transform=lambda d, l: (d.astype("float32") / 2, l))
    loader = DataLoader(tds, batch_size=3, num_workers=workers)
    labels, means = [], []
    for data, label in loader:
        labels.extend(np.asarray(label.asnumpy() if hasattr(label, "asnumpy") else label).tolist())
        means.extend(data.asnumpy()[:, 1:].reshape(data.shape[0], -1).mean(axis=1).tolist())
    assert labels == [float(i) for i in range(20)]
    np.testing.assert_allclose(means, [((i * 7) % 256) / 2 for i in range(20)])
    assert ImageRecordDataset(rec, flag=0)[0][0].shape == (5, 4, 1)
