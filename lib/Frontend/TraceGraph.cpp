//===- TraceGraph.cpp - Ranks and element types of a traced graph ---------===//
//
// C++ gives a kiln::Tensor no static rank or dtype, and compiled graphs need
// both (sizes stay dynamic). Each tensor input gets one: an exact rank when
// an op demands it (conv2d, permute), else the rank the source shows for it
// (TypeEvidence.cpp) when its uses allow it, else the larger of what its
// uses need (x.size(2) needs 3) and its role's usual rank (a matmul's weight
// 2, a norm's weight or a bias 1, anything else 2). The stitched code guards on
// them and runs the original statements eagerly when a call's tensors differ.
// Ranks and element types then follow the runtime's rules op by op (promotion
// as torch's result_type: dimensioned tensors over 0-d ones over C++ numbers).
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/TraceGraph.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace kiln::frontend {

const char *elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  case ElementType::Bool:
    return "i1";
  }
  return "?";
}

const char *typeOriginName(TypeOrigin origin) {
  switch (origin) {
  case TypeOrigin::Stated:
    return "stated";
  case TypeOrigin::Recorded:
    return "recorded";
  case TypeOrigin::CallSite:
    return "call site";
  case TypeOrigin::Source:
    return "source";
  case TypeOrigin::EarlierGraph:
    return "earlier graph";
  case TypeOrigin::Uses:
    return "uses";
  case TypeOrigin::Open:
    return "open";
  }
  return "?";
}

ElementType elementOfDType(int64_t dtype) {
  // kiln::DType's order (kiln/DType.h).
  static const ElementType order[] = {
      ElementType::Bool, ElementType::I32, ElementType::I64, ElementType::F16,
      ElementType::BF16, ElementType::F32, ElementType::F64};
  return dtype >= 0 && dtype < 7 ? order[dtype] : ElementType::F32;
}

const char *dtypeSpelling(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "kiln::kFloat32";
  case ElementType::F64:
    return "kiln::kFloat64";
  case ElementType::F16:
    return "kiln::kFloat16";
  case ElementType::BF16:
    return "kiln::kBFloat16";
  case ElementType::I32:
    return "kiln::kInt32";
  case ElementType::I64:
    return "kiln::kInt64";
  case ElementType::Bool:
    return "kiln::kBool";
  }
  return "?";
}

const char *opName(OpCode code) {
  switch (code) {
#define KILN_OP(E, NAME)                                                       \
  case OpCode::E:                                                              \
    return NAME;
#include "kiln/Frontend/TracedOps.def"
  }
  return "?";
}

OpGroup opGroup(OpCode code) {
  switch (code) {
#define KILN_UNARY_FLOAT_OP(E, NAME)                                           \
  case OpCode::E:                                                              \
    return OpGroup::UnaryFloat;
#define KILN_UNARY_OP(E, NAME)                                                 \
  case OpCode::E:                                                              \
    return OpGroup::Unary;
#define KILN_BINARY_OP(E, NAME)                                                \
  case OpCode::E:                                                              \
    return OpGroup::Binary;
#define KILN_REDUCTION_OP(E, NAME)                                             \
  case OpCode::E:                                                              \
    return OpGroup::Reduction;
#define KILN_TENSOR_OP(E, NAME)                                                \
  case OpCode::E:                                                              \
    return OpGroup::Tensor;
#define KILN_SCALAR_OP(E, NAME)                                                \
  case OpCode::E:                                                              \
    return OpGroup::Scalar;
#include "kiln/Frontend/TracedOps.def"
  }
  return OpGroup::Scalar;
}

std::optional<OpCode> opNamed(const std::string &name) {
  static const std::map<std::string, OpCode> byName = {
#define KILN_OP(E, NAME) {NAME, OpCode::E},
#include "kiln/Frontend/TracedOps.def"
  };
  auto it = byName.find(name);
  if (it == byName.end())
    return std::nullopt;
  return it->second;
}

int64_t Graph::tensorOpCount() const {
  int64_t n = 0;
  for (const TraceOp &op : ops)
    if (values[op.result].kind == ValueKind::Tensor &&
        op.code != OpCode::FromScalar)
      ++n;
  return n;
}

const TraceOp *Graph::producer(int value) const {
  // Ops are in the order their results were numbered (see `ops`): a
  // binary search, where a scan made tracing quadratic in the body.
  auto op =
      std::lower_bound(ops.begin(), ops.end(), value,
                       [](const TraceOp &o, int v) { return o.result < v; });
  return op != ops.end() && op->result == value ? &*op : nullptr;
}

std::optional<double> Graph::constantValue(int value) const {
  const TraceOp *op = producer(value);
  if (op && op->code == OpCode::Const)
    return op->number;
  return std::nullopt;
}

namespace {
int category(ElementType t) {
  switch (t) {
  case ElementType::Bool:
    return 0;
  case ElementType::I32:
  case ElementType::I64:
    return 1;
  default:
    return 2;
  }
}

int width(ElementType t) {
  switch (t) {
  case ElementType::Bool:
    return 1;
  case ElementType::F16:
  case ElementType::BF16:
    return 16;
  case ElementType::I32:
  case ElementType::F32:
    return 32;
  default:
    return 64;
  }
}

ElementType promotePair(ElementType a, ElementType b) {
  if (a == b)
    return a;
  if (category(a) != category(b))
    return category(a) > category(b) ? a : b;
  if ((a == ElementType::F16 && b == ElementType::BF16) ||
      (a == ElementType::BF16 && b == ElementType::F16))
    return ElementType::F32;
  return width(a) >= width(b) ? a : b;
}

} // namespace

bool isFloat(ElementType t) { return category(t) == 2; }

ElementType promoteTypes(ElementType a, ElementType b) {
  return promotePair(a, b);
}

namespace {

/// What the dialect takes as ids and class targets (Kiln_IntTensor).
bool isIndex(ElementType t) {
  return t == ElementType::I32 || t == ElementType::I64;
}

} // namespace

namespace {
/// Where an input's rank and element type will come from (all inputs are
/// given one before any check can fail: a contradiction is not a guess).
TypeOrigin originOf(const GraphInput &in) {
  bool rankKnown = in.statedRank >= 0 || in.exactRank >= 0 ||
                   (in.sourceRank >= 0 && in.sourceRank >= in.minRank);
  bool elementKnown =
      in.statedElement || in.sourceElement || in.elementFromUses;
  if (!rankKnown || !elementKnown)
    return TypeOrigin::Open;
  if (in.statedRank >= 0)
    return in.statedRecorded ? TypeOrigin::Recorded : TypeOrigin::Stated;
  if (in.exactRank >= 0 && !in.sourceElement)
    return TypeOrigin::Uses;
  if (in.fromEarlierGraph)
    return TypeOrigin::EarlierGraph;
  if (in.sourceRank >= 0 || in.sourceElement)
    return in.sourceFromCallSite ? TypeOrigin::CallSite : TypeOrigin::Source;
  return TypeOrigin::Uses;
}
} // namespace

llvm::Error typeInputs(Graph &g) {
  for (GraphInput &in : g.inputs)
    in.origin = originOf(in);
  for (GraphInput &in : g.inputs) {
    TraceValue &v = g.values[in.value];
    if (v.kind != ValueKind::Tensor)
      continue;
    if (in.statedRank >= 0) {
      if ((in.exactRank >= 0 && in.exactRank != in.statedRank) ||
          in.minRank > in.statedRank)
        return llvm::createStringError(
            "input '" + in.expr + "' is stated as rank " +
            std::to_string(in.statedRank) + ", but its uses need rank " +
            (in.exactRank >= 0 ? std::to_string(in.exactRank)
                               : "at least " + std::to_string(in.minRank)));
      v.rank = in.statedRank;
    } else if (in.exactRank >= 0) {
      if (in.exactRank < in.minRank)
        return llvm::createStringError("input '" + in.expr + "' needs rank " +
                                       std::to_string(in.exactRank) +
                                       " and at least " +
                                       std::to_string(in.minRank));
      v.rank = in.exactRank;
    } else if (in.sourceRank >= in.minRank) {
      v.rank = in.sourceRank;
    } else {
      v.rank =
          std::max(in.minRank, in.preferredRank >= 0 ? in.preferredRank : 2);
    }
    if (v.rank > kMaxRank)
      return llvm::createStringError(
          "input '" + in.expr + "' would need rank " + std::to_string(v.rank) +
          " for the dims its uses index; kiln compiles tensors of rank up "
          "to " +
          std::to_string(kMaxRank));
    v.element = in.statedElement   ? *in.statedElement
                : in.sourceElement ? *in.sourceElement
                                   : in.preferredElement;
  }
  return llvm::Error::success();
}

llvm::Error opError(const TraceOp &op, const std::string &why) {
  return llvm::createStringError(std::string("kiln::") + opName(op.code) +
                                 " at " + op.pos.file + ":" +
                                 std::to_string(op.pos.line) + ": " + why);
}

int64_t dimIndex(int64_t dim, int64_t rank) {
  int64_t d = dim < 0 ? dim + rank : dim;
  return d >= 0 && d < rank ? d : -1;
}

ElementType cumulativeElement(const TraceOp &op, ElementType input) {
  if (op.ints[1] >= 0)
    return elementOfDType(op.ints[1]);
  return isFloat(input) ? input : ElementType::I64;
}

llvm::Error checkOp(const Graph &g, const TraceOp &op) {
  const TraceValue &r = g.values[op.result];
  auto in = [&](size_t i) -> const TraceValue & {
    return g.values[op.operands[i]];
  };
  auto fail = [&](const std::string &why) { return opError(op, why); };
  // Eager's message for a dtype the op refuses.
  auto notForDType = [](ElementType e) {
    return std::string("not supported for dtype ") + elementTypeName(e) +
           "; convert with to(kiln::kFloat32) first";
  };
  if (r.kind != ValueKind::Tensor) {
    if (op.code == OpCode::Dim && dimIndex(op.ints[0], in(0).rank) < 0)
      return fail("dim " + std::to_string(op.ints[0]) +
                  " is out of range for rank " + std::to_string(in(0).rank));
    return llvm::Error::success();
  }
  switch (opGroup(op.code)) {
  // The element types eager refuses for the unary ops, the reductions,
  // gelu, softmax, the norms and attention, subtracting bools: the ops'
  // verifiers and inference, in eager's words (Kiln_FloatInput).
  case OpGroup::UnaryFloat:
  case OpGroup::Binary:
  case OpGroup::Reduction:
    return llvm::Error::success();
  case OpGroup::Unary:
    if (op.code == OpCode::Neg && in(0).element == ElementType::Bool)
      return fail("negating a bool tensor is not supported; use logical_not "
                  "or convert with to(kiln::kInt64)");
    return llvm::Error::success();
  case OpGroup::Tensor:
  case OpGroup::Scalar:
    break;
  }
  switch (op.code) {
  // (Their shapes and dims: the ops' inference and verifiers.)
  case OpCode::FromScalar:
  case OpCode::Cmp:
  case OpCode::Where:
  case OpCode::Matmul:
  case OpCode::Linear:
  case OpCode::Cat:
  case OpCode::Transpose:
  case OpCode::Unsqueeze:
  // (Their element types too: eager's refusals are their verifiers'.)
  case OpCode::Gelu:
  case OpCode::Softmax:
  case OpCode::LogSoftmax:
  case OpCode::LayerNorm:
  case OpCode::RmsNorm:
  case OpCode::Attention:
  case OpCode::Topk:
    break;
  case OpCode::Embedding:
    if (!isIndex(in(0).element) || in(1).rank != 2)
      return fail("embedding needs integer ids and a table of rank 2");
    break;
  // (Ranks, sizes and dims of the ops below: their inference and
  // verifiers.)
  case OpCode::ScatterAdd:
    if (!isIndex(in(1).element))
      return fail("scatter_add needs an integer index");
    break;
  case OpCode::Cumsum:
  case OpCode::Cumprod:
    if (ElementType e = cumulativeElement(op, in(0).element);
        e == ElementType::Bool || e == ElementType::I32)
      return fail(notForDType(e));
    break;
  case OpCode::Gather:
    if (!isIndex(in(1).element))
      return fail("gather needs an integer index");
    break;
  case OpCode::CrossEntropy:
    if (!isIndex(in(1).element))
      return fail("cross_entropy needs integer targets");
    if (!isFloat(in(0).element))
      return fail("cross_entropy needs floating-point logits");
    break;
  case OpCode::AdaptiveAvgPool2d:
  case OpCode::Pool2d:
    if (!isFloat(in(0).element))
      return fail("pooling needs a floating-point input");
    break;
  case OpCode::Conv2d:
    if ((in(0).rank != 3 && in(0).rank != 4) || in(1).rank != 4)
      return fail("conv2d needs an input of rank 3 or 4 and a weight of "
                  "rank 4");
    break;
  case OpCode::Reshape:
    break;
  case OpCode::Expand:
    if (static_cast<int64_t>(op.operands.size()) - 1 < in(0).rank)
      return fail("expand to " + std::to_string(op.operands.size() - 1) +
                  " sizes of a tensor of rank " + std::to_string(in(0).rank));
    break;
  case OpCode::Slice: // GraphBuilder sizes its result by the dim
    if (dimIndex(op.ints[0], in(0).rank) < 0)
      return fail("dim out of range");
    break;
  case OpCode::Permute: {
    if (static_cast<int64_t>(op.ints.size()) != in(0).rank)
      return fail("permute needs one dim per dim of its input");
    std::set<int64_t> seen;
    for (int64_t d : op.ints)
      if (dimIndex(d, in(0).rank) < 0 ||
          !seen.insert(dimIndex(d, in(0).rank)).second)
        return fail("permute's dims are not a permutation of the input's " +
                    std::to_string(in(0).rank) + " dims");
    break;
  }
  case OpCode::ReshapeAs:
    break;
  case OpCode::Repeat: // (the composite ops' inference)
  case OpCode::Unflatten:
  case OpCode::Flatten:
    break;
  case OpCode::Squeeze:
    if (dimIndex(op.ints[0], in(0).rank) < 0)
      return fail("dim out of range");
    break;
  case OpCode::OpaqueCall:
    break;
  case OpCode::Select:
    if (in(1).rank != in(2).rank || in(1).element != in(2).element)
      return fail("the arms of a branch give tensors of different ranks or "
                  "element types");
    break;
  case OpCode::Arange:
  case OpCode::Random:
  case OpCode::Cast:
  case OpCode::Full:
    break;
  default:
    return fail("no typing rule");
  }
  return llvm::Error::success();
}
} // namespace kiln::frontend
