"""Image transforms (mx.gluon.data.vision.transforms) built on the `_image_*` operators and
mx.image.

Images are HWC (or NHWC batches) with RGB values on a 0-255 scale; ToTensor turns them into
CHW float32 in [0, 1]. Random transforms draw from the seeded operator random stream
(mx.random.seed) when they are operators, from Python's `random` otherwise (RandomResizedCrop,
RandomRotation, RandomApply).
"""
import numbers
import random

from .... import image
from .... import ndarray as nd
from ...block import Block, HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "RandomFlipLeftRight",
           "RandomFlipTopBottom", "Resize", "CenterCrop", "RandomResizedCrop", "CropResize",
           "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue",
           "RandomColorJitter", "RandomLighting", "Rotate", "RandomRotation", "RandomApply"]


def _pair(size):
    if isinstance(size, numbers.Number):
        return (int(size), int(size))
    return tuple(int(s) for s in size)


class Compose(Sequential):
    """Applies the transforms in order; each run of consecutive HybridBlocks is grouped into
    one hybridized HybridSequential."""

    def __init__(self, transforms):
        super(Compose, self).__init__()
        hybrid = []
        for t in list(transforms) + [None]:
            if isinstance(t, HybridBlock):
                hybrid.append(t)
                continue
            if len(hybrid) == 1:
                self.add(hybrid[0])
            elif len(hybrid) > 1:
                block = HybridSequential()
                for h in hybrid:
                    block.add(h)
                block.hybridize()
                self.add(block)
            hybrid = []
            if t is not None:
                self.add(t)


class Cast(HybridBlock):
    """Converts to `dtype`."""

    def __init__(self, dtype="float32"):
        super(Cast, self).__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, dtype=self._dtype)


class ToTensor(HybridBlock):
    """HWC (or NHWC) values in [0, 255] -> CHW (NCHW) float32 in [0, 1]."""

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """(x - mean) / std per channel of a CHW (or NCHW) tensor; mean/std are numbers or one
    value per channel."""

    def __init__(self, mean=0.0, std=1.0):
        super(Normalize, self).__init__()
        self._mean = mean
        self._std = std

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, mean=self._mean, std=self._std)


class RandomFlipLeftRight(HybridBlock):
    """Mirrors the image horizontally with probability 1/2."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_left_right(x)


class RandomFlipTopBottom(HybridBlock):
    """Mirrors the image vertically with probability 1/2."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_top_bottom(x)


class Resize(HybridBlock):
    """Resizes HWC (or NHWC) images to size = w or (w, h); keep_ratio scales the shorter
    side to `size` when it is a number (the longer one is truncated: 300x200 at 150 gives
    225x150). interpolation: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos
    (cv::resize)."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super(Resize, self).__init__()
        self._keep = keep_ratio
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        return F.image.resize(x, size=self._size, keep_ratio=self._keep,
                              interp=self._interpolation)


class CenterCrop(Block):
    """The centred (w, h) (or size x size) window of an HWC image (or each image of an NHWC
    batch), as image.center_crop: a window larger than the image is scaled down to fit, keeping
    its aspect ratio, and the crop is resized to (w, h)."""

    def __init__(self, size, interpolation=1):
        super(CenterCrop, self).__init__()
        self._size = _pair(size)
        self._interpolation = interpolation

    def forward(self, x):
        if x.ndim == 4:
            return nd.stack(*[image.center_crop(img, self._size, self._interpolation)[0] for img in x])
        return image.center_crop(x, self._size, self._interpolation)[0]


class RandomResizedCrop(Block):
    """A random window of an HWC image covering a fraction in `scale` of its area with an aspect
    ratio in `ratio` (drawn log-uniformly), resized to size (w, h) (image.random_size_crop;
    after 10 misses, a centre crop)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super(RandomResizedCrop, self).__init__()
        self._args = (_pair(size), scale, ratio, interpolation)

    def forward(self, x):
        return image.random_size_crop(x, *self._args)[0]


class CropResize(HybridBlock):
    """The window (x, y, width, height) of an HWC image or NHWC batch, resized to size (w or
    (w, h)) when given."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super(CropResize, self).__init__()
        self._x, self._y, self._width, self._height = x, y, width, height
        self._size = size
        self._interpolation = 1 if interpolation is None else interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, x=self._x, y=self._y, width=self._width, height=self._height)
        if self._size:
            out = F.image.resize(out, size=self._size, keep_ratio=False, interp=self._interpolation)
        return out


def _factor_range(amount, name):
    if amount < 0:
        raise ValueError("%s must be >= 0, got %r" % (name, amount))
    return max(0.0, 1.0 - amount), 1.0 + amount


class RandomBrightness(HybridBlock):
    """Multiplies the image by a factor drawn from [max(0, 1-brightness), 1+brightness]."""

    def __init__(self, brightness):
        super(RandomBrightness, self).__init__()
        self._args = _factor_range(brightness, "brightness")

    def hybrid_forward(self, F, x):
        return F.image.random_brightness(x, min_factor=self._args[0], max_factor=self._args[1])


class RandomContrast(HybridBlock):
    """Blends the image with its mean gray level by a factor drawn from
    [max(0, 1-contrast), 1+contrast]."""

    def __init__(self, contrast):
        super(RandomContrast, self).__init__()
        self._args = _factor_range(contrast, "contrast")

    def hybrid_forward(self, F, x):
        return F.image.random_contrast(x, min_factor=self._args[0], max_factor=self._args[1])


class RandomSaturation(HybridBlock):
    """Blends each pixel with its gray level by a factor drawn from
    [max(0, 1-saturation), 1+saturation]."""

    def __init__(self, saturation):
        super(RandomSaturation, self).__init__()
        self._args = _factor_range(saturation, "saturation")

    def hybrid_forward(self, F, x):
        return F.image.random_saturation(x, min_factor=self._args[0], max_factor=self._args[1])


class RandomHue(HybridBlock):
    """Rotates the hue by a factor drawn from [max(0, 1-hue), 1+hue] turns (1 = unchanged), i.e.
    by up to `hue` of a turn either way."""

    def __init__(self, hue):
        super(RandomHue, self).__init__()
        self._args = _factor_range(hue, "hue")

    def hybrid_forward(self, F, x):
        return F.image.random_hue(x, min_factor=self._args[0], max_factor=self._args[1])


class RandomColorJitter(HybridBlock):
    """Random brightness, contrast, saturation and hue changes (amounts as in the single
    transforms; 0 skips one), in a random order per image."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super(RandomColorJitter, self).__init__()
        for name, value in (("brightness", brightness), ("contrast", contrast),
                            ("saturation", saturation), ("hue", hue)):
            _factor_range(value, name)
        self._args = dict(brightness=brightness, contrast=contrast, saturation=saturation, hue=hue)

    def hybrid_forward(self, F, x):
        return F.image.random_color_jitter(x, **self._args)


class RandomLighting(HybridBlock):
    """AlexNet-style PCA lighting noise with weights drawn from N(0, alpha)."""

    def __init__(self, alpha):
        super(RandomLighting, self).__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.image.random_lighting(x, alpha_std=self._alpha)


class Rotate(Block):
    """Rotates a float32 CHW image (or NCHW batch) by rotation_degrees about its centre
    (image.imrotate); zoom_in leaves no empty corner, zoom_out keeps the whole image."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super(Rotate, self).__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """With probability rotate_with_proba, rotates a float32 CHW image (or each image of an NCHW
    batch) by an angle drawn from angle_limits = (lo, hi) degrees (image.random_rotate)."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super(RandomRotation, self).__init__()
        lo, hi = angle_limits
        if lo > hi:
            raise ValueError("RandomRotation: angle_limits (%r, %r) must be (low, high)" % (lo, hi))
        if not 0.0 <= rotate_with_proba <= 1.0:
            raise ValueError("RandomRotation: rotate_with_proba must be in [0, 1], got %r"
                             % (rotate_with_proba,))
        self._args = ((lo, hi), zoom_in, zoom_out)
        self._proba = rotate_with_proba

    def forward(self, x):
        if self._proba < 1.0 and random.random() >= self._proba:
            return x
        return image.random_rotate(x, *self._args)


class RandomApply(Sequential):
    """Applies `transforms` (a Block) with probability p, else returns the input unchanged."""

    def __init__(self, transforms, p=0.5):
        super(RandomApply, self).__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x, *args):
        if self.p < random.random():
            return x
        return self.transforms(x, *args)
