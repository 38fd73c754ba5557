//===- Graph.cpp - Ranks and element types of a traced graph --------------===//
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
#include "kiln/Frontend/Graph.h"

#include <algorithm>
#include <map>
#include <optional>
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

ElementType elementOfScalar(ValueKind kind) {
  switch (kind) {
  case ValueKind::Bool:
    return ElementType::Bool;
  case ValueKind::I64:
    return ElementType::I64;
  case ValueKind::F64:
    return ElementType::F64;
  case ValueKind::F32:
  case ValueKind::Tensor:
    break;
  }
  return ElementType::F32;
}

ValueKind scalarOfElement(ElementType e) {
  switch (e) {
  case ElementType::Bool:
    return ValueKind::Bool;
  case ElementType::I32:
  case ElementType::I64:
    return ValueKind::I64;
  case ElementType::F64:
    return ValueKind::F64;
  case ElementType::F32:
  case ElementType::F16:
  case ElementType::BF16:
    break;
  }
  return ValueKind::F32;
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

} // namespace kiln::frontend
