"""gluon.data.vision.transforms: 1.9.1's public names, the deterministic transforms equal to MXNet
1.9.1's (when the peer is installed), the random flips and RandomResizedCrop's windows."""
import random
import textwrap

import numpy as np
import pytest

import mxnet as mx
from mxnet import nd
from mxnet.gluon.data.vision import transforms

from peer_oracle import needs_peer, run_script_in_both

# The public classes of MXNet 1.9.1's mx.gluon.data.vision.transforms.
MXNET191_TRANSFORMS = ["Cast", "CenterCrop", "Compose", "CropResize", "Normalize", "RandomApply", "RandomBrightness",
                       "RandomColorJitter", "RandomContrast", "RandomFlipLeftRight", "RandomFlipTopBottom",
                       "RandomHue", "RandomLighting", "RandomResizedCrop", "RandomRotation", "RandomSaturation",
                       "Resize", "Rotate", "ToTensor"]


def test_every_mxnet191_transform_is_present():
    missing = [n for n in MXNET191_TRANSFORMS if not hasattr(transforms, n)]
    assert not missing, missing


# Run by both runtimes: each deterministic transform's output, saved to OUT (an .npz path).
SCRIPT = textwrap.dedent("""
    import numpy as np
    from mxnet import nd
    from mxnet.gluon.data.vision import transforms as T
    rs = np.random.RandomState(0)
    img = rs.randint(0, 256, (12, 15, 3)).astype(np.uint8)
    u8 = nd.array(img, dtype='uint8')
    f32 = nd.array(img.astype(np.float32))
    chw = nd.array((img / 255.0).transpose(2, 0, 1).astype(np.float32))
    cases = {
        'resize': lambda: T.Resize((8, 6))(u8),
        'resize_keep_ratio': lambda: T.Resize(9, keep_ratio=True)(u8),
        'resize_nearest_up': lambda: T.Resize((20, 7), interpolation=0)(f32),
        'resize_batch': lambda: T.Resize((5, 4))(nd.array(np.stack([img, img[::-1]]), dtype='uint8')),
        'center_crop': lambda: T.CenterCrop((7, 5))(u8),
        'center_crop_larger_than_image': lambda: T.CenterCrop(20)(u8),
        'crop_resize': lambda: T.CropResize(2, 3, 6, 5)(u8),
        'crop_resize_bicubic': lambda: T.CropResize(2, 3, 6, 5, size=(4, 8), interpolation=2)(f32),
        'to_tensor': lambda: T.ToTensor()(u8),
        'normalize': lambda: T.Normalize((0.1, 0.2, 0.3), (0.5, 1., 2.))(chw),
        'cast': lambda: T.Cast('float16')(f32),
        'rotate': lambda: T.Rotate(30)(chw),
        'rotate_zoom_in': lambda: T.Rotate(-45, zoom_in=True)(chw),
        'rotate_zoom_out_batch': lambda: T.Rotate(60, zoom_out=True)(chw.expand_dims(0)),
        'random_resized_crop_whole_image': lambda: T.RandomResizedCrop((6, 4), scale=(1, 1),
                                                                       ratio=(1.25, 1.25))(u8),
        'compose': lambda: T.Compose([T.Resize(10), T.CenterCrop(8), T.ToTensor(), T.Normalize(0.5, 0.25)])(u8),
    }
    np.savez(OUT, **{name: fn().asnumpy().astype(np.float64) for name, fn in cases.items()})
""")


@needs_peer
def test_deterministic_transforms_equal_mxnet191(tmp_path):
    peer, ours = run_script_in_both(SCRIPT, tmp_path, "transform cases")
    assert sorted(peer.files) == sorted(ours.files)
    bad = []
    for key in sorted(peer.files):
        if peer[key].shape != ours[key].shape:
            bad.append("%s: shape %s, 1.9.1 %s" % (key, ours[key].shape, peer[key].shape))
        elif not np.allclose(ours[key], peer[key], atol=1e-4):
            bad.append("%s: max difference %g" % (key, np.abs(ours[key] - peer[key]).max()))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name,axis", [("RandomFlipLeftRight", 1), ("RandomFlipTopBottom", 0)])
def test_random_flips_are_exact_and_fair(name, axis):
    img = np.random.RandomState(3).randint(0, 256, (5, 6, 3)).astype(np.uint8)
    x = nd.array(img, dtype="uint8")
    flip = getattr(transforms, name)()
    mx.random.seed(42)
    flipped = 0
    for _ in range(400):
        out = flip(x).asnumpy()
        if np.array_equal(out, np.flip(img, axis=axis)):
            flipped += 1
        else:
            np.testing.assert_array_equal(out, img)
    assert 150 <= flipped <= 250  # p = 1/2: 200 +- 5 standard deviations


def test_random_resized_crop_takes_windows_of_the_requested_area_and_ratio():
    # channel 0 holds the row index, channel 1 the column: a bilinear downscale keeps both
    # linear, so each output reveals its window (y0, x0, h, w)
    h_img, w_img, size = 64, 64, 8
    rows, cols = np.meshgrid(np.arange(h_img, dtype=np.float32), np.arange(w_img, dtype=np.float32),
                             indexing="ij")
    x = nd.array(np.stack([rows, cols, np.zeros_like(rows)], axis=2))
    t = transforms.RandomResizedCrop(size, scale=(0.3, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0))
    random.seed(1)
    areas, ratios = [], []
    for _ in range(60):
        out = t(x).asnumpy()
        assert out.shape == (size, size, 3)
        h = (out[-1, 0, 0] - out[0, 0, 0]) / (size - 1) * size
        w = (out[0, -1, 1] - out[0, 0, 1]) / (size - 1) * size
        y0 = out[0, 0, 0] - 0.5 * h / size + 0.5
        x0 = out[0, 0, 1] - 0.5 * w / size + 0.5
        assert -1e-3 <= y0 and y0 + h <= h_img + 1e-3 and -1e-3 <= x0 and x0 + w <= w_img + 1e-3
        areas.append(h * w / (h_img * w_img))
        ratios.append(w / h)
    areas, ratios = np.array(areas), np.array(ratios)
    inside = (areas >= 0.3 - 0.02) & (areas <= 1.0 + 1e-3) & (ratios >= 0.75 - 0.05) & (ratios <= 4 / 3. + 0.05)
    assert inside.mean() >= 0.9  # the rest: the centre-crop fallback after ten misses
    assert areas.std() > 0.1 and len(set(np.round(areas, 3))) > 30  # each call draws anew
