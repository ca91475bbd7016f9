"""Image augmenters (mx.image.*Aug) and CreateAugmenter.

Each augmenter is a callable taking an (H, W, C) NDArray and returning the augmented one;
the random ones draw from Python's `random` (and numpy's for LightingAug), so seeding those
fixes them. `dumps()` describes an augmenter as JSON: [lower-cased class name, its arguments].
"""
import json
import math
import random

import numpy as np

from .. import ndarray as nd
from ..ndarray import NDArray
from .image import (_get_interp_method, imresize, resize_short, random_crop, center_crop,
                    random_size_crop, color_normalize)

__all__ = ["Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
           "RandomSizedCropAug", "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug", "CastAug",
           "CreateAugmenter"]

_LUMA = (0.299, 0.587, 0.114)
# ImageNet's RGB principal components (eigenvalues, eigenvectors as columns) for PCA lighting.
_PCA_EIGVAL = np.array([55.46, 4.794, 1.148])
_PCA_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                        [-0.5808, -0.0045, -0.8140],
                        [-0.5836, -0.6948, 0.4203]])


class Augmenter(object):
    """Base class: keeps its constructor arguments for dumps()."""

    def __init__(self, **kwargs):
        self._kwargs = {}
        for key, value in kwargs.items():
            if isinstance(value, NDArray):
                value = value.asnumpy()
            if isinstance(value, np.ndarray):
                value = value.tolist()
            self._kwargs[key] = value

    def dumps(self):
        """[lower-cased class name, constructor arguments] as a JSON string."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src):
        raise NotImplementedError("%s must define __call__" % self.__class__.__name__)


class SequentialAug(Augmenter):
    """Applies `ts` in order."""

    def __init__(self, ts):
        super(SequentialAug, self).__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class ResizeAug(Augmenter):
    """Resizes the shorter side to `size` (resize_short)."""

    def __init__(self, size, interp=2):
        super(ResizeAug, self).__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """Resizes to size = (w, h), ignoring the aspect ratio."""

    def __init__(self, size, interp=2):
        super(ForceResizeAug, self).__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, self.size[0], self.size[1], interp=_get_interp_method(self.interp, sizes))


class RandomCropAug(Augmenter):
    """A random crop of size = (w, h) (random_crop)."""

    def __init__(self, size, interp=2):
        super(RandomCropAug, self).__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """A crop of random area fraction and aspect ratio, resized to size (random_size_crop)."""

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super(RandomSizedCropAug, self).__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        if "min_area" in kwargs:
            area = kwargs.pop("min_area")
        self.area = area
        self.ratio = ratio
        self.interp = interp
        if kwargs:
            raise TypeError("RandomSizedCropAug got unexpected arguments %s" % sorted(kwargs))

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """The centred crop of size = (w, h) (center_crop)."""

    def __init__(self, size, interp=2):
        super(CenterCropAug, self).__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class RandomOrderAug(Augmenter):
    """Applies `ts` in a random order."""

    def __init__(self, ts):
        super(RandomOrderAug, self).__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        random.shuffle(self.ts)
        for t in self.ts:
            src = t(src)
        return src


class BrightnessJitterAug(Augmenter):
    """Multiplies by 1 + U(-brightness, brightness)."""

    def __init__(self, brightness):
        super(BrightnessJitterAug, self).__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        src *= alpha
        return src


class ContrastJitterAug(Augmenter):
    """Blends with the image's mean gray level: src*a + mean_gray*(1-a), a = 1 + U(+-contrast)."""

    def __init__(self, contrast):
        super(ContrastJitterAug, self).__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = nd.array([[_LUMA]])

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        gray = nd.sum(nd.broadcast_mul(src, self.coef))
        pixels = src.shape[0] * src.shape[1]
        src *= alpha
        src += gray * ((1.0 - alpha) / pixels)
        return src


class SaturationJitterAug(Augmenter):
    """Blends each pixel with its gray level: src*a + gray*(1-a), a = 1 + U(+-saturation)."""

    def __init__(self, saturation):
        super(SaturationJitterAug, self).__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = nd.array([[_LUMA]])

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        gray = nd.sum(nd.broadcast_mul(src, self.coef), axis=2, keepdims=True)
        gray *= (1.0 - alpha)
        src *= alpha
        src += gray
        return src


def _hue_matrix(turn):
    """RGB -> RGB matrix rotating the chroma plane of YIQ by `turn` half-turns (angle turn*pi)."""
    to_yiq = np.array([[0.299, 0.587, 0.114],
                       [0.596, -0.274, -0.321],
                       [0.211, -0.523, 0.311]])
    from_yiq = np.array([[1.0, 0.956, 0.621],
                         [1.0, -0.272, -0.647],
                         [1.0, -1.107, 1.705]])
    cos_a, sin_a = math.cos(turn * math.pi), math.sin(turn * math.pi)
    rotate = np.array([[1.0, 0.0, 0.0], [0.0, cos_a, -sin_a], [0.0, sin_a, cos_a]])
    return from_yiq.dot(rotate).dot(to_yiq)


class HueJitterAug(Augmenter):
    """Rotates hue in YIQ space by U(-hue, hue) * pi radians."""

    def __init__(self, hue):
        super(HueJitterAug, self).__init__(hue=hue)
        self.hue = hue

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        # pixels are row vectors: out = src . M^T
        return nd.dot(src, nd.array(_hue_matrix(alpha).T, ctx=src.context, dtype=src.dtype))


class ColorJitterAug(RandomOrderAug):
    """The non-zero ones of brightness, contrast and saturation jitter, in random order."""

    def __init__(self, brightness, contrast, saturation):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super(ColorJitterAug, self).__init__(ts)


class LightingAug(Augmenter):
    """AlexNet-style PCA noise: adds eigvec . (alpha * eigval), alpha ~ N(0, alphastd)."""

    def __init__(self, alphastd, eigval, eigvec):
        super(LightingAug, self).__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = np.asarray(eigval)
        self.eigvec = np.asarray(eigvec)

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        src += nd.array(rgb, ctx=src.context, dtype=src.dtype)
        return src


class ColorNormalizeAug(Augmenter):
    """(src - mean) / std (color_normalize)."""

    def __init__(self, mean, std):
        super(ColorNormalizeAug, self).__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, NDArray) else nd.array(mean)
        self.std = std if std is None or isinstance(std, NDArray) else nd.array(std)

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability p, replaces every channel by the gray level (0.21 R + 0.72 G + 0.07 B)."""

    def __init__(self, p):
        super(RandomGrayAug, self).__init__(p=p)
        self.p = p
        self.mat = nd.array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]])

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.dot(src, self.mat.astype(src.dtype))
        return src


class HorizontalFlipAug(Augmenter):
    """Mirrors left-right with probability p."""

    def __init__(self, p):
        super(HorizontalFlipAug, self).__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
        return src


class CastAug(Augmenter):
    """Casts to `typ` (float32 by default)."""

    def __init__(self, typ="float32"):
        super(CastAug, self).__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


_DEFAULT_MEAN = (123.68, 116.28, 103.53)
_DEFAULT_STD = (58.395, 57.12, 57.375)


def _channel_stat(value, default, name):
    if value is True:
        return nd.array(default)
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        value = np.array(value)
    if not isinstance(value, (np.ndarray, NDArray)) or value.shape[0] not in (1, 3):
        raise ValueError("CreateAugmenter: %s must be True, None, or 1 or 3 values, got %r" % (name, value))
    return value if isinstance(value, NDArray) else nd.array(value)


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False, rand_mirror=False,
                    mean=None, std=None, brightness=0, contrast=0, saturation=0, hue=0,
                    pca_noise=0, rand_gray=0, inter_method=2):
    """The standard augmenter list for data_shape = (C, H, W), in this order: resize (shorter
    side, when resize > 0); a crop to (W, H) (random-sized when rand_resize, which needs
    rand_crop; random when rand_crop; else centred); mirror (p=0.5, when rand_mirror); cast to
    float32; colour jitter; hue jitter; PCA lighting (pca_noise); random gray (rand_gray);
    normalisation (mean/std: True for ImageNet's values, or per-channel values)."""
    auglist = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise ValueError("CreateAugmenter: rand_resize needs rand_crop")
        auglist.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))
    auglist.append(CastAug())
    if brightness or contrast or saturation:
        auglist.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        auglist.append(HueJitterAug(hue))
    if pca_noise > 0:
        auglist.append(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC))
    if rand_gray > 0:
        auglist.append(RandomGrayAug(rand_gray))
    mean = _channel_stat(mean, _DEFAULT_MEAN, "mean")
    std = _channel_stat(std, _DEFAULT_STD, "std")
    if mean is not None or std is not None:
        auglist.append(ColorNormalizeAug(mean, std))
    return auglist
