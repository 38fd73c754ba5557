# OpenBLAS for the eager runtime's gemm: sets KILN_BLAS_LIBRARIES and
# KILN_BLAS_INCLUDE_DIRS (where cblas.h lives).
set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)
find_path(KILN_BLAS_INCLUDE_DIRS cblas.h
  PATHS /usr/include/x86_64-linux-gnu /usr/include/openblas /usr/include
  REQUIRED)
set(KILN_BLAS_LIBRARIES ${BLAS_LIBRARIES})
