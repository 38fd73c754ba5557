# The CMake package: `cmake --install` gives a relocatable prefix (bin/kiln,
# bin/kiln-opt, include/kiln, the runtime, lib/cmake/Kiln), and the build
# tree works as a package too (lib/cmake/Kiln in it). find_package(Kiln)
# then provides Kiln::runtime, Kiln::kiln, Kiln::omp and kiln_compile().
include(CMakePackageConfigHelpers)

set(KILN_CMAKE_DIR lib/cmake/Kiln)
install(TARGETS kiln_runtime EXPORT KilnTargets
  LIBRARY DESTINATION lib ARCHIVE DESTINATION lib RUNTIME DESTINATION bin)
install(TARGETS kiln kiln-opt EXPORT KilnTargets RUNTIME DESTINATION bin)
# The model-facing headers (the compiler's own stay in the source tree).
file(GLOB KILN_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/kiln/*.h)
install(FILES ${KILN_PUBLIC_HEADERS} ${PROJECT_BINARY_DIR}/include/kiln/version.h
  DESTINATION include/kiln)
install(EXPORT KilnTargets NAMESPACE Kiln:: DESTINATION ${KILN_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/KilnConfig.install.cmake INSTALL_DESTINATION ${KILN_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/${KILN_CMAKE_DIR}/KilnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KilnConfig.install.cmake
  DESTINATION ${KILN_CMAKE_DIR} RENAME KilnConfig.cmake)
install(FILES ${PROJECT_BINARY_DIR}/${KILN_CMAKE_DIR}/KilnConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/KilnCompile.cmake DESTINATION ${KILN_CMAKE_DIR})

# The build tree as a package.
export(EXPORT KilnTargets NAMESPACE Kiln::
  FILE ${PROJECT_BINARY_DIR}/${KILN_CMAKE_DIR}/KilnTargets.cmake)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/${KILN_CMAKE_DIR}/KilnConfig.cmake
  INSTALL_DESTINATION ${PROJECT_BINARY_DIR}/${KILN_CMAKE_DIR}
  INSTALL_PREFIX ${PROJECT_BINARY_DIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/KilnCompile.cmake
  ${PROJECT_BINARY_DIR}/${KILN_CMAKE_DIR}/KilnCompile.cmake COPYONLY)

# Installed binaries find libMLIR/libclang-cpp where they were linked, and
# the runtime beside them.
set_target_properties(kiln kiln-opt PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH ON INSTALL_RPATH "$ORIGIN/../lib")
