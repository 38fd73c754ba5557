# LLVM, MLIR and Clang 22 (Debian's llvm-22-dev, libmlir-22-dev,
# libclang-22-dev) for the compiler, set up as mlir/examples/standalone does.
# Kiln links the shared libMLIR.so and libclang-cpp.so: links take a second
# and one libLLVM.so is loaded.
find_package(MLIR REQUIRED CONFIG HINTS /usr/lib/llvm-22/lib/cmake/mlir)
find_package(Clang REQUIRED CONFIG HINTS /usr/lib/llvm-22/lib/cmake/clang)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "Kiln needs LLVM 22, found ${LLVM_PACKAGE_VERSION} in ${LLVM_DIR}")
endif()
message(STATUS "Kiln: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

set(LLVM_RUNTIME_OUTPUT_INTDIR ${PROJECT_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${PROJECT_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${PROJECT_BINARY_DIR})
set(MLIR_LINK_MLIR_DYLIB ON)
list(APPEND CMAKE_MODULE_PATH ${MLIR_CMAKE_DIR} ${LLVM_CMAKE_DIR})

include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS}
                    ${CLANG_INCLUDE_DIRS})
separate_arguments(KILN_LLVM_DEFINITIONS NATIVE_COMMAND ${LLVM_DEFINITIONS})
add_definitions(${KILN_LLVM_DEFINITIONS})

# Tools that lit and the tests use, from the same LLVM.
find_program(KILN_LIT NAMES lit llvm-lit PATHS ${LLVM_TOOLS_BINARY_DIR}
  /usr/lib/llvm-22/bin NO_DEFAULT_PATH REQUIRED)
find_program(KILN_FILECHECK FileCheck PATHS ${LLVM_TOOLS_BINARY_DIR}
  NO_DEFAULT_PATH REQUIRED)

# kiln_add_compiler_library(name SOURCES ... [DEPENDS tablegen targets]
#                           [MLIR_LIBS MLIRIR ...] [LIBS other targets])
# A static library of the compiler with LLVM's compile flags. MLIR_LIBS are
# named as upstream names them; they resolve to the shared libMLIR.so
# (MLIR_LINK_MLIR_DYLIB), so that no static MLIR library is ever mixed in.
function(kiln_add_compiler_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;MLIR_LIBS;LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  llvm_update_compile_flags(${name})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_MLIR_LIBS)
    mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  endif()
  target_link_libraries(${name} PUBLIC LLVM ${ARG_LIBS})
endfunction()

# The OpenMP runtime compiled kernels call (libomp, from LLVM).
find_library(KILN_LIBOMP omp PATHS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)
