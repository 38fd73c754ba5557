//===- EagerInterpreter.cpp - kiln ops evaluated by the eager runtime -----===//
#include "EagerInterpreter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <optional>

using namespace mlir;
namespace k = mlir::kiln;

namespace kiln::e2e {

namespace {
// evalRuntimeCall: every op whose ODS definition spells its runtime call.
#define GET_KILN_RUNTIME_CALL_EVAL
#include "kiln/Dialect/Kiln/IR/KilnRuntimeCalls.h.inc"
} // namespace

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

  // What evalRuntimeCall asks of its evaluator: the runtime's argument for
  // an operand or attribute, and where the result goes.
  void set(Value v, RtValue x) { env[v] = std::move(x); }
  Tensor tensor(Value v) { return v ? t(v) : Tensor(); }
  std::vector<Tensor> tensors(ValueRange values) {
    std::vector<Tensor> out;
    for (Value v : values)
      out.push_back(t(v));
    return out;
  }
  int64_t index(Value v) { return i(v); }
  Shape indices(ValueRange values) {
    Shape out;
    for (Value v : values)
      out.push_back(i(v));
    return out;
  }
  double real(Value v) { return std::get<double>(env.at(v)); }
  ::kiln::Scalar scalar(Value v) {
    if (v.getType().isIndex())
      return ::kiln::Scalar(index(v));
    return ::kiln::Scalar(real(v));
  }
  std::optional<double> optionalReal(Value v) {
    return v ? std::optional<double>(real(v)) : std::nullopt;
  }
  static bool attr(bool v) { return v; }
  static int64_t attr(uint64_t v) { return static_cast<int64_t>(v); }
  static double attr(const APFloat &v) { return v.convertToDouble(); }
  static Shape attr(ArrayRef<int64_t> v) { return Shape(v); }
  static DType attr(Type element) { return dtypeOf(element); }
  static std::string attr(StringRef v) { return v.str(); }
  static std::optional<bool> attr(std::optional<bool> v) { return v; }
  static ::kiln::Scalar attr(Attribute v) {
    if (auto i = dyn_cast<IntegerAttr>(v))
      return ::kiln::Scalar(static_cast<int64_t>(i.getInt()));
    return ::kiln::Scalar(cast<FloatAttr>(v).getValueAsDouble());
  }
  template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
  static std::string attr(E v) {
    return k::stringifyEnum(v).str();
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
  /// A kiln.pool2d's (or its gradient's) window: kernel, strides, padding,
  /// dilation, resolved; its flags and divisor.
  struct Window {
    Shape kernel, strides, padding, dilation;
    bool ceilMode, countIncludePad;
    std::optional<int64_t> divisor;
  };
  template <typename PoolOp> Window windowOf(PoolOp o) {
    auto p = o.getParams().begin();
    Window w;
    w.kernel = resolve(o.getKernel(), p);
    w.strides = resolve(o.getStrides(), p);
    w.padding = resolve(o.getPadding(), p);
    w.dilation = resolve(o.getDilation(), p);
    Shape flags = resolve({static_cast<int64_t>(o.getCeilMode()),
                           static_cast<int64_t>(o.getCountIncludePad())},
                          p);
    w.ceilMode = flags[0] != 0;
    w.countIncludePad = flags[1] != 0;
    if (o.getDivisor())
      w.divisor = static_cast<int64_t>(*o.getDivisor());
    return w;
  }
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
  Shape sizesOf(ShapedType type, ValueRange dynamic) {
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
    if (evalRuntimeCall(&op, *this))
      return;
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
        .Case([&](arith::RemSIOp o) { set(o, i(o.getLhs()) % i(o.getRhs())); })
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
        .Case([&](arith::OrIOp o) { set(o, i(o.getLhs()) | i(o.getRhs())); })
        // Host f64 arithmetic (a run-time weight's complement, its choice of
        // end: kiln.lerp's decomposition; positions and scales: linspace's
        // and interpolate's).
        .Case([&](arith::SubFOp o) {
          set(o, real(o.getLhs()) - real(o.getRhs()));
        })
        .Case([&](arith::MulFOp o) {
          set(o, real(o.getLhs()) * real(o.getRhs()));
        })
        .Case([&](arith::DivFOp o) {
          set(o, real(o.getLhs()) / real(o.getRhs()));
        })
        .Case([&](arith::NegFOp o) { set(o, -real(o.getOperand())); })
        .Case([&](arith::SIToFPOp o) {
          set(o, static_cast<double>(i(o.getIn())));
        })
        .Case([&](arith::FPToSIOp o) {
          set(o, static_cast<int64_t>(real(o.getIn())));
        })
        .Case([&](arith::CmpFOp o) {
          double a = real(o.getLhs()), b = real(o.getRhs());
          using P = arith::CmpFPredicate;
          switch (o.getPredicate()) {
          case P::OLT:
            return set(o, int64_t{a < b});
          case P::OLE:
            return set(o, int64_t{a <= b});
          case P::OGT:
            return set(o, int64_t{a > b});
          case P::OGE:
            return set(o, int64_t{a >= b});
          case P::OEQ:
            return set(o, int64_t{a == b});
          default:
            throw Error("e2e: the interpreter has no rule for this "
                        "arith.cmpf predicate");
          }
        })
        .Case([&](arith::MaxSIOp o) {
          set(o, std::max(i(o.getLhs()), i(o.getRhs())));
        })
        .Case([&](arith::MinSIOp o) {
          set(o, std::min(i(o.getLhs()), i(o.getRhs())));
        })
        .Case([&](arith::SelectOp o) {
          set(o, i(o.getCondition()) ? env.at(o.getTrueValue())
                                     : env.at(o.getFalseValue()));
        })
        .Case([&](arith::IndexCastOp o) { set(o, i(o.getIn())); })
        // A traced shape check: eager raised it where the op ran.
        .Case([&](cf::AssertOp o) {
          if (!i(o.getArg()))
            throw Error(o.getMsg().str());
        })
        .Case([&](k::ConstantOp o) { set(o, fromAttr(o.getValue())); })
        .Case([&](k::CmpOp o) {
          set(o, compare(o.getPredicate(), t(o.getLhs()), t(o.getRhs())));
        })
        .Case([&](k::CastOp o) {
          set(o, t(o.getInput()).to(dtypeOf(o.getType().getElementType())));
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
        .Case([&](k::ConvTranspose2dOp o) {
          auto p = o.getParams().begin();
          Shape strides = resolve(o.getStrides(), p);
          Shape padding = resolve(o.getPadding(), p);
          Shape extra = resolve(o.getOutputPadding(), p);
          Shape groups = resolve({static_cast<int64_t>(o.getGroups())}, p);
          Shape dilation = resolve(o.getDilation(), p);
          set(o,
              conv_transpose2d(t(o.getInput()), t(o.getWeight()),
                               o.getBias() ? t(o.getBias()) : Tensor(), strides,
                               padding, extra, groups[0], dilation));
        })
        .Case([&](k::AdaptiveAvgPool2dOp o) {
          auto p = o.getParams().begin();
          set(o, adaptive_avg_pool2d(t(o.getInput()),
                                     resolve(o.getOutputSize(), p)));
        })
        .Case([&](k::Pool2dOp o) {
          Window w = windowOf(o);
          Tensor x = t(o.getInput());
          if (o.getKind() == k::PoolKind::max)
            set(o, max_pool2d(x, w.kernel, w.strides, w.padding, w.dilation,
                              w.ceilMode));
          else
            set(o, avg_pool2d(x, w.kernel, w.strides, w.padding, w.ceilMode,
                              w.countIncludePad, w.divisor));
        })
        .Case([&](k::Conv2dBackwardOp o) {
          auto p = o.getParams().begin();
          Shape strides = resolve(o.getStrides(), p);
          Shape padding = resolve(o.getPadding(), p);
          Shape dilation = resolve(o.getDilation(), p);
          Shape groups = resolve({static_cast<int64_t>(o.getGroups())}, p);
          auto [gx, gw] = conv2d_backward(
              t(o.getGradOutput()), t(o.getInput()), t(o.getWeight()), strides,
              padding, dilation, groups[0],
              {!o.getInputGrad().use_empty(), !o.getWeightGrad().use_empty()});
          if (gx.defined())
            set(o.getInputGrad(), gx);
          if (gw.defined())
            set(o.getWeightGrad(), gw);
        })
        .Case([&](k::Pool2dBackwardOp o) {
          Window w = windowOf(o);
          Tensor g = t(o.getGradOutput()), x = t(o.getInput());
          if (o.getKind() == k::PoolKind::max)
            set(o, max_pool2d_backward(g, x, w.kernel, w.strides, w.padding,
                                       w.dilation, w.ceilMode));
          else
            set(o,
                avg_pool2d_backward(g, x, w.kernel, w.strides, w.padding,
                                    w.ceilMode, w.countIncludePad, w.divisor));
        })
        .Case([&](k::ReshapeOp o) {
          set(o, t(o.getInput()).reshape(sizesOf(o.getType(), o.getSizes())));
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
