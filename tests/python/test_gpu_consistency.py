"""Every op-harness row (tests/python/op_rows/) whose op has a CUDA kernel runs on cpu(0) and
gpu(0) with the same inputs, in each of the row's dtypes; outputs and gradients must agree
within the row's tolerances. Sampler rows (no numpy reference) run their property check on the
GPU's draws: each device has its own random stream. Skips without a CUDA device."""
import pytest

import mxnet as mx
import op_rows
from gpu_testing import HAS_GPU, check_consistency, has_gpu_kernel, needs_gpu

pytestmark = [pytest.mark.gpu, needs_gpu]

CASES = op_rows.all_cases()
ROWS = [(c, d) for c in CASES for d in c.dtypes]


@pytest.mark.parametrize("case,dtype", ROWS, ids=["%s-%s" % (c.id, d) for c, d in ROWS])
def test_gpu_matches_cpu(case, dtype):
    if not has_gpu_kernel(case.op):
        pytest.skip("%s has no CUDA kernel" % case.op)
    check_consistency(case, dtype)


def test_gpu_kernel_coverage_report(capsys):
    """Prints which harness ops have a CUDA kernel (the list GPU part 1 works through)."""
    ops = sorted({c.op for c in CASES})
    have = [o for o in ops if has_gpu_kernel(o)]
    missing = [o for o in ops if not has_gpu_kernel(o)]
    with capsys.disabled():
        print("\nGPU kernels: %d of %d harness ops; without one: %s" % (len(have), len(ops), " ".join(missing)))
    assert have, "no op has a CUDA kernel"
