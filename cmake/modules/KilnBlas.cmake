# OpenBLAS for the eager runtime's gemm: sets KILN_BLAS_LIBRARIES and
# KILN_BLAS_INCLUDE_DIRS (where cblas.h lives).
set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)
find_path(KILN_BLAS_INCLUDE_DIRS cblas.h
  PATHS /usr/include/x86_64-linux-gnu /usr/include/openblas /usr/include
  REQUIRED)
set(KILN_BLAS_LIBRARIES ${BLAS_LIBRARIES})

# oneDNN for bfloat16 products on AMX and AVX512-BF16 (Debian's
# libdnnl-dev): KILN_DNNL_LIBRARIES.
find_path(KILN_DNNL_INCLUDE_DIR dnnl.hpp REQUIRED)
find_library(KILN_DNNL_LIBRARIES dnnl REQUIRED)
