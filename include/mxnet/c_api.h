/*!
 * \file c_api.h
 * \brief MXNet's C API. Every function returns 0 on success and -1 on failure, with the
 *        message available from MXGetLastError() on the same thread.
 */
#ifndef MXNET_C_API_H_
#define MXNET_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <cstdbool>
#define MXNET_EXTERN_C extern "C"
#else
#include <stdbool.h>
#define MXNET_EXTERN_C
#endif

#define MXNET_DLL MXNET_EXTERN_C __attribute__((visibility("default")))

typedef uint32_t mx_uint;
typedef float mx_float;
typedef int64_t dim_t;

/*! \brief A build feature and whether this library has it (MXLibInfoFeatures). */
struct LibFeature {
  const char* name;
  bool enabled;
};

/*! \brief Fields per variable returned by MXListEnvVars, in this order. */
#define MXNET_ENV_VAR_FIELDS 11
/* name, type, value, default, allowed, section, acted_on ("1"/"0"), changeable ("1"/"0"),
   is_set ("1"/"0"), doc, old names still accepted (comma-separated) */

/* ---- errors, version, features ---- */
MXNET_DLL const char* MXGetLastError();
MXNET_DLL const char* NNGetLastError();
MXNET_DLL int MXGetVersion(int* out);
MXNET_DLL int MXLibInfoFeatures(const struct LibFeature** lib_features, size_t* size);
MXNET_DLL int MXLibInfoCompiledWithCXX11ABI(int* result);
/*! \brief Key/value facts about this runtime (versions, threads, BLAS); our addition. */
MXNET_DLL int MXGetRuntimeInfo(mx_uint* out_size, const char*** out_keys, const char*** out_values);

/* ---- process-wide settings ---- */
MXNET_DLL int MXSetFlushDenorms(bool value, bool* prev_state);
MXNET_DLL int MXSetNumOMPThreads(int thread_num);
MXNET_DLL int MXNotifyShutdown();
MXNET_DLL int MXGetGPUCount(int* out);

/* ---- environment variables ---- */
/*! \brief Effective value of a registered variable, or the process environment's; NULL if unset. */
MXNET_DLL int MXGetEnv(const char* name, const char** value);
/*! \brief Validates and sets a variable; value NULL restores its default and unsets it. */
MXNET_DLL int MXSetEnv(const char* name, const char* value);
/*! \brief Every registered variable, MXNET_ENV_VAR_FIELDS strings each; our addition. */
MXNET_DLL int MXListEnvVars(mx_uint* out_size, const char*** out_array);

/* ---- storage ---- */
/*! \brief Gives the cached (free) memory of one device back to it (Context.empty_cache()). */
MXNET_DLL int MXStorageEmptyCache(int dev_type, int dev_id);
/*! \brief Free and total bytes of a GPU; fails naming the device when it does not exist. */
MXNET_DLL int MXGetGPUMemoryInformation64(int dev, uint64_t* free_mem, uint64_t* total_mem);
/*! \brief Deprecated int version of MXGetGPUMemoryInformation64 (bytes, clamped to INT_MAX). */
MXNET_DLL int MXGetGPUMemoryInformation(int dev, int* free_mem, int* total_mem);
/*!
 * \brief Storage statistics of one device (zeros if it never allocated); our addition. Fills
 *        8 values: bytes_in_use, bytes_cached, peak_bytes_in_use, bytes_requested_peak,
 *        alloc_count, pool_hits, pool_misses, free_count.
 */
MXNET_DLL int MXStorageGetStats(int dev_type, int dev_id, uint64_t* out_stats);

/* ---- engine ---- */
/*! \brief Points to a Context {int32 dev_type; int32 dev_id} (MXNet's layout). */
typedef void* ContextHandle;
/*! \brief Points to an int holding an FnProperty value (kNormal = 0 ... kNoSkip = 7); NULL = kNormal. */
typedef void* EngineFnPropertyHandle;
/*! \brief Points to an array of engine variable handles. */
typedef void* EngineVarHandle;
/*! \brief sync_func(RunContext* rctx, void* param) */
typedef void (*EngineSyncFunc)(void*, void*);
/*! \brief async_func(RunContext* rctx, CallbackOnComplete* on_complete, void* param) */
typedef void (*EngineAsyncFunc)(void*, void*, void*);
typedef void (*EngineFuncParamDeleter)(void*);
/*! \brief Sets the calling thread's imperative bulk size; *prev_bulk_size gets the previous one. */
MXNET_DLL int MXEngineSetBulkSize(int bulk_size, int* prev_bulk_size);
/*! \brief Pushes an async function; deleter(func_param) runs once the function is done with it. */
MXNET_DLL int MXEnginePushAsync(EngineAsyncFunc async_func, void* func_param, EngineFuncParamDeleter deleter,
                                ContextHandle ctx_handle, EngineVarHandle const_vars_handle, int num_const_vars,
                                EngineVarHandle mutable_vars_handle, int num_mutable_vars,
                                EngineFnPropertyHandle prop_handle, int priority, const char* opr_name, bool wait);
MXNET_DLL int MXEnginePushSync(EngineSyncFunc sync_func, void* func_param, EngineFuncParamDeleter deleter,
                               ContextHandle ctx_handle, EngineVarHandle const_vars_handle, int num_const_vars,
                               EngineVarHandle mutable_vars_handle, int num_mutable_vars,
                               EngineFnPropertyHandle prop_handle, int priority, const char* opr_name);
/* ---- end engine ---- */

/* ---- profiler ---- */
/*! \brief Opaque profiler object: a domain, task, frame, event or counter. */
typedef void* ProfileHandle;
/*! \brief Opaque kvstore (repeating an identical typedef is valid C11 and C++). */
typedef void* KVStoreHandle;
/*! \brief Settings as key/value strings (keys: profile_all, profile_symbolic, profile_imperative,
 *         profile_memory, profile_api, filename, continuous_dump, dump_period, aggregate_stats,
 *         profile_process, gpu_memory_profile_filename_prefix). */
MXNET_DLL int MXSetProfilerConfig(int num_params, const char* const* keys, const char* const* vals);
/*! \brief As MXSetProfilerConfig; kv may be NULL (profile_process=server needs kvstore servers). */
MXNET_DLL int MXSetProcessProfilerConfig(int num_params, const char* const* keys, const char* const* vals,
                                         KVStoreHandle kv);
/*! \brief 0 stop, 1 run. */
MXNET_DLL int MXSetProfilerState(int state);
/*! \brief profile_process: 0 worker (this process), 1 server. */
MXNET_DLL int MXSetProcessProfilerState(int state, int profile_process, KVStoreHandle kv);
/*! \brief Writes (appends) the trace; finished != 0 closes the JSON. Fails if never run. */
MXNET_DLL int MXDumpProfile(int finished);
MXNET_DLL int MXDumpProcessProfile(int finished, int profile_process, KVStoreHandle kv);
/*! \brief Aggregate statistics as a table sorted by total time, descending. */
MXNET_DLL int MXAggregateProfileStatsPrint(const char** out_str, int reset);
/*! \brief format 0 table / 1 json; sort_by 0 total, 1 avg, 2 min, 3 max, 4 count. */
MXNET_DLL int MXAggregateProfileStatsPrintEx(const char** out_str, int reset, int format, int sort_by,
                                             int ascending);
MXNET_DLL int MXProfilePause(int paused);
MXNET_DLL int MXProcessProfilePause(int paused, int profile_process, KVStoreHandle kv);
MXNET_DLL int MXProfileCreateDomain(const char* domain, ProfileHandle* out);
MXNET_DLL int MXProfileCreateTask(ProfileHandle domain, const char* task_name, ProfileHandle* out);
MXNET_DLL int MXProfileCreateFrame(ProfileHandle domain, const char* frame_name, ProfileHandle* out);
MXNET_DLL int MXProfileCreateEvent(const char* event_name, ProfileHandle* out);
MXNET_DLL int MXProfileCreateCounter(ProfileHandle domain, const char* counter_name, ProfileHandle* out);
MXNET_DLL int MXProfileDestroyHandle(ProfileHandle frame_handle);
MXNET_DLL int MXProfileDurationStart(ProfileHandle duration_handle);
MXNET_DLL int MXProfileDurationStop(ProfileHandle duration_handle);
MXNET_DLL int MXProfileSetCounter(ProfileHandle counter_handle, uint64_t value);
MXNET_DLL int MXProfileAdjustCounter(ProfileHandle counter_handle, int64_t value);
/*! \brief scope: global, process, thread, task or marker. */
MXNET_DLL int MXProfileSetMarker(ProfileHandle domain, const char* instant_marker_name, const char* scope);
/*! \brief Sets the calling thread's profiler scope (name prefix for its operators); [2.0]. */
MXNET_DLL int MXSetProfilerScope(const char* scope);
/* ---- end profiler ---- */

/* ---- NDArray (src/c_api/c_api_ndarray.cc) ---- */
typedef void* NDArrayHandle;
typedef const void* AtomicSymbolCreator;
typedef void* OpHandle;
typedef void* SymbolHandle;
typedef void* ExecutorHandle;
MXNET_DLL int MXNDArrayCreateNone(NDArrayHandle* out);
MXNET_DLL int MXNDArrayCreate(const mx_uint* shape, mx_uint ndim, int dev_type, int dev_id, int delay_alloc,
                              NDArrayHandle* out);
MXNET_DLL int MXNDArrayCreateEx(const mx_uint* shape, mx_uint ndim, int dev_type, int dev_id, int delay_alloc,
                                int dtype, NDArrayHandle* out);
MXNET_DLL int MXNDArrayCreateEx64(const int64_t* shape, int ndim, int dev_type, int dev_id, int delay_alloc,
                                  int dtype, NDArrayHandle* out);
MXNET_DLL int MXNDArrayFree(NDArrayHandle handle);
MXNET_DLL int MXNDArrayGetShape(NDArrayHandle handle, mx_uint* out_dim, const mx_uint** out_pdata);
MXNET_DLL int MXNDArrayGetShapeEx(NDArrayHandle handle, int* out_dim, const int** out_pdata);
MXNET_DLL int MXNDArrayGetShapeEx64(NDArrayHandle handle, int* out_dim, const int64_t** out_pdata);
MXNET_DLL int MXNDArrayGetDType(NDArrayHandle handle, int* out_dtype);
MXNET_DLL int MXNDArrayGetContext(NDArrayHandle handle, int* out_dev_type, int* out_dev_id);
MXNET_DLL int MXNDArrayGetStorageType(NDArrayHandle handle, int* out_storage_type);
MXNET_DLL int MXNDArrayGetData(NDArrayHandle handle, void** out_pdata);
/*! \brief Writes pushed to the array's memory so far (counted when pushed, not when run). */
MXNET_DLL int MXNDArrayGetVersion(NDArrayHandle handle, uint64_t* out_version);
/*! \brief MXNDArrayGetVersion of num arrays at once (one call for a group checked together). */
MXNET_DLL int MXNDArrayGetVersions(uint32_t num, const NDArrayHandle* handles, uint64_t* out_versions);
MXNET_DLL int MXNDArraySyncCopyFromCPU(NDArrayHandle handle, const void* data, size_t size);
MXNET_DLL int MXNDArraySyncCopyToCPU(NDArrayHandle handle, void* data, size_t size);
MXNET_DLL int MXNDArraySyncCopyFromNDArray(NDArrayHandle handle_dst, const NDArrayHandle handle_src, const int i);
/*!
 * \brief Queues a copy of src's elements into dst (same size; any contexts, host or GPU, and any
 *        dtypes): returns at once, later readers of dst wait for it. Not recorded by autograd.
 */
MXNET_DLL int MXNDArrayCopyFromTo(NDArrayHandle handle_src, NDArrayHandle handle_dst);
MXNET_DLL int MXNDArrayWaitToRead(NDArrayHandle handle);
MXNET_DLL int MXNDArrayWaitToWrite(NDArrayHandle handle);
MXNET_DLL int MXNDArrayWaitAll();
MXNET_DLL int MXNDArraySlice(NDArrayHandle handle, mx_uint slice_begin, mx_uint slice_end, NDArrayHandle* out);
MXNET_DLL int MXNDArraySlice64(NDArrayHandle handle, int64_t slice_begin, int64_t slice_end, NDArrayHandle* out);
MXNET_DLL int MXNDArrayAt(NDArrayHandle handle, mx_uint idx, NDArrayHandle* out);
MXNET_DLL int MXNDArrayAt64(NDArrayHandle handle, int64_t idx, NDArrayHandle* out);
MXNET_DLL int MXNDArrayReshape(NDArrayHandle handle, int ndim, int* dims, NDArrayHandle* out);
MXNET_DLL int MXNDArrayReshape64(NDArrayHandle handle, int ndim, dim_t* dims, bool reverse, NDArrayHandle* out);
MXNET_DLL int MXNDArrayDetach(NDArrayHandle handle, NDArrayHandle* out);
MXNET_DLL int MXNDArrayGetGrad(NDArrayHandle handle, NDArrayHandle* out);
MXNET_DLL int MXNDArraySetGradState(NDArrayHandle handle, int state);
MXNET_DLL int MXNDArrayGetGradState(NDArrayHandle handle, int* out);
MXNET_DLL int MXShallowCopyNDArray(NDArrayHandle src, NDArrayHandle* out);
MXNET_DLL int MXNDArraySave(const char* fname, mx_uint num_args, NDArrayHandle* args, const char** keys);
MXNET_DLL int MXNDArrayLegacySave(const char* fname, mx_uint num_args, NDArrayHandle* args, const char** keys);
MXNET_DLL int MXNDArrayLoad(const char* fname, mx_uint* out_size, NDArrayHandle** out_arr, mx_uint* out_name_size,
                            const char*** out_names);
MXNET_DLL int MXNDArrayLoadFromBuffer(const void* ndarray_buffer, size_t size, mx_uint* out_size,
                                      NDArrayHandle** out_arr, mx_uint* out_name_size, const char*** out_names);
MXNET_DLL int MXNDArraySaveRawBytes(NDArrayHandle handle, size_t* out_size, const char** out_buf);
MXNET_DLL int MXNDArrayLoadFromRawBytes(const void* buf, size_t size, NDArrayHandle* out);
MXNET_DLL int MXIsNumpyShape(int* curr);
MXNET_DLL int MXSetIsNumpyShape(int is_np_shape, int* prev);

/* ---- kernel lists (src/c_api/c_api_kernels.cc) ---- */
/*! \brief An op's implementations on a device (1 cpu, 2 gpu) in dispatch order, with their tags ("a,b"). */
MXNET_DLL int MXKernelListImplementations(const char* op_name, int dev_type, mx_uint* out_size,
                                          const char*** out_names, const char*** out_tags);
/*! \brief Replaces the force / exclude rules (MXNET_KERNEL_FORCE / MXNET_KERNEL_EXCLUDE syntax). */
MXNET_DLL int MXKernelSetRules(const char* force, const char* exclude);
MXNET_DLL int MXKernelGetRules(const char** force, const char** exclude);
/*! \brief Records (op, implementation) of every kernel run until MXKernelTraceStop returns them. */
MXNET_DLL int MXKernelTraceStart();
MXNET_DLL int MXKernelTraceStop(mx_uint* out_size, const char*** out_ops, const char*** out_impls);

/* ---- operators and imperative invoke (src/c_api/c_api_imperative.cc) ---- */
MXNET_DLL int MXListAllOpNames(mx_uint* out_size, const char*** out_array);
MXNET_DLL int NNGetOpHandle(const char* op_name, OpHandle* op_out);
MXNET_DLL int NNListAllOpNames(mx_uint* out_size, const char*** out_array);
MXNET_DLL int MXSymbolListAtomicSymbolCreators(mx_uint* out_size, AtomicSymbolCreator** out_array);
MXNET_DLL int MXSymbolGetAtomicSymbolName(AtomicSymbolCreator creator, const char** name);
MXNET_DLL int MXSymbolGetAtomicSymbolInfo(AtomicSymbolCreator creator, const char** name, const char** description,
                                          mx_uint* num_args, const char*** arg_names, const char*** arg_type_infos,
                                          const char*** arg_descriptions, const char** key_var_num_args,
                                          const char** return_type);
MXNET_DLL int MXImperativeInvoke(AtomicSymbolCreator creator, int num_inputs, NDArrayHandle* inputs,
                                 int* num_outputs, NDArrayHandle** outputs, int num_params, const char** param_keys,
                                 const char** param_vals);
MXNET_DLL int MXImperativeInvokeEx(AtomicSymbolCreator creator, int num_inputs, NDArrayHandle* inputs,
                                   int* num_outputs, NDArrayHandle** outputs, int num_params,
                                   const char** param_keys, const char** param_vals, const int** out_stypes);

/* ---- autograd (src/c_api/c_api_autograd.cc) ---- */
/*! \brief Callbacks of autograd.Function: [0] backward, [1] delete. */
struct MXCallbackList {
  int num_callbacks;
  int (**callbacks)(void);
  void** contexts;
};
typedef int (*MXCustomFunctionBwdFunc)(int num_ograds, int num_igrads, void** ptrs, const int* reqs,
                                       const int is_train, void* state);
typedef int (*MXCustomFunctionDelFunc)(void* state);
MXNET_DLL int MXAutogradSetIsRecording(int is_recording, int* prev);
MXNET_DLL int MXAutogradSetIsTraining(int is_training, int* prev);
MXNET_DLL int MXAutogradIsRecording(bool* curr);
MXNET_DLL int MXAutogradIsTraining(bool* curr);
MXNET_DLL int MXAutogradMarkVariables(mx_uint num_var, NDArrayHandle* var_handles, mx_uint* reqs_array,
                                      NDArrayHandle* grad_handles);
MXNET_DLL int MXAutogradComputeGradient(mx_uint num_output, NDArrayHandle* output_handles);
MXNET_DLL int MXAutogradBackward(mx_uint num_output, NDArrayHandle* output_handles, NDArrayHandle* ograd_handles,
                                 int retain_graph);
MXNET_DLL int MXAutogradBackwardEx(mx_uint num_output, NDArrayHandle* output_handles, NDArrayHandle* ograd_handles,
                                   mx_uint num_variables, NDArrayHandle* var_handles, int retain_graph,
                                   int create_graph, int is_train, NDArrayHandle** grad_handles,
                                   int** grad_stypes);
/*! \brief The recorded computation that produced an NDArray (autograd.get_symbol), as a new Symbol. */
MXNET_DLL int MXAutogradGetSymbol(NDArrayHandle handle, SymbolHandle* out);
MXNET_DLL int MXCustomFunctionRecord(int num_inputs, NDArrayHandle* inputs, int num_outputs, NDArrayHandle* outputs,
                                     struct MXCallbackList* callbacks);

/* ---- symbols (src/c_api/c_api_symbol.cc): MXNet 1.x signatures ---- */
MXNET_DLL int MXSymbolCreateVariable(const char* name, SymbolHandle* out);
MXNET_DLL int MXSymbolCreateAtomicSymbol(AtomicSymbolCreator creator, mx_uint num_param, const char** keys,
                                         const char** vals, SymbolHandle* out);
MXNET_DLL int MXSymbolCompose(SymbolHandle sym, const char* name, mx_uint num_args, const char** keys,
                              SymbolHandle* args);
MXNET_DLL int NNSymbolCompose(SymbolHandle sym, const char* name, mx_uint num_args, const char** keys,
                              SymbolHandle* args);
MXNET_DLL int MXSymbolCreateGroup(mx_uint num_symbols, SymbolHandle* symbols, SymbolHandle* out);
MXNET_DLL int MXSymbolGetOutput(SymbolHandle symbol, mx_uint index, SymbolHandle* out);
MXNET_DLL int MXSymbolGetNumOutputs(SymbolHandle symbol, mx_uint* output_count);
MXNET_DLL int MXSymbolGetInternals(SymbolHandle symbol, SymbolHandle* out);
MXNET_DLL int MXSymbolGetChildren(SymbolHandle symbol, SymbolHandle* out);
MXNET_DLL int MXSymbolCopy(SymbolHandle symbol, SymbolHandle* out);
MXNET_DLL int MXShallowCopySymbol(SymbolHandle src, SymbolHandle* out);
MXNET_DLL int MXSymbolFree(SymbolHandle symbol);
MXNET_DLL int NNSymbolFree(SymbolHandle symbol);
MXNET_DLL int MXSymbolPrint(SymbolHandle symbol, const char** out_str);
MXNET_DLL int MXSymbolGetName(SymbolHandle symbol, const char** out, int* success);
MXNET_DLL int MXSymbolGetAttr(SymbolHandle symbol, const char* key, const char** out, int* success);
MXNET_DLL int MXSymbolSetAttr(SymbolHandle symbol, const char* key, const char* value);
/*! \brief Recursive: "node$key", value pairs flattened (2 * out_size strings). */
MXNET_DLL int MXSymbolListAttr(SymbolHandle symbol, mx_uint* out_size, const char*** out);
/*! \brief The head node's own attrs: key, value pairs flattened. */
MXNET_DLL int MXSymbolListAttrShallow(SymbolHandle symbol, mx_uint* out_size, const char*** out);
MXNET_DLL int MXSymbolListArguments(SymbolHandle symbol, mx_uint* out_size, const char*** out_str_array);
MXNET_DLL int MXSymbolListOutputs(SymbolHandle symbol, mx_uint* out_size, const char*** out_str_array);
MXNET_DLL int MXSymbolListAuxiliaryStates(SymbolHandle symbol, mx_uint* out_size, const char*** out_str_array);
MXNET_DLL int NNSymbolListInputNames(SymbolHandle symbol, int option, mx_uint* out_size, const char*** out_str_array);
MXNET_DLL int MXSymbolCreateFromJSON(const char* json, SymbolHandle* out);
MXNET_DLL int MXSymbolCreateFromFile(const char* fname, SymbolHandle* out);
MXNET_DLL int MXSymbolSaveToJSON(SymbolHandle symbol, const char** out_json);
MXNET_DLL int MXSymbolSaveToFile(SymbolHandle symbol, const char* fname);
/*! \brief Gradient symbol of the outputs w.r.t. the named arguments. */
MXNET_DLL int MXSymbolGrad(SymbolHandle sym, mx_uint num_wrt, const char** wrt, SymbolHandle* out);
/*! Shapes: CSR-style known shapes (keys NULL = positional over list_arguments). The uint32
 *  form reports unknown dims as 0; Ex / Ex64 report ndim -1 for an unknown shape and -1 for an
 *  unknown dim. The Partial forms succeed with unknowns left; the others fail naming them. */
MXNET_DLL int MXSymbolInferShape(SymbolHandle sym, mx_uint num_args, const char** keys, const mx_uint* arg_ind_ptr,
                                 const mx_uint* arg_shape_data, mx_uint* in_shape_size,
                                 const mx_uint** in_shape_ndim, const mx_uint*** in_shape_data,
                                 mx_uint* out_shape_size, const mx_uint** out_shape_ndim,
                                 const mx_uint*** out_shape_data, mx_uint* aux_shape_size,
                                 const mx_uint** aux_shape_ndim, const mx_uint*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapePartial(SymbolHandle sym, mx_uint num_args, const char** keys,
                                        const mx_uint* arg_ind_ptr, const mx_uint* arg_shape_data,
                                        mx_uint* in_shape_size, const mx_uint** in_shape_ndim,
                                        const mx_uint*** in_shape_data, mx_uint* out_shape_size,
                                        const mx_uint** out_shape_ndim, const mx_uint*** out_shape_data,
                                        mx_uint* aux_shape_size, const mx_uint** aux_shape_ndim,
                                        const mx_uint*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapeEx(SymbolHandle sym, mx_uint num_args, const char** keys, const mx_uint* arg_ind_ptr,
                                   const int* arg_shape_data, mx_uint* in_shape_size, const int** in_shape_ndim,
                                   const int*** in_shape_data, mx_uint* out_shape_size, const int** out_shape_ndim,
                                   const int*** out_shape_data, mx_uint* aux_shape_size, const int** aux_shape_ndim,
                                   const int*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapePartialEx(SymbolHandle sym, mx_uint num_args, const char** keys,
                                          const mx_uint* arg_ind_ptr, const int* arg_shape_data,
                                          mx_uint* in_shape_size, const int** in_shape_ndim,
                                          const int*** in_shape_data, mx_uint* out_shape_size,
                                          const int** out_shape_ndim, const int*** out_shape_data,
                                          mx_uint* aux_shape_size, const int** aux_shape_ndim,
                                          const int*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapeEx64(SymbolHandle sym, mx_uint num_args, const char** keys,
                                     const int64_t* arg_ind_ptr, const int64_t* arg_shape_data,
                                     size_t* in_shape_size, const int** in_shape_ndim,
                                     const int64_t*** in_shape_data, size_t* out_shape_size,
                                     const int** out_shape_ndim, const int64_t*** out_shape_data,
                                     size_t* aux_shape_size, const int** aux_shape_ndim,
                                     const int64_t*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapePartialEx64(SymbolHandle sym, mx_uint num_args, const char** keys,
                                            const int64_t* arg_ind_ptr, const int64_t* arg_shape_data,
                                            size_t* in_shape_size, const int** in_shape_ndim,
                                            const int64_t*** in_shape_data, size_t* out_shape_size,
                                            const int** out_shape_ndim, const int64_t*** out_shape_data,
                                            size_t* aux_shape_size, const int** aux_shape_ndim,
                                            const int64_t*** aux_shape_data, int* complete);
/*! \brief dtypes (-1 unknown); keys NULL = positional over list_arguments. */
MXNET_DLL int MXSymbolInferType(SymbolHandle sym, mx_uint num_args, const char** keys, const int* arg_type_data,
                                mx_uint* in_type_size, const int** in_type_data, mx_uint* out_type_size,
                                const int** out_type_data, mx_uint* aux_type_size, const int** aux_type_data,
                                int* complete);
MXNET_DLL int MXSymbolInferTypePartial(SymbolHandle sym, mx_uint num_args, const char** keys,
                                       const int* arg_type_data, mx_uint* in_type_size, const int** in_type_data,
                                       mx_uint* out_type_size, const int** out_type_data, mx_uint* aux_type_size,
                                       const int** aux_type_data, int* complete);

/* ---- executor (src/c_api/c_api_executor.cc): MXNet 1.x signatures ---- */
typedef void (*ExecutorMonitorCallback)(const char* name, NDArrayHandle arr, void* handle);
/*! grad_req_type codes: 0 null, 1 write, 3 add. arg_grad_store entries may be NULL (req null). */
MXNET_DLL int MXExecutorBindEX(SymbolHandle symbol_handle, int dev_type, int dev_id, mx_uint num_map_keys,
                               const char** map_keys, const int* map_dev_types, const int* map_dev_ids, mx_uint len,
                               NDArrayHandle* in_args, NDArrayHandle* arg_grad_store, mx_uint* grad_req_type,
                               mx_uint aux_states_len, NDArrayHandle* aux_states, ExecutorHandle shared_exec,
                               ExecutorHandle* out);
/*! Shapes given CSR-style by name (int dims); grad reqs by name ("null", "write", "add"), or a
 *  single entry with a NULL name for all; dtypes and stypes by name. Arrays returned follow
 *  list_arguments / list_auxiliary_states; arg_grads entries are NULL where the req is null. */
MXNET_DLL int MXExecutorSimpleBindEx(
    SymbolHandle symbol_handle, int dev_type, int dev_id, const mx_uint num_g2c_keys, const char** g2c_keys,
    const int* g2c_dev_types, const int* g2c_dev_ids, const mx_uint provided_grad_req_list_len,
    const char** provided_grad_req_names, const char** provided_grad_req_types,
    const mx_uint num_provided_arg_shapes, const char** provided_arg_shape_names,
    const int* provided_arg_shape_data, const mx_uint* provided_arg_shape_idx,
    const mx_uint num_provided_arg_dtypes, const char** provided_arg_dtype_names, const int* provided_arg_dtypes,
    const mx_uint num_provided_arg_stypes, const char** provided_arg_stype_names, const int* provided_arg_stypes,
    const mx_uint num_shared_arg_names, const char** shared_arg_name_list, int* shared_buffer_len,
    const char** shared_buffer_name_list, NDArrayHandle* shared_buffer_handle_list,
    const char*** updated_shared_buffer_name_list, NDArrayHandle** updated_shared_buffer_handle_list,
    mx_uint* num_in_args, NDArrayHandle** in_args, NDArrayHandle** arg_grads, mx_uint* num_aux_states,
    NDArrayHandle** aux_states, ExecutorHandle shared_exec_handle, ExecutorHandle* out);
MXNET_DLL int MXExecutorForward(ExecutorHandle handle, int is_train);
MXNET_DLL int MXExecutorBackward(ExecutorHandle handle, mx_uint len, NDArrayHandle* head_grads);
MXNET_DLL int MXExecutorBackwardEx(ExecutorHandle handle, mx_uint len, NDArrayHandle* head_grads, int is_train);
/*! \brief The output arrays (fixed buffers, overwritten by the next forward); new handles each call. */
MXNET_DLL int MXExecutorOutputs(ExecutorHandle handle, mx_uint* out_size, NDArrayHandle** out);
MXNET_DLL int MXExecutorFree(ExecutorHandle handle);
/*! \brief The bound graph after the passes, with the planned memory ("Total N MB allocated"). */
MXNET_DLL int MXExecutorPrint(ExecutorHandle handle, const char** out_str);
MXNET_DLL int MXExecutorGetOptimizedSymbol(ExecutorHandle handle, SymbolHandle* out);
MXNET_DLL int MXExecutorSetMonitorCallback(ExecutorHandle handle, ExecutorMonitorCallback callback,
                                           void* callback_handle);
MXNET_DLL int MXExecutorSetMonitorCallbackEX(ExecutorHandle handle, ExecutorMonitorCallback callback,
                                             void* callback_handle, bool monitor_all);
/*! New executor for new input shapes sharing this one's memory (same conventions as SimpleBindEx). */
MXNET_DLL int MXExecutorReshapeEx(int partial_shaping, int allow_up_sizing, int dev_type, int dev_id,
                                  mx_uint num_map_keys, const char** map_keys, const int* map_dev_types,
                                  const int* map_dev_ids, const mx_uint num_provided_arg_shapes,
                                  const char** provided_arg_shape_names, const int* provided_arg_shape_data,
                                  const mx_uint* provided_arg_shape_idx, mx_uint* num_in_args,
                                  NDArrayHandle** in_args, NDArrayHandle** arg_grads, mx_uint* num_aux_states,
                                  NDArrayHandle** aux_states, ExecutorHandle shared_exec, ExecutorHandle* out);
/*! \brief Memory the plan of this executor holds: planned (shared, in-place) and the bytes every
 *  entry would take on its own; counts of entries written in place and sharing a block. */
MXNET_DLL int MXExecutorGetMemoryPlan(ExecutorHandle handle, uint64_t* planned_bytes, uint64_t* unshared_bytes,
                                      mx_uint* num_inplace, mx_uint* num_shared);

/* ---- CachedOp (src/c_api/c_api_cached_op.cc): a symbol run as one call ---- */
typedef void* CachedOpHandle;
MXNET_DLL int MXCreateCachedOp(SymbolHandle handle, CachedOpHandle* out);
/*! \brief Flags (strings): static_alloc, static_shape, inline_limit, forward_bulk_size,
 *  backward_bulk_size, data_indices, param_indices, backend. Calls from several threads are safe. */
MXNET_DLL int MXCreateCachedOpEx(SymbolHandle handle, int num_flags, const char** keys, const char** vals,
                                 CachedOpHandle* out);
/*! \brief inputs in the symbol's list_inputs order; outputs as MXImperativeInvoke (none given:
 *  new handles in thread-local storage). Recorded as one node when autograd is recording. */
MXNET_DLL int MXInvokeCachedOp(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs, int* num_outputs,
                               NDArrayHandle** outputs);
MXNET_DLL int MXInvokeCachedOpEx(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs, int* num_outputs,
                                 NDArrayHandle** outputs, const int** out_stypes);
MXNET_DLL int MXFreeCachedOp(CachedOpHandle handle);
/*! \brief Plans held (per input signature) and fused ops in the plan of the latest call. */
MXNET_DLL int MXCachedOpGetInfo(CachedOpHandle handle, mx_uint* num_plans, int* num_fused);

/* ---- images (src/c_api/c_api_image.cc, OpenCV); our additions. A decoded image's shape
   depends on the bytes, so decoding is a call returning a new array rather than an operator.
   Without OpenCV in the build every call fails saying so. ---- */
/*!
 * \brief Decodes an encoded image (JPEG, PNG, ...) into a new CPU uint8 NDArray (H, W, C).
 *        flag: 0 gray (C = 1), 1 colour (C = 3), -1 as stored (C as in the file; a 16-bit
 *        image comes back as int32, NDArray having no uint16). to_rgb: colour channels in
 *        RGB(A) order instead of OpenCV's BGR(A).
 */
MXNET_DLL int MXImageDecode(const void* buf, size_t size, int flag, int to_rgb, NDArrayHandle* out);
/*! \brief MXImageDecode of the file `filename`; a missing file fails naming it. */
MXNET_DLL int MXImageRead(const char* filename, int flag, int to_rgb, NDArrayHandle* out);
/*!
 * \brief Encodes a C-contiguous uint8 (H, W, C) image at `data` (C = 1, 3 (BGR) or 4 (BGRA);
 *        dtype is an mxnet type code and must be uint8) as `ext` (".jpg", ".png", ...). quality:
 *        JPEG quality 0-100 or PNG compression 0-9. The bytes stay valid until the next call on
 *        this thread.
 */
MXNET_DLL int MXImageEncode(const void* data, int height, int width, int channels, int dtype, const char* ext,
                            int quality, const char** out_buf, size_t* out_size);
/*! \brief OpenCV's worker threads in this process (0 = off, single-threaded). A process forked
 *  from this one starts with MXNET_MP_OPENCV_NUM_THREADS. */
MXNET_DLL int MXImageSetNumThreads(int num_threads);
MXNET_DLL int MXImageGetNumThreads(int* out);

/* ---- RecordIO (src/c_api/c_api_recordio.cc): .rec files in the dmlc framing ---- */
/*! \brief A RecordIO writer or reader (repeating an identical typedef is valid C11 and C++). */
typedef void* RecordIOHandle;
/*! \brief Creates (truncates) the local file `uri` (a path, or file://path). */
MXNET_DLL int MXRecordIOWriterCreate(const char* uri, RecordIOHandle* out);
/*! \brief Flushes, closes and frees; a failed flush is reported (the handle is freed anyway). */
MXNET_DLL int MXRecordIOWriterFree(RecordIOHandle handle);
/*! \brief Appends one record of `size` bytes (size < 2^29). */
MXNET_DLL int MXRecordIOWriterWriteRecord(RecordIOHandle handle, const char* buf, size_t size);
/*! \brief Byte offset the next record will start at (the offset an .idx file stores). */
MXNET_DLL int MXRecordIOWriterTell(RecordIOHandle handle, size_t* pos);
MXNET_DLL int MXRecordIOReaderCreate(const char* uri, RecordIOHandle* out);
MXNET_DLL int MXRecordIOReaderFree(RecordIOHandle handle);
/*! \brief The next record, valid until the next call on this handle; buf NULL and size 0 at the
 *  end of the file (an empty record has a non-NULL buf). A corrupt record fails naming the
 *  file, the record and its byte offset. */
MXNET_DLL int MXRecordIOReaderReadRecord(RecordIOHandle handle, const char** buf, size_t* size);
/*! \brief Moves to a record start: a multiple of 4, not past the end of the file. */
MXNET_DLL int MXRecordIOReaderSeek(RecordIOHandle handle, size_t pos);
MXNET_DLL int MXRecordIOReaderTell(RecordIOHandle handle, size_t* pos);

/* ---- data iterators (src/c_api/c_api_dataiter.cc): the registered C iterators of mx.io ---- */
/*! \brief A registered iterator (an entry of MXListDataIters). */
typedef void* DataIterCreator;
/*! \brief An iterator instance (repeating an identical typedef is valid C11 and C++). */
typedef void* DataIterHandle;
/*! \brief Every registered iterator, sorted by name; the array lives in thread-local storage. */
MXNET_DLL int MXListDataIters(mx_uint* out_size, DataIterCreator** out_array);
/*! \brief Name, description and arguments (name, dmlc-style type string, description). */
MXNET_DLL int MXDataIterGetIterInfo(DataIterCreator creator, const char** name, const char** description,
                                    mx_uint* num_args, const char*** arg_names, const char*** arg_type_infos,
                                    const char*** arg_descriptions);
/*! \brief Creates and configures an iterator from string parameters; an unknown key, a value that
 *  does not parse and a missing required key fail naming the key and the iterator. */
MXNET_DLL int MXDataIterCreateIter(DataIterCreator creator, mx_uint num_param, const char** keys,
                                   const char** vals, DataIterHandle* out);
MXNET_DLL int MXDataIterFree(DataIterHandle handle);
/*! \brief *out = 1 when a batch was read, 0 at the end of the epoch. */
MXNET_DLL int MXDataIterNext(DataIterHandle handle, int* out);
MXNET_DLL int MXDataIterBeforeFirst(DataIterHandle handle);
/*! \brief New handles (owned by the caller) to the current batch's first data / label array. A
 *  batch's arrays are never written again by the iterator. */
MXNET_DLL int MXDataIterGetData(DataIterHandle handle, NDArrayHandle* out);
MXNET_DLL int MXDataIterGetLabel(DataIterHandle handle, NDArrayHandle* out);
/*! \brief The current batch's per-sample indices (NULL and 0 when it has none); valid until
 *  the next MXDataIterNext / MXDataIterBeforeFirst on this handle. */
MXNET_DLL int MXDataIterGetIndex(DataIterHandle handle, uint64_t** out_index, uint64_t* out_size);
/*! \brief Trailing samples of the current batch that are filler. */
MXNET_DLL int MXDataIterGetPadNum(DataIterHandle handle, int* pad);

/* ---- CSR batches (src/c_api/c_api_dataiter.cc; this runtime's own, not in MXNet 1.x) ----
 * NDArrays are dense here, so an iterator that yields CSR matrices (LibSVMIter) gives their
 * three parts instead of one sparse NDArray; MXDataIterGetData / GetLabel then fail with a
 * TypeError pointing here. */
/*! \brief which: 0 the current batch's first data array, 1 its first label array. When it is
 *  CSR: *is_csr = 1, out = new handles (owned by the caller) to its values (nnz,), int64 column
 *  indices (nnz,) and int64 row starts (rows+1,), and *rows x *cols is its dense shape.
 *  Otherwise *is_csr = 0, out[0..2] = NULL, *rows = *cols = 0. */
MXNET_DLL int MXDataIterGetCSRData(DataIterHandle handle, int which, NDArrayHandle out[3], int64_t* rows,
                                   int64_t* cols, int* is_csr);

/* ---- random (src/c_api/c_api_random.cc) ---- */
MXNET_DLL int MXRandomSeed(int seed);
MXNET_DLL int MXRandomSeedContext(int seed, int dev_type, int dev_id);

/* ---- kvstore (src/c_api/c_api_kvstore.cc) ---- */
/*! \brief recv and local are new handles the callee owns (MXNDArrayFree); update local in place. */
typedef void(MXKVStoreUpdater)(int key, NDArrayHandle recv, NDArrayHandle local, void* handle);
typedef void(MXKVStoreStrUpdater)(const char* key, NDArrayHandle recv, NDArrayHandle local, void* handle);
/*! \brief Server command callback (a dist server process; unused by this runtime's stores). */
typedef void(MXKVStoreServerController)(int head, const char* body, void* controller_handle);
/*! \brief type: local, device, nccl, dist_sync, dist_device_sync, dist_async, horovod (lower-cased). */
MXNET_DLL int MXKVStoreCreate(const char* type, KVStoreHandle* out);
MXNET_DLL int MXKVStoreFree(KVStoreHandle handle);
MXNET_DLL int MXKVStoreInit(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals);
MXNET_DLL int MXKVStoreInitEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals);
MXNET_DLL int MXKVStorePush(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals, int priority);
MXNET_DLL int MXKVStorePushEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals,
                              int priority);
MXNET_DLL int MXKVStorePull(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals, int priority);
MXNET_DLL int MXKVStorePullEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals,
                              int priority);
MXNET_DLL int MXKVStorePullWithSparse(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals,
                                      int priority, bool ignore_sparse);
MXNET_DLL int MXKVStorePullWithSparseEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals,
                                        int priority, bool ignore_sparse);
/*! \brief Dense arrays: every out receives the stored rows listed in row_ids (int, 1-D), other rows 0. */
MXNET_DLL int MXKVStorePullRowSparse(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals,
                                     const NDArrayHandle* row_ids, int priority);
MXNET_DLL int MXKVStorePullRowSparseEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals,
                                       const NDArrayHandle* row_ids, int priority);
MXNET_DLL int MXKVStorePushPull(KVStoreHandle handle, uint32_t vnum, const int* vkeys, uint32_t onum,
                                const int* okeys, NDArrayHandle* vals, NDArrayHandle* outs, int priority);
MXNET_DLL int MXKVStorePushPullEx(KVStoreHandle handle, uint32_t vnum, const char** vkeys, uint32_t onum,
                                  const char** okeys, NDArrayHandle* vals, NDArrayHandle* outs, int priority);
MXNET_DLL int MXKVStoreBroadcast(KVStoreHandle handle, uint32_t vnum, const int* vkeys, uint32_t onum,
                                 const int* okeys, NDArrayHandle* vals, NDArrayHandle* outs, int priority);
MXNET_DLL int MXKVStoreBroadcastEx(KVStoreHandle handle, uint32_t vnum, const char** vkeys, uint32_t onum,
                                   const char** okeys, NDArrayHandle* vals, NDArrayHandle* outs, int priority);
MXNET_DLL int MXKVStoreSetUpdater(KVStoreHandle handle, MXKVStoreUpdater updater, void* updater_handle);
MXNET_DLL int MXKVStoreSetUpdaterEx(KVStoreHandle handle, MXKVStoreUpdater updater, MXKVStoreStrUpdater str_updater,
                                    void* updater_handle);
/*! \brief keys/vals: e.g. {"type": "2bit", "threshold": "0.5"}; only for device/dist types. */
MXNET_DLL int MXKVStoreSetGradientCompression(KVStoreHandle handle, uint32_t num_params, const char** keys,
                                              const char** vals);
MXNET_DLL int MXKVStoreGetType(KVStoreHandle handle, const char** type);
MXNET_DLL int MXKVStoreGetRank(KVStoreHandle handle, int* ret);
MXNET_DLL int MXKVStoreGetGroupSize(KVStoreHandle handle, int* ret);
/*! \brief Blocks until every rank reached it (local: returns at once). */
MXNET_DLL int MXKVStoreBarrier(KVStoreHandle handle);
MXNET_DLL int MXKVStoreSetBarrierBeforeExit(KVStoreHandle handle, const int barrier_before_exit);
/*! \brief Roles from DMLC_ROLE (unset: worker). */
MXNET_DLL int MXKVStoreIsWorkerNode(int* ret);
MXNET_DLL int MXKVStoreIsServerNode(int* ret);
MXNET_DLL int MXKVStoreIsSchedulerNode(int* ret);
/*! \brief This runtime has no server processes: returns at once. */
MXNET_DLL int MXKVStoreRunServer(KVStoreHandle handle, MXKVStoreServerController controller, void* controller_handle);
MXNET_DLL int MXKVStoreSendCommmandToServers(KVStoreHandle handle, int cmd_id, const char* cmd_body);
/*! \brief Ranks known to have failed (0 while healthy). */
MXNET_DLL int MXKVStoreGetNumDeadNode(KVStoreHandle handle, const int node_id, int* number, const int timeout_sec);

#endif  // MXNET_C_API_H_
