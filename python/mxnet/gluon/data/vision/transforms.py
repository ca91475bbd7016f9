"""Image transforms (mx.gluon.data.vision.transforms) built on the `_image_*` operators.

Images are HWC (or NHWC batches); ToTensor turns them into CHW float32 in [0, 1].
"""
import numbers

from .... import ndarray as nd
from ...block import Block, HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "RandomFlipLeftRight",
           "RandomFlipTopBottom", "Resize", "CenterCrop"]


class Compose(Sequential):
    """Applies the transforms in order (consecutive HybridBlocks are grouped)."""

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
    side to `size` when it is a number. interpolation: 0 nearest, 1 bilinear."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super(Resize, self).__init__()
        self._keep = keep_ratio
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        return F.image.resize(x, size=self._size, keep_ratio=self._keep,
                              interp=self._interpolation)


class CenterCrop(Block):
    """Crops the centre (w, h) (or size x size) region of an HWC (or NHWC) image, resizing
    first when the image is smaller than the crop."""

    def __init__(self, size, interpolation=1):
        super(CenterCrop, self).__init__()
        if isinstance(size, numbers.Number):
            size = (size, size)
        self._size = tuple(int(s) for s in size)
        self._interpolation = interpolation

    def forward(self, x):
        w, h = self._size
        height_axis = x.ndim - 3
        src_h, src_w = x.shape[height_axis], x.shape[height_axis + 1]
        if src_w < w or src_h < h:
            scale = max(float(w) / src_w, float(h) / src_h)
            new_w, new_h = max(w, int(round(src_w * scale))), max(h, int(round(src_h * scale)))
            x = nd.image.resize(x, size=(new_w, new_h), interp=self._interpolation)
            src_h, src_w = new_h, new_w
        x0 = (src_w - w) // 2
        y0 = (src_h - h) // 2
        return nd.image.crop(x, x=x0, y=y0, width=w, height=h)
