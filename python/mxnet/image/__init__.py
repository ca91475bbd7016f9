"""Image decoding, basic image operations, augmenters and ImageIter (mx.image)."""
from .image import *  # noqa: F401,F403
from .image import _imencode, _get_interp_method  # noqa: F401
from .augmenters import *  # noqa: F401,F403
from .image_iter import ImageIter  # noqa: F401
