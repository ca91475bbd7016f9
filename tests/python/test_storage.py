"""Storage managers from Python: pool statistics, emptying caches, GPU memory figures, pool choice."""
import pytest

import mxnet as mx

STATS_KEYS = {"bytes_in_use", "bytes_cached", "peak_bytes_in_use", "bytes_requested_peak",
              "alloc_count", "pool_hits", "pool_misses", "free_count"}


def test_storage_stats_has_every_counter():
    stats = mx.runtime.storage_stats(mx.cpu())
    assert set(stats) == STATS_KEYS
    assert all(isinstance(v, int) and v >= 0 for v in stats.values())
    assert stats["pool_hits"] + stats["pool_misses"] == stats["alloc_count"]


def test_all_cpus_report_the_one_cpu_pool():
    assert mx.runtime.storage_stats(mx.cpu(0)) == mx.runtime.storage_stats(mx.cpu(3))


def test_unused_device_reports_zeros():
    stats = mx.runtime.storage_stats(mx.cpu_pinned(5))
    assert stats == {k: 0 for k in STATS_KEYS}


def test_empty_cache_leaves_nothing_cached():
    mx.cpu().empty_cache()
    assert mx.runtime.storage_stats(mx.cpu())["bytes_cached"] == 0
    mx.cpu_pinned(0).empty_cache()  # a device that never allocated: nothing to do


def test_gpu_memory_info_without_a_gpu_names_the_device():
    if mx.context.num_gpus() > 0:
        free, total = mx.context.gpu_memory_info(0)
        assert 0 <= free <= total and total > 0
        return
    with pytest.raises(mx.MXNetError, match=r"gpu\(0\)"):
        mx.context.gpu_memory_info(0)


def test_invalid_pool_type_fails_import_with_the_allowed_names(run_python):
    result = run_python("import mxnet", MXNET_CPU_MEM_POOL_TYPE="Bogus")
    assert result.returncode != 0
    assert "MXNetError" in result.stderr
    assert "MXNET_CPU_MEM_POOL_TYPE" in result.stderr
    for name in ("Naive", "Round", "Unpooled"):
        assert name in result.stderr, result.stderr


@pytest.mark.parametrize("pool", ["naive", "ROUND", "Unpooled"])
def test_pool_type_names_are_accepted_in_any_case(run_python, pool):
    code = "import mxnet as mx\nprint(sorted(mx.runtime.storage_stats(mx.cpu())))"
    result = run_python(code, MXNET_CPU_MEM_POOL_TYPE=pool, MXNET_USE_NAIVE_STORAGE_MANAGERS="1")
    assert result.returncode == 0, result.stderr
    assert "bytes_in_use" in result.stdout
