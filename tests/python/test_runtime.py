"""mx.runtime: build features, environment-variable introspection and validation."""
import os
import re

import pytest

import mxnet as mx

from conftest import SEEDS

MXNET_1X_FEATURES = ["CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
                     "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C",
                     "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN",
                     "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE",
                     "SIGNAL_HANDLER", "DEBUG", "TVM_OP"]


def test_features_keep_mxnet_1x_names_and_order():
    names = list(mx.runtime.Features().keys())
    assert names[:32] == MXNET_1X_FEATURES
    assert names[32:] == ["ONEDNN", "CYTHON"]


def test_both_onednn_names_answer_alike():
    f = mx.runtime.Features()
    assert f.is_enabled("MKLDNN") == f.is_enabled("ONEDNN") == f.is_enabled("onednn")


def test_unknown_feature_raises():
    with pytest.raises(RuntimeError, match="NOT_A_FEATURE"):
        mx.runtime.Features().is_enabled("NOT_A_FEATURE")


def _seed_variable_names():
    names = set()
    for fname in sorted(os.listdir(SEEDS)):
        if fname.startswith("003_"):  # another framework's variables
            continue
        with open(os.path.join(SEEDS, fname), encoding="utf-8", errors="replace") as f:
            names.update(re.findall(r"\b(?:MXNET|NNVM|DMLC)_[A-Z0-9_]+", f.read()))
    return names


@pytest.mark.skipif(not os.path.isdir(SEEDS), reason="the seed documents (../shared/seeds) are not beside "
                                                     "this checkout")
def test_every_seed_variable_is_registered():
    names = _seed_variable_names()
    print("found %d distinct variable names in the seed documents" % len(names))
    assert len(names) >= 90
    registry = mx.runtime.env_vars()
    old_names = {a: v.name for v in registry.values() for a in v.aliases}
    missing = sorted(n for n in names if n not in registry and n not in old_names)
    assert not missing, "not registered: %s" % missing


def test_env_var_entries_are_documented():
    registry = mx.runtime.env_vars()
    engine = registry["MXNET_ENGINE_TYPE"]
    assert engine.type == "enum"
    assert engine.default == "ThreadedEnginePerDevice"
    assert "NaiveEngine" in engine.allowed
    assert engine.section == "Engine"
    for v in registry.values():
        assert v.doc, v.name
        assert isinstance(v.acted_on, bool)
    assert "MXNET_MKLDNN_ENABLED" in registry["MXNET_ONEDNN_ENABLED"].aliases


@pytest.mark.parametrize("name,value,expect", [
    ("MXNET_CPU_WORKER_NTHREADS", "abc", "an integer >= 1"),
    ("MXNET_CPU_WORKER_NTHREADS", "-3", "an integer >= 1"),
    ("MXNET_ENGINE_INFO", "maybe", "a boolean"),
    ("MXNET_ENGINE_TYPE", "Bogus", "one of NaiveEngine, ThreadedEngine, ThreadedEnginePerDevice"),
    ("MXNET_GPU_MEM_POOL_RESERVE", "101", "an integer in [0, 100]"),
    ("MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY", "fast", "a number >= 0"),
    ("MXNET_CUDNN_DISABLED_CONV_FWD_ENGINES", "1,two", "comma-separated list of integers"),
    ("MXNET_MKLDNN_ENABLED", "perhaps", "a boolean"),
])
def test_invalid_value_fails_import_naming_the_variable(run_python, name, value, expect):
    r = run_python("import mxnet", **{name: value})
    assert r.returncode != 0
    assert "mxnet.base.MXNetError" in r.stderr
    assert name in r.stderr and "'%s'" % value in r.stderr and expect in r.stderr, r.stderr


@pytest.mark.parametrize("name", ["MXNET_ENABLE_CYTHON", "MXNET_ENFORCE_CYTHON"])
def test_python_side_variables_are_validated(run_python, name):
    r = run_python("import mxnet", **{name: "maybe"})
    assert r.returncode != 0
    assert "Invalid value 'maybe' for environment variable %s" % name in r.stderr


def test_unknown_variable_gets_a_hint(run_python):
    r = run_python("import mxnet", MXNET_ENGINE_TPYE="NaiveEngine")
    assert r.returncode == 0, r.stderr
    assert "did you mean MXNET_ENGINE_TYPE?" in r.stderr


def test_old_name_is_accepted_with_a_deprecation_warning(run_python):
    r = run_python("import mxnet as mx; print(mx.runtime.env_vars()['MXNET_ONEDNN_ENABLED'].value)",
                   MXNET_MKLDNN_ENABLED="0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0"
    assert "MXNET_MKLDNN_ENABLED is deprecated; use MXNET_ONEDNN_ENABLED" in r.stderr


def test_valid_values_show_in_introspection(run_python):
    r = run_python("import mxnet as mx; v = mx.runtime.env_vars()['MXNET_CPU_WORKER_NTHREADS']; "
                   "print(v.value, v.is_set)", MXNET_CPU_WORKER_NTHREADS="2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2", "True"]


def test_environment_context_manager_validates_and_restores():
    from mxnet.test_utils import environment, getenv
    assert getenv("MXNET_SAFE_ACCUMULATION") == "1"
    with environment("MXNET_SAFE_ACCUMULATION", "0"):
        assert getenv("MXNET_SAFE_ACCUMULATION") == "0"
        assert os.environ["MXNET_SAFE_ACCUMULATION"] == "0"
    assert getenv("MXNET_SAFE_ACCUMULATION") == "1"
    assert "MXNET_SAFE_ACCUMULATION" not in os.environ
    with pytest.raises(mx.MXNetError, match="MXNET_SAFE_ACCUMULATION"):
        with environment({"MXNET_SAFE_ACCUMULATION": "sometimes"}):
            pass
    assert getenv("MXNET_SAFE_ACCUMULATION") == "1"


def test_fatal_signal_prints_a_native_backtrace(run_python):
    r = run_python("import mxnet, ctypes, faulthandler; faulthandler.disable(); ctypes.string_at(0)")
    assert r.returncode != 0
    assert "Fatal error: received SIGSEGV" in r.stderr
    assert "Native stack trace:" in r.stderr


def test_openmp_spinning_is_bounded_by_default_and_the_user_choice_wins(run_python):
    code = "import mxnet as mx, os; print(mx.runtime.info()['omp_wait_policy'], os.environ.get('GOMP_SPINCOUNT'))"
    r = run_python(code, OMP_WAIT_POLICY=None, GOMP_SPINCOUNT=None)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["GOMP_SPINCOUNT=50000", "50000"]
    r = run_python(code, OMP_WAIT_POLICY="ACTIVE", GOMP_SPINCOUNT=None)
    assert r.stdout.split() == ["ACTIVE", "None"]
    r = run_python(code, OMP_WAIT_POLICY=None, GOMP_SPINCOUNT="1000")
    assert r.stdout.split() == ["GOMP_SPINCOUNT=1000", "1000"]


def test_openblas_gets_avx512_kernels_on_intel_cpus_that_have_them(run_python):
    code = "import os, mxnet; print(os.environ.get('OPENBLAS_CORETYPE', '-'))"
    r = run_python(code, OPENBLAS_CORETYPE=None)
    assert r.returncode == 0, r.stderr
    with open("/proc/cpuinfo") as f:
        text = f.read()
    flags = set(text.split("flags", 1)[1].split("\n", 1)[0].split()) if "flags" in text else set()
    avx512 = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"} <= flags
    expect = "SkylakeX" if avx512 and "GenuineIntel" in text else "-"
    assert r.stdout.strip() == expect
    r = run_python(code, OPENBLAS_CORETYPE="Haswell")
    assert r.stdout.strip() == "Haswell"
