//===- GpuDeviceBuffers.cpp - Every buffer of a GPU graph on the device ---===//
#include "kiln/Codegen/GPU/Passes.h"

#include "GpuGrid.h"

#include "kiln/Codegen/Common/ViewedBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/Debug.h"

#include <functional>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUDEVICEBUFFERS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

#define DEBUG_TYPE "kiln-gpu-device-buffers"

using namespace mlir;
using mlir::kiln::viewedBuffer;

namespace {

/// Marks the host buffers, copies and frees that stage an allow_in_graph
/// call's operands and results (stageHostCalls): they stay on the host.
constexpr llvm::StringLiteral kHostAttr = "kiln.host";
/// The runtime function that frees a buffer abi::returnTensor allocated.
constexpr llvm::StringLiteral kReleaseName = "kiln_release_returned_buffer";

/// Whether `op` is kernel code: inside a linalg op or an scf.parallel (the
/// per-row loops of scans and scatters), each of which becomes kernels.
bool inKernel(Operation *op) {
  return op->getParentOfType<linalg::LinalgOp>() ||
         op->getParentOfType<scf::ParallelOp>();
}

/// An allocation only host code uses: sizes for memref.reshape, or the
/// deallocation pipeline's lists of pointers and flags, which go to its
/// helper function. (A tensor's buffer is written by a kernel or returned.)
bool isHostMetadata(memref::AllocOp alloc) {
  if (alloc->hasAttr(kHostAttr))
    return true;
  SmallVector<Value> values = {alloc.getResult()};
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto cast = dyn_cast<memref::CastOp>(user)) {
        values.push_back(cast.getResult());
        continue;
      }
      if (auto reshape = dyn_cast<memref::ReshapeOp>(user)) {
        if (reshape.getShape() != v)
          return false;
        continue;
      }
      if (auto call = dyn_cast<func::CallOp>(user)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (!callee || callee.isExternal())
          return false;
        continue;
      }
      if (isa<memref::LoadOp, memref::StoreOp>(user) && !inKernel(user))
        continue;
      if (!isa<memref::DeallocOp, memref::ExtractAlignedPointerAsIndexOp>(user))
        return false;
    }
  }
  return true;
}

/// Whether host code touching `buffer` touches device memory: it is (a
/// view of) an allocation that becomes gpu.alloc, or a public function's
/// argument (a graph's input). Stack buffers, metadata and the arguments
/// of the module's private helpers (the deallocation helper) are host
/// memory.
bool isDeviceBuffer(Value buffer) {
  buffer = viewedBuffer(buffer);
  if (Operation *def = buffer.getDefiningOp()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(def))
      return !isHostMetadata(alloc);
    return !isa<memref::AllocaOp, memref::GetGlobalOp, func::CallOp>(def);
  }
  auto fn = dyn_cast<func::FuncOp>(buffer.getParentBlock()->getParentOp());
  return !fn || fn.isPublic();
}

/// A host load or store of a rank-0 device buffer goes through a host copy
/// and gpu.memcpy; other host accesses of device data are errors.
LogicalResult stageHostAccess(Operation *op, IRRewriter &rewriter) {
  auto load = dyn_cast<memref::LoadOp>(op);
  auto store = dyn_cast<memref::StoreOp>(op);
  Value buffer = load ? load.getMemRef() : store.getMemRef();
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() != 0 || !type.getLayout().isIdentity())
    return op->emitError(
               "kiln: host code reads or writes device memory of type ")
           << type << " (only single values are copied for the host)";
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value host = memref::AllocaOp::create(rewriter, loc, type);
  if (load) {
    gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                          host, buffer);
    rewriter.replaceOpWithNewOp<memref::LoadOp>(load, host, ValueRange{});
  } else {
    memref::StoreOp::create(rewriter, loc, store.getValueToStore(), host,
                            ValueRange{});
    gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                          buffer, host);
    rewriter.eraseOp(store);
  }
  return success();
}

/// Whether `call` calls a function outside the module (an allow_in_graph
/// function) with or for buffers. (Functions of the module, such as the
/// deallocation helper, only compare pointers.)
bool isHostCall(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  return (!callee || callee.isExternal()) &&
         (llvm::any_of(call.getOperandTypes(), llvm::IsaPred<BaseMemRefType>) ||
          llvm::any_of(call.getResultTypes(), llvm::IsaPred<BaseMemRefType>));
}

/// A copy in host memory of device buffer `view` (any strides): the span
/// of its underlying buffer from the start to its last element goes over
/// with one gpu.memcpy, and the host view has the same offset and strides.
/// Returns the view and the host buffer (to free after use).
std::pair<Value, Value>
copyToHost(OpBuilder &b, Location loc, Value view,
           function_ref<Operation *(Operation *)> host) {
  auto type = cast<MemRefType>(view.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, view);
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  // Elements up to the last one: offset + 1 + sum((size - 1) * stride), or
  // none for an empty view.
  Value last = meta.getOffset();
  Value empty = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (int64_t i = 0; i < type.getRank(); ++i) {
    Value size = meta.getSizes()[i];
    empty = arith::OrIOp::create(
        b, loc, empty,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, c(0)));
    Value reach =
        arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, size, c(1)),
                              meta.getStrides()[i]);
    last = arith::AddIOp::create(b, loc, last, reach);
  }
  Value span = arith::SelectOp::create(
      b, loc, empty, c(0), arith::AddIOp::create(b, loc, last, c(1)));
  auto flatType =
      MemRefType::get({ShapedType::kDynamic}, type.getElementType());
  Value device = memref::ReinterpretCastOp::create(
      b, loc, flatType, meta.getBaseBuffer(), OpFoldResult(b.getIndexAttr(0)),
      ArrayRef<OpFoldResult>{span}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  Value flat = host(memref::AllocOp::create(b, loc, flatType, ValueRange{span}))
                   ->getResult(0);
  gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{}, flat,
                        device);
  SmallVector<int64_t> layout(type.getRank(), ShapedType::kDynamic);
  auto stridedType = MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, layout));
  SmallVector<OpFoldResult> sizes(meta.getSizes()), strides(meta.getStrides());
  Value hostView = memref::ReinterpretCastOp::create(
      b, loc, stridedType, flat, OpFoldResult(meta.getOffset()), sizes,
      strides);
  if (hostView.getType() != view.getType())
    hostView = memref::CastOp::create(b, loc, view.getType(), hostView);
  return {hostView, flat};
}

/// A host function (an allow_in_graph call) reads its operands and returns
/// its result in host memory: each device operand goes over to a host copy
/// with its strides (copyToHost), and the result, a contiguous host buffer
/// that abi::returnTensor allocated for the graph, is copied into a device
/// buffer that takes its place (its deallocation included) and is then
/// given back to the runtime (kiln_release_returned_buffer). gpu.memcpy is
/// synchronous on the host.
LogicalResult stageHostCalls(func::FuncOp fn, IRRewriter &rewriter) {
  SmallVector<func::CallOp> calls;
  fn.walk([&](func::CallOp call) {
    if (isHostCall(call))
      calls.push_back(call);
  });
  if (calls.empty())
    return success();
  auto module = fn->getParentOfType<ModuleOp>();
  auto release = module.lookupSymbol<func::FuncOp>(kReleaseName);
  if (!release) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    release = func::FuncOp::create(
        rewriter, fn.getLoc(), kReleaseName,
        rewriter.getFunctionType({rewriter.getIndexType()}, {}));
    release.setPrivate();
  }
  for (func::CallOp call : calls) {
    Location loc = call.getLoc();
    rewriter.setInsertionPoint(call);
    auto hostOnly = [&](Operation *op) {
      op->setAttr(kHostAttr, rewriter.getUnitAttr());
      return op;
    };
    SmallVector<Value> operands, hostBuffers;
    for (Value operand : call.getOperands()) {
      if (isa<UnrankedMemRefType>(operand.getType()))
        return call.emitError("kiln: '")
               << call.getCallee() << "' takes a buffer of unranked type";
      if (!isa<MemRefType>(operand.getType()) || !isDeviceBuffer(operand)) {
        operands.push_back(operand);
        continue;
      }
      auto [view, buffer] = copyToHost(rewriter, loc, operand, hostOnly);
      operands.push_back(view);
      hostBuffers.push_back(buffer);
    }
    auto staged = func::CallOp::create(rewriter, loc, call.getCallee(),
                                       call.getResultTypes(), operands);
    for (Value buffer : hostBuffers)
      hostOnly(memref::DeallocOp::create(rewriter, loc, buffer));
    for (auto [old, result] :
         llvm::zip(call.getResults(), staged.getResults())) {
      auto type = dyn_cast<MemRefType>(result.getType());
      if (!type) {
        rewriter.replaceAllUsesWith(old, result);
        continue;
      }
      // returnTensor's buffers are contiguous from offset 0 (docs/abi.md):
      // the same buffer as a row-major memref, which gpu.memcpy copies.
      SmallVector<OpFoldResult> shape =
          memref::getMixedSizes(rewriter, loc, result);
      SmallVector<OpFoldResult> strides(type.getRank());
      OpFoldResult stride = rewriter.getIndexAttr(1);
      for (int64_t i = type.getRank() - 1; i >= 0; --i) {
        strides[i] = stride;
        // Static where both factors are, as the row-major type's strides.
        std::optional<int64_t> a = getConstantIntValue(stride);
        std::optional<int64_t> b = getConstantIntValue(shape[i]);
        stride = a && b ? OpFoldResult(rewriter.getIndexAttr(*a * *b))
                        : OpFoldResult(arith::MulIOp::create(
                                           rewriter, loc,
                                           getValueOrCreateConstantIndexOp(
                                               rewriter, loc, stride),
                                           getValueOrCreateConstantIndexOp(
                                               rewriter, loc, shape[i]))
                                           .getResult());
      }
      auto contiguous = MemRefType::get(type.getShape(), type.getElementType());
      Value host = memref::ReinterpretCastOp::create(
          rewriter, loc, contiguous, result,
          OpFoldResult(rewriter.getIndexAttr(0)), shape, strides);
      SmallVector<Value> sizes;
      for (auto [i, size] : llvm::enumerate(shape))
        if (type.isDynamicDim(i))
          sizes.push_back(cast<Value>(size));
      auto device = gpu::AllocOp::create(rewriter, loc, contiguous,
                                         /*asyncToken=*/Type(), ValueRange{},
                                         sizes, ValueRange{});
      gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                            device.getMemref(), host);
      Value pointer =
          memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, result);
      func::CallOp::create(rewriter, loc, release, ValueRange{pointer});
      rewriter.replaceAllUsesWith(
          old, memref::CastOp::create(rewriter, loc, old.getType(),
                                      device.getMemref()));
    }
    rewriter.eraseOp(call);
  }
  return success();
}

/// Host reads and writes of tensor data (outside kernel code), such as a graph
/// reading a flag it computed, through host copies.
LogicalResult stageHostAccesses(func::FuncOp fn, IRRewriter &rewriter) {
  SmallVector<Operation *> accesses;
  fn.walk([&](Operation *op) {
    if (!isa<memref::LoadOp, memref::StoreOp>(op) || inKernel(op))
      return;
    Value buffer = isa<memref::LoadOp>(op)
                       ? cast<memref::LoadOp>(op).getMemRef()
                       : cast<memref::StoreOp>(op).getMemRef();
    if (isDeviceBuffer(buffer))
      accesses.push_back(op);
  });
  for (Operation *op : accesses)
    if (failed(stageHostAccess(op, rewriter)))
      return failure();
  return success();
}

/// Allocations and deallocations through the gpu dialect, copies as
/// linalg.copy (a kernel later); host metadata stays.
void moveBuffersToDevice(func::FuncOp fn, IRRewriter &rewriter) {
  // Collected first: the walk must not see the ops it creates.
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      if (isHostMetadata(alloc))
        return;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
      if (!isDeviceBuffer(dealloc.getMemref()))
        return;
    if (op->hasAttr(kHostAttr))
      return;
    if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      auto device = gpu::AllocOp::create(
          rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          ValueRange{}, alloc.getDynamicSizes(), alloc.getSymbolOperands());
      rewriter.replaceOp(alloc, device.getMemref());
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
          dealloc, /*asyncToken=*/Type(), ValueRange{}, dealloc.getMemref());
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
}

/// Moves the ops from `first` to `last` (one block's) into a parallel loop
/// of one iteration, which becomes their kernel (of one thread).
void runAsOneThread(Operation *first, Operation *last, IRRewriter &rewriter) {
  rewriter.setInsertionPoint(first);
  Location loc = first->getLoc();
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto unit = scf::ParallelOp::create(rewriter, loc, zero, one, one);
  Operation *end = last->getNextNode();
  for (Operation *op = first; op != end;) {
    Operation *next = op->getNextNode();
    op->moveBefore(unit.getBody()->getTerminator());
    op = next;
  }
}

/// A linalg op with no parallel loop (a reduction of every dim, a fill of a
/// single value) would lower to host loops over device memory: it gets a
/// parallel loop of one iteration, which becomes its kernel.
void wrapSerialOps(func::FuncOp fn, IRRewriter &rewriter) {
  SmallVector<linalg::LinalgOp> serial;
  fn.walk([&](linalg::LinalgOp op) {
    if (op.getNumParallelLoops() == 0 && op.hasPureBufferSemantics())
      serial.push_back(op);
  });
  for (linalg::LinalgOp op : serial)
    runAsOneThread(op, op, rewriter);
}

/// A constant (memref.get_global: host memory) that kernels read or copy
/// gets a device copy for the call: gpu.alloc and gpu.memcpy where it is
/// taken, freed before each return.
void copyConstantsToDevice(func::FuncOp fn, IRRewriter &rewriter) {
  SmallVector<memref::GetGlobalOp> globals;
  fn.walk([&](memref::GetGlobalOp global) { globals.push_back(global); });
  for (memref::GetGlobalOp global : globals) {
    // Kernel code reads it, directly or through views (a linalg op
    // becomes a kernel); host code, such as a memref.reshape taking its
    // shape, keeps the host constant.
    std::function<bool(OpOperand &)> isKernelUse = [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (inKernel(user) || isa<linalg::LinalgOp>(user))
        return true;
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      return view && view.getViewSource() == use.get() &&
             llvm::any_of(user->getResults(), [&](Value result) {
               return llvm::any_of(result.getUses(), isKernelUse);
             });
    };
    if (llvm::none_of(global->getUses(), isKernelUse))
      continue;
    auto type = cast<MemRefType>(global.getType());
    if (!type.hasStaticShape())
      continue;
    Location loc = global.getLoc();
    rewriter.setInsertionPointAfter(global);
    auto device = gpu::AllocOp::create(rewriter, loc, type,
                                       /*asyncToken=*/Type(), ValueRange{},
                                       ValueRange{}, ValueRange{});
    auto copy = gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(),
                                      ValueRange{}, device.getMemref(),
                                      global.getResult());
    rewriter.replaceUsesWithIf(
        global.getResult(), device.getMemref(), [&](OpOperand &use) {
          return use.getOwner() != copy && isKernelUse(use);
        });
    fn.walk([&](func::ReturnOp ret) {
      rewriter.setInsertionPoint(ret);
      gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                             device.getMemref());
    });
  }
}

/// Whether a host load or store of `buffer` reads or writes memory that is,
/// or becomes, device memory: a device buffer, or an allocation that is
/// neither a shape for memref.reshape nor a list the deallocation helper
/// takes (a call's operand), through its views (a tensor's buffer that
/// element-wise code fills, returned or read by kernels later).
bool elementsOnDevice(Value buffer) {
  Value base = viewedBuffer(buffer);
  auto alloc = base.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return isDeviceBuffer(buffer);
  if (alloc->hasAttr(kHostAttr))
    return false;
  std::function<bool(Value)> elements = [&](Value v) {
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<func::CallOp>(user))
        return false;
      if (auto reshape = dyn_cast<memref::ReshapeOp>(user))
        if (reshape.getShape() == v)
          return false;
      if (isa<ViewLikeOpInterface, memref::CastOp>(user) &&
          !llvm::all_of(user->getResults(), elements))
        return false;
    }
    return true;
  };
  return elements(base);
}

/// Whether `op` can run inside a kernel of one thread: arithmetic, views,
/// loads and stores of elementsOnDevice buffers, and loops and branches of
/// such ops (not linalg ops, calls, allocations or frees, which stay host
/// code). Sets `device` when it touches a tensor's elements in device
/// memory.
bool serialKernelCode(Operation *op, bool &device) {
  if (isa<memref::LoadOp, memref::StoreOp>(op)) {
    Value buffer = mlir::kiln::accessedMemRef(op);
    if (!elementsOnDevice(buffer))
      return false;
    // (A single value alone goes through a copy: stageHostAccess.)
    device = device || cast<MemRefType>(buffer.getType()).getRank() > 0;
    return true;
  }
  if (isa<linalg::LinalgOp, func::CallOp, func::ReturnOp, memref::AllocOp,
          memref::AllocaOp, memref::DeallocOp, memref::CopyOp>(op) ||
      isa<gpu::GPUDialect, cf::ControlFlowDialect>(op->getDialect()))
    return false;
  if (op->getNumRegions() == 0)
    return isPure(op) || isa<ViewLikeOpInterface>(op);
  if (!isa<scf::ForOp, scf::IfOp>(op))
    return false;
  WalkResult walk = op->walk([&](Operation *inner) {
    if (inner == op || isa<scf::YieldOp>(inner))
      return WalkResult::advance();
    if (inner->getNumRegions() == 0 && !serialKernelCode(inner, device))
      return WalkResult::interrupt();
    if (inner->getNumRegions() != 0 && !isa<scf::ForOp, scf::IfOp>(inner))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// Host code that reads or writes device memory element by element is
/// serial code: it runs as a kernel of one thread. That is a loop (a scan
/// over a 1-d tensor, whose one-row scf.forall became inline code) or a
/// run of ops (attention's one query row: its loads, its loop over the
/// keys, its stores), taken whole from the first op touching device
/// memory to the last, when nothing after the run uses a value made in
/// it. Loops holding linalg ops or calls stay on the host (their ops
/// become kernels).
void wrapSerialCode(func::FuncOp fn, IRRewriter &rewriter) {
  SmallVector<std::pair<Operation *, Operation *>> runs; // first, last
  std::function<void(Block &)> visit = [&](Block &block) {
    Operation *first = nullptr, *last = nullptr;
    SmallVector<Operation *> loops; // the run's loops that make nothing
    auto close = [&]() {
      if (!first)
        return;
      // Nothing after the run may use what it makes; if something does,
      // its loops that make nothing still run as kernels of their own.
      bool escapes = false;
      for (Operation *op = first;; op = op->getNextNode()) {
        for (Operation *user : op->getUsers()) {
          Operation *at = block.findAncestorOpInBlock(*user);
          escapes = escapes || !at || last->isBeforeInBlock(at);
        }
        if (op == last)
          break;
      }
      if (!escapes)
        runs.push_back({first, last});
      else
        for (Operation *loop : loops)
          runs.push_back({loop, loop});
      first = last = nullptr;
      loops.clear();
    };
    for (Operation &op : block) {
      bool device = false;
      if (!inKernel(&op) && serialKernelCode(&op, device)) {
        if (device) {
          first = first ? first : &op;
          last = &op;
          if (isa<scf::ForOp>(op) && op.use_empty())
            loops.push_back(&op);
        }
        continue;
      }
      close();
      // Look inside host loops and branches that hold kernels.
      if (!inKernel(&op) && !isa<linalg::LinalgOp>(op))
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            visit(inner);
    }
    close();
  };
  for (Block &block : fn.getBody())
    visit(block);
  for (auto [first, last] : runs)
    runAsOneThread(first, last, rewriter);
}

struct KilnGpuDeviceBuffersPass
    : mlir::kiln::impl::KilnGpuDeviceBuffersBase<KilnGpuDeviceBuffersPass> {
  void runOnOperation() override {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] on " << getOperation()->getName() << "\n");
    IRRewriter rewriter(&getContext());
    SmallVector<func::FuncOp> functions(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      if (fn.isExternal())
        continue;
      wrapSerialCode(fn, rewriter);
      if (failed(stageHostCalls(fn, rewriter)) ||
          failed(stageHostAccesses(fn, rewriter)))
        return signalPassFailure();
      moveBuffersToDevice(fn, rewriter);
      wrapSerialOps(fn, rewriter);
      copyConstantsToDevice(fn, rewriter);
    }
  }
};

} // namespace
