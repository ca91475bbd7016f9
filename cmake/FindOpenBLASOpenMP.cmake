# The OpenMP build of OpenBLAS (Debian: libopenblas0-openmp), linked by full path so the
# runtime never picks up the pthread build, whose threads fight OpenMP's on small machines.
# Provides OpenBLASOpenMP::OpenBLASOpenMP and OpenBLASOpenMP_LIBRARY_DIR.
find_library(OpenBLASOpenMP_LIBRARY NAMES libopenblas.so.0 openblas
  PATHS /usr/lib/x86_64-linux-gnu/openblas-openmp /usr/lib/aarch64-linux-gnu/openblas-openmp
        /usr/lib64/openblas-openmp /usr/lib/openblas-openmp
  NO_DEFAULT_PATH)
find_path(OpenBLASOpenMP_INCLUDE_DIR cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-openmp /usr/include/x86_64-linux-gnu/openblas-pthread
        /usr/include/aarch64-linux-gnu/openblas-pthread /usr/include/openblas /usr/include)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OpenBLASOpenMP REQUIRED_VARS OpenBLASOpenMP_LIBRARY OpenBLASOpenMP_INCLUDE_DIR)
if(OpenBLASOpenMP_FOUND)
  get_filename_component(OpenBLASOpenMP_LIBRARY_DIR "${OpenBLASOpenMP_LIBRARY}" DIRECTORY)
  if(NOT TARGET OpenBLASOpenMP::OpenBLASOpenMP)
    add_library(OpenBLASOpenMP::OpenBLASOpenMP UNKNOWN IMPORTED)
    set_target_properties(OpenBLASOpenMP::OpenBLASOpenMP PROPERTIES
      IMPORTED_LOCATION "${OpenBLASOpenMP_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${OpenBLASOpenMP_INCLUDE_DIR}")
  endif()
endif()
