"""Importing the package, finding the library, and the version 1.x scripts check."""
import os

import mxnet as mx


def test_version_matches_mxnet_1_9_1():
    assert mx.__version__.startswith("1.9.1")
    import ctypes
    v = ctypes.c_int()
    mx.base.check_call(mx.base._LIB.MXGetVersion(ctypes.byref(v)))
    assert v.value == 10901
    info = mx.runtime.info()
    assert info["compatible_version"] == "1.9.1"
    assert info["version"]


def test_error_kinds_are_mxnet_errors_and_builtins():
    err = mx.base._error_from_message("ValueError: bad thing")
    assert isinstance(err, mx.MXNetError) and isinstance(err, ValueError)
    assert str(err) == "bad thing"
    plain = mx.base._error_from_message("something odd")
    assert type(plain) is mx.MXNetError


def test_library_path_is_honoured(run_python, tmp_path):
    # A copy that the usual search would never find: only the variable can lead to it.
    import shutil
    copy = tmp_path / "elsewhere" / "libmxnet.so"
    copy.parent.mkdir()
    shutil.copy(mx.base._LIB_PATH, str(copy))
    code = ("import mxnet\n"
            "print(mxnet.base._LIB_PATH)\n"
            "print(sorted({line.split()[-1] for line in open('/proc/self/maps') if 'libmxnet' in line}))\n"
            "print(mxnet.nd.array([1, 2]).asnumpy().sum())\n")
    r = run_python(code, MXNET_LIBRARY_PATH=str(copy))
    assert r.returncode == 0, r.stderr
    lib_path, mapped, total = r.stdout.strip().splitlines()
    assert lib_path == str(copy)
    assert mapped == repr([str(copy)])  # the copy is what runs, and the original is not loaded
    assert float(total) == 3.0

    r = run_python(code, MXNET_LIBRARY_PATH=None)
    assert r.returncode == 0, r.stderr
    assert str(copy) not in r.stdout


def test_missing_library_path_warns_and_searches_on(run_python):
    r = run_python("import mxnet; print(mxnet.base._LIB_PATH)", MXNET_LIBRARY_PATH="/no/such/libmxnet.so")
    assert r.returncode == 0, r.stderr
    assert "MXNET_LIBRARY_PATH=/no/such/libmxnet.so does not name an existing file" in r.stderr
    assert os.path.isfile(r.stdout.strip())


def test_unloadable_library_path_is_a_clear_error(run_python, tmp_path):
    bogus = tmp_path / "libmxnet.so"
    bogus.write_text("not a library")
    r = run_python("import mxnet", MXNET_LIBRARY_PATH=str(bogus))
    assert r.returncode != 0
    assert "MXNetError: Cannot load the MXNet library %s (from MXNET_LIBRARY_PATH)" % bogus in r.stderr


def test_no_library_anywhere_lists_the_places_searched(run_python, tmp_path):
    # Import a copy of the package from a place with no library next to or above it.
    import shutil
    pkg = tmp_path / "site" / "pkg" / "lib"
    shutil.copytree(os.path.dirname(mx.__file__), str(pkg / "mxnet"),
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    # libinfo is loaded on its own: importing the package would try to load the library.
    code = ("import importlib.util, os\n"
            "spec = importlib.util.spec_from_file_location('libinfo', os.path.join(%r, 'mxnet', 'libinfo.py'))\n"
            "libinfo = importlib.util.module_from_spec(spec); spec.loader.exec_module(libinfo)\n"
            "libinfo._candidate_dirs = (lambda orig: lambda: [d for d in orig() if not d.startswith('/usr')])"
            "(libinfo._candidate_dirs)\n"
            "try:\n    libinfo.find_lib_path()\nexcept RuntimeError as e:\n    print(e)\n") % str(pkg)
    r = run_python(code, MXNET_LIBRARY_PATH=None, LD_LIBRARY_PATH=None)
    assert r.returncode == 0, r.stderr
    assert "Cannot find the MXNet library." in r.stdout
    assert "List of candidates:" in r.stdout
    assert str(pkg / "mxnet") in r.stdout


def test_context_basics():
    assert str(mx.cpu()) == "cpu(0)"
    assert mx.current_context() == mx.cpu(0)
    with mx.gpu(1):
        assert mx.current_context() == mx.gpu(1)
    assert mx.current_context() == mx.cpu(0)
    gpus = mx.context.num_gpus()
    assert isinstance(gpus, int) and gpus >= 0
    if not mx.runtime.Features().is_enabled("CUDA"):
        assert gpus == 0  # a build without CUDA sees no GPU, whatever the machine has
