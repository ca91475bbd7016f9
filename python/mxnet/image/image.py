"""Image decoding, encoding and the basic geometry of HWC images (mx.image).

Images are NDArrays of shape (H, W, C), uint8 as decoded, RGB unless asked otherwise.
Inside the library JPEG is decoded and encoded by libjpeg-turbo and PNG by libpng, giving the
pixels OpenCV's cv2.imdecode (and so MXNet 1.x) gives for the same bytes; resizing and padding
run on OpenCV, so their results equal cv2's.
"""
import ctypes
import math
import random
from numbers import Number

import numpy as np

from ..base import _LIB, NDArrayHandle, check_call, c_str
from .. import ndarray as nd
from ..ndarray import NDArray

__all__ = ["imread", "imdecode", "imresize", "copyMakeBorder", "scale_down", "resize_short",
           "fixed_crop", "random_crop", "center_crop", "random_size_crop", "color_normalize",
           "imrotate", "random_rotate"]

_DTYPE_UINT8 = 3  # the C API's type code of uint8


def _check_flag(flag):
    if flag not in (0, 1, -1):
        raise ValueError("flag must be 0 (gray), 1 (colour) or -1 (unchanged), got %r" % (flag,))
    return int(flag)


def _output(result, out):
    if out is None:
        return result
    result.copyto(out)
    return out


def imread(filename, flag=1, to_rgb=True, out=None):
    """Reads and decodes the image file `filename` into an (H, W, C) uint8 NDArray.

    flag 1 gives 3 colour channels, 0 one gray channel, -1 the channels stored in the file.
    to_rgb orders colour channels RGB (OpenCV's own order is BGR). A missing or undecodable
    file raises MXNetError.
    """
    if not isinstance(filename, str):
        raise ValueError("imread: filename must be a str, got %s" % type(filename).__name__)
    handle = NDArrayHandle()
    check_call(_LIB.MXImageRead(c_str(filename), _check_flag(flag), int(bool(to_rgb)),
                                ctypes.byref(handle)))
    return _output(NDArray(handle), out)


def _as_bytes(buf):
    if isinstance(buf, str):
        raise ValueError("imdecode needs the encoded bytes (bytes, bytearray, a uint8 numpy array or "
                         "NDArray), not a str; use imread to read a file by name")
    if isinstance(buf, NDArray):
        buf = buf.asnumpy()
    if isinstance(buf, np.ndarray):
        if buf.dtype != np.uint8:
            raise ValueError("imdecode: expected a uint8 buffer, got dtype %s" % buf.dtype)
        return np.ascontiguousarray(buf).tobytes()
    if isinstance(buf, (bytes, bytearray, memoryview)):
        return bytes(buf)
    raise ValueError("imdecode: expected bytes, bytearray, a uint8 numpy array or NDArray, got %s"
                     % type(buf).__name__)


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """Decodes an encoded JPEG or PNG image held in bytes, bytearray, a uint8 numpy array or
    uint8 NDArray into an (H, W, C) uint8 NDArray; flag and to_rgb as for imread. With flag 0
    or 1 a JPEG's EXIF orientation is applied (flag -1 returns the image as stored).

    A str raises ValueError; an empty or undecodable buffer (a damaged or cut PNG, a damaged
    JPEG header), or another format (BMP, TIFF, WebP, ...), raises MXNetError. A JPEG cut
    inside its image data decodes, the missing part filled gray by libjpeg.
    """
    data = _as_bytes(buf)
    handle = NDArrayHandle()
    check_call(_LIB.MXImageDecode(data, ctypes.c_size_t(len(data)), _check_flag(flag),
                                  int(bool(to_rgb)), ctypes.byref(handle)))
    return _output(NDArray(handle), out)


def _imencode(img, img_fmt=".jpg", quality=95):
    """Encodes a BGR (or gray, or BGRA) HWC uint8 image (numpy or NDArray) as img_fmt (".jpg",
    ".jpeg" or ".png"), like cv2.imencode: quality is the JPEG quality (0-100) or the PNG
    compression level (0-9; larger values mean 9). Returns the encoded bytes."""
    if isinstance(img, NDArray):
        img = img.asnumpy()
    img = np.asarray(img)
    if img.ndim == 2:
        img = img[:, :, None]
    if img.ndim != 3:
        raise ValueError("_imencode: expected an (H, W) or (H, W, C) image, got shape %s" % (img.shape,))
    if img.dtype != np.uint8:
        raise ValueError("_imencode: expected uint8 pixels, got %s" % img.dtype)
    img = np.ascontiguousarray(img)
    h, w, c = img.shape
    out = ctypes.c_char_p()
    size = ctypes.c_size_t()
    check_call(_LIB.MXImageEncode(img.ctypes.data_as(ctypes.c_void_p), h, w, c, _DTYPE_UINT8,
                                  c_str(img_fmt), int(quality), ctypes.byref(out), ctypes.byref(size)))
    return ctypes.string_at(out, size.value)


def _get_interp_method(interp, sizes=()):
    """MXNet's interpolation code for a resize of sizes = (old_h, old_w, new_h, new_w): 9 picks
    by direction, 10 picks at random, 0-4 are kept; anything else is a ValueError."""
    if interp == 9:
        if sizes:
            old_h, old_w, new_h, new_w = sizes
            if new_h > old_h and new_w > old_w:
                return 2
            if new_h < old_h and new_w < old_w:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError("Unknown interpolation method %r: use 0-4, 9 (auto) or 10 (random)" % (interp,))
    return interp


def imresize(src, w, h, interp=1, out=None):
    """Resizes an (H, W, C) image to (h, w, C) with cv::resize. interp: 0 nearest, 1 bilinear,
    2 bicubic, 3 area, 4 Lanczos, 9 auto, 10 random."""
    return nd._internal._cvimresize(src, w=int(w), h=int(h), interp=int(interp), out=out)


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=None, out=None):  # pylint: disable=redefined-builtin
    """Pads an (H, W, C) image, as cv::copyMakeBorder. type: 0 constant (value, or one value
    per channel in values), 1 replicate, 2 reflect, 3 wrap, 4 reflect-101."""
    kwargs = dict(top=int(top), bot=int(bot), left=int(left), right=int(right), type=int(type),
                  value=float(value))
    if values is not None:
        kwargs["values"] = tuple(float(v) for v in values)
    return nd._internal._cvcopyMakeBorder(src, out=out, **kwargs)


def scale_down(src_size, size):
    """Shrinks size = (w, h) until it fits in src_size = (w, h), keeping its aspect ratio."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def resize_short(src, size, interp=2):
    """Resizes so that the shorter side is `size`; the longer becomes size * long // short."""
    h, w = src.shape[0], src.shape[1]
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The w x h window at (x0, y0), resized to size = (w, h) when given and different."""
    out = nd.slice(src, begin=(y0, x0, 0), end=(y0 + h, x0 + w, int(src.shape[2])))
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, size[0], size[1], interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """A random window of size = (w, h) (scaled down to fit), resized to size.
    Returns (image, (x0, y0, w, h))."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The centred window of size = (w, h) (scaled down to fit), resized to size.
    Returns (image, (x0, y0, w, h))."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A random window covering a fraction `area` (a number = (area, 1)) of the image with an
    aspect ratio drawn log-uniformly from `ratio`, resized to size = (w, h); after 10 misses,
    center_crop. Returns (image, (x0, y0, w, h))."""
    h, w = src.shape[0], src.shape[1]
    if "min_area" in kwargs:
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError("random_size_crop got unexpected arguments %s" % sorted(kwargs))
    if isinstance(area, Number):
        area = (area, 1.0)
    log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
    for _ in range(10):
        target = random.uniform(area[0], area[1]) * h * w
        aspect = math.exp(random.uniform(log_lo, log_hi))
        new_w = int(round(math.sqrt(target * aspect)))
        new_h = int(round(math.sqrt(target / aspect)))
        if 0 < new_w <= w and 0 < new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


def color_normalize(src, mean, std=None):
    """(src - mean) / std, in place on src (which is returned); mean or std may be None."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def _rotation_scale(h, w, theta, zoom_in, zoom_out):
    """Sampling-grid scale: zoom_out shows the whole rotated image, zoom_in leaves no empty
    corner; 1 otherwise."""
    if not (zoom_in or zoom_out):
        return 1.0
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    box_w, box_h = w * c + h * s, w * s + h * c  # bounding box of a w x h rectangle rotated by theta
    if zoom_out:
        return max(box_w / w, box_h / h)
    return min(w / box_w, h / box_h)


def _rotate_one(img, degrees, zoom_in, zoom_out):
    """Bilinear rotation of one (C, H, W) float image about its centre, counter-clockwise for a
    positive angle; points falling outside the source read 0."""
    chans, h, w = img.shape
    theta = math.radians(degrees)
    scale = _rotation_scale(h, w, theta, zoom_in, zoom_out)
    yc, xc = (h - 1) / 2.0, (w - 1) / 2.0
    ys, xs = np.meshgrid(np.arange(h, dtype=np.float64) - yc, np.arange(w, dtype=np.float64) - xc,
                         indexing="ij")
    cos_t, sin_t = math.cos(theta), math.sin(theta)
    src_x = (xs * cos_t - ys * sin_t) * scale + xc
    src_y = (xs * sin_t + ys * cos_t) * scale + yc
    x0, y0 = np.floor(src_x).astype(np.int64), np.floor(src_y).astype(np.int64)
    fx, fy = src_x - x0, src_y - y0
    out = np.zeros((chans, h, w), dtype=np.float64)
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            yy, xx = y0 + dy, x0 + dx
            inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            vals = img[:, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]
            out += vals * (wy * wx * inside)
    return out


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotates a float32 (C, H, W) image or (N, C, H, W) batch about the centre by
    rotation_degrees (a number, or one angle per image as a list/NDArray), bilinearly, filling
    with 0. zoom_in scales up so no empty corner shows; zoom_out scales down so the whole image
    shows."""
    if zoom_in and zoom_out:
        raise ValueError("imrotate: zoom_in and zoom_out cannot both be True")
    if src.dtype != np.float32:
        raise TypeError("imrotate: only float32 images are supported, got %s" % np.dtype(src.dtype).name)
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, Number):
            raise TypeError("imrotate: a single image takes one scalar angle")
        batch = src.asnumpy()[None]
    elif src.ndim == 4:
        batch = src.asnumpy()
    else:
        raise ValueError("imrotate: expected (C, H, W) or (N, C, H, W), got shape %s" % (src.shape,))
    if isinstance(rotation_degrees, Number):
        angles = [float(rotation_degrees)] * len(batch)
    else:
        if isinstance(rotation_degrees, NDArray):
            rotation_degrees = rotation_degrees.asnumpy()
        angles = [float(a) for a in np.asarray(rotation_degrees).reshape(-1)]
    if len(angles) != len(batch):
        raise ValueError("imrotate: %d angles for %d images" % (len(angles), len(batch)))
    out = np.stack([_rotate_one(img.astype(np.float64), a, zoom_in, zoom_out)
                    for img, a in zip(batch, angles)]).astype(np.float32)
    return nd.array(out[0] if single else out, ctx=src.context)


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """imrotate by an angle drawn uniformly from angle_limits = (lo, hi) degrees (one per image
    of a batch)."""
    lo, hi = angle_limits
    if src.ndim == 3:
        return imrotate(src, random.uniform(lo, hi), zoom_in, zoom_out)
    return imrotate(src, [random.uniform(lo, hi) for _ in range(src.shape[0])], zoom_in, zoom_out)


# MXNet 1.x exposes the codec as internal ops (mx.nd._internal._cvimdecode, _cvimread); a
# decoded image's shape depends on its bytes, so here they are calls of the C API.
def _cvimdecode(buf, flag=1, to_rgb=True, out=None):
    return imdecode(buf, flag=flag, to_rgb=to_rgb, out=out)


def _cvimread(filename, flag=1, to_rgb=True, out=None):
    return imread(filename, flag=flag, to_rgb=to_rgb, out=out)


for _name, _fn in (("_cvimdecode", _cvimdecode), ("_cvimread", _cvimread)):
    if not hasattr(nd._internal, _name):
        setattr(nd._internal, _name, _fn)
