"""Rows of the image operators (_image_*, _cvimresize, _cvcopyMakeBorder): HWC images and NHWC
batches unless noted; random transforms by property checks."""
import colorsys
import math

import numpy as np

from op_testing import Case
from op_rows.random_sampling import m_uniform, within_5se
from op_rows._tensor_common import R, uni

# Image operators (HWC images / NHWC batches unless noted)

IMG = R.uniform(0, 255, (4, 5, 3))
IMGS = R.uniform(0, 255, (2, 4, 5, 3))
IMG_U8 = R.randint(0, 256, (4, 5, 3)).astype(np.uint8)
LUMA = np.array([0.299, 0.587, 0.114])
EIGVAL = np.array([55.46, 4.794, 1.148])
EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


def to_tensor_ref(x):
    x = np.asarray(x, np.float64) / 255.0
    return x.transpose(2, 0, 1) if x.ndim == 3 else x.transpose(0, 3, 1, 2)


def normalize_ref(x, mean=(0.0,), std=(1.0,)):
    c = x.shape[-3]
    m = np.broadcast_to(np.asarray(mean, np.float64), (c,)).reshape(c, 1, 1)
    s = np.broadcast_to(np.asarray(std, np.float64), (c,)).reshape(c, 1, 1)
    return (x - m) / s


def crop_ref(x, x0, y0, width, height):
    if x.ndim == 3:
        return x[y0:y0 + height, x0:x0 + width]
    return x[:, y0:y0 + height, x0:x0 + width]


def resize_coords(o, n, nearest):
    """OpenCV's source coordinates for output index 0..o-1 over n input pixels: nearest takes
    floor(i * n / o); linear samples at (i + 0.5) * n / o - 0.5, clamped to the edge pixels."""
    if nearest:
        i0 = np.minimum(np.floor(np.arange(o) * n / o).astype(np.int64), n - 1)
        return i0, i0, np.zeros(o)
    s = (np.arange(o) + 0.5) * n / o - 0.5
    i0 = np.floor(s).astype(np.int64)
    f = s - i0
    f = np.where(i0 < 0, 0.0, f)
    i0 = np.maximum(i0, 0)
    f = np.where(i0 >= n - 1, 0.0, f)
    i0 = np.minimum(i0, n - 1)
    return i0, np.minimum(i0 + 1, n - 1), f


def resize_hwc(img, oh, ow, nearest):
    img = np.asarray(img, np.float64)
    y0, y1, fy = resize_coords(oh, img.shape[0], nearest)
    x0, x1, fx = resize_coords(ow, img.shape[1], nearest)
    rows = img[y0] * (1 - fy)[:, None, None] + img[y1] * fy[:, None, None]
    return rows[:, x0] * (1 - fx)[None, :, None] + rows[:, x1] * fx[None, :, None]


def image_resize_ref(x, size, keep_ratio=False, interp=1):
    h, w = x.shape[-3], x.shape[-2]
    if len(size) == 2:
        ow, oh = size
    elif keep_ratio:
        s = size[0]
        oh, ow = (s, w * s // h) if h < w else (h * s // w, s)
    else:
        oh = ow = size[0]
    if x.ndim == 3:
        return resize_hwc(x, oh, ow, interp == 0)
    return np.stack([resize_hwc(i, oh, ow, interp == 0) for i in x])


def cvimresize_ref(x, w, h, interp=1):
    return resize_hwc(x, h, w, interp == 0)


def border_ref(x, top, bot, left, right, type=0, value=0.0, values=()):
    pw = ((top, bot), (left, right))
    if type == 0:
        fill = list(values) + [value] * (x.shape[2] - len(values)) if values else [value] * x.shape[2]
        return np.stack([np.pad(x[..., c], pw, mode="constant", constant_values=fill[c])
                         for c in range(x.shape[2])], -1)
    mode = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}[type]
    return np.pad(x, pw + ((0, 0),), mode=mode)


def per_image(fn):
    """Applies fn(HWC image) to each image of an HWC image or NHWC batch."""
    def ref(x, **p):
        return fn(x, **p) if x.ndim == 3 else np.stack([fn(i, **p) for i in x])
    return ref


def brightness_ref(x, min_factor, max_factor):
    return x * min_factor


def contrast_img(x, min_factor, max_factor):
    f = min_factor
    gray_mean = (x @ LUMA).mean()
    return x * f + gray_mean * (1 - f)


def saturation_img(x, min_factor, max_factor):
    f = min_factor
    gray = (x @ LUMA)[..., None]
    return x * f + gray * (1 - f)


def hue_img(x, min_factor, max_factor):
    """Rotates each pixel's hue by min_factor turns in HLS space (colorsys, float64)."""
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        h, l, s = colorsys.rgb_to_hls(*(x[idx] / 255.0))
        out[idx] = np.array(colorsys.hls_to_rgb((h + min_factor) % 1.0, l, s)) * 255.0
    return out


def lighting_shift(alpha):
    return EIGVEC @ (np.asarray(alpha, np.float64) * EIGVAL)


def adjust_lighting_ref(x, alpha):
    return x + lighting_shift(alpha)


def u8_saturate_trunc(v):
    return np.trunc(np.clip(v, 0, 255)).astype(np.uint8)


def image_flip_check(axis_hw):
    """Each image of the batch is either unchanged or mirrored; about half are mirrored."""
    def check(outs, ins, **_):
        x, y = ins[0], outs[0]
        assert y.shape == x.shape
        if x.ndim == 3:
            x, y = x[None], y[None]
        flipped = 0
        for a, b in zip(x, y):
            if np.array_equal(a, b):
                continue
            assert np.array_equal(np.flip(a, axis_hw), b), "an image is neither kept nor mirrored"
            flipped += 1
        n = x.shape[0]
        if n > 1:
            assert abs(flipped - n / 2) <= 5 * math.sqrt(n / 4), (flipped, n)
    return check


def factor_check(lo, hi, blend):
    """Each image is blend(image, f) for one f in [lo, hi]; the f's are about uniform."""
    def check(outs, ins, **_):
        x, y = ins[0], outs[0]
        fs = []
        for a, b in zip(x, y):
            # blend is affine in f: b = blend(a, 0) + f * (blend(a, 1) - blend(a, 0))
            b0, b1 = blend(a, 0.0), blend(a, 1.0)
            d = (b1 - b0).ravel()
            f = float(np.dot((b - b0).ravel(), d) / np.dot(d, d))
            np.testing.assert_allclose(b, blend(a, f), rtol=1e-4, atol=1e-3)
            assert lo - 1e-5 <= f <= hi + 1e-5, (f, lo, hi)
            fs.append(f)
        if hi > lo and len(fs) > 1:
            within_5se(np.array(fs), *m_uniform(lo, hi), what="factors")
    return check


def hue_preserving_check(outs, ins, **_):
    """A hue rotation keeps every pixel's HLS lightness (max + min) and chroma (max - min)."""
    x, y = ins[0], outs[0]
    assert y.shape == x.shape
    np.testing.assert_allclose(y.max(-1) + y.min(-1), x.max(-1) + x.min(-1), rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(y.max(-1) - y.min(-1), x.max(-1) - x.min(-1), rtol=1e-4, atol=1e-2)
    assert not np.allclose(x, y), "no image changed"


def random_lighting_check(outs, ins, alpha_std=0.05):
    """Each image is shifted by a constant RGB vector E @ (alpha * eigval); the recovered alphas
    are N(0, alpha_std) draws."""
    x, y = ins[0], outs[0]
    shifts = (y - x).reshape(x.shape[0], -1, 3)
    np.testing.assert_allclose(shifts, np.broadcast_to(shifts[:, :1], shifts.shape), rtol=1e-4, atol=1e-3)
    alphas = np.linalg.solve(EIGVEC * EIGVAL, shifts[:, 0].T).T
    within_5se(alphas, 0.0, alpha_std ** 2, 3 * alpha_std ** 4, what="lighting alphas")


def brightness_contrast_check(b_amt, c_amt):
    """Brightness b then contrast c, or the reverse, both give y = f x + k per image with f = b c
    and k = b (1 - c) mean_gray(x): each image is affine in x, and the b and c recovered from f
    and k lie in their ranges."""
    def check(outs, ins, **_):
        for a, o in zip(ins[0], outs[0]):
            g = (a @ LUMA).mean()
            design = np.stack([a.ravel(), np.ones(a.size)], 1)
            (f, k), *_ = np.linalg.lstsq(design, o.ravel(), rcond=None)
            np.testing.assert_allclose(o, f * a + k, rtol=1e-4, atol=1e-3)
            b = f + k / g
            c = f / b
            assert 1 - b_amt - 1e-4 <= b <= 1 + b_amt + 1e-4, (b, b_amt)
            assert 1 - c_amt - 1e-4 <= c <= 1 + c_amt + 1e-4, (c, c_amt)
    return check


BATCH = R.uniform(1, 255, (200, 3, 4, 3))


def jitter(**amounts):
    """_image_random_color_jitter's parameters (MXNet 1.x requires all four)."""
    return dict(dict(brightness=0.0, contrast=0.0, saturation=0.0, hue=0.0), **amounts)

IMAGE = [
    Case("_image_to_tensor", "uint8", [IMG_U8], {}, to_tensor_ref, grad=(), dtypes=("float32",)),
    Case("_image_to_tensor", "float_batch", [IMGS], {}, to_tensor_ref, grad=(), dtypes=("float32",)),
    Case("_image_normalize", "per_channel", [uni(3, 4, 5)], {"mean": (0.5, 0.25, -1.0), "std": (0.5, 2.0, 4.0)},
         normalize_ref),
    Case("_image_normalize", "batch_one_value", [uni(2, 3, 2, 2)], {"mean": (0.5,), "std": (0.25,)}, normalize_ref),
    Case("_image_normalize", "defaults", [uni(4, 2, 3)], {}, normalize_ref),
    Case("_image_flip_left_right", "image", [uni(4, 5, 3)], {}, lambda x: x[:, ::-1]),
    Case("_image_flip_left_right", "batch", [uni(2, 4, 5, 3)], {}, lambda x: x[:, :, ::-1]),
    Case("_image_flip_top_bottom", "image", [uni(4, 5, 3)], {}, lambda x: x[::-1]),
    Case("_image_flip_top_bottom", "batch_uint8", [R.randint(0, 256, (2, 3, 2, 1)).astype(np.uint8)], {},
         lambda x: x[:, ::-1], grad=()),
    Case("_image_random_flip_left_right", "batch", [BATCH], {}, check=image_flip_check(1)),
    Case("_image_random_flip_left_right", "image", [IMG], {}, check=image_flip_check(1)),
    Case("_image_random_flip_top_bottom", "batch", [BATCH], {}, check=image_flip_check(0)),
    Case("_image_crop", "image", [IMG], {"x": 1, "y": 2, "width": 3, "height": 2},
         lambda a, x, y, width, height: crop_ref(a, x, y, width, height), grad=()),
    Case("_image_crop", "batch_uint8", [R.randint(0, 256, (2, 4, 5, 3)).astype(np.uint8)],
         {"x": 0, "y": 1, "width": 5, "height": 3},
         lambda a, x, y, width, height: crop_ref(a, x, y, width, height), grad=()),
    # OpenCV's linear resize keeps its interpolation weights in float32 whatever the dtype (MXNet 1.x
    # resizes through OpenCV too), so float64 results carry float32-weight rounding.
    Case("_image_resize", "bilinear_wh", [uni(4, 6, 2, lo=0, hi=1)], {"size": (5, 3)}, image_resize_ref, grad=(),
         fwd_tol={"float64": (1e-6, 1e-7)}),
    Case("_image_resize", "bilinear_upscale_batch", [uni(2, 2, 3, 3, lo=0, hi=1)], {"size": (5, 4), "interp": 1},
         image_resize_ref, grad=(), fwd_tol={"float64": (1e-6, 1e-7)}),
    Case("_image_resize", "nearest", [uni(4, 6, 3)], {"size": (4, 7), "interp": 0}, image_resize_ref, grad=()),
    Case("_image_resize", "nearest_uint8", [IMG_U8], {"size": (3, 6), "interp": 0}, image_resize_ref, grad=()),
    Case("_image_resize", "square_size", [uni(4, 6, 1, lo=0, hi=1)], {"size": (3,), "interp": 0},
         image_resize_ref, grad=()),
    Case("_image_resize", "keep_ratio", [uni(4, 6, 1, lo=0, hi=1)], {"size": (3,), "keep_ratio": True,
                                                                     "interp": 0}, image_resize_ref, grad=()),
    Case("_cvimresize", "bilinear", [uni(4, 6, 3, lo=0, hi=1)], {"w": 4, "h": 7}, cvimresize_ref, grad=(),
         fwd_tol={"float64": (1e-6, 1e-7)}),
    Case("_cvimresize", "nearest_uint8", [IMG_U8], {"w": 7, "h": 2, "interp": 0}, cvimresize_ref, grad=()),
    Case("_cvcopyMakeBorder", "constant", [uni(3, 4, 2)], {"top": 1, "bot": 2, "left": 2, "right": 1,
                                                           "value": 7.0}, border_ref, grad=()),
    Case("_cvcopyMakeBorder", "constant_per_channel", [uni(3, 4, 2)],
         {"top": 2, "bot": 0, "left": 1, "right": 1, "values": (1.5, -2.0)}, border_ref, grad=()),
    Case("_cvcopyMakeBorder", "replicate", [uni(3, 4, 2)], {"top": 1, "bot": 2, "left": 2, "right": 1, "type": 1},
         border_ref, grad=()),
    Case("_cvcopyMakeBorder", "reflect", [uni(3, 4, 2)], {"top": 1, "bot": 2, "left": 2, "right": 3, "type": 2},
         border_ref, grad=()),
    Case("_cvcopyMakeBorder", "wrap", [uni(3, 4, 1)], {"top": 2, "bot": 1, "left": 3, "right": 1, "type": 3},
         border_ref, grad=()),
    Case("_cvcopyMakeBorder", "reflect101", [IMG_U8], {"top": 1, "bot": 2, "left": 2, "right": 3, "type": 4},
         border_ref, grad=()),
    # fixed factors (min_factor == max_factor) make the random colour ops deterministic. The colour
    # ops work in float32 (as MXNet 1.x does, float64 images included): float32 rows for the
    # deterministic forms.
    Case("_image_random_brightness", "fixed", [IMGS], {"min_factor": 0.5, "max_factor": 0.5}, brightness_ref,
         grad=(), dtypes=("float32",)),
    Case("_image_random_brightness", "uint8_saturates", [IMG_U8], {"min_factor": 1.7, "max_factor": 1.7},
         lambda x, min_factor, max_factor: u8_saturate_trunc(x * 1.7), grad=()),
    Case("_image_random_brightness", "range", [BATCH], {"min_factor": 0.5, "max_factor": 1.5},
         check=factor_check(0.5, 1.5, lambda a, f: a * f)),
    Case("_image_random_contrast", "fixed", [IMGS], {"min_factor": 0.5, "max_factor": 0.5},
         per_image(contrast_img), grad=(), dtypes=("float32",)),
    Case("_image_random_contrast", "range", [BATCH], {"min_factor": 0.2, "max_factor": 1.8},
         check=factor_check(0.2, 1.8, lambda a, f: contrast_img(a, f, f))),
    Case("_image_random_saturation", "fixed", [IMGS], {"min_factor": 0.3, "max_factor": 0.3},
         per_image(saturation_img), grad=(), dtypes=("float32",)),
    Case("_image_random_saturation", "range", [BATCH], {"min_factor": 0.0, "max_factor": 2.0},
         check=factor_check(0.0, 2.0, lambda a, f: saturation_img(a, f, f))),
    # the hue work is float32 (as MXNet 1.x): float32 rows only
    Case("_image_random_hue", "quarter_turn", [IMGS], {"min_factor": 0.25, "max_factor": 0.25},
         per_image(hue_img), grad=(), dtypes=("float32",), fwd_tol={"float32": (1e-4, 1e-3)}),
    Case("_image_random_hue", "range", [BATCH], {"min_factor": 0.1, "max_factor": 0.9},
         check=hue_preserving_check, dtypes=("float32",)),
    Case("_image_random_color_jitter", "all_zero_is_identity", [IMGS], jitter(), lambda x, **_: x, grad=(),
         dtypes=("float32",)),
    Case("_image_random_color_jitter", "brightness_only", [BATCH], jitter(brightness=0.4),
         check=factor_check(0.6, 1.4, lambda a, f: a * f)),
    Case("_image_random_color_jitter", "saturation_only", [BATCH], jitter(saturation=0.5),
         check=factor_check(0.5, 1.5, lambda a, f: saturation_img(a, f, f))),
    Case("_image_random_color_jitter", "hue_only", [BATCH], jitter(hue=0.3), check=hue_preserving_check,
         dtypes=("float32",)),
    # two changes in a random order: contrast's mean gray is taken after brightness in half the images
    Case("_image_random_color_jitter", "brightness_contrast", [BATCH], jitter(brightness=0.3, contrast=0.5),
         check=brightness_contrast_check(0.3, 0.5)),
    # the principal components are float32 constants (as MXNet 1.x): float32 rows only
    Case("_image_adjust_lighting", "image", [IMG], {"alpha": (0.1, -0.2, 0.05)}, adjust_lighting_ref, grad=(),
         dtypes=("float32",)),
    Case("_image_adjust_lighting", "batch", [IMGS], {"alpha": (-1.0, 0.5, 2.0)}, adjust_lighting_ref, grad=(),
         dtypes=("float32",)),
    Case("_image_random_lighting", "alphas", [BATCH], {"alpha_std": 0.2}, check=random_lighting_check,
         dtypes=("float32",)),
    Case("_image_random_lighting", "default_std", [BATCH], {}, check=random_lighting_check, dtypes=("float32",)),
]

# --------------------------------------------------------------------------------------------

CASES = IMAGE
