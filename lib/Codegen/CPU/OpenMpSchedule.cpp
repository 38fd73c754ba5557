//===- OpenMpSchedule.cpp - Load-balanced scheduling of OpenMP loops ------===//
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Debug.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNOPENMPSCHEDULE
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-openmp-schedule"

using namespace mlir;

namespace {

/// Grabs of a counter per thread and loop: the last grab leaves the other
/// threads at most a sixteenth of a thread's share to wait for.
constexpr int64_t kGrabsPerThread = 16;

/// `omp_get_num_threads`, declared in the symbol table above `from`.
func::FuncOp threadCount(Operation *from) {
  Operation *table = SymbolTable::getNearestSymbolTable(from);
  constexpr const char *kName = "omp_get_num_threads";
  if (auto fn = SymbolTable::lookupSymbolIn(table, kName))
    return cast<func::FuncOp>(fn);
  OpBuilder b = OpBuilder::atBlockBegin(&table->getRegion(0).front());
  auto fn = func::FuncOp::create(b, from->getLoc(), kName,
                                 b.getFunctionType({}, {b.getI32Type()}));
  fn.setPrivate();
  return fn;
}

/// Replaces `loop` (an omp.wsloop directly in an omp.parallel region, over
/// one induction variable, with no clause) by a loop in which each thread
/// takes the next chunk of iterations from a shared counter (one atomic
/// add) until none are left, then waits at a barrier where the wsloop
/// would have. Fails, leaving the loop alone, where the loop is of another
/// form.
LogicalResult selfSchedule(omp::WsloopOp loop) {
  auto parallel = dyn_cast<omp::ParallelOp>(loop->getParentOp());
  auto nest = dyn_cast_or_null<omp::LoopNestOp>(loop.getWrappedLoop());
  auto fn = loop->getParentOfType<func::FuncOp>();
  if (!parallel || !nest || !fn || loop->getNumOperands() != 0 ||
      loop.getOrderAttr() || nest.getIVs().size() != 1 ||
      nest.getLoopInclusive() || !nest.getRegion().hasOneBlock())
    return failure();
  Location loc = loop.getLoc();
  // The counter: one i64 in the function's frame, zeroed before each run
  // of the parallel region.
  OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
  Type i64 = b.getI64Type();
  Value counter =
      memref::AllocaOp::create(b, loc, MemRefType::get({}, i64)).getResult();
  b.setInsertionPoint(parallel);
  memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, i64, 0),
                          counter);

  b.setInsertionPoint(loop);
  Value lb = nest.getLoopLowerBounds()[0], ub = nest.getLoopUpperBounds()[0],
        step = nest.getLoopSteps()[0];
  Type index = b.getIndexType();
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // Iterations, and a chunk of them per grab: kGrabsPerThread per thread.
  Value n = arith::MaxSIOp::create(
      b, loc,
      arith::CeilDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb),
                                 step),
      idx(0));
  Value threads = arith::IndexCastOp::create(
      b, loc, index,
      func::CallOp::create(b, loc, threadCount(fn), ValueRange{}).getResult(0));
  Value chunk = arith::MaxSIOp::create(
      b, loc,
      arith::CeilDivSIOp::create(
          b, loc, n,
          arith::MulIOp::create(b, loc, threads, idx(kGrabsPerThread))),
      idx(1));
  Value chunk64 = arith::IndexCastOp::create(b, loc, i64, chunk);
  Value n64 = arith::IndexCastOp::create(b, loc, i64, n);

  // Blocks, as the region's other loops are by now (an scf.for could not
  // hold the body's alloca scopes once memref-to-llvm lowers them):
  //   ^grab:  start = counter.fetch_add(chunk); start < n ? ^chunk : ^rest
  //   ^chunk: end = min(start + chunk, n); ^iter(start)
  //   ^iter(j): j < end ? ^body : ^grab
  //   ^body:  the wsloop's body at lb + j * step; ^iter(j + 1)
  Block *entry = loop->getBlock();
  Block *rest = entry->splitBlock(loop);
  Region *region = entry->getParent();
  Region::iterator at = rest->getIterator();
  Block *grab = b.createBlock(region, at);
  Block *chunkBlock = b.createBlock(region, at, {i64}, {loc});
  Block *iter = b.createBlock(region, at, {index}, {loc});
  Block *body = b.createBlock(region, at);
  b.setInsertionPointToEnd(entry);
  cf::BranchOp::create(b, loc, grab);

  b.setInsertionPointToEnd(grab);
  Value start64 = memref::AtomicRMWOp::create(
      b, loc, arith::AtomicRMWKind::addi, chunk64, counter, ValueRange{});
  cf::CondBranchOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, start64, n64),
      chunkBlock, ValueRange{start64}, rest, ValueRange{});

  b.setInsertionPointToEnd(chunkBlock);
  Value start =
      arith::IndexCastOp::create(b, loc, index, chunkBlock->getArgument(0));
  Value end = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, start, chunk), n);
  cf::BranchOp::create(b, loc, iter, ValueRange{start});

  b.setInsertionPointToEnd(iter);
  Value j = iter->getArgument(0);
  cf::CondBranchOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, end),
      body, ValueRange{}, grab, ValueRange{});

  b.setInsertionPointToEnd(body);
  IRMapping map;
  map.map(nest.getIVs()[0],
          arith::AddIOp::create(b, loc, lb,
                                arith::MulIOp::create(b, loc, j, step)));
  for (Operation &op : nest.getRegion().front().without_terminator())
    b.clone(op, map);
  cf::BranchOp::create(b, loc, iter,
                       ValueRange{arith::AddIOp::create(b, loc, j, idx(1))});

  // The wsloop's implicit barrier, where anything in the region follows
  // (the region's end joins the threads anyway).
  b.setInsertionPoint(loop);
  if (!loop.getNowait() && !isa<omp::TerminatorOp>(loop->getNextNode()))
    omp::BarrierOp::create(b, loc);
  loop.erase();
  return success();
}

/// libomp's own schedules, for loops selfSchedule leaves: dynamic over row
/// tiles (few, heavy iterations), guided over elements.
void libompSchedule(omp::WsloopOp loop) {
  auto nest = dyn_cast_or_null<omp::LoopNestOp>(loop.getWrappedLoop());
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
}

struct KilnOpenMpSchedulePass
    : mlir::kiln::impl::KilnOpenMpScheduleBase<KilnOpenMpSchedulePass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    SmallVector<omp::WsloopOp> loops;
    getOperation()->walk([&](omp::WsloopOp loop) {
      if (!loop.getScheduleKind())
        loops.push_back(loop);
    });
    for (omp::WsloopOp loop : loops)
      if (failed(selfSchedule(loop)))
        libompSchedule(loop);
  }
};

} // namespace
