//===- EagerInterpreter.cpp - kiln ops evaluated by the eager runtime -----===//
#include "EagerInterpreter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

using namespace mlir;
namespace k = mlir::kiln;

namespace kiln::e2e {

DType dtypeOf(Type t) {
  if (t.isF16())
    return kFloat16;
  if (t.isBF16())
    return kBFloat16;
  if (t.isF32())
    return kFloat32;
  if (t.isF64())
    return kFloat64;
  if (t.isInteger(1))
    return kBool;
  if (t.isInteger(32))
    return kInt32;
  if (t.isInteger(64))
    return kInt64;
  throw Error("e2e: unsupported element type");
}

namespace {

std::map<std::string, OpaqueFunction> &opaqueFunctions() {
  static std::map<std::string, OpaqueFunction> functions;
  return functions;
}

class Interpreter {
public:
  std::vector<RtValue> run(func::FuncOp fn, const std::vector<RtValue> &args) {
    for (auto [arg, value] : llvm::zip(fn.getArguments(), args))
      env[arg] = value;
    for (Operation &op : fn.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        std::vector<RtValue> out;
        for (Value v : ret.getOperands())
          out.push_back(env.at(v));
        return out;
      }
      eval(op);
    }
    throw Error("e2e: function without return");
  }

private:
  Tensor t(Value v) { return std::get<Tensor>(env.at(v)); }
  int64_t i(Value v) { return std::get<int64_t>(env.at(v)); }
  /// An op's attribute values, its kDynamic ones taken from the params in
  /// order (`next` moves past those read).
  Shape resolve(ArrayRef<int64_t> attr, OperandRange::iterator &next) {
    Shape values;
    for (int64_t v : attr)
      values.push_back(ShapedType::isDynamic(v) ? i(*next++) : v);
    return values;
  }
  void set(Value v, RtValue x) { env[v] = std::move(x); }

  /// A constant tensor from a dense attribute.
  static Tensor fromAttr(ElementsAttr attr) {
    auto type = cast<RankedTensorType>(attr.getType());
    Shape shape(type.getShape());
    std::vector<double> values;
    Type e = type.getElementType();
    if (isa<FloatType>(e)) {
      for (APFloat v : attr.getValues<APFloat>())
        values.push_back(v.convertToDouble());
    } else {
      for (APInt v : attr.getValues<APInt>())
        values.push_back(e.isInteger(1) ? double(v.getZExtValue())
                                        : double(v.getSExtValue()));
    }
    return from_vector(values, shape).to(dtypeOf(e));
  }

  static Scalar scalarOf(TypedAttr attr) {
    if (auto f = dyn_cast<FloatAttr>(attr))
      return f.getValueAsDouble();
    auto v = cast<IntegerAttr>(attr);
    if (v.getType().isInteger(1))
      return v.getValue().getZExtValue() != 0;
    return v.getValue().getSExtValue();
  }

  /// Sizes of a result type, dynamic ones from operands in order.
  Shape sizesOf(RankedTensorType type, ValueRange dynamic) {
    Shape shape;
    auto it = dynamic.begin();
    for (int64_t s : type.getShape())
      shape.push_back(ShapedType::isDynamic(s) ? i(*it++) : s);
    return shape;
  }

  Tensor compare(k::CmpPredicate p, const Tensor &a, const Tensor &b) {
    switch (p) {
    case k::CmpPredicate::lt:
      return a < b;
    case k::CmpPredicate::le:
      return a <= b;
    case k::CmpPredicate::gt:
      return a > b;
    case k::CmpPredicate::ge:
      return a >= b;
    case k::CmpPredicate::eq:
      return a == b;
    case k::CmpPredicate::ne:
      return a != b;
    }
    throw Error("e2e: bad predicate");
  }

  void eval(Operation &op) {
    llvm::TypeSwitch<Operation *>(&op)
        .Case([&](arith::ConstantOp c) {
          if (isa<IndexType>(c.getType()) || isa<IntegerType>(c.getType()))
            set(c, cast<IntegerAttr>(c.getValue()).getInt());
          else if (auto f = dyn_cast<FloatAttr>(c.getValue()))
            set(c, f.getValueAsDouble());
          else
            set(c, fromAttr(cast<ElementsAttr>(c.getValue())));
        })
        .Case([&](arith::AddIOp o) { set(o, i(o.getLhs()) + i(o.getRhs())); })
        .Case([&](arith::SubIOp o) { set(o, i(o.getLhs()) - i(o.getRhs())); })
        .Case([&](arith::MulIOp o) { set(o, i(o.getLhs()) * i(o.getRhs())); })
        .Case([&](arith::DivSIOp o) { set(o, i(o.getLhs()) / i(o.getRhs())); })
        .Case([&](arith::CmpIOp o) {
          int64_t a = i(o.getLhs()), b = i(o.getRhs());
          using P = arith::CmpIPredicate;
          switch (o.getPredicate()) {
          case P::eq:
            return set(o, int64_t{a == b});
          case P::ne:
            return set(o, int64_t{a != b});
          case P::slt:
            return set(o, int64_t{a < b});
          case P::sle:
            return set(o, int64_t{a <= b});
          case P::sgt:
            return set(o, int64_t{a > b});
          case P::sge:
            return set(o, int64_t{a >= b});
          default:
            throw Error("e2e: the interpreter has no rule for unsigned "
                        "arith.cmpi");
          }
        })
        .Case([&](arith::AndIOp o) { set(o, i(o.getLhs()) & i(o.getRhs())); })
        // A traced shape check: eager raised it where the op ran.
        .Case([&](cf::AssertOp o) {
          if (!i(o.getArg()))
            throw Error(o.getMsg().str());
        })
        .Case([&](k::ConstantOp o) { set(o, fromAttr(o.getValue())); })
        .Case([&](k::AddOp o) { set(o, t(o.getLhs()) + t(o.getRhs())); })
        .Case([&](k::SubOp o) { set(o, t(o.getLhs()) - t(o.getRhs())); })
        .Case([&](k::MulOp o) { set(o, t(o.getLhs()) * t(o.getRhs())); })
        .Case([&](k::DivOp o) { set(o, t(o.getLhs()) / t(o.getRhs())); })
        .Case([&](k::PowOp o) { set(o, pow(t(o.getLhs()), t(o.getRhs()))); })
        .Case([&](k::MaximumOp o) {
          set(o, maximum(t(o.getLhs()), t(o.getRhs())));
        })
        .Case([&](k::MinimumOp o) {
          set(o, minimum(t(o.getLhs()), t(o.getRhs())));
        })
        .Case([&](k::CmpOp o) {
          set(o, compare(o.getPredicate(), t(o.getLhs()), t(o.getRhs())));
        })
        .Case([&](k::WhereOp o) {
          set(o, where(t(o.getCond()), t(o.getLhs()), t(o.getRhs())));
        })
        .Case([&](k::NegOp o) { set(o, -t(o.getInput())); })
        .Case([&](k::AbsOp o) { set(o, abs(t(o.getInput()))); })
        .Case([&](k::ReluOp o) { set(o, relu(t(o.getInput()))); })
        .Case([&](k::ExpOp o) { set(o, exp(t(o.getInput()))); })
        .Case([&](k::LogOp o) { set(o, log(t(o.getInput()))); })
        .Case([&](k::SqrtOp o) { set(o, sqrt(t(o.getInput()))); })
        .Case([&](k::RsqrtOp o) { set(o, rsqrt(t(o.getInput()))); })
        .Case([&](k::TanhOp o) { set(o, tanh(t(o.getInput()))); })
        .Case([&](k::SigmoidOp o) { set(o, sigmoid(t(o.getInput()))); })
        .Case([&](k::SiluOp o) { set(o, silu(t(o.getInput()))); })
        .Case([&](k::SinOp o) { set(o, sin(t(o.getInput()))); })
        .Case([&](k::CosOp o) { set(o, cos(t(o.getInput()))); })
        .Case([&](k::TanOp o) { set(o, tan(t(o.getInput()))); })
        .Case([&](k::AtanOp o) { set(o, atan(t(o.getInput()))); })
        .Case([&](k::ErfOp o) { set(o, erf(t(o.getInput()))); })
        .Case([&](k::ErfcOp o) { set(o, erfc(t(o.getInput()))); })
        .Case([&](k::Log1pOp o) { set(o, log1p(t(o.getInput()))); })
        .Case([&](k::Expm1Op o) { set(o, expm1(t(o.getInput()))); })
        .Case([&](k::Log2Op o) { set(o, log2(t(o.getInput()))); })
        .Case([&](k::Exp2Op o) { set(o, exp2(t(o.getInput()))); })
        .Case([&](k::ReciprocalOp o) { set(o, reciprocal(t(o.getInput()))); })
        .Case([&](k::SoftplusOp o) { set(o, softplus(t(o.getInput()))); })
        .Case([&](k::MishOp o) { set(o, mish(t(o.getInput()))); })
        .Case([&](k::HardswishOp o) { set(o, hardswish(t(o.getInput()))); })
        .Case([&](k::HardsigmoidOp o) { set(o, hardsigmoid(t(o.getInput()))); })
        .Case([&](k::FloorOp o) { set(o, floor(t(o.getInput()))); })
        .Case([&](k::CeilOp o) { set(o, ceil(t(o.getInput()))); })
        .Case([&](k::RoundOp o) { set(o, round(t(o.getInput()))); })
        .Case([&](k::TruncOp o) { set(o, trunc(t(o.getInput()))); })
        .Case([&](k::SquareOp o) { set(o, square(t(o.getInput()))); })
        .Case([&](k::GeluOp o) {
          set(o,
              gelu(t(o.getInput()),
                   o.getApproximate() == k::GeluApproximation::tanh ? "tanh"
                                                                    : "none"));
        })
        .Case([&](k::CastOp o) {
          set(o, t(o.getInput()).to(dtypeOf(o.getType().getElementType())));
        })
        .Case([&](k::SumOp o) {
          // The dialect keeps the element type; the frontend casts first.
          Tensor in = t(o.getInput());
          set(o, sum(in, Shape(o.getDims()), o.getKeepdim()).to(in.dtype()));
        })
        .Case([&](k::MeanOp o) {
          set(o, mean(t(o.getInput()), Shape(o.getDims()), o.getKeepdim()));
        })
        .Case([&](k::AmaxOp o) {
          set(o, amax(t(o.getInput()), Shape(o.getDims()), o.getKeepdim()));
        })
        .Case([&](k::ArgmaxOp o) {
          std::optional<int64_t> dim;
          if (!o.getDims().empty())
            dim = o.getDims()[0];
          set(o, argmax(t(o.getInput()), dim, o.getKeepdim()));
        })
        .Case([&](k::ArgminOp o) {
          std::optional<int64_t> dim;
          if (!o.getDims().empty())
            dim = o.getDims()[0];
          set(o, argmin(t(o.getInput()), dim, o.getKeepdim()));
        })
        .Case([&](k::ProdOp o) {
          set(o, prod(t(o.getInput()), Shape(o.getDims()), o.getKeepdim()));
        })
        .Case([&](k::AminOp o) {
          set(o, amin(t(o.getInput()), Shape(o.getDims()), o.getKeepdim()));
        })
        .Case([&](k::SoftmaxOp o) {
          set(o, softmax(t(o.getInput()), static_cast<int64_t>(o.getDim())));
        })
        .Case([&](k::LogSoftmaxOp o) {
          set(o,
              log_softmax(t(o.getInput()), static_cast<int64_t>(o.getDim())));
        })
        .Case([&](k::LayerNormOp o) {
          set(o, layer_norm(t(o.getInput()), t(o.getWeight()),
                            o.getBias() ? t(o.getBias()) : Tensor(),
                            o.getEps().convertToDouble()));
        })
        .Case([&](k::RmsNormOp o) {
          set(o, rms_norm(t(o.getInput()), t(o.getWeight()),
                          o.getEps().convertToDouble()));
        })
        .Case([&](k::MatmulOp o) {
          set(o, matmul(t(o.getLhs()), t(o.getRhs())));
        })
        .Case([&](k::LinearOp o) {
          set(o, linear(t(o.getInput()), t(o.getWeight()),
                        o.getBias() ? t(o.getBias()) : Tensor()));
        })
        .Case([&](k::ScaledDotProductAttentionOp o) {
          std::optional<double> scale;
          if (o.getScale())
            scale = std::get<double>(env.at(o.getScale()));
          set(o, scaled_dot_product_attention(
                     t(o.getQuery()), t(o.getKey()), t(o.getValue()),
                     o.getMask() ? t(o.getMask()) : Tensor(), 0.0,
                     o.getIsCausal(), scale));
        })
        .Case([&](k::GatherOp o) {
          set(o, gather(t(o.getInput()), o.getDim(), t(o.getIndex())));
        })
        .Case([&](k::ScatterAddOp o) {
          set(o, scatter_add(t(o.getInput()), o.getDim(), t(o.getIndex()),
                             t(o.getSrc())));
        })
        .Case(
            [&](k::CumsumOp o) { set(o, cumsum(t(o.getInput()), o.getDim())); })
        .Case([&](k::CumprodOp o) {
          set(o, cumprod(t(o.getInput()), o.getDim()));
        })
        .Case([&](k::TopkOp o) {
          set(o, std::get<1>(topk(t(o.getInput()), i(o.getK()), o.getDim(),
                                  o.getLargest())));
        })
        .Case([&](k::EmbeddingOp o) {
          set(o, embedding(t(o.getIds()), t(o.getTable())));
        })
        .Case([&](k::Conv2dOp o) {
          auto p = o.getParams().begin();
          Shape strides = resolve(o.getStrides(), p);
          Shape padding = resolve(o.getPadding(), p);
          Shape dilation = resolve(o.getDilation(), p);
          Shape groups = resolve({static_cast<int64_t>(o.getGroups())}, p);
          set(o, conv2d(t(o.getInput()), t(o.getWeight()),
                        o.getBias() ? t(o.getBias()) : Tensor(), strides,
                        padding, dilation, groups[0]));
        })
        .Case([&](k::AdaptiveAvgPool2dOp o) {
          auto p = o.getParams().begin();
          set(o, adaptive_avg_pool2d(t(o.getInput()),
                                     resolve(o.getOutputSize(), p)));
        })
        .Case([&](k::Pool2dOp o) {
          auto p = o.getParams().begin();
          Shape kernel = resolve(o.getKernel(), p);
          Shape strides = resolve(o.getStrides(), p);
          Shape padding = resolve(o.getPadding(), p);
          Shape dilation = resolve(o.getDilation(), p);
          Shape flags = resolve({static_cast<int64_t>(o.getCeilMode()),
                                 static_cast<int64_t>(o.getCountIncludePad())},
                                p);
          if (o.getKind() == k::PoolKind::max)
            set(o, max_pool2d(t(o.getInput()), kernel, strides, padding,
                              dilation, flags[0] != 0));
          else
            set(o, avg_pool2d(t(o.getInput()), kernel, strides, padding,
                              flags[0] != 0, flags[1] != 0,
                              o.getDivisor()
                                  ? std::optional<int64_t>(*o.getDivisor())
                                  : std::nullopt));
        })
        .Case([&](k::CatOp o) {
          std::vector<Tensor> parts;
          for (Value v : o.getInputs())
            parts.push_back(t(v));
          set(o, cat(parts, static_cast<int64_t>(o.getDim())));
        })
        .Case([&](k::CrossEntropyOp o) {
          set(o, cross_entropy(t(o.getLogits()), t(o.getTargets())));
        })
        .Case([&](k::ReshapeOp o) {
          set(o, t(o.getInput()).reshape(sizesOf(o.getType(), o.getSizes())));
        })
        .Case([&](k::TransposeOp o) {
          set(o, t(o.getInput())
                     .transpose(static_cast<int64_t>(o.getDim0()),
                                static_cast<int64_t>(o.getDim1())));
        })
        .Case([&](k::PermuteOp o) {
          set(o, t(o.getInput()).permute(Shape(o.getPermutation())));
        })
        .Case([&](k::SliceOp o) {
          set(o, t(o.getInput())
                     .slice(static_cast<int64_t>(o.getDim()), i(o.getStart()),
                            i(o.getEnd()), static_cast<int64_t>(o.getStep())));
        })
        .Case([&](k::UnsqueezeOp o) {
          set(o, t(o.getInput()).unsqueeze(static_cast<int64_t>(o.getDim())));
        })
        .Case([&](k::SqueezeOp o) {
          set(o, t(o.getInput()).squeeze(static_cast<int64_t>(o.getDim())));
        })
        .Case([&](k::ExpandOp o) {
          set(o, t(o.getInput()).expand(sizesOf(o.getType(), o.getSizes())));
        })
        .Case([&](k::FullOp o) {
          set(o, full(sizesOf(o.getType(), o.getSizes()),
                      scalarOf(cast<TypedAttr>(o.getValue())),
                      dtypeOf(o.getType().getElementType())));
        })
        .Case([&](k::RandomOp o) {
          Shape sizes = sizesOf(o.getType(), o.getSizes());
          auto seed = static_cast<uint64_t>(i(o.getSeed()));
          DType dt = dtypeOf(o.getType().getElementType());
          set(o, o.getDistribution() == k::RandomDistribution::normal
                     ? randn(sizes, seed, dt)
                     : rand(sizes, seed, dt));
        })
        .Case([&](k::ArangeOp o) {
          set(o, arange(i(o.getStart()), i(o.getEnd()), i(o.getStep()))
                     .to(dtypeOf(o.getType().getElementType())));
        })
        .Case([&](k::FromScalarOp o) {
          DType dt = dtypeOf(o.getType().getElementType());
          const RtValue &v = env.at(o.getScalar());
          if (auto *n = std::get_if<int64_t>(&v))
            set(o, full({}, *n, dt));
          else
            set(o, full({}, std::get<double>(v), dt));
        })
        .Case([&](k::OpaqueCallOp o) {
          auto it = opaqueFunctions().find(o.getCallee().str());
          if (it == opaqueFunctions().end())
            throw Error("e2e: no eager body for " + o.getCallee().str());
          std::vector<Tensor> in;
          for (Value v : o.getOperands())
            in.push_back(t(v));
          std::vector<Tensor> out = it->second(in);
          for (auto [result, value] : llvm::zip(o.getResults(), out))
            set(result, value);
        })
        .Case([&](k::DimOp o) {
          set(o, t(o.getInput()).size(static_cast<int64_t>(o.getIndex())));
        })
        .Default([&](Operation *other) {
          throw Error("e2e: the interpreter has no rule for " +
                      other->getName().getStringRef().str());
        });
  }

  llvm::DenseMap<Value, RtValue> env;
};

} // namespace

void registerOpaqueFunction(const std::string &name, OpaqueFunction fn) {
  opaqueFunctions()[name] = fn;
}

std::vector<RtValue> interpret(func::FuncOp fn,
                               const std::vector<RtValue> &args) {
  return Interpreter().run(fn, args);
}

} // namespace kiln::e2e
