"""Bindings of the storage C API: emptying a device's pool, GPU memory figures, pool statistics.

The public names live elsewhere: ``Context.empty_cache()``, ``mx.context.gpu_memory_info`` and
``mx.runtime.storage_stats``.
"""
import ctypes

from .base import _LIB, check_call

# The order MXStorageGetStats fills its 8 values in (StorageStats in include/mxnet/storage.h).
STATS_FIELDS = ("bytes_in_use", "bytes_cached", "peak_bytes_in_use", "bytes_requested_peak",
                "alloc_count", "pool_hits", "pool_misses", "free_count")


def empty_cache(dev_type_id, dev_id):
    """Gives the device's cached (free) memory back to it; memory in use is untouched."""
    check_call(_LIB.MXStorageEmptyCache(ctypes.c_int(dev_type_id), ctypes.c_int(dev_id)))


def gpu_memory_info(device_id=0):
    """(free, total) bytes of GPU `device_id`; raises MXNetError when there is no such GPU."""
    free = ctypes.c_uint64()
    total = ctypes.c_uint64()
    check_call(_LIB.MXGetGPUMemoryInformation64(ctypes.c_int(device_id), ctypes.byref(free), ctypes.byref(total)))
    return free.value, total.value


def storage_stats(dev_type_id, dev_id):
    """Pool statistics of one device as a dict (all zeros for a device that never allocated)."""
    values = (ctypes.c_uint64 * len(STATS_FIELDS))()
    check_call(_LIB.MXStorageGetStats(ctypes.c_int(dev_type_id), ctypes.c_int(dev_id), values))
    return dict(zip(STATS_FIELDS, (int(v) for v in values)))
