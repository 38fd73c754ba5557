//===- TestPasses.h - Kiln's test-only passes -------------------*- C++ -*-===//
//
// Passes and pipelines that exist for the tests alone (as upstream's
// test/lib): kiln-opt registers them, kiln-e2e runs them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_LIB_TESTPASSES_H
#define KILN_TEST_LIB_TESTPASSES_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::kiln::test {

/// kiln -> LLVM dialect for the host, with the loop nests mapped onto
/// blocks and threads as the GPU pipeline maps them and the grid run as
/// serial loops (kiln-test-gpu-mapping-on-cpu-pipeline).
void buildGpuMappingOnCpuPipeline(OpPassManager &pm);

/// Registers the test passes and pipelines with the pass registry.
void registerTestPasses();

} // namespace mlir::kiln::test

#endif
