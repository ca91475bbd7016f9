# Finds every dependency an enabled option needs. A missing one stops the configure step
# with the Debian package to install.

macro(mxnet_require found package what)
  if(NOT ${found})
    message(FATAL_ERROR "${what} was not found. Install it with: apt-get install ${package}")
  endif()
endmacro()

find_package(Threads REQUIRED)

find_package(dmlc CONFIG QUIET)
mxnet_require(dmlc_FOUND libdmlc-dev "dmlc-core (needed for parameter parsing and RecordIO)")

if(USE_ONEDNN)
  find_package(oneDNN)
  mxnet_require(oneDNN_FOUND libdnnl-dev "oneDNN (USE_ONEDNN=ON)")
endif()

if(USE_OPENBLAS)
  find_package(OpenBLASOpenMP)
  mxnet_require(OpenBLASOpenMP_FOUND "libopenblas-dev libopenblas0-openmp" "The OpenMP build of OpenBLAS (USE_OPENBLAS=ON)")
endif()

if(USE_OPENMP)
  find_package(OpenMP)
  mxnet_require(OpenMP_CXX_FOUND "libomp-dev (or a compiler with OpenMP)" "OpenMP (USE_OPENMP=ON)")
else()
  # Parallel loops are compiled out, but the thread-count API (omp_get_max_threads,
  # omp_set_num_threads) is still called for accounting; link the runtime for it. It never
  # starts a thread team, so sanitizer builds (TSAN) stay free of uninstrumented threads.
  find_package(OpenMP QUIET)
endif()

if(USE_OPENCV)
  # Images: OpenCV core + imgproc (matrices, resize, warps, colour conversion), libjpeg-turbo's
  # TurboJPEG API for JPEG and libpng for PNG (docs/image.md says why not opencv_imgcodecs).
  # Debian's OpenCV ships no OpenCVConfig.cmake for the split -dev packages; find the two
  # modules directly.
  find_path(OpenCV_INCLUDE_DIR opencv2/core.hpp PATHS /usr/include/opencv4 PATH_SUFFIXES opencv4)
  find_library(OpenCV_CORE_LIBRARY opencv_core)
  find_library(OpenCV_IMGPROC_LIBRARY opencv_imgproc)
  if(OpenCV_INCLUDE_DIR AND OpenCV_CORE_LIBRARY AND OpenCV_IMGPROC_LIBRARY)
    set(OpenCV_FOUND TRUE)
  endif()
  mxnet_require(OpenCV_FOUND "libopencv-core-dev libopencv-imgproc-dev"
                "OpenCV core and imgproc (USE_OPENCV=ON; configure with -DUSE_OPENCV=OFF to build without images)")
  find_path(TurboJPEG_INCLUDE_DIR turbojpeg.h)
  find_library(TurboJPEG_LIBRARY turbojpeg)
  if(TurboJPEG_INCLUDE_DIR AND TurboJPEG_LIBRARY)
    set(TurboJPEG_FOUND TRUE)
  endif()
  mxnet_require(TurboJPEG_FOUND libturbojpeg0-dev "libjpeg-turbo's TurboJPEG API (USE_OPENCV=ON: JPEG decoding)")
  find_package(PNG QUIET)
  mxnet_require(PNG_FOUND libpng-dev "libpng (USE_OPENCV=ON: PNG decoding)")
  if(NOT TARGET OpenCV::image)
    add_library(OpenCV::image INTERFACE IMPORTED)
    set_target_properties(OpenCV::image PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${OpenCV_INCLUDE_DIR};${TurboJPEG_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${OpenCV_IMGPROC_LIBRARY};${OpenCV_CORE_LIBRARY};${TurboJPEG_LIBRARY};PNG::PNG")
  endif()
endif()

if(USE_CUDNN OR USE_NCCL)
  if(NOT USE_CUDA)
    message(FATAL_ERROR "USE_CUDNN and USE_NCCL need USE_CUDA=ON")
  endif()
endif()

if(USE_CUDA)
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  mxnet_require(CMAKE_CUDA_COMPILER "the CUDA toolkit (nvidia-cuda-toolkit or NVIDIA's cuda-toolkit)" "nvcc (USE_CUDA=ON)")
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(CMAKE_CUDA_STANDARD 17)
  # Element functors are constexpr-free host code shared with the CPU kernels; lambdas carry
  # per-call parameters into device code.
  string(APPEND CMAKE_CUDA_FLAGS " --expt-relaxed-constexpr --extended-lambda -Xcudafe --diag_suppress=esa_on_defaulted_function_ignored -diag-suppress 186")
endif()
if(USE_CUDNN)
  find_package(CUDNN)
  mxnet_require(CUDNN_FOUND "libcudnn9-dev (cuDNN 9)" "cuDNN (USE_CUDNN=ON)")
endif()
if(USE_NCCL)
  find_package(NCCL)
  mxnet_require(NCCL_FOUND "libnccl-dev" "NCCL (USE_NCCL=ON)")
endif()
# MPI is optional even when asked for: the distributed kvstore's plugin (libmxnet_mpi.so) is
# then not built and creating a dist kvstore says what to install.
if(USE_MPI)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    find_program(MXNET_MPIRUN NAMES mpirun mpiexec HINTS ${MPI_C_COMPILER_DIR})
  else()
    message(STATUS "MPI not found: building without libmxnet_mpi.so (the distributed kvstore); "
                   "apt-get install libopenmpi-dev openmpi-bin to enable it")
    set(USE_MPI OFF)
  endif()
endif()

# Dependencies are PUBLIC on the object library so whatever links its objects (the shared
# library, tests, tools) gets them too.
function(mxnet_link_dependencies target)
  target_link_libraries(${target} PUBLIC Threads::Threads dmlc::dmlc ${CMAKE_DL_LIBS})
  if(USE_ONEDNN)
    target_link_libraries(${target} PUBLIC oneDNN::oneDNN)
  endif()
  if(USE_OPENBLAS)
    target_link_libraries(${target} PUBLIC OpenBLASOpenMP::OpenBLASOpenMP)
  endif()
  if(USE_OPENMP)
    target_link_libraries(${target} PUBLIC OpenMP::OpenMP_CXX)
  elseif(OpenMP_CXX_LIBRARIES)
    target_link_libraries(${target} PUBLIC ${OpenMP_CXX_LIBRARIES})
  endif()
  if(USE_OPENCV)
    target_link_libraries(${target} PUBLIC OpenCV::image)
  endif()
  if(USE_CUDA)
    # Link-only: the CUDA include folders reach the .cu files through nvcc and the files under
    # cuda/ through their own property (CMakeLists.txt), so the other objects compile exactly as
    # in a CPU build. The static runtime finds the driver with dlopen at the first GPU call:
    # the library loads on machines without one.
    target_link_libraries(${target} PUBLIC $<LINK_ONLY:CUDA::cudart_static> $<LINK_ONLY:CUDA::cublas>)
  endif()
  if(USE_CUDNN)
    target_link_libraries(${target} PUBLIC $<LINK_ONLY:CUDNN::CUDNN>)
  endif()
  if(USE_NCCL)
    target_link_libraries(${target} PUBLIC $<LINK_ONLY:NCCL::NCCL>)
  endif()
endfunction()

# Every binary that links the runtime must find the OpenMP build of OpenBLAS before the
# system's default (pthread) alternative of the same soname.
function(mxnet_set_runtime_paths target)
  if(USE_OPENBLAS)
    set_property(TARGET ${target} APPEND PROPERTY BUILD_RPATH "${OpenBLASOpenMP_LIBRARY_DIR}")
    set_property(TARGET ${target} APPEND PROPERTY INSTALL_RPATH "${OpenBLASOpenMP_LIBRARY_DIR}")
  endif()
endfunction()
