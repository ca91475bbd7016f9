"""ImageIter: batches of augmented images from a .rec file, a .lst file or a Python list."""
import logging
import os
import random

import numpy as np

from .. import ndarray as nd
from .. import recordio
from ..base import MXNetError
from ..io import DataIter, DataBatch, DataDesc
from .augmenters import CreateAugmenter
from .image import imdecode

__all__ = ["ImageIter"]

_LAST_BATCH = ("pad", "discard", "roll_over")


class ImageIter(DataIter):
    """Iterates over images with labels, decoding and augmenting each, in batches of
    (batch_size,) + data_shape float32 NCHW data.

    Sources (one of): path_imgrec, a RecordIO file (with path_imgidx, its index, needed for
    shuffle and num_parts > 1); path_imglist, a .lst file ("index<TAB>label(s)<TAB>path" per
    line, paths relative to path_root), read from path_root unless a .rec is given too; or
    imglist, a list of [label(s)..., path]. Labels are `dtype`; label_width > 1 gives
    (batch_size, label_width) labels.

    aug_list: the augmenters (default CreateAugmenter(data_shape, **kwargs)).

    last_batch_handle: what happens to a last batch with fewer than batch_size images:
    'pad' fills it from the start of the data (DataBatch.pad = the number filled) and then
    stops until reset(); 'discard' drops it; 'roll_over' keeps it and stops, and the first
    batch after reset() completes it with the next images (its pad then reports
    batch_size minus the number kept, as MXNet 1.x does).
    """

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None, path_imglist=None,
                 path_root=None, path_imgidx=None, shuffle=False, part_index=0, num_parts=1,
                 aug_list=None, imglist=None, data_name="data", label_name="softmax_label",
                 dtype="float32", last_batch_handle="pad", **kwargs):
        super(ImageIter, self).__init__(batch_size)
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise ValueError("ImageIter needs path_imgrec, path_imglist or imglist (a list)")
        if dtype not in ("int32", "float32", "int64", "float64"):
            raise ValueError("ImageIter: label dtype %r is not supported; use int32, int64, float32 "
                             "or float64" % (dtype,))
        if last_batch_handle not in _LAST_BATCH:
            raise ValueError("ImageIter: last_batch_handle must be one of %s, got %r"
                             % (", ".join(_LAST_BATCH), last_batch_handle))
        logging.info("ImageIter: decoding with MXNET_CPU_WORKER_NTHREADS=%s threads",
                     os.environ.get("MXNET_CPU_WORKER_NTHREADS", 1))
        self.imgrec, self.imgidx = None, None
        if path_imgrec:
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
        self.dtype = dtype
        imgkeys = None
        if path_imglist:
            self.imglist, imgkeys = self._read_list_file(path_imglist, dtype)
        elif isinstance(imglist, list):
            self.imglist, imgkeys = self._read_list(imglist, dtype)
        else:
            self.imglist = None
        self.path_root = path_root

        self.check_data_shape(data_shape)
        self.data_shape = tuple(data_shape)
        self.label_width = label_width
        self.provide_data = [DataDesc(data_name, (batch_size,) + self.data_shape)]
        label_shape = (batch_size, label_width) if label_width > 1 else (batch_size,)
        self.provide_label = [DataDesc(label_name, label_shape, dtype)]
        self.batch_size = batch_size
        self.shuffle = shuffle

        if self.imgrec is None:
            self.seq = imgkeys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise ValueError("ImageIter: shuffle and num_parts > 1 need path_imgidx with path_imgrec")
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise ValueError("ImageIter: part_index %d is not in [0, %d)" % (part_index, num_parts))
            per_part = len(self.seq) // num_parts
            self.seq = self.seq[part_index * per_part:(part_index + 1) * per_part]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self.cur = 0
        self._allow_read = True
        self._cache = None  # (data, label, count) of a rolled-over partial batch
        self.reset()

    @staticmethod
    def _read_list_file(path, dtype):
        imglist, keys = {}, []
        with open(path) as fin:
            for lineno, line in enumerate(fin, 1):
                fields = line.strip().split("\t")
                if len(fields) < 3:
                    if line.strip():
                        raise ValueError("%s:%d: expected 'index<TAB>label(s)<TAB>path', got %r"
                                         % (path, lineno, line.rstrip("\n")))
                    continue
                key = int(fields[0])
                imglist[key] = (np.array(fields[1:-1], dtype=dtype), fields[-1])
                keys.append(key)
        return imglist, keys

    @staticmethod
    def _read_list(items, dtype):
        imglist, keys = {}, []
        for index, item in enumerate(items, 1):
            key = str(index)
            if len(item) > 2:
                label = np.array(item[:-1], dtype=dtype)
            elif isinstance(item[0], (int, float, np.number)):
                label = np.array([item[0]], dtype=dtype)
            else:
                label = np.array(item[0], dtype=dtype)
            imglist[key] = (label, item[-1])
            keys.append(key)
        return imglist, keys

    def reset(self):
        """Starts a new epoch (reshuffling when shuffle); a rolled-over batch is kept."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """reset(), also dropping a rolled-over batch."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache = None

    def next_sample(self):
        """(label, encoded image bytes) of the next image; StopIteration at the end."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            record = self.imgrec.read()
            if record is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(record)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            return (header.label if self.imglist is None else self.imglist[idx][0]), img
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def _fill(self, batch_data, batch_label, start=0):
        """Fills the batch from position `start`; returns how many positions hold images."""
        i = start
        try:
            while i < self.batch_size:
                label, encoded = self.next_sample()
                data = self.imdecode(encoded)
                try:
                    self.check_valid_image(data)
                except RuntimeError as err:
                    logging.debug("ImageIter: skipping an invalid image: %s", err)
                    continue
                for datum in self._augmented(data):
                    if i >= self.batch_size:
                        raise RuntimeError("ImageIter: the augmenters produced more images than fit "
                                           "the batch; batch_size must be a multiple of their count")
                    batch_data[i] = self.postprocess_data(datum)
                    batch_label[i] = self._label_value(label)
                    i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def _label_value(self, label):
        label = np.asarray(label, dtype=self.dtype).reshape(-1)
        if self.label_width == 1:
            return label[0]
        if label.size != self.label_width:
            raise RuntimeError("ImageIter: an image has %d labels, label_width is %d"
                               % (label.size, self.label_width))
        return label

    def _augmented(self, data):
        out = self.augmentation_transform(data)
        return out if isinstance(out, list) else [out]

    def next(self):
        """The next DataBatch; StopIteration at the end of the epoch."""
        if self._cache is not None:
            batch_data, batch_label, filled = self._cache
        else:
            c, h, w = self.data_shape
            batch_data = nd.zeros((self.batch_size, c, h, w))
            batch_label = nd.empty(self.provide_label[0].shape, dtype=self.dtype)
            filled = self._fill(batch_data, batch_label)
        pad = self.batch_size - filled
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache is None:
                self._cache = (batch_data, batch_label, filled)
                raise StopIteration
            self._fill(batch_data, batch_label, filled)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache = None
        return DataBatch([batch_data], [batch_label], pad=pad)

    def check_data_shape(self, data_shape):
        """data_shape must be (3, H, W)."""
        if len(data_shape) != 3:
            raise ValueError("ImageIter: data_shape must be (C, H, W), got %r" % (data_shape,))
        if data_shape[0] != 3:
            raise ValueError("ImageIter: images must have 3 channels, data_shape is %r" % (data_shape,))

    def check_valid_image(self, data):
        """Raises RuntimeError for an image with no pixels (it is then skipped)."""
        if len(data.shape) == 0 or data.size == 0:
            raise RuntimeError("the image has no pixels")

    def _locate(self):
        if self.seq is not None and self.num_image:
            idx = self.seq[(self.cur % self.num_image) - 1]
        else:
            idx = self.cur - 1
        if self.imglist is not None and idx in self.imglist:
            return "filename: %s" % (self.imglist[idx][1],)
        return "index: %s" % (idx,)

    def imdecode(self, s):
        """Decodes one image; RuntimeError 'Broken image ...' when it cannot be."""
        try:
            return imdecode(s)
        except Exception as err:  # pylint: disable=broad-except
            raise RuntimeError("Broken image %s, %s" % (self._locate(), err))

    def read_image(self, fname):
        """The bytes of image file fname (relative to path_root)."""
        path = os.path.join(self.path_root, fname) if self.path_root else fname
        try:
            with open(path, "rb") as fin:
                return fin.read()
        except OSError as err:
            raise MXNetError("ImageIter: cannot read image %s (%s): %s" % (
                path, self._locate(), err.strerror or err)) from err

    def augmentation_transform(self, data):
        """Applies the augmenters in order."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC -> CHW."""
        return nd.transpose(datum, axes=(2, 0, 1))
