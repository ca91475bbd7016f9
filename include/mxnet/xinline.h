/*!
 * \file xinline.h
 * \brief MXNET_XINLINE marks small functions that CPU and CUDA kernels share (element functors,
 *        half/bfloat16 conversions): host-and-device under nvcc, plain inline elsewhere.
 */
#ifndef MXNET_XINLINE_H_
#define MXNET_XINLINE_H_

#ifdef __CUDACC__
#define MXNET_XINLINE __host__ __device__ inline
#else
#define MXNET_XINLINE inline
#endif

#endif  // MXNET_XINLINE_H_
