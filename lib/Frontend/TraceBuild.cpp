//===- TraceBuild.cpp - The traced graph's ops, built as typed ops --------===//
//
// The tracer builds each op of a graph as the kiln (or arith, math, cf) op
// it is, at the end of the graph's function, on open types (GraphBody.h):
// `build<mlir::kiln::SoftmaxOp>(loc, val(x), dim)`. Each result is numbered
// as a traced value. What takes more than one op to say the way the source
// says it (a reshape's -1, a fill of a dtype, a host scalar's conversion) is
// one helper here.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace clang;

namespace kiln::frontend {

namespace {
bool isFloatType(mlir::Type t) { return mlir::isa<mlir::FloatType>(t); }
} // namespace

mlir::OpBuilder Tracer::bodyBuilder() {
  GraphBody &body = *graph().body;
  body.values.resize(graph().values.size());
  mlir::OpBuilder b(body.module->getContext());
  b.setInsertionPointToEnd(&body.entry());
  return b;
}

mlir::Location Tracer::opLoc(SourceLocation loc, llvm::StringRef opName) {
  mlir::MLIRContext *ctx = graph().body->module->getContext();
  SourcePos pos = posOf(loc);
  if (pos.file.empty())
    return mlir::UnknownLoc::get(ctx);
  std::string name =
      opName.consume_front("kiln.") ? "kiln::" + opName.str() : opName.str();
  return mlir::NameLoc::get(
      mlir::StringAttr::get(ctx, name),
      mlir::FileLineColLoc::get(ctx, pos.file, pos.line, pos.column));
}

int Tracer::number(mlir::Value value) {
  int v = graph().addValue(kindOfType(value.getType()));
  GraphBody &body = *graph().body;
  body.values.resize(graph().values.size());
  body.values[v] = value;
  body.ids.try_emplace(value, v);
  return v;
}

int Tracer::refuse(SourceLocation loc, llvm::StringRef opName,
                   const std::string &why, ValueKind kind) {
  GraphBody &body = *graph().body;
  mlir::Location at = opLoc(loc, opName);
  if (!body.error)
    body.error = opErrorText(at, why);
  mlir::OpBuilder b = bodyBuilder();
  mlir::MLIRContext *ctx = b.getContext();
  mlir::Type type = kind == ValueKind::Tensor ? mlir::kiln::openTensorType(ctx)
                                              : scalarType(ctx, kind);
  return number(
      mlir::UnrealizedConversionCastOp::create(b, at, type, mlir::ValueRange{})
          .getResult(0));
}

int Tracer::constant(double value, ValueKind kind, SourceLocation loc) {
  mlir::OpBuilder b = bodyBuilder();
  mlir::Location at = opLoc(loc, "const");
  mlir::Type type = scalarType(b.getContext(), kind);
  mlir::Value c;
  if (mlir::isa<mlir::IndexType>(type))
    c = mlir::arith::ConstantIndexOp::create(b, at,
                                             static_cast<int64_t>(value));
  else if (isFloatType(type))
    c = mlir::arith::ConstantOp::create(b, at, b.getFloatAttr(type, value));
  else
    c = mlir::arith::ConstantOp::create(b, at,
                                        b.getIntegerAttr(type, value != 0));
  return number(c);
}

int Tracer::asTensor(int value, SourceLocation loc) {
  ValueKind kind = kindOf(value);
  if (kind == ValueKind::Tensor)
    return value;
  // A wrapped number in the type its C++ kind promotes as.
  mlir::OpBuilder b = bodyBuilder();
  mlir::Location at = opLoc(loc, "kiln.from_scalar");
  mlir::Type el = elementType(b.getContext(), elementOfScalar(kind));
  mlir::Value s = val(value);
  if (!mlir::isa<mlir::IndexType>(s.getType()) || el.isInteger(1))
    s = castScalar(b, at, s, el);
  return number(mlir::kiln::FromScalarOp::create(
      b, at, mlir::RankedTensorType::get({}, el), s));
}

int Tracer::scalarCast(int v, ValueKind kind, SourceLocation loc) {
  if (kindOf(v) == kind)
    return v;
  if (std::optional<double> c = graph().constantValue(v)) {
    double folded = *c;
    if (kind == ValueKind::I64)
      folded = static_cast<double>(static_cast<int64_t>(folded));
    else if (kind == ValueKind::F32)
      folded = static_cast<double>(static_cast<float>(folded));
    else if (kind == ValueKind::Bool)
      folded = folded != 0 ? 1 : 0;
    return constant(folded, kind, loc);
  }
  mlir::OpBuilder b = bodyBuilder();
  return number(castScalar(b, opLoc(loc, "scalar.cast"), val(v),
                           scalarType(b.getContext(), kind)));
}

namespace {
/// OpTy, folded by its own folder when `fold` (its operands constants).
template <typename OpTy, typename... Args>
mlir::Value hostOp(mlir::OpBuilder &b, mlir::Location at, bool fold,
                   Args &&...args) {
  if (fold)
    return b.createOrFold<OpTy>(at, std::forward<Args>(args)...);
  return OpTy::create(b, at, std::forward<Args>(args)...);
}

/// The float or integer form of an arithmetic op on l and r.
template <typename FloatOp, typename IntOp>
mlir::Value arithOp(mlir::OpBuilder &b, mlir::Location at, bool fold,
                    mlir::Value l, mlir::Value r) {
  if (isFloatType(l.getType()))
    return hostOp<FloatOp>(b, at, fold, l, r);
  return hostOp<IntOp>(b, at, fold, l, r);
}
} // namespace

int Tracer::hostBinary(BinaryOperatorKind op, int a, int b,
                       SourceLocation loc) {
  namespace arith = mlir::arith;
  mlir::OpBuilder builder = bodyBuilder();
  mlir::Location at = opLoc(loc, BinaryOperator::getOpcodeStr(op));
  mlir::Value l = val(a), r = val(b);
  // All constants: built and folded by the ops' own folders.
  bool fold = graph().constantValue(a) && graph().constantValue(b);
  auto cmp = [&](arith::CmpFPredicate f, arith::CmpIPredicate i) {
    return isFloatType(l.getType())
               ? hostOp<arith::CmpFOp>(builder, at, fold, f, l, r)
               : hostOp<arith::CmpIOp>(builder, at, fold, i, l, r);
  };
  mlir::Value out;
  switch (op) {
  case BO_Add:
    out = arithOp<arith::AddFOp, arith::AddIOp>(builder, at, fold, l, r);
    break;
  case BO_Sub:
    out = arithOp<arith::SubFOp, arith::SubIOp>(builder, at, fold, l, r);
    break;
  case BO_Mul:
    out = arithOp<arith::MulFOp, arith::MulIOp>(builder, at, fold, l, r);
    break;
  case BO_Div:
    out = arithOp<arith::DivFOp, arith::DivSIOp>(builder, at, fold, l, r);
    break;
  case BO_Rem:
    out = arithOp<arith::RemFOp, arith::RemSIOp>(builder, at, fold, l, r);
    break;
  case BO_LT:
    out = cmp(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
    break;
  case BO_LE:
    out = cmp(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle);
    break;
  case BO_GT:
    out = cmp(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt);
    break;
  case BO_GE:
    out = cmp(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge);
    break;
  case BO_EQ:
    out = cmp(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq);
    break;
  case BO_NE:
    out = cmp(arith::CmpFPredicate::UNE, arith::CmpIPredicate::ne);
    break;
  case BO_LAnd:
  case BO_And:
    out = hostOp<arith::AndIOp>(builder, at, fold, l, r);
    break;
  case BO_LOr:
  case BO_Or:
    out = hostOp<arith::OrIOp>(builder, at, fold, l, r);
    break;
  default:
    return refuse(loc, BinaryOperator::getOpcodeStr(op),
                  "an operator the tracer does not model", kindOf(a));
  }
  return number(out);
}

int Tracer::hostNeg(int v, SourceLocation loc) {
  if (kindOf(v) == ValueKind::F32 || kindOf(v) == ValueKind::F64) {
    if (std::optional<double> c = graph().constantValue(v))
      return constant(-*c, kindOf(v), loc);
    mlir::OpBuilder b = bodyBuilder();
    return number(mlir::arith::NegFOp::create(b, opLoc(loc, "-"), val(v)));
  }
  return hostBinary(BO_Sub, constant(0, kindOf(v), loc), v, loc);
}

int Tracer::hostNot(int v, SourceLocation loc) {
  // xor with true (what host-bool variants look through).
  int b = scalarCast(v, ValueKind::Bool, loc);
  if (std::optional<double> c = graph().constantValue(b))
    return constant(*c == 0 ? 1 : 0, ValueKind::Bool, loc);
  int yes = constant(1, ValueKind::Bool, loc);
  mlir::OpBuilder builder = bodyBuilder();
  return number(
      mlir::arith::XOrIOp::create(builder, opLoc(loc, "!"), val(b), val(yes)));
}

int Tracer::hostMath(HostMath fn, llvm::ArrayRef<int> args,
                     SourceLocation loc) {
  namespace arith = mlir::arith;
  namespace math = mlir::math;
  mlir::OpBuilder b = bodyBuilder();
  mlir::Location at = opLoc(loc, "std::math");
  mlir::Value x = val(args[0]);
  mlir::Value y = args.size() > 1 ? val(args[1]) : mlir::Value();
  bool isFloat = isFloatType(x.getType());
  mlir::Value out;
  switch (fn) {
  case HostMath::Sqrt:
    out = math::SqrtOp::create(b, at, x);
    break;
  case HostMath::Exp:
    out = math::ExpOp::create(b, at, x);
    break;
  case HostMath::Log:
    out = math::LogOp::create(b, at, x);
    break;
  case HostMath::Tanh:
    out = math::TanhOp::create(b, at, x);
    break;
  case HostMath::Pow:
    out = math::PowFOp::create(b, at, x, y);
    break;
  case HostMath::Abs:
    if (isFloat)
      out = math::AbsFOp::create(b, at, x);
    else
      out = arith::MaxSIOp::create(
          b, at, x,
          arith::SubIOp::create(b, at, arith::ConstantIndexOp::create(b, at, 0),
                                x));
    break;
  case HostMath::Min:
    out = isFloat ? mlir::Value(arith::MinimumFOp::create(b, at, x, y))
                  : mlir::Value(arith::MinSIOp::create(b, at, x, y));
    break;
  case HostMath::Max:
    out = isFloat ? mlir::Value(arith::MaximumFOp::create(b, at, x, y))
                  : mlir::Value(arith::MaxSIOp::create(b, at, x, y));
    break;
  }
  return number(out);
}

int Tracer::select(int cond, int a, int b, SourceLocation loc) {
  if (std::optional<double> c = graph().constantValue(cond))
    return *c != 0 ? a : b;
  mlir::OpBuilder builder = bodyBuilder();
  mlir::Location at = opLoc(loc, "select");
  mlir::Value t = val(a), f = val(b);
  // (Tensor arms may know different sizes statically: refinement casts
  // both to what both promise.)
  if (kindOf(a) != ValueKind::Tensor)
    f = castScalar(builder, at, f, t.getType());
  return number(mlir::arith::SelectOp::create(builder, at, val(cond), t, f));
}

void Tracer::check(int ok, const std::string &why, SourceLocation loc) {
  mlir::OpBuilder b = bodyBuilder();
  // A failed check fails the graph call (kiln-lower-shape-asserts).
  b.getContext()->getOrLoadDialect<mlir::cf::ControlFlowDialect>();
  mlir::cf::AssertOp::create(b, opLoc(loc, "check"), val(ok), why);
}

mlir::Value Tracer::indexOf(int v, SourceLocation loc) {
  // (Integers are `index` in the graph.)
  return val(scalarCast(v, ValueKind::I64, loc));
}

mlir::Value Tracer::f64Of(int v, SourceLocation loc) {
  return val(scalarCast(v, ValueKind::F64, loc));
}

mlir::Value Tracer::convertTo(int v, ElementType e, SourceLocation loc) {
  mlir::OpBuilder b = bodyBuilder();
  auto op = buildOpen<mlir::kiln::CastOp>(
      b, opLoc(loc, "kiln.cast"),
      mlir::UnrankedTensorType::get(elementType(b.getContext(), e)), val(v));
  op->setAttr(kConversion, b.getUnitAttr());
  return op.getResult();
}

mlir::Value Tracer::convertLike(int v, mlir::Value like, SourceLocation loc) {
  mlir::OpBuilder b = bodyBuilder();
  auto op = buildOpen<mlir::kiln::CastLikeOp>(b, opLoc(loc, "kiln.cast"),
                                              val(v), like);
  op->setAttr(kConversion, b.getUnitAttr());
  return op.getResult();
}

int Tracer::castTo(int v, ElementType e, SourceLocation loc) {
  mlir::MLIRContext *ctx = graph().body->module->getContext();
  return build<mlir::kiln::CastOp>(
      loc, mlir::UnrankedTensorType::get(elementType(ctx, e)), val(v));
}

int Tracer::dimOf(int x, int64_t dim, SourceLocation loc) {
  return build<mlir::kiln::DimOp>(loc, val(x), dim);
}

int Tracer::rankOf(int x, SourceLocation loc) {
  return build<mlir::kiln::RankOp>(loc, val(x));
}

int Tracer::numelOf(int x, SourceLocation loc) {
  return build<mlir::kiln::NumelOp>(loc, val(x));
}

void Tracer::shapeOf(llvm::ArrayRef<int> sizes, mlir::Value input,
                     SourceLocation loc,
                     llvm::SmallVectorImpl<int64_t> &staticSizes,
                     llvm::SmallVectorImpl<mlir::Value> &dynamic) {
  namespace arith = mlir::arith;
  llvm::SmallVector<std::optional<int64_t>> constants;
  for (int s : sizes) {
    std::optional<double> c = graph().constantValue(s);
    constants.push_back(c ? std::optional<int64_t>(static_cast<int64_t>(*c))
                          : std::nullopt);
  }
  // (Only a reshape has an element count to infer a size from.)
  int inferred = -1;
  for (size_t i = 0; i < constants.size(); ++i)
    if (input && constants[i] && *constants[i] == -1)
      inferred = static_cast<int>(i);
  mlir::OpBuilder b = bodyBuilder();
  mlir::Location at = opLoc(loc, "kiln.reshape");
  for (size_t i = 0; i < constants.size(); ++i) {
    if (static_cast<int>(i) == inferred) {
      // numel(input) / product(other sizes)
      mlir::Value numel =
          buildOpen<mlir::kiln::NumelOp>(b, at, input).getResult();
      mlir::Value others = arith::ConstantIndexOp::create(b, at, 1);
      for (size_t j = 0; j < constants.size(); ++j)
        if (j != i)
          others = arith::MulIOp::create(b, at, others, val(sizes[j]));
      // A zero product would divide by zero: 1 instead (the reshape's own
      // element-count check then fails as eager's does).
      mlir::Value zero = arith::ConstantIndexOp::create(b, at, 0);
      mlir::Value isZero =
          arith::CmpIOp::create(b, at, arith::CmpIPredicate::eq, others, zero);
      others = arith::SelectOp::create(
          b, at, isZero, arith::ConstantIndexOp::create(b, at, 1), others);
      staticSizes.push_back(mlir::ShapedType::kDynamic);
      dynamic.push_back(arith::DivSIOp::create(b, at, numel, others));
    } else if (constants[i] && *constants[i] >= 0) {
      staticSizes.push_back(*constants[i]);
    } else {
      staticSizes.push_back(mlir::ShapedType::kDynamic);
      dynamic.push_back(val(sizes[i]));
    }
  }
}

namespace {
/// A ranked tensor type whose element type refinement completes.
mlir::RankedTensorType shaped(mlir::MLIRContext *ctx,
                              llvm::ArrayRef<int64_t> sizes) {
  return mlir::RankedTensorType::get(sizes, mlir::kiln::OpenType::get(ctx));
}
} // namespace

int Tracer::reshape(int x, llvm::ArrayRef<int> sizes, SourceLocation loc) {
  llvm::SmallVector<int64_t> staticSizes;
  llvm::SmallVector<mlir::Value> dynamic;
  shapeOf(sizes, val(x), loc, staticSizes, dynamic);
  return build<mlir::kiln::ReshapeOp>(
      loc, shaped(graph().body->module->getContext(), staticSizes), val(x),
      dynamic);
}

int Tracer::expand(int x, llvm::ArrayRef<int> sizes, SourceLocation loc) {
  // Trailing dims align; -1 keeps the input's size: that dim of the input,
  // counted from the end (static once refined where it is).
  int64_t rank = static_cast<int64_t>(sizes.size());
  llvm::SmallVector<int64_t> staticSizes;
  llvm::SmallVector<mlir::Value> dynamic;
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<double> c = graph().constantValue(sizes[d]);
    if (c && *c >= 0) {
      staticSizes.push_back(static_cast<int64_t>(*c));
      continue;
    }
    staticSizes.push_back(mlir::ShapedType::kDynamic);
    dynamic.push_back(c && *c == -1 ? val(dimOf(x, d - rank, loc))
                                    : val(sizes[d]));
  }
  return build<mlir::kiln::ExpandOp>(
      loc, shaped(graph().body->module->getContext(), staticSizes), val(x),
      dynamic);
}

int Tracer::full(llvm::ArrayRef<int> sizes, int64_t dtype, double value,
                 SourceLocation loc) {
  llvm::SmallVector<int64_t> staticSizes;
  llvm::SmallVector<mlir::Value> dynamic;
  shapeOf(sizes, mlir::Value(), loc, staticSizes, dynamic);
  mlir::OpBuilder b = bodyBuilder();
  mlir::Type el = elementType(b.getContext(), elementOfDType(dtype));
  // A bool fill is true for any nonzero value, as eager's.
  mlir::TypedAttr fill =
      isFloatType(el) ? mlir::TypedAttr(b.getFloatAttr(el, value))
      : el.isInteger(1)
          ? mlir::TypedAttr(b.getBoolAttr(value != 0))
          : mlir::TypedAttr(b.getIntegerAttr(el, static_cast<int64_t>(value)));
  return build<mlir::kiln::FullOp>(
      loc, mlir::RankedTensorType::get(staticSizes, el), dynamic, fill);
}

int Tracer::random(int seed, llvm::ArrayRef<int> sizes, bool normal,
                   int64_t dtype, SourceLocation loc) {
  llvm::SmallVector<int64_t> staticSizes;
  llvm::SmallVector<mlir::Value> dynamic;
  shapeOf(sizes, mlir::Value(), loc, staticSizes, dynamic);
  mlir::MLIRContext *ctx = graph().body->module->getContext();
  return build<mlir::kiln::RandomOp>(
      loc,
      mlir::RankedTensorType::get(staticSizes,
                                  elementType(ctx, elementOfDType(dtype))),
      normal ? mlir::kiln::RandomDistribution::normal
             : mlir::kiln::RandomDistribution::uniform,
      indexOf(seed, loc), dynamic);
}

int Tracer::arange(int start, int end, int step, SourceLocation loc) {
  mlir::MLIRContext *ctx = graph().body->module->getContext();
  return build<mlir::kiln::ArangeOp>(
      loc,
      mlir::RankedTensorType::get({mlir::ShapedType::kDynamic},
                                  mlir::IntegerType::get(ctx, 64)),
      val(start), val(end), val(step));
}

int Tracer::opaqueCall(const std::string &callee, llvm::ArrayRef<int> args,
                       SourceLocation loc) {
  // Assumed to give its first argument's rank and dtype (refinement); the
  // adapter checks, and the statements run eagerly when it does not. Its
  // callee is declared once the call is typed.
  mlir::OpBuilder b = bodyBuilder();
  std::string symbol =
      graph().name + "_opaque_" + std::to_string(graph().values.size());
  auto call = buildOpen<mlir::kiln::OpaqueCallOp>(
      b, opLoc(loc, "kiln.opaque_call"),
      mlir::TypeRange{mlir::kiln::openTensorType(b.getContext())}, symbol,
      vals(args));
  call->setAttr(kCallee, b.getStringAttr(callee));
  return number(call.getResult(0));
}

int Tracer::slice(int x, int64_t dim, int start, int end, int64_t step,
                  SourceLocation loc) {
  // (Other dims keep their sizes, static ones included.)
  mlir::Builder b(val(x).getContext());
  return build<mlir::kiln::SliceOp>(
      loc, mlir::kiln::openTensorType(b.getContext()), val(x),
      b.getI64IntegerAttr(dim), indexOf(start, loc), indexOf(end, loc),
      b.getI64IntegerAttr(step));
}

int Tracer::concat(llvm::ArrayRef<int> parts, int64_t dim, SourceLocation loc) {
  return build<mlir::kiln::CatOp>(loc, vals(parts), dim);
}

int Tracer::unflatten(int x, int64_t dim, llvm::ArrayRef<int> sizes,
                      SourceLocation loc) {
  mlir::Builder b(val(x).getContext());
  return build<mlir::kiln::UnflattenOp>(loc, val(x), b.getI64IntegerAttr(dim),
                                        vals(sizes));
}

int Tracer::where(int cond, int a, int b, SourceLocation loc) {
  return build<mlir::kiln::WhereOp>(
      loc, convertTo(cond, ElementType::Bool, loc), val(a), val(b));
}

int Tracer::compare(mlir::kiln::CmpPredicate predicate, int a, int b,
                    SourceLocation loc) {
  return build<mlir::kiln::CmpOp>(loc, predicate, val(a), val(b));
}

} // namespace kiln::frontend
