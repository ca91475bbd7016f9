"""RecordIO files (`.rec`), their text indexes (`.idx`) and image record payloads."""
import ctypes
import numbers
import os
import struct
from collections import namedtuple

import numpy as np

from .base import _LIB, _ERROR_TYPES, MXNetError, RecordIOHandle, check_call, c_str

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img", "unpack_img"]


class _ModeError(MXNetError, AssertionError):
    """A read on a writer or a write on a reader (an assertion failure in MXNet 1.x)."""


class MXRecordIO(object):
    """Sequential reader ('r') or writer ('w') of a RecordIO file.

    A handle belongs to the process that opened it: reading or writing from another
    process (a forked worker) raises RuntimeError; pickling closes the file, and
    unpickling reopens it when it was open.
    """

    def __init__(self, uri, flag):
        self.uri = str(uri)
        self.flag = flag
        self.handle = RecordIOHandle()
        self.writable = None
        self.is_open = False
        self.pid = None
        self.open()

    def open(self):
        """Opens the file; a writer truncates it."""
        if self.flag == "w":
            check_call(_LIB.MXRecordIOWriterCreate(c_str(self.uri), ctypes.byref(self.handle)))
            self.writable = True
        elif self.flag == "r":
            check_call(_LIB.MXRecordIOReaderCreate(c_str(self.uri), ctypes.byref(self.handle)))
            self.writable = False
        else:
            raise ValueError("Invalid flag %s" % self.flag)
        self.pid = os.getpid()
        self.is_open = True

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown may have torn down the library already
            pass

    def __getstate__(self):
        was_open = self.is_open
        self.close()
        state = dict(self.__dict__)
        state["is_open"] = was_open
        del state["handle"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        was_open = state["is_open"]
        self.is_open = False
        self.handle = RecordIOHandle()
        if was_open:
            self.open()

    def _check_pid(self, allow_reset=False):
        if self.pid != os.getpid():
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError("Forbidden operation in multiple processes")

    def _check_mode(self, writable, what):
        if self.writable != writable:
            raise _ModeError("RecordIO file '%s' was opened with flag '%s'; cannot %s"
                             % (self.uri, self.flag, what))

    def close(self):
        """Closes the file (flushing a writer). Safe to call twice."""
        if not self.is_open:
            return
        if self.writable:
            # A writer inherited through fork still holds the parent's unflushed bytes;
            # flushing them here would write them twice, so the child lets it go unfreed.
            if self.pid == os.getpid():
                check_call(_LIB.MXRecordIOWriterFree(self.handle))
        else:
            check_call(_LIB.MXRecordIOReaderFree(self.handle))
        self.handle = RecordIOHandle()
        self.is_open = False
        self.pid = None

    def reset(self):
        """Closes and reopens: a reader starts over, a writer truncates the file."""
        self.close()
        self.open()

    def _check_open(self, what):
        if not self.is_open:
            raise _ERROR_TYPES["RuntimeError"]("RecordIO file '%s' is closed; cannot %s" % (self.uri, what))

    def write(self, buf):
        """Appends one record (bytes, bytearray or any buffer)."""
        self._check_mode(True, "write")
        self._check_open("write")
        self._check_pid(allow_reset=False)
        if isinstance(buf, str):
            raise TypeError("RecordIO records are bytes, not str; encode the string first")
        if not isinstance(buf, bytes):
            buf = bytes(memoryview(buf))
        check_call(_LIB.MXRecordIOWriterWriteRecord(self.handle, ctypes.c_char_p(buf), ctypes.c_size_t(len(buf))))

    def read(self):
        """The next record as bytes, or None at the end of the file."""
        self._check_mode(False, "read")
        self._check_open("read")
        # Two processes sharing one position cannot both read correctly, so this is refused.
        self._check_pid(allow_reset=False)
        buf = ctypes.c_char_p()
        size = ctypes.c_size_t()
        check_call(_LIB.MXRecordIOReaderReadRecord(self.handle, ctypes.byref(buf), ctypes.byref(size)))
        if not buf:
            return None
        return ctypes.string_at(buf, size.value)


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with a text index (`idx_path`, lines "<key>\\t<offset>") for random
    access by key. `keys` lists the keys in index order; `idx` maps key -> byte offset.

    `seek` (and so `read_idx`) in a process other than the opener reopens the file, which
    is what forked data loader workers rely on.
    """

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = str(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super(MXIndexedRecordIO, self).__init__(uri, flag)

    def open(self):
        super(MXIndexedRecordIO, self).open()
        self.idx = {}
        self.keys = []
        if self.writable:
            # Line-buffered: nothing is pending at a fork, so a child closing its copy of
            # this writer cannot write the parent's index lines a second time.
            self.fidx = open(self.idx_path, "w", buffering=1)
            return
        with open(self.idx_path, "r") as fidx:
            lines = fidx.readlines()
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            key, offset = self._parse_index_line(line, lineno)
            self.idx[key] = offset
            self.keys.append(key)

    def _parse_index_line(self, line, lineno):
        fields = line.strip().split("\t")
        try:
            if len(fields) != 2:
                raise ValueError("expected 2 tab-separated fields, got %d" % len(fields))
            offset = int(fields[1])
            if offset < 0:
                raise ValueError("negative offset")
            return self.key_type(fields[0]), offset
        except (ValueError, TypeError) as err:
            raise MXNetError("Bad line %d in RecordIO index file '%s': %r (expected '<key>\\t<byte offset>'; %s)"
                             % (lineno, self.idx_path, line.rstrip("\r\n"), err))

    def close(self):
        if not self.is_open:
            return
        super(MXIndexedRecordIO, self).close()
        if self.fidx is not None:
            self.fidx.close()
            self.fidx = None

    def __getstate__(self):
        state = super(MXIndexedRecordIO, self).__getstate__()
        state["fidx"] = None
        return state

    def seek(self, idx):
        """Moves the reader to the record of key `idx`."""
        self._check_mode(False, "seek")
        # A closed reader (pickled, or inherited by a worker) reopens here.
        self._check_pid(allow_reset=True)
        check_call(_LIB.MXRecordIOReaderSeek(self.handle, ctypes.c_size_t(self.idx[idx])))

    def tell(self):
        """Byte offset of the next record to write (or, on a reader, to read)."""
        if not self.is_open:
            raise MXNetError("RecordIO file '%s' is closed" % self.uri)
        pos = ctypes.c_size_t()
        if self.writable:
            check_call(_LIB.MXRecordIOWriterTell(self.handle, ctypes.byref(pos)))
        else:
            check_call(_LIB.MXRecordIOReaderTell(self.handle, ctypes.byref(pos)))
        return pos.value

    def read_idx(self, idx):
        """The record of key `idx`."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Appends a record under key `idx` and indexes it."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write("%s\t%d\n" % (str(key), pos))
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
"""Image record header: flag (0, or the number of float32 labels), label, id, id2."""

_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """Image record bytes: the 24-byte header, then the labels when the label is an array
    (flag = their count, label field 0), then `s`. A scalar label forces flag 0."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        labels = np.asarray(header.label, dtype=np.float32).ravel()
        header = header._replace(flag=labels.size, label=0)
        s = labels.tobytes() + bytes(s)
    return struct.pack(_IR_FORMAT, *header) + bytes(s)


def unpack(s):
    """(IRHeader, payload bytes) of an image record; the label is a float32 array when flag > 0."""
    if len(s) < _IR_SIZE:
        raise _ERROR_TYPES["ValueError"]("Image record of %d bytes is shorter than its %d-byte header"
                                         % (len(s), _IR_SIZE))
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < 4 * header.flag:
            raise _ERROR_TYPES["ValueError"]("Image record is too short for the %d labels its header announces"
                                             % header.flag)
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[4 * header.flag:]
    return header, s


def unpack_img(s, iscolor=-1):
    """(IRHeader, image) with the image decoded as a BGR (or gray, HxW) uint8 numpy array.
    iscolor: 1 color, 0 gray, -1 as stored."""
    from .image import imdecode
    header, s = unpack(s)
    img = imdecode(np.frombuffer(s, dtype=np.uint8), iscolor, to_rgb=False)
    img = img.asnumpy() if hasattr(img, "asnumpy") else np.asarray(img)
    if img.ndim == 3 and img.shape[2] == 1:
        img = img.reshape(img.shape[:2])  # one channel comes out 2-D, as OpenCV gives it
    return header, img


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """pack() of a BGR image encoded as img_fmt; quality is the JPEG quality for
    .jpg/.jpeg and the PNG compression level (0-9) for .png."""
    from .image import _imencode
    return pack(header, _imencode(img, img_fmt=img_fmt, quality=quality))
