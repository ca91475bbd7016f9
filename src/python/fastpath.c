/*
 * fastpath.c: the compiled fast path of the Python package (module mxnet._fastpath).
 *
 * The ctypes binding pays for building argument arrays, converting every argument and wrapping
 * every handle in Python; for a tiny operator that is most of its cost. This module does the
 * hot calls in C: operator invoke (inputs, outputs and keyword parameters), array creation,
 * handle wrapping, shapes, waits and host copies, and the array-or-scalar arithmetic dispatch.
 *
 * It is a plain CPython extension rather than Cython: it needs no code generator at build
 * time, builds with the library's own CMake and compiler, and its few functions are easier to
 * keep exact in C. It does not link against libmxnet: the package hands it the addresses of
 * the C API functions of the library it loaded, so both paths always call the same library.
 * The package works without it (ctypes); see python/mxnet/_fast.py for the selection rules.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#if PY_VERSION_HEX < 0x03090000 /* 3.8 spells the vectorcall API with underscores */
#define PyObject_CallOneArg(f, a) PyObject_CallFunctionObjArgs((f), (a), NULL)
#define PyObject_CallNoArgs(f) PyObject_CallFunctionObjArgs((f), NULL)
#define PyObject_Vectorcall _PyObject_Vectorcall
#define Py_TPFLAGS_HAVE_VECTORCALL _Py_TPFLAGS_HAVE_VECTORCALL
#endif

typedef void* Handle;
typedef int (*InvokeFn)(Handle op, int num_inputs, Handle* inputs, int* num_outputs, Handle** outputs, int num_params,
                        const char** keys, const char** vals, const int** out_stypes);
typedef int (*HandleFn)(Handle h);
typedef int (*CreateFn)(const int64_t* shape, int ndim, int dev_type, int dev_id, int delay_alloc, int dtype,
                        Handle* out);
typedef int (*ShapeFn)(Handle h, int* ndim, const int64_t** dims);
typedef int (*DTypeFn)(Handle h, int* dtype);
typedef int (*CopyToCPUFn)(Handle h, void* data, size_t size);

/* What the package handed over at init: the C API functions and the Python types. */
static struct {
  InvokeFn invoke;
  HandleFn wait_to_read;
  HandleFn free_array;
  CreateFn create;
  ShapeFn shape;
  DTypeFn dtype;
  CopyToCPUFn copy_to_cpu;
  PyTypeObject* ndarray_type;  /* mxnet.ndarray.NDArray */
  PyObject* handle_type;       /* ctypes.c_void_p (NDArrayHandle) */
  PyObject* raise_last_error;  /* raises the library's last error as its Python class */
  Py_ssize_t handle_offset;    /* where NDArray's __slots__ keep handle and writable */
  Py_ssize_t writable_offset;
  int ready;
} g;

static PyObject* str_handle;  /* interned "handle" */

/* ------------------------------------------------------------------ handles */

/*
 * ctypes keeps a c_void_p's value behind the pointer that follows the object header (its
 * CDataObject's b_ptr). Reading it there is several times faster than the buffer protocol;
 * init() checks the layout on a known value first and keeps the buffer protocol otherwise.
 */
static int ctypes_layout_checked;

static void* ctypes_value_direct(PyObject* obj) {
  char* b_ptr = *(char**)((char*)obj + sizeof(PyObject));
  return *(void**)b_ptr;
}

/* The pointer inside a ctypes c_void_p, an int, or None. */
static int read_pointer(PyObject* obj, void** out) {
  if (ctypes_layout_checked && Py_TYPE(obj) == (PyTypeObject*)g.handle_type) {
    *out = ctypes_value_direct(obj);
    return 0;
  }
  if (obj == Py_None) {
    *out = NULL;
    return 0;
  }
  if (PyLong_Check(obj)) {
    *out = PyLong_AsVoidPtr(obj);
    return PyErr_Occurred() ? -1 : 0;
  }
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) != 0) return -1;
  if (view.len != (Py_ssize_t)sizeof(void*)) {
    PyBuffer_Release(&view);
    PyErr_SetString(PyExc_TypeError, "expected a pointer-sized ctypes handle");
    return -1;
  }
  memcpy(out, view.buf, sizeof(void*));
  PyBuffer_Release(&view);
  return 0;
}

/* The library handle of an NDArray (its handle attribute may raise, e.g. for CSR arrays). */
static int array_handle(PyObject* arr, Handle* out) {
  if (Py_TYPE(arr) == g.ndarray_type) { /* exactly NDArray: the slot, not a subclass's property */
    PyObject* h = *(PyObject**)((char*)arr + g.handle_offset);
    if (h && h != Py_None && read_pointer(h, out) == 0 && *out) return 0;
    if (PyErr_Occurred()) return -1;
  }
  PyObject* h = PyObject_GetAttr(arr, str_handle);
  if (!h) return -1;
  const int rc = read_pointer(h, out);
  Py_DECREF(h);
  if (rc == 0 && *out == NULL) {
    PyErr_SetString(PyExc_ValueError, "the NDArray has been freed (its handle is None)");
    return -1;
  }
  return rc;
}

/* A new NDArray owning handle h; the slots are filled as NDArray.__init__ would. */
static PyObject* wrap_handle(Handle h) {
  PyObject* value = PyLong_FromVoidPtr(h);
  if (!value) return NULL;
  PyObject* handle_obj = PyObject_CallOneArg(g.handle_type, value);
  Py_DECREF(value);
  if (!handle_obj) return NULL;
  PyObject* arr = g.ndarray_type->tp_alloc(g.ndarray_type, 0);
  if (!arr) {
    Py_DECREF(handle_obj);
    return NULL;
  }
  *(PyObject**)((char*)arr + g.handle_offset) = handle_obj; /* reference moves in */
  Py_INCREF(Py_True);
  *(PyObject**)((char*)arr + g.writable_offset) = Py_True;
  return arr;
}

static PyObject* raise_last_error(void) {
  PyObject* r = PyObject_CallNoArgs(g.raise_last_error);
  if (r) { /* it must raise; a return means the library reported no error text */
    Py_DECREF(r);
    PyErr_SetString(PyExc_RuntimeError, "the MXNet library reported a failure without an error message");
  }
  return NULL;
}

#define CHECK_READY()                                                                  \
  do {                                                                                 \
    if (!g.ready) {                                                                    \
      PyErr_SetString(PyExc_RuntimeError, "mxnet._fastpath used before init()");       \
      return NULL;                                                                     \
    }                                                                                  \
  } while (0)

/* The unqualified name of an object's type ("ndarray", as type(x).__name__ says). */
static const char* short_type_name(PyObject* x) {
  const char* full = Py_TYPE(x)->tp_name;
  const char* dot = strrchr(full, '.');
  return dot ? dot + 1 : full;
}

/* ------------------------------------------------------------------ invoke */

enum { kStackArgs = 16 };

/* The handles of n NDArrays. */
static int array_handles(PyObject* const* arrays, Py_ssize_t n, Handle* handles, const char* what) {
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyObject_TypeCheck(arrays[i], g.ndarray_type)) {
      PyErr_Format(PyExc_TypeError, "%s must be NDArrays, got %.100s", what, Py_TYPE(arrays[i])->tp_name);
      return -1;
    }
    if (array_handle(arrays[i], &handles[i]) != 0) return -1;
  }
  return 0;
}

/* UTF-8 views of n str objects (valid while the strings live). */
static int string_pointers(PyObject* const* strs, Py_ssize_t n, const char** out) {
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyUnicode_Check(strs[i])) {
      PyErr_Format(PyExc_TypeError, "operator parameters must be str, got %.100s", Py_TYPE(strs[i])->tp_name);
      return -1;
    }
    out[i] = PyUnicode_AsUTF8(strs[i]);
    if (!out[i]) return -1;
  }
  return 0;
}

/* Wraps the library's fresh output handles; on failure frees the ones not wrapped. */
static PyObject* wrap_outputs(Handle* outputs, int num_out) {
  if (num_out == 1) {
    PyObject* a = wrap_handle(outputs[0]);
    if (!a) g.free_array(outputs[0]);
    return a;
  }
  /* Copied first: the library's returned array is reused by the next call. */
  Handle stack[kStackArgs];
  Handle* copy = num_out <= kStackArgs ? stack : PyMem_Malloc(sizeof(Handle) * num_out);
  if (!copy) {
    for (int i = 0; i < num_out; ++i) g.free_array(outputs[i]);
    return PyErr_NoMemory();
  }
  memcpy(copy, outputs, sizeof(Handle) * num_out);
  PyObject* result = PyList_New(num_out);
  int wrapped = 0;
  for (; result && wrapped < num_out; ++wrapped) {
    PyObject* a = wrap_handle(copy[wrapped]);
    if (!a) {
      Py_CLEAR(result);
      break;
    }
    PyList_SET_ITEM(result, wrapped, a);
  }
  if (!result)
    for (int i = wrapped; i < num_out; ++i) g.free_array(copy[i]);
  if (copy != stack) PyMem_Free(copy);
  return result;
}

/*
 * The invoke proper: n_in NDArrays, n_par parameters as UTF-8 texts, out None, an NDArray or a
 * list/tuple of them. Returns out when given, else one NDArray or a list.
 */
static PyObject* invoke_arrays(Handle op, PyObject* const* inputs, Py_ssize_t n_in, const char** keys,
                               const char** vals, Py_ssize_t n_par, PyObject* out) {
  Handle in_stack[kStackArgs], out_stack[kStackArgs];
  Handle* in_h = n_in <= kStackArgs ? in_stack : PyMem_Malloc(sizeof(Handle) * n_in);
  Handle* out_h = out_stack;
  PyObject* out_seq = NULL;
  PyObject* result = NULL;
  int num_out = 0;
  Handle* outputs = NULL;
  if (!in_h) return PyErr_NoMemory();
  if (array_handles(inputs, n_in, in_h, "operator inputs") != 0) goto done;
  if (out != Py_None) {
    if (PyObject_TypeCheck(out, g.ndarray_type)) {
      if (array_handle(out, &out_stack[0]) != 0) goto done;
      num_out = 1;
    } else if (PyList_Check(out) || PyTuple_Check(out)) {
      out_seq = PySequence_Fast(out, "out");
      if (!out_seq) goto done;
      num_out = (int)PySequence_Fast_GET_SIZE(out_seq);
      if (num_out > kStackArgs && !(out_h = PyMem_Malloc(sizeof(Handle) * num_out))) {
        PyErr_NoMemory();
        goto done;
      }
      if (array_handles(PySequence_Fast_ITEMS(out_seq), num_out, out_h, "out") != 0) goto done;
    } else {
      PyErr_Format(PyExc_TypeError, "out must be an NDArray or a list of NDArrays, got %.100s", short_type_name(out));
      goto done;
    }
    outputs = out_h;
  }
  int rc;
  /* Without the GIL: an op may need it on another thread (a custom op's Python code). */
  Py_BEGIN_ALLOW_THREADS;
  rc = g.invoke(op, (int)n_in, in_h, &num_out, &outputs, (int)n_par, keys, vals, NULL);
  Py_END_ALLOW_THREADS;
  if (rc != 0) {
    raise_last_error();
  } else if (out != Py_None) {
    Py_INCREF(out);
    result = out;
  } else {
    result = wrap_outputs(outputs, num_out);
  }
done:
  if (in_h != in_stack) PyMem_Free(in_h);
  if (out_h != out_stack) PyMem_Free(out_h);
  Py_XDECREF(out_seq);
  return result;
}

/* invoke_arrays with inputs, keys and vals as "fast" sequences (keys/vals may be None). */
static PyObject* do_invoke(Handle op, PyObject* inputs, PyObject* keys, PyObject* vals, PyObject* out) {
  const Py_ssize_t n_par = keys == Py_None ? 0 : PySequence_Fast_GET_SIZE(keys);
  if ((vals == Py_None ? 0 : PySequence_Fast_GET_SIZE(vals)) != n_par) {
    PyErr_SetString(PyExc_ValueError, "operator parameter keys and values differ in length");
    return NULL;
  }
  const char *key_stack[kStackArgs], *val_stack[kStackArgs];
  const char** key_p = n_par <= kStackArgs ? key_stack : PyMem_Malloc(sizeof(char*) * n_par);
  const char** val_p = n_par <= kStackArgs ? val_stack : PyMem_Malloc(sizeof(char*) * n_par);
  PyObject* result = NULL;
  if (!key_p || !val_p) {
    PyErr_NoMemory();
  } else if (!n_par || (string_pointers(PySequence_Fast_ITEMS(keys), n_par, key_p) == 0 &&
                        string_pointers(PySequence_Fast_ITEMS(vals), n_par, val_p) == 0)) {
    result = invoke_arrays(op, PySequence_Fast_ITEMS(inputs), PySequence_Fast_GET_SIZE(inputs), key_p, val_p, n_par,
                           out);
  }
  if (key_p && key_p != key_stack) PyMem_Free((void*)key_p);
  if (val_p && val_p != val_stack) PyMem_Free((void*)val_p);
  return result;
}

/* invoke(op_handle, inputs, keys, vals, out=None) */
static PyObject* fp_invoke(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  CHECK_READY();
  if (nargs < 4 || nargs > 5) {
    PyErr_SetString(PyExc_TypeError, "invoke(op_handle, inputs, keys, vals, out=None)");
    return NULL;
  }
  Handle op;
  if (read_pointer(args[0], &op) != 0) return NULL;
  PyObject* inputs = PySequence_Fast(args[1], "inputs must be a list or tuple");
  if (!inputs) return NULL;
  PyObject* keys = args[2] == Py_None ? (Py_INCREF(Py_None), Py_None) : PySequence_Fast(args[2], "keys");
  PyObject* vals = args[3] == Py_None ? (Py_INCREF(Py_None), Py_None) : PySequence_Fast(args[3], "vals");
  PyObject* result = NULL;
  if (keys && vals) result = do_invoke(op, inputs, keys, vals, nargs == 5 ? args[4] : Py_None);
  Py_DECREF(inputs);
  Py_XDECREF(keys);
  Py_XDECREF(vals);
  return result;
}

/* ------------------------------------------------------------------ arithmetic dispatch */

static int is_plain_scalar(PyObject* x) { return PyFloat_CheckExact(x) || PyLong_CheckExact(x); }

/*
 * lhs op rhs for NDArray op NDArray and NDArray op int/float (the scalar sent as
 * str(float(x)), as the Python dispatch sends it); NotImplemented for anything else (numpy
 * arrays and scalars take the Python path).
 */
static PyObject* binary_call(Handle array_op, Handle scalar_op, Handle reversed_scalar_op, PyObject* lhs, PyObject* rhs,
                             PyObject* out) {
  const int l_arr = PyObject_TypeCheck(lhs, g.ndarray_type), r_arr = PyObject_TypeCheck(rhs, g.ndarray_type);
  PyObject* inputs[2] = {lhs, rhs};
  PyObject* scalar;
  Handle op;
  if (l_arr && r_arr) return invoke_arrays(array_op, inputs, 2, NULL, NULL, 0, out);
  if (l_arr && is_plain_scalar(rhs)) {
    scalar = rhs;
    op = scalar_op;
  } else if (r_arr && is_plain_scalar(lhs)) {
    inputs[0] = rhs;
    scalar = lhs;
    op = reversed_scalar_op;
  } else {
    Py_RETURN_NOTIMPLEMENTED;
  }
  PyObject* as_float = PyNumber_Float(scalar);
  if (!as_float) return NULL;
  PyObject* text = PyObject_Str(as_float);
  Py_DECREF(as_float);
  if (!text) return NULL;
  const char* key = "scalar";
  const char* val = PyUnicode_AsUTF8(text);
  PyObject* result = val ? invoke_arrays(op, inputs, 1, &key, &val, 1, out) : NULL;
  Py_DECREF(text);
  return result;
}

/* binary(lhs, rhs, array_op, scalar_op, reversed_scalar_op or None, out) */
static PyObject* fp_binary(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  CHECK_READY();
  if (nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "binary(lhs, rhs, array_op, scalar_op, reversed_scalar_op, out)");
    return NULL;
  }
  Handle ops[3];
  if (read_pointer(args[2], &ops[0]) || read_pointer(args[3], &ops[1]) ||
      read_pointer(args[4] == Py_None ? args[3] : args[4], &ops[2]))
    return NULL;
  return binary_call(ops[0], ops[1], ops[2], args[0], args[1], args[5]);
}

/* ------------------------------------------------------------------ generated op functions */

/*
 * An mx.nd op function (what python/mxnet/ndarray/register.py's _call does, in C): positional
 * and keyword arguments are bound to the op's inputs and parameters by name, `out` and `name`
 * are taken out, parameters are sent as text (str as is, None as "None", numbers, tuples and
 * lists through str(), anything else through the package's param_str), and an op without
 * inputs, ctx and out gets the current context. It binds as a method, like a Python function.
 */
typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  Handle op;
  PyObject* op_handle; /* the ctypes handle the address came from, kept alive */
  PyObject* op_name;   /* str, for messages */
  PyObject* inputs;    /* tuple of str: the op's array arguments */
  PyObject* params;    /* tuple of str: its parameters */
  int variadic;
  PyObject* fallback; /* the Python binding, for calls whose operands C cannot pass (CSR) */
  PyObject* dict;     /* __name__, __qualname__, __doc__, __module__ */
} OpFunction;

enum { kMaxParams = 64 };

static struct {
  PyObject* null;          /* mxnet.base._Null: "not passed" */
  PyObject* param_str;     /* param_str(key, value) -> str, for values C does not convert */
  PyObject* default_ctx;   /* () -> str(current_context()) */
  PyObject* fallback_on;   /* the error an operand raises when it has no single handle (CSR) */
  PyObject *str_out, *str_name, *str_ctx, *str_dtype, *str_none;
} opfn;

/* The text of one parameter value (a new reference). */
static PyObject* param_text(PyObject* key, PyObject* value) {
  if (PyUnicode_CheckExact(value)) {
    Py_INCREF(value);
    return value;
  }
  if (value == Py_None) {
    Py_INCREF(opfn.str_none);
    return opfn.str_none;
  }
  const int special = PyUnicode_Compare(key, opfn.str_dtype) == 0 || PyUnicode_Compare(key, opfn.str_ctx) == 0;
  if (!special && (PyLong_CheckExact(value) || PyFloat_CheckExact(value) || PyBool_Check(value) ||
                   PyTuple_CheckExact(value) || PyList_CheckExact(value)))
    return PyObject_Str(value);
  PyObject* pair[2] = {key, value};
  return PyObject_Vectorcall(opfn.param_str, pair, 2, NULL);
}

static Py_ssize_t tuple_index(PyObject* tuple, PyObject* name) {
  const Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  for (Py_ssize_t i = 0; i < n; ++i) /* identity first: names are usually the same interned str */
    if (PyTuple_GET_ITEM(tuple, i) == name) return i;
  for (Py_ssize_t i = 0; i < n; ++i) {
    const int eq = PyUnicode_Compare(PyTuple_GET_ITEM(tuple, i), name);
    if (eq == 0) return i;
    if (eq == -1 && PyErr_Occurred()) return -2;
  }
  return -1;
}

static PyObject* opfn_vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  OpFunction* f = (OpFunction*)callable;
  CHECK_READY();
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  const Py_ssize_t n_inputs = PyTuple_GET_SIZE(f->inputs);
  PyObject* out = Py_None;
  PyObject* slots[kStackArgs]; /* non-variadic: the value of each input name (borrowed) */
  PyObject* const* in_arr = NULL;
  Py_ssize_t n_in = 0;
  PyObject* in_list[kStackArgs];
  PyObject *keys[kMaxParams], *vals[kMaxParams]; /* borrowed keys, owned texts */
  Py_ssize_t n_par = 0;
  PyObject* variadic_seq = NULL;
  PyObject* result = NULL;
  const char *key_p[kMaxParams], *val_p[kMaxParams];

  if (f->variadic) {
    if (nargs == 1 && (PyList_Check(args[0]) || PyTuple_Check(args[0]))) {
      variadic_seq = PySequence_Fast(args[0], "inputs");
      if (!variadic_seq) return NULL;
      in_arr = PySequence_Fast_ITEMS(variadic_seq);
      n_in = PySequence_Fast_GET_SIZE(variadic_seq);
    } else {
      in_arr = args;
      n_in = nargs;
    }
  } else {
    if (n_inputs > kStackArgs) return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
    const Py_ssize_t n_names = n_inputs + PyTuple_GET_SIZE(f->params);
    if (nargs > n_names) {
      PyErr_Format(PyExc_TypeError, "%U takes at most %zd positional arguments, got %zd", f->op_name, n_names, nargs);
      return NULL;
    }
    for (Py_ssize_t i = 0; i < n_inputs; ++i) slots[i] = i < nargs ? args[i] : NULL;
  }
  /* Positional parameters (after the inputs). */
  for (Py_ssize_t i = f->variadic ? nargs : n_inputs; !f->variadic && i < nargs; ++i) {
    PyObject* key = PyTuple_GET_ITEM(f->params, i - n_inputs);
    if (args[i] == opfn.null || (args[i] == Py_None && PyUnicode_Compare(key, opfn.str_ctx) == 0)) continue;
    if (n_par >= kMaxParams) goto too_many;
    keys[n_par] = key;
    if (!(vals[n_par] = param_text(keys[n_par], args[i]))) goto fail;
    ++n_par;
  }
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, k);
    PyObject* value = args[nargs + k];
    if (PyUnicode_Compare(name, opfn.str_out) == 0) {
      out = value;
      continue;
    }
    if (PyUnicode_Compare(name, opfn.str_name) == 0) continue;
    if (!f->variadic) {
      const Py_ssize_t j = tuple_index(f->inputs, name);
      if (j == -2) goto fail;
      if (j >= 0) {
        if (slots[j]) goto duplicate;
        slots[j] = value;
        continue;
      }
      const Py_ssize_t p = tuple_index(f->params, name);
      if (p == -2) goto fail;
      if (p >= 0 && n_inputs + p < nargs) goto duplicate;
    }
    if (value == opfn.null || (value == Py_None && PyUnicode_Compare(name, opfn.str_ctx) == 0)) continue;
    if (n_par >= kMaxParams) goto too_many;
    keys[n_par] = name;
    if (!(vals[n_par] = param_text(name, value))) goto fail;
    ++n_par;
    continue;
  duplicate:
    PyErr_Format(PyExc_TypeError, "%U got multiple values for argument '%U'", f->op_name, name);
    goto fail;
  }
  if (!f->variadic) {
    for (Py_ssize_t i = 0; i < n_inputs; ++i)
      if (slots[i] && slots[i] != Py_None) in_list[n_in++] = slots[i];
    in_arr = in_list;
  }
  for (Py_ssize_t i = 0; i < n_in; ++i) {
    if (!PyObject_TypeCheck(in_arr[i], g.ndarray_type)) {
      PyErr_Format(PyExc_TypeError, "%U: expected NDArray inputs, got %.100s", f->op_name, short_type_name(in_arr[i]));
      goto fail;
    }
  }
  if (n_in == 0 && out == Py_None) {
    int has_ctx = 0;
    for (Py_ssize_t i = 0; i < n_par && !has_ctx; ++i) has_ctx = PyUnicode_Compare(keys[i], opfn.str_ctx) == 0;
    if (!has_ctx) {
      if (n_par >= kMaxParams) goto too_many;
      keys[n_par] = opfn.str_ctx;
      if (!(vals[n_par] = PyObject_CallNoArgs(opfn.default_ctx))) goto fail;
      ++n_par;
    }
  }
  for (Py_ssize_t i = 0; i < n_par; ++i) {
    if (!PyUnicode_Check(vals[i])) {
      PyErr_Format(PyExc_TypeError, "%U: parameter '%U' did not convert to str", f->op_name, keys[i]);
      goto fail;
    }
    if (!(key_p[i] = PyUnicode_AsUTF8(keys[i])) || !(val_p[i] = PyUnicode_AsUTF8(vals[i]))) goto fail;
  }
  result = invoke_arrays(f->op, in_arr, n_in, key_p, val_p, n_par, out);
  if (!result && opfn.fallback_on && PyErr_ExceptionMatches(opfn.fallback_on)) {
    /* Nothing ran: the handles are read before the call. */
    PyErr_Clear();
    result = PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
  }
  goto cleanup;
too_many: /* more parameters than the stack lists hold: the Python binding takes the call */
  for (Py_ssize_t i = 0; i < n_par; ++i) Py_DECREF(vals[i]);
  Py_XDECREF(variadic_seq);
  return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
fail:
cleanup:
  for (Py_ssize_t i = 0; i < n_par; ++i) Py_DECREF(vals[i]);
  Py_XDECREF(variadic_seq);
  return result;
}

/* OpFunction(op_handle, op_name, inputs, params, variadic, func_name, doc, module, fallback) */
static PyObject* opfn_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *handle, *op_name, *inputs, *params, *func_name, *doc, *module, *fallback;
  int variadic;
  if (!PyArg_ParseTuple(args, "OUO!O!pUOUO", &handle, &op_name, &PyTuple_Type, &inputs, &PyTuple_Type, &params,
                        &variadic, &func_name, &doc, &module, &fallback))
    return NULL;
  OpFunction* f = (OpFunction*)type->tp_alloc(type, 0);
  if (!f) return NULL;
  f->vectorcall = opfn_vectorcall;
  if (read_pointer(handle, &f->op) != 0 || !(f->dict = PyDict_New())) {
    Py_DECREF(f);
    return NULL;
  }
  Py_INCREF(handle);
  f->op_handle = handle;
  Py_INCREF(op_name);
  f->op_name = op_name;
  Py_INCREF(inputs);
  f->inputs = inputs;
  Py_INCREF(params);
  f->params = params;
  f->variadic = variadic;
  Py_INCREF(fallback);
  f->fallback = fallback;
  if (PyDict_SetItemString(f->dict, "__name__", func_name) || PyDict_SetItemString(f->dict, "__qualname__", func_name) ||
      PyDict_SetItemString(f->dict, "__doc__", doc) || PyDict_SetItemString(f->dict, "__module__", module)) {
    Py_DECREF(f);
    return NULL;
  }
  return (PyObject*)f;
}

static int opfn_traverse(OpFunction* f, visitproc visit, void* arg) {
  Py_VISIT(f->dict);
  Py_VISIT(f->fallback);
  Py_VISIT(f->op_handle);
  return 0;
}

static int opfn_clear(OpFunction* f) {
  Py_CLEAR(f->dict);
  Py_CLEAR(f->fallback);
  Py_CLEAR(f->op_handle);
  return 0;
}

static void opfn_dealloc(OpFunction* f) {
  PyObject_GC_UnTrack(f);
  opfn_clear(f);
  Py_XDECREF(f->op_name);
  Py_XDECREF(f->inputs);
  Py_XDECREF(f->params);
  Py_TYPE(f)->tp_free((PyObject*)f);
}

static PyObject* opfn_descr_get(PyObject* self, PyObject* obj, PyObject* type) {
  if (obj == NULL || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

static PyObject* opfn_repr(OpFunction* f) { return PyUnicode_FromFormat("<mxnet operator function %U>", f->op_name); }

static PyTypeObject OpFunctionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mxnet._fastpath.OpFunction",
    .tp_basicsize = sizeof(OpFunction),
    .tp_dealloc = (destructor)opfn_dealloc,
    .tp_vectorcall_offset = offsetof(OpFunction, vectorcall),
    .tp_repr = (reprfunc)opfn_repr,
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "A generated mx.nd operator function (compiled path).",
    .tp_traverse = (traverseproc)opfn_traverse,
    .tp_clear = (inquiry)opfn_clear,
    .tp_descr_get = opfn_descr_get,
    .tp_dictoffset = offsetof(OpFunction, dict),
    .tp_new = opfn_new,
};

/* ------------------------------------------------------------------ arithmetic methods */

/*
 * An NDArray arithmetic method (__add__, __rsub__, ...) in C: array-array and array-int/float
 * calls go straight to the op; anything else, and a call that raises `fallback_on` (a CSR
 * operand), goes to `fallback(self, other)`, the Python dispatch. Binds like a function.
 */
typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  Handle array_op, scalar_op, reversed_scalar_op;
  int reflected;
  PyObject* fallback;
  PyObject* fallback_on;
  PyObject* dict;
} BinaryMethod;

static PyObject* binary_call(Handle array_op, Handle scalar_op, Handle reversed_scalar_op, PyObject* lhs, PyObject* rhs,
                             PyObject* out);

static PyObject* binm_vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  BinaryMethod* m = (BinaryMethod*)callable;
  CHECK_READY();
  if (PyVectorcall_NARGS(nargsf) != 2 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
    PyErr_SetString(PyExc_TypeError, "an NDArray arithmetic method takes exactly (self, other)");
    return NULL;
  }
  PyObject* lhs = m->reflected ? args[1] : args[0];
  PyObject* rhs = m->reflected ? args[0] : args[1];
  PyObject* res = binary_call(m->array_op, m->scalar_op, m->reversed_scalar_op, lhs, rhs, Py_None);
  if (!res && PyErr_ExceptionMatches(m->fallback_on)) {
    PyErr_Clear();
    res = Py_NotImplemented;
    Py_INCREF(res);
  }
  if (res != Py_NotImplemented) return res;
  Py_DECREF(res);
  return PyObject_Vectorcall(m->fallback, args, 2, NULL);
}

/* BinaryMethod(array_op, scalar_op, reversed_scalar_op or None, reflected, fallback, fallback_on, name) */
static PyObject* binm_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *array_op, *scalar_op, *rscalar_op, *fallback, *fallback_on, *name;
  int reflected;
  if (!PyArg_ParseTuple(args, "OOOpOOU", &array_op, &scalar_op, &rscalar_op, &reflected, &fallback, &fallback_on,
                        &name))
    return NULL;
  BinaryMethod* m = (BinaryMethod*)type->tp_alloc(type, 0);
  if (!m) return NULL;
  m->vectorcall = binm_vectorcall;
  m->reflected = reflected;
  Py_INCREF(fallback);
  m->fallback = fallback;
  Py_INCREF(fallback_on);
  m->fallback_on = fallback_on;
  if (read_pointer(array_op, &m->array_op) || read_pointer(scalar_op, &m->scalar_op) ||
      read_pointer(rscalar_op == Py_None ? scalar_op : rscalar_op, &m->reversed_scalar_op) ||
      !(m->dict = PyDict_New()) || PyDict_SetItemString(m->dict, "__name__", name) ||
      PyDict_SetItemString(m->dict, "__qualname__", name)) {
    Py_DECREF(m);
    return NULL;
  }
  return (PyObject*)m;
}

static int binm_traverse(BinaryMethod* m, visitproc visit, void* arg) {
  Py_VISIT(m->fallback);
  Py_VISIT(m->fallback_on);
  Py_VISIT(m->dict);
  return 0;
}

static int binm_clear(BinaryMethod* m) {
  Py_CLEAR(m->fallback);
  Py_CLEAR(m->fallback_on);
  Py_CLEAR(m->dict);
  return 0;
}

static void binm_dealloc(BinaryMethod* m) {
  PyObject_GC_UnTrack(m);
  binm_clear(m);
  Py_TYPE(m)->tp_free((PyObject*)m);
}

static PyTypeObject BinaryMethodType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mxnet._fastpath.BinaryMethod",
    .tp_basicsize = sizeof(BinaryMethod),
    .tp_dealloc = (destructor)binm_dealloc,
    .tp_vectorcall_offset = offsetof(BinaryMethod, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "An NDArray arithmetic method (compiled path).",
    .tp_traverse = (traverseproc)binm_traverse,
    .tp_clear = (inquiry)binm_clear,
    .tp_descr_get = opfn_descr_get,
    .tp_dictoffset = offsetof(BinaryMethod, dict),
    .tp_new = binm_new,
};

/* init_ops(null, param_str, default_ctx, fallback_on) */
static PyObject* fp_init_ops(PyObject* self, PyObject* args) {
  PyObject *null, *param_str, *default_ctx, *fallback_on;
  if (!PyArg_ParseTuple(args, "OOOO", &null, &param_str, &default_ctx, &fallback_on)) return NULL;
  Py_INCREF(fallback_on);
  Py_XSETREF(opfn.fallback_on, fallback_on);
  Py_INCREF(null);
  Py_XSETREF(opfn.null, null);
  Py_INCREF(param_str);
  Py_XSETREF(opfn.param_str, param_str);
  Py_INCREF(default_ctx);
  Py_XSETREF(opfn.default_ctx, default_ctx);
  Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ arrays */

/* new_array(shape, dev_type, dev_id, delay_alloc, dtype_flag) */
static PyObject* fp_new_array(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  CHECK_READY();
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError, "new_array(shape, dev_type, dev_id, delay_alloc, dtype_flag)");
    return NULL;
  }
  PyObject* shape = PySequence_Fast(args[0], "shape must be a tuple or list of ints");
  if (!shape) return NULL;
  const Py_ssize_t ndim = PySequence_Fast_GET_SIZE(shape);
  int64_t dims_stack[kStackArgs];
  int64_t* dims = ndim <= kStackArgs ? dims_stack : PyMem_Malloc(sizeof(int64_t) * (ndim ? ndim : 1));
  if (!dims) {
    Py_DECREF(shape);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < ndim; ++i) {
    dims[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(shape, i));
    if (dims[i] == -1 && PyErr_Occurred()) {
      if (dims != dims_stack) PyMem_Free(dims);
      Py_DECREF(shape);
      return NULL;
    }
  }
  Py_DECREF(shape);
  const int dev_type = (int)PyLong_AsLong(args[1]), dev_id = (int)PyLong_AsLong(args[2]);
  const int delay = PyObject_IsTrue(args[3]), dtype = (int)PyLong_AsLong(args[4]);
  if (PyErr_Occurred()) {
    if (dims != dims_stack) PyMem_Free(dims);
    return NULL;
  }
  Handle h = NULL;
  const int rc = g.create(dims, (int)ndim, dev_type, dev_id, delay, dtype, &h);
  if (dims != dims_stack) PyMem_Free(dims);
  if (rc != 0) return raise_last_error();
  return wrap_handle(h);
}

/* free(ndarray): NDArray.__del__ in C. Frees the library array once and clears the handle. */
static PyObject* fp_free(PyObject* self, PyObject* arr) {
  CHECK_READY();
  if (!PyObject_TypeCheck(arr, g.ndarray_type)) {
    PyErr_Format(PyExc_TypeError, "free() takes an NDArray, got %.100s", short_type_name(arr));
    return NULL;
  }
  PyObject** slot = (PyObject**)((char*)arr + g.handle_offset);
  PyObject* handle_obj = *slot;
  if (!handle_obj || handle_obj == Py_None) Py_RETURN_NONE;
  Handle h;
  if (read_pointer(handle_obj, &h) != 0) return NULL;
  Py_INCREF(Py_None);
  *slot = Py_None;
  Py_DECREF(handle_obj);
  if (h && g.free_array(h) != 0) return raise_last_error();
  Py_RETURN_NONE;
}

/* shape(handle) -> tuple, or None for an unknown shape */
static PyObject* fp_shape(PyObject* self, PyObject* arg) {
  CHECK_READY();
  Handle h;
  if (read_pointer(arg, &h) != 0) return NULL;
  int ndim = 0;
  const int64_t* dims = NULL;
  if (g.shape(h, &ndim, &dims) != 0) return raise_last_error();
  if (ndim < 0) Py_RETURN_NONE;
  PyObject* t = PyTuple_New(ndim);
  for (int i = 0; t && i < ndim; ++i) {
    PyObject* d = PyLong_FromLongLong(dims[i]);
    if (!d) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, i, d);
  }
  return t;
}

/* dtype_flag(handle) -> int */
static PyObject* fp_dtype_flag(PyObject* self, PyObject* arg) {
  CHECK_READY();
  Handle h;
  if (read_pointer(arg, &h) != 0) return NULL;
  int t = 0;
  if (g.dtype(h, &t) != 0) return raise_last_error();
  return PyLong_FromLong(t);
}

/* wait_to_read(handle) */
static PyObject* fp_wait_to_read(PyObject* self, PyObject* arg) {
  CHECK_READY();
  Handle h;
  if (read_pointer(arg, &h) != 0) return NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = g.wait_to_read(h);
  Py_END_ALLOW_THREADS;
  if (rc != 0) return raise_last_error();
  Py_RETURN_NONE;
}

/* copy_to(handle, buffer, count): the array's elements into a writable buffer (a numpy array). */
static PyObject* fp_copy_to(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  CHECK_READY();
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "copy_to(handle, buffer, count)");
    return NULL;
  }
  Handle h;
  if (read_pointer(args[0], &h) != 0) return NULL;
  const size_t count = PyLong_AsSize_t(args[2]);
  if (count == (size_t)-1 && PyErr_Occurred()) return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(args[1], &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) return NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = g.copy_to_cpu(h, view.buf, count);
  Py_END_ALLOW_THREADS;
  PyBuffer_Release(&view);
  if (rc != 0) return raise_last_error();
  Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ init */

static Py_ssize_t slot_offset(PyTypeObject* type, const char* name) {
  PyObject* descr = PyDict_GetItemString(type->tp_dict, name);
  if (!descr || Py_TYPE(descr) != &PyMemberDescr_Type) {
    PyErr_Format(PyExc_TypeError, "%.100s has no __slots__ entry '%s'", type->tp_name, name);
    return -1;
  }
  return ((PyMemberDescrObject*)descr)->d_member->offset;
}

static int read_function(PyObject* functions, const char* name, void** out) {
  PyObject* addr = PyDict_GetItemString(functions, name);
  if (!addr) {
    PyErr_Format(PyExc_KeyError, "init: the address of %s is missing", name);
    return -1;
  }
  if (read_pointer(addr, out) != 0) return -1;
  if (!*out) {
    PyErr_Format(PyExc_ValueError, "init: %s is NULL", name);
    return -1;
  }
  return 0;
}

/* init(functions: dict name -> address, NDArray, NDArrayHandle, raise_last_error) */
static PyObject* fp_init(PyObject* self, PyObject* args) {
  PyObject *functions, *ndarray_type, *handle_type, *raiser;
  if (!PyArg_ParseTuple(args, "O!O!OO", &PyDict_Type, &functions, &PyType_Type, &ndarray_type, &handle_type, &raiser))
    return NULL;
  enum { kFunctions = 7 };
  void* fns[kFunctions];
  static const char* const names[kFunctions] = {"MXImperativeInvokeEx", "MXNDArrayWaitToRead",
                                                "MXNDArrayCreateEx64",  "MXNDArrayGetShapeEx64",
                                                "MXNDArrayGetDType",    "MXNDArraySyncCopyToCPU",
                                                "MXNDArrayFree"};
  for (int i = 0; i < kFunctions; ++i)
    if (read_function(functions, names[i], &fns[i]) != 0) return NULL;
  const Py_ssize_t handle_offset = slot_offset((PyTypeObject*)ndarray_type, "handle");
  if (handle_offset < 0) return NULL;
  const Py_ssize_t writable_offset = slot_offset((PyTypeObject*)ndarray_type, "writable");
  if (writable_offset < 0) return NULL;
  g.invoke = (InvokeFn)fns[0];
  g.wait_to_read = (HandleFn)fns[1];
  g.create = (CreateFn)fns[2];
  g.shape = (ShapeFn)fns[3];
  g.dtype = (DTypeFn)fns[4];
  g.copy_to_cpu = (CopyToCPUFn)fns[5];
  g.free_array = (HandleFn)fns[6];
  Py_INCREF(ndarray_type);
  Py_XSETREF(g.ndarray_type, (PyTypeObject*)ndarray_type);
  Py_INCREF(handle_type);
  Py_XSETREF(g.handle_type, handle_type);
  Py_INCREF(raiser);
  Py_XSETREF(g.raise_last_error, raiser);
  g.handle_offset = handle_offset;
  g.writable_offset = writable_offset;
  /* The direct read of c_void_p values is used only if it reads a known value right. */
  ctypes_layout_checked = 0;
  PyObject* probe_value = PyLong_FromVoidPtr((void*)(uintptr_t)0x5A17C0DEu);
  PyObject* probe = probe_value ? PyObject_CallOneArg(handle_type, probe_value) : NULL;
  Py_XDECREF(probe_value);
  if (!probe) return NULL;
  ctypes_layout_checked = ((PyTypeObject*)handle_type)->tp_basicsize >= (Py_ssize_t)(sizeof(PyObject) + sizeof(char*)) &&
                          ctypes_value_direct(probe) == (void*)(uintptr_t)0x5A17C0DEu;
  Py_DECREF(probe);
  g.ready = 1;
  Py_RETURN_NONE;
}

static PyObject* fp_direct_handles(PyObject* self, PyObject* unused) { return PyBool_FromLong(ctypes_layout_checked); }

static PyMethodDef methods[] = {
    {"init", fp_init, METH_VARARGS, "init(functions, NDArray, NDArrayHandle, raise_last_error)"},
    {"direct_handles", fp_direct_handles, METH_NOARGS, "Whether c_void_p values are read without the buffer protocol."},
    {"init_ops", fp_init_ops, METH_VARARGS, "init_ops(_Null, param_str, default_ctx, fallback_on): what OpFunction calls need."},
    {"invoke", (PyCFunction)(void (*)(void))fp_invoke, METH_FASTCALL,
     "invoke(op_handle, inputs, keys, vals, out=None): MXImperativeInvokeEx."},
    {"binary", (PyCFunction)(void (*)(void))fp_binary, METH_FASTCALL,
     "binary(lhs, rhs, array_op, scalar_op, reversed_scalar_op, out): array/scalar arithmetic."},
    {"new_array", (PyCFunction)(void (*)(void))fp_new_array, METH_FASTCALL,
     "new_array(shape, dev_type, dev_id, delay_alloc, dtype_flag) -> NDArray"},
    {"free", fp_free, METH_O, "free(ndarray): frees its library array once (NDArray.__del__)."},
    {"shape", fp_shape, METH_O, "shape(handle) -> tuple or None"},
    {"dtype_flag", fp_dtype_flag, METH_O, "dtype_flag(handle) -> int"},
    {"wait_to_read", fp_wait_to_read, METH_O, "wait_to_read(handle)"},
    {"copy_to", (PyCFunction)(void (*)(void))fp_copy_to, METH_FASTCALL, "copy_to(handle, buffer, count)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastpath",
                                    "Compiled fast path of the mxnet package (see python/mxnet/_fast.py).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__fastpath(void) {
  str_handle = PyUnicode_InternFromString("handle");
  opfn.str_out = PyUnicode_InternFromString("out");
  opfn.str_name = PyUnicode_InternFromString("name");
  opfn.str_ctx = PyUnicode_InternFromString("ctx");
  opfn.str_dtype = PyUnicode_InternFromString("dtype");
  opfn.str_none = PyUnicode_InternFromString("None");
  if (!str_handle || !opfn.str_out || !opfn.str_name || !opfn.str_ctx || !opfn.str_dtype || !opfn.str_none) return NULL;
  if (PyType_Ready(&OpFunctionType) < 0 || PyType_Ready(&BinaryMethodType) < 0) return NULL;
  PyObject* m = PyModule_Create(&module);
  if (!m) return NULL;
  Py_INCREF(&OpFunctionType);
  Py_INCREF(&BinaryMethodType);
  if (PyModule_AddObject(m, "OpFunction", (PyObject*)&OpFunctionType) < 0 ||
      PyModule_AddObject(m, "BinaryMethod", (PyObject*)&BinaryMethodType) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
