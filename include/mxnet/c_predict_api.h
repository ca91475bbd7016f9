/*!
 * \file c_predict_api.h
 * \brief The C predict API of MXNet 1.x: load a symbol JSON and a .params blob, run
 *        inference, read outputs. Self-contained (usable without c_api.h; both may be
 *        included). Every function returns 0 on success and -1 on failure, with the
 *        message available from MXGetLastError() on the same thread.
 *
 *        A predictor is used by one thread at a time; give each thread its own (for
 *        instance from MXPredCreateMultiThread, which shares the weights between them).
 */
#ifndef MXNET_C_PREDICT_API_H_
#define MXNET_C_PREDICT_API_H_

#include <stdint.h>

#ifdef __cplusplus
#include <cstdbool>
#define MXNET_EXTERN_C extern "C"
#else
#include <stdbool.h>
#define MXNET_EXTERN_C
#endif

#define MXNET_DLL MXNET_EXTERN_C __attribute__((visibility("default")))

/* Repeating an identical typedef is valid C11 and C++, so c_api.h may be included too. */
typedef uint32_t mx_uint;
typedef float mx_float;
typedef void* NDArrayHandle;
/*! \brief An inference executor with its own input and output arrays. */
typedef void* PredictorHandle;
/*! \brief Arrays parsed from an NDArray list blob (for instance a mean image .nd file). */
typedef void* NDListHandle;
/*!
 * \brief Called with each op output's name, its array and the user's handle. The callback owns
 *        the NDArrayHandle (a new reference): release it with MXNDArrayFree from c_api.h.
 */
typedef void (*PredMonitorCallback)(const char* name, NDArrayHandle arr, void* callback_handle);

MXNET_DLL const char* MXGetLastError();

/*!
 * \brief Creates a predictor.
 * \param symbol_json_str the symbol JSON text (NUL-terminated)
 * \param param_bytes, param_size the bytes of a .params file; keys "arg:NAME" and "aux:NAME"
 *        (other keys are ignored); may be empty (size 0)
 * \param dev_type 1 for cpu, 2 for gpu; dev_id the device ordinal
 * \param num_input_nodes, input_keys the names of the inputs (arguments of the symbol)
 * \param input_shape_indptr, input_shape_data shape of input i is
 *        input_shape_data[input_shape_indptr[i] .. input_shape_indptr[i + 1])
 * \param out the new predictor
 *
 * Arguments that are neither inputs nor in the params (labels, say) are zero-filled.
 */
MXNET_DLL int MXPredCreate(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type,
                           int dev_id, mx_uint num_input_nodes, const char** input_keys,
                           const mx_uint* input_shape_indptr, const mx_uint* input_shape_data, PredictorHandle* out);

/*! \brief As MXPredCreate, with dtypes (mshadow type flags) for some arguments; others default to float32. */
MXNET_DLL int MXPredCreateEx(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type,
                             int dev_id, const mx_uint num_input_nodes, const char** input_keys,
                             const mx_uint* input_shape_indptr, const mx_uint* input_shape_data,
                             const mx_uint num_provided_arg_dtypes, const char** provided_arg_dtype_names,
                             const int* provided_arg_dtypes, PredictorHandle* out);

/*!
 * \brief As MXPredCreate, but the outputs are the internal outputs named by output_keys:
 *        "fc1_output", or the node name "fc1" for its first output, or a variable's name.
 */
MXNET_DLL int MXPredCreatePartialOut(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type,
                                     int dev_id, mx_uint num_input_nodes, const char** input_keys,
                                     const mx_uint* input_shape_indptr, const mx_uint* input_shape_data,
                                     mx_uint num_output_nodes, const char** output_keys, PredictorHandle* out);

/*!
 * \brief Creates num_threads predictors into out[0 .. num_threads) that share one read-only
 *        copy of the weights; each has its own inputs, outputs and intermediate memory, so
 *        each may run on its own thread concurrently with the others.
 */
MXNET_DLL int MXPredCreateMultiThread(const char* symbol_json_str, const void* param_bytes, int param_size,
                                      int dev_type, int dev_id, mx_uint num_input_nodes, const char** input_keys,
                                      const mx_uint* input_shape_indptr, const mx_uint* input_shape_data,
                                      int num_threads, PredictorHandle* out);

/*!
 * \brief A new predictor for new input shapes, sharing handle's weights (whose shapes must
 *        not change). handle stays valid and independent; free both.
 */
MXNET_DLL int MXPredReshape(mx_uint num_input_nodes, const char** input_keys, const mx_uint* input_shape_indptr,
                            const mx_uint* input_shape_data, PredictorHandle handle, PredictorHandle* out);

/*!
 * \brief Shape of output `index`: *shape_data points to *shape_ndim dims, owned by the
 *        predictor and valid until it is freed.
 */
MXNET_DLL int MXPredGetOutputShape(PredictorHandle handle, mx_uint index, mx_uint** shape_data, mx_uint* shape_ndim);
/*! \brief The mshadow type flag of output `index` (0 float32, 1 float64, 2 float16, ...). */
MXNET_DLL int MXPredGetOutputType(PredictorHandle handle, mx_uint out_index, int* out_dtype);

/*! \brief Copies size floats (exactly the input's element count) into input `key`. */
MXNET_DLL int MXPredSetInput(PredictorHandle handle, const char* key, const mx_float* data, mx_uint size);
/*! \brief Runs the whole graph (asynchronously; MXPredGetOutput waits for it). */
MXNET_DLL int MXPredForward(PredictorHandle handle);
/*!
 * \brief Runs node `step` of the forward graph only (variables are steps that do nothing).
 *        *step_left is how many steps remain; call with step = 0, 1, ... until it is 0.
 */
MXNET_DLL int MXPredPartialForward(PredictorHandle handle, int step, int* step_left);
/*! \brief Waits for output `index` and copies it, as floats, into data (size: its element count). */
MXNET_DLL int MXPredGetOutput(PredictorHandle handle, mx_uint index, mx_float* data, mx_uint size);
/*! \brief Calls callback for every op output during later forwards (inputs too with monitor_all). */
MXNET_DLL int MXPredSetMonitorCallback(PredictorHandle handle, PredMonitorCallback callback, void* callback_handle,
                                       bool monitor_all);
MXNET_DLL int MXPredFree(PredictorHandle handle);

/*!
 * \brief Parses an NDArray list blob (the bytes of a file written by mx.nd.save).
 * \param out_length the number of arrays
 */
MXNET_DLL int MXNDListCreate(const char* nd_file_bytes, int nd_file_size, NDListHandle* out, mx_uint* out_length);
/*!
 * \brief Array `index` of the list: its key ("" when the file has no names), its data as
 *        floats and its shape. The pointers are owned by the list, valid until MXNDListFree.
 */
MXNET_DLL int MXNDListGet(NDListHandle handle, mx_uint index, const char** out_key, const mx_float** out_data,
                          const mx_uint** out_shape, mx_uint* out_ndim);
MXNET_DLL int MXNDListFree(NDListHandle handle);

#endif  // MXNET_C_PREDICT_API_H_
