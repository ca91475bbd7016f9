"""NDArray __getitem__/__setitem__: views for axis-0 slices and ints, the `slice` op for
other basic indexing, `gather_nd` for advanced indexing; assignment writes in place."""
import numbers

import numpy as np

from .ndarray import NDArray, _op, array


def _is_int(k):
    return isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, bool)


def _normalize(key, ndim):
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is Ellipsis for k in key):
        i = [j for j, k in enumerate(key) if k is Ellipsis][0]
        fill = ndim - (len(key) - 1 - sum(k is None for k in key))
        key = key[:i] + (slice(None),) * fill + key[i + 1:]
    return key


def _is_advanced(key):
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (NDArray, np.ndarray, list)) for k in items)


def _index_array(k):
    if isinstance(k, NDArray):
        return k
    return array(np.asarray(k), dtype=np.int64)


def _reshaped(res, shape):
    """res as `shape`: itself when it already has it; a recorded Reshape while autograd
    records (a view would drop out of the graph); a view otherwise."""
    shape = tuple(shape)
    if res.shape == shape:
        return res
    if _recording():
        return _op("Reshape", res, shape=shape)
    return res.reshape(shape)


def _recording():
    from .. import autograd  # imported late: autograd imports this package
    return autograd.is_recording()


def getitem(self, key):
    shape = self.shape
    # Views (int and axis-0 slices) are not operations, so while autograd records, those
    # keys take the recorded `slice` path below instead.
    recording = _recording()
    if _is_int(key) and not recording:
        idx = int(key)
        if idx < -shape[0] or idx >= shape[0]:
            raise IndexError("index %d is out of bounds for axis 0 with size %d" % (idx, shape[0]))
        idx = idx % shape[0]
        res = self._at(idx)
        return res.reshape((1,)) if len(shape) == 1 else res
    if isinstance(key, slice) and (key.step is None or key.step == 1) and not recording:
        start, stop, _ = key.indices(shape[0])
        return self._slice(start, max(start, stop))
    if _is_advanced(key):
        items = key if isinstance(key, tuple) else (key,)
        if not all(isinstance(k, (NDArray, np.ndarray, list)) or _is_int(k) for k in items):
            return _mixed_getitem(self, _normalize(key, len(shape)))
        idx = [_index_array(k if not _is_int(k) else [k]) for k in items]
        idx_shape = np.broadcast_shapes(*[i.shape for i in idx])
        idx = [_op("broadcast_to", i.astype("int64"), shape=idx_shape).reshape((1, -1)) for i in idx]
        stacked = _op("Concat", *idx, dim=0) if len(idx) > 1 else idx[0]
        res = _op("gather_nd", self, stacked)
        return _reshaped(res, idx_shape + tuple(shape[len(items):]))
    key = _normalize(key, len(shape))
    begin, end, step, out_shape, axis = [], [], [], [], 0
    for k in key:
        if k is None:
            out_shape.append(1)
            continue
        if axis >= len(shape):
            raise IndexError("too many indices for array of dimension %d" % len(shape))
        if _is_int(k):
            i = int(k)
            if i < -shape[axis] or i >= shape[axis]:
                raise IndexError("index %d is out of bounds for axis %d with size %d" % (i, axis, shape[axis]))
            i %= shape[axis]
            begin.append(i)
            end.append(i + 1)
            step.append(1)
        elif isinstance(k, slice):
            s, e, st = k.indices(shape[axis])
            begin.append(s)
            end.append(e if (e >= 0 or st > 0) else None)
            step.append(st)
            out_shape.append(len(range(s, e, st)))
        else:
            raise IndexError("unsupported index type %s" % type(k).__name__)
        axis += 1
    out_shape.extend(shape[axis:])
    res = _op("slice", self, begin=tuple(begin), end=tuple(None if e is None else e for e in end),
              step=tuple(step))
    if not out_shape:
        out_shape = [1]
    return _reshaped(res, out_shape)



def _mixed_getitem(self, key):
    """Advanced indices (arrays, lists, ints) mixed with slices, with numpy's result layout:
    the slices are taken first, then the advanced axes are moved to the front and gathered;
    their broadcast shape stays in front when they were apart and goes back to where they
    stood when they were adjacent. Every step is an op, so autograd records it."""
    if any(k is None for k in key):
        raise IndexError("newaxis (None) in a subscript with advanced indices is not supported")
    shape = self.shape
    if len(key) > len(shape):
        raise IndexError("too many indices for array of dimension %d" % len(shape))
    key = tuple(key) + (slice(None),) * (len(shape) - len(key))
    begin, end, step = [], [], []
    for k, n in zip(key, shape):
        if isinstance(k, slice):
            b, e, st = k.indices(n)
            begin.append(b)
            end.append(e if (e >= 0 or st > 0) else None)
            step.append(st)
        else:
            begin.append(None)
            end.append(None)
            step.append(None)
    data = _op("slice", self, begin=tuple(begin), end=tuple(end), step=tuple(step))
    adv = [i for i, k in enumerate(key) if not isinstance(k, slice)]
    rest = [i for i in range(len(shape)) if i not in adv]
    idx = []
    for i in adv:
        k = key[i]
        arr = _index_array([int(k)] if _is_int(k) else k).astype("int64")
        idx.append(arr)
    bshape = np.broadcast_shapes(*[a.shape for a in idx])
    flat = [_op("broadcast_to", a.reshape((1,) * (len(bshape) - a.ndim) + a.shape) if a.ndim < len(bshape) else a,
                shape=bshape or (1,)).reshape((1, -1)) for a in idx]
    moved = _op("transpose", data, axes=tuple(adv + rest)) if adv + rest != list(range(len(shape))) else data
    stacked = _op("Concat", *flat, dim=0) if len(flat) > 1 else flat[0]
    res = _op("gather_nd", moved, stacked)
    rest_shape = tuple(data.shape[i] for i in rest)
    res = _reshaped(res, tuple(bshape) + rest_shape)
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    if adjacent and adv[0] > 0 and len(bshape) > 0:
        nb, first = len(bshape), adv[0]
        order = list(range(nb, nb + first)) + list(range(nb)) + list(range(nb + first, nb + len(rest)))
        res = _op("transpose", res, axes=tuple(order))
    return res


def setitem(self, key, value):
    if not self.writable:
        raise ValueError("Cannot assign to readonly NDArray")
    shape = self.shape
    full = isinstance(key, slice) and key == slice(None) or key is Ellipsis or \
        (isinstance(key, tuple) and all(k == slice(None) for k in key) and len(key) <= len(shape))
    if full:
        if isinstance(value, NDArray):
            if value.handle is self.handle:
                return
            if value.shape == shape:
                _op("_copy", value, out=self)
            else:
                # numpy's rule: missing leading axes count as 1, then size-1 axes stretch
                if value.ndim < len(shape):
                    value = value.reshape((1,) * (len(shape) - value.ndim) + value.shape)
                _op("broadcast_to", value, shape=shape, out=self)
        else:
            self._sync_copyfrom(np.broadcast_to(np.asarray(value), shape))
        return
    if _is_int(key) or (isinstance(key, slice) and (key.step is None or key.step == 1)):
        view = getitem(self, key)
        if _is_int(key) and len(shape) == 1:
            view = self._slice(int(key) % shape[0], int(key) % shape[0] + 1)
        setitem(view, slice(None), value)
        return
    # General case: read, assign with numpy's rules, write back (synchronous).
    host = self.asnumpy()
    if isinstance(key, NDArray):
        key = key.asnumpy().astype(np.int64)
    elif isinstance(key, tuple):
        key = tuple(k.asnumpy().astype(np.int64) if isinstance(k, NDArray) else k for k in key)
    host[key] = value.asnumpy() if isinstance(value, NDArray) else value
    self._sync_copyfrom(host)
