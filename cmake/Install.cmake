# Installs the library, public headers, a CMake package (find_package(mxnet) ->
# mxnet::mxnet) and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS mxnet EXPORT mxnetTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(USE_MPI)
  # Beside libmxnet.so, where the library looks for it.
  install(TARGETS mxnet_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(FILES include/mxnet/c_api.h include/mxnet/c_predict_api.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mxnet)
install(EXPORT mxnetTargets NAMESPACE mxnet:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mxnet)

configure_package_config_file(cmake/templates/mxnetConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/mxnetConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mxnet)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mxnetConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mxnetConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/mxnetConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mxnet)

configure_file(cmake/templates/mxnet.pc.in ${CMAKE_CURRENT_BINARY_DIR}/mxnet.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mxnet.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
