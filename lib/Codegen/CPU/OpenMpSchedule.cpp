//===- OpenMpSchedule.cpp - Load-balanced scheduling of OpenMP loops ------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNOPENMPSCHEDULE
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-openmp-schedule"

using namespace mlir;

namespace {

struct KilnOpenMpSchedulePass
    : mlir::kiln::impl::KilnOpenMpScheduleBase<KilnOpenMpSchedulePass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    getOperation()->walk([](omp::WsloopOp loop) {
      if (loop.getScheduleKind())
        return;
      auto nest = dyn_cast_or_null<omp::LoopNestOp>(loop.getWrappedLoop());
      // A loop over row tiles (a step above 1) has few, heavy iterations:
      // one at a time. A loop over elements has millions of light ones:
      // guided chunks, large first.
      bool tiles = nest && llvm::any_of(nest.getLoopSteps(), [](Value step) {
                     std::optional<int64_t> c = getConstantIntValue(step);
                     return !c || *c > 1;
                   });
      loop.setScheduleKind(tiles ? omp::ClauseScheduleKind::Dynamic
                                 : omp::ClauseScheduleKind::Guided);
      if (tiles) {
        OpBuilder b(loop);
        loop.getScheduleChunkMutable().assign(
            arith::ConstantIntOp::create(b, loop.getLoc(), b.getI32Type(), 4));
      }
    });
  }
};

} // namespace
