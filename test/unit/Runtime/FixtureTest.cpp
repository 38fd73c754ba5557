//===- FixtureTest.cpp - Ops against numpy's results ----------------------===//
//
// Tests that every op matches numpy on the inputs of fixtures/ops.json
// (written by scripts/gen_fixtures.py, numpy computing in float64).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <limits>
#include <map>

using namespace kiln;
using namespace kiln::test;
using json = nlohmann::json;

namespace {

DType parseDType(const std::string &name) {
  static const std::map<std::string, DType> names = {{"float32", kFloat32},
                                                     {"float64", kFloat64},
                                                     {"int32", kInt32},
                                                     {"int64", kInt64},
                                                     {"bool", kBool}};
  return names.at(name);
}

Tensor parseTensor(const json &j) {
  Shape shape = j.at("shape").get<Shape>();
  DType dtype = parseDType(j.at("dtype"));
  if (dtype == kBool)
    return from_vector(j.at("data").get<std::vector<bool>>(), shape);
  // NaN and infinities are the strings "nan", "inf" and "-inf" (JSON has
  // no literals for them).
  std::vector<double> data;
  for (const json &v : j.at("data"))
    data.push_back(!v.is_string() ? v.get<double>()
                   : v == "nan"   ? std::numeric_limits<double>::quiet_NaN()
                   : v == "inf"   ? std::numeric_limits<double>::infinity()
                                  : -std::numeric_limits<double>::infinity());
  return from_vector(data, shape).to(dtype);
}

Shape dimsArg(const json &args) { return args.at("dims").get<Shape>(); }

using OpFn = std::function<Tensor(const std::vector<Tensor> &, const json &)>;

const std::map<std::string, OpFn> &ops() {
  using V = const std::vector<Tensor> &;
  static const std::map<std::string, OpFn> table = {
      {"add", [](V in, const json &) { return in[0] + in[1]; }},
      {"sub", [](V in, const json &) { return in[0] - in[1]; }},
      {"mul", [](V in, const json &) { return in[0] * in[1]; }},
      {"div", [](V in, const json &) { return in[0] / in[1]; }},
      {"pow", [](V in, const json &) { return pow(in[0], in[1]); }},
      {"maximum", [](V in, const json &) { return maximum(in[0], in[1]); }},
      {"minimum", [](V in, const json &) { return minimum(in[0], in[1]); }},
      {"lt", [](V in, const json &) { return in[0] < in[1]; }},
      {"le", [](V in, const json &) { return in[0] <= in[1]; }},
      {"gt", [](V in, const json &) { return in[0] > in[1]; }},
      {"ge", [](V in, const json &) { return in[0] >= in[1]; }},
      {"eq", [](V in, const json &) { return in[0] == in[1]; }},
      {"ne", [](V in, const json &) { return in[0] != in[1]; }},
      {"where", [](V in, const json &) { return where(in[0], in[1], in[2]); }},
      {"abs", [](V in, const json &) { return abs(in[0]); }},
      {"exp", [](V in, const json &) { return exp(in[0]); }},
      {"log", [](V in, const json &) { return log(in[0]); }},
      {"sqrt", [](V in, const json &) { return sqrt(in[0]); }},
      {"rsqrt", [](V in, const json &) { return rsqrt(in[0]); }},
      {"tanh", [](V in, const json &) { return tanh(in[0]); }},
      {"sigmoid", [](V in, const json &) { return sigmoid(in[0]); }},
      {"relu", [](V in, const json &) { return relu(in[0]); }},
      {"gelu", [](V in, const json &) { return gelu(in[0]); }},
      {"gelu_tanh", [](V in, const json &) { return gelu(in[0], "tanh"); }},
      {"silu", [](V in, const json &) { return silu(in[0]); }},
      {"neg", [](V in, const json &) { return -in[0]; }},
      {"sin", [](V in, const json &) { return sin(in[0]); }},
      {"cos", [](V in, const json &) { return cos(in[0]); }},
      {"tan", [](V in, const json &) { return tan(in[0]); }},
      {"atan", [](V in, const json &) { return atan(in[0]); }},
      {"erf", [](V in, const json &) { return erf(in[0]); }},
      {"erfc", [](V in, const json &) { return erfc(in[0]); }},
      {"log1p", [](V in, const json &) { return log1p(in[0]); }},
      {"expm1", [](V in, const json &) { return expm1(in[0]); }},
      {"log2", [](V in, const json &) { return log2(in[0]); }},
      {"exp2", [](V in, const json &) { return exp2(in[0]); }},
      {"reciprocal", [](V in, const json &) { return reciprocal(in[0]); }},
      {"softplus", [](V in, const json &) { return softplus(in[0]); }},
      {"mish", [](V in, const json &) { return mish(in[0]); }},
      {"hardswish", [](V in, const json &) { return hardswish(in[0]); }},
      {"hardsigmoid", [](V in, const json &) { return hardsigmoid(in[0]); }},
      {"floor", [](V in, const json &) { return floor(in[0]); }},
      {"ceil", [](V in, const json &) { return ceil(in[0]); }},
      {"round", [](V in, const json &) { return round(in[0]); }},
      {"trunc", [](V in, const json &) { return trunc(in[0]); }},
      {"square", [](V in, const json &) { return square(in[0]); }},
      {"leaky_relu",
       [](V in, const json &a) {
         return leaky_relu(in[0], a.at("slope").get<double>());
       }},
      {"elu",
       [](V in, const json &a) {
         return elu(in[0], a.at("alpha").get<double>());
       }},
      {"clamp",
       [](V in, const json &a) {
         auto bound = [&](const char *k) -> std::optional<Scalar> {
           if (!a.contains(k))
             return std::nullopt;
           return a.at(k).get<double>();
         };
         return clamp(in[0], bound("min"), bound("max"));
       }},
      {"sign", [](V in, const json &) { return sign(in[0]); }},
      {"var",
       [](V in, const json &a) {
         return var(in[0], dimsArg(a), a.at("correction").get<int64_t>(),
                    a.at("keepdim").get<bool>());
       }},
      {"std",
       [](V in, const json &a) {
         return kiln::std(in[0], dimsArg(a), a.at("correction").get<int64_t>(),
                          a.at("keepdim").get<bool>());
       }},
      {"logsumexp",
       [](V in, const json &a) {
         return logsumexp(in[0], dimsArg(a), a.at("keepdim").get<bool>());
       }},
      {"norm",
       [](V in, const json &a) {
         const json &p = a.at("p");
         double q = !p.is_string() ? p.get<double>()
                    : p == "inf"   ? std::numeric_limits<double>::infinity()
                                   : -std::numeric_limits<double>::infinity();
         return norm(in[0], q, dimsArg(a), a.at("keepdim").get<bool>());
       }},
      {"any",
       [](V in, const json &a) {
         return any(in[0], dimsArg(a), a.at("keepdim").get<bool>());
       }},
      {"all",
       [](V in, const json &a) {
         return all(in[0], dimsArg(a), a.at("keepdim").get<bool>());
       }},
      {"full_like",
       [](V in, const json &a) {
         return full_like(in[0], a.at("value").get<double>());
       }},
      {"isnan", [](V in, const json &) { return isnan(in[0]); }},
      {"isinf", [](V in, const json &) { return isinf(in[0]); }},
      {"isfinite", [](V in, const json &) { return isfinite(in[0]); }},
      {"maximum_scalar",
       [](V in, const json &a) {
         return maximum(in[0], a.at("value").get<double>());
       }},
      {"minimum_scalar",
       [](V in, const json &a) {
         return minimum(in[0], a.at("value").get<double>());
       }},
      {"logical_and",
       [](V in, const json &) { return logical_and(in[0], in[1]); }},
      {"logical_or",
       [](V in, const json &) { return logical_or(in[0], in[1]); }},
      {"logical_not", [](V in, const json &) { return logical_not(in[0]); }},
      {"masked_fill",
       [](V in, const json &a) {
         return masked_fill(in[0], in[1], a.at("value").get<double>());
       }},
      {"tril",
       [](V in, const json &a) {
         return tril(in[0], a.at("diagonal").get<int64_t>());
       }},
      {"triu",
       [](V in, const json &a) {
         return triu(in[0], a.at("diagonal").get<int64_t>());
       }},
      {"stack",
       [](V in, const json &a) { return stack(in, a.at("dim").get<int64_t>()); }},
      {"narrow",
       [](V in, const json &a) {
         return narrow(in[0], a.at("dim").get<int64_t>(),
                       a.at("start").get<int64_t>(),
                       a.at("length").get<int64_t>());
       }},
      {"select",
       [](V in, const json &a) {
         return in[0].select(a.at("dim").get<int64_t>(),
                             a.at("index").get<int64_t>());
       }},
      {"bmm", [](V in, const json &) { return bmm(in[0], in[1]); }},
      {"addmm",
       [](V in, const json &a) {
         return addmm(in[0], in[1], in[2], a.at("beta").get<double>(),
                      a.at("alpha").get<double>());
       }},
      {"baddbmm",
       [](V in, const json &a) {
         return in[0].baddbmm(in[1], in[2], a.at("beta").get<double>(),
                              a.at("alpha").get<double>());
       }},
      {"group_norm",
       [](V in, const json &a) {
         return group_norm(in[0], a.at("groups").get<int64_t>(),
                           in.size() > 1 ? in[1] : Tensor(),
                           in.size() > 2 ? in[2] : Tensor(),
                           a.at("eps").get<double>());
       }},
      {"instance_norm",
       [](V in, const json &a) {
         return instance_norm(in[0], in.size() > 1 ? in[1] : Tensor(),
                              in.size() > 2 ? in[2] : Tensor(),
                              a.at("eps").get<double>());
       }},
      {"conv1d",
       [](V in, const json &a) {
         return conv1d(in[0], in[1], in.size() > 2 ? in[2] : Tensor(),
                       a.at("stride").get<int64_t>(),
                       a.at("padding").get<int64_t>(),
                       a.value("dilation", int64_t(1)),
                       a.value("groups", int64_t(1)));
       }},
      {"max",
       [](V in, const json &a) {
         if (!a.contains("dim"))
           return kiln::max(in[0]);
         auto [values, indices] = kiln::max(in[0], a.at("dim").get<int64_t>(),
                                            a.at("keepdim").get<bool>());
         return a.at("part").get<int>() == 0 ? values : indices;
       }},
      {"min",
       [](V in, const json &a) {
         if (!a.contains("dim"))
           return in[0].min();
         auto result =
             in[0].min(a.at("dim").get<int64_t>(), a.at("keepdim").get<bool>());
         return a.at("part").get<int>() == 0 ? std::get<0>(result)
                                             : std::get<1>(result);
       }},
      {"linspace",
       [](V, const json &a) {
         return linspace(a.at("start").get<double>(),
                         a.at("end").get<double>(),
                         a.at("steps").get<int64_t>());
       }},
      {"cumsum",
       [](V in, const json &a) {
         return cumsum(in[0], a.at("dim").get<int64_t>());
       }},
      {"cumprod",
       [](V in, const json &a) {
         return in[0].cumprod(a.at("dim").get<int64_t>());
       }},
      {"topk",
       [](V in, const json &a) {
         auto result = topk(in[0], a.at("k").get<int64_t>(),
                            a.at("dim").get<int64_t>(),
                            a.at("largest").get<bool>());
         return a.at("part").get<int>() == 0 ? std::get<0>(result)
                                             : std::get<1>(result);
       }},
      {"scatter_add",
       [](V in, const json &a) {
         return in[0].scatter_add(a.at("dim").get<int64_t>(), in[1], in[2]);
       }},
      {"gather",
       [](V in, const json &a) {
         return gather(in[0], a.at("dim").get<int64_t>(), in[1]);
       }},
      {"index_select",
       [](V in, const json &a) {
         return in[0].index_select(a.at("dim").get<int64_t>(), in[1]);
       }},
      {"flip",
       [](V in, const json &a) { return flip(in[0], dimsArg(a)); }},
      {"roll",
       [](V in, const json &a) {
         return roll(in[0], a.at("shifts").get<Shape>(), dimsArg(a));
       }},
      {"repeat",
       [](V in, const json &a) {
         return in[0].repeat(a.at("reps").get<Shape>());
       }},
      {"tile",
       [](V in, const json &a) {
         return tile(in[0], a.at("reps").get<Shape>());
       }},
      {"unflatten",
       [](V in, const json &a) {
         return in[0].unflatten(a.at("dim").get<int64_t>(),
                                a.at("sizes").get<Shape>());
       }},
      {"pad",
       [](V in, const json &a) {
         return pad(in[0], a.at("pads").get<Shape>(),
                    a.at("mode").get<std::string>(),
                    a.at("value").get<double>());
       }},
      {"chunk",
       [](V in, const json &a) {
         return chunk(in[0], a.at("chunks").get<int64_t>(),
                      a.at("dim").get<int64_t>())
             .at(a.at("piece").get<size_t>());
       }},
      {"split",
       [](V in, const json &a) {
         int64_t dim = a.at("dim").get<int64_t>();
         std::vector<Tensor> pieces =
             a.contains("sizes")
                 ? split(in[0], a.at("sizes").get<Shape>(), dim)
                 : in[0].split(a.at("size").get<int64_t>(), dim);
         return pieces.at(a.at("piece").get<size_t>());
       }},
      {"one_hot",
       [](V in, const json &a) {
         return one_hot(in[0], a.at("num_classes").get<int64_t>());
       }},
      {"eye",
       [](V, const json &a) {
         return eye(a.at("n").get<int64_t>(), a.at("m").get<int64_t>());
       }},
      {"dropout",
       [](V in, const json &a) {
         return dropout(in[0], a.at("p").get<double>());
       }},
      {"batch_norm",
       [](V in, const json &a) {
         return batch_norm(in[0], in[1], in[2],
                           in.size() > 3 ? in[3] : Tensor(),
                           in.size() > 4 ? in[4] : Tensor(), false, 0.1,
                           a.at("eps").get<double>());
       }},
      {"scaled_dot_product_attention",
       [](V in, const json &a) {
         std::optional<double> scale;
         if (!a.at("scale").is_null())
           scale = a.at("scale").get<double>();
         return scaled_dot_product_attention(
             in[0], in[1], in[2], in.size() > 3 ? in[3] : Tensor(), 0.0,
             a.at("is_causal").get<bool>(), scale);
       }},
      {"lerp",
       [](V in, const json &a) {
         return lerp(in[0], in[1], a.at("weight").get<double>());
       }},
      {"sum",
       [](V in, const json &a) {
         return sum(in[0], dimsArg(a), a.at("keepdim").get<bool>());
       }},
      {"mean",
       [](V in, const json &a) {
         return mean(in[0], dimsArg(a), a.at("keepdim").get<bool>());
       }},
      {"amax",
       [](V in, const json &a) {
         return amax(in[0], dimsArg(a), a.at("keepdim").get<bool>());
       }},
      {"argmax",
       [](V in, const json &a) {
         std::optional<int64_t> dim;
         if (!a.at("dim").is_null())
           dim = a.at("dim").get<int64_t>();
         return argmax(in[0], dim, a.at("keepdim").get<bool>());
       }},
      {"argmin",
       [](V in, const json &a) {
         std::optional<int64_t> dim;
         if (!a.at("dim").is_null())
           dim = a.at("dim").get<int64_t>();
         return in[0].argmin(dim, a.at("keepdim").get<bool>());
       }},
      {"prod",
       [](V in, const json &a) {
         return in[0].prod(dimsArg(a), a.at("keepdim").get<bool>());
       }},
      {"amin",
       [](V in, const json &a) {
         return amin(in[0], dimsArg(a), a.at("keepdim").get<bool>());
       }},
      {"softmax",
       [](V in, const json &a) {
         return softmax(in[0], a.at("dim").get<int64_t>());
       }},
      {"log_softmax",
       [](V in, const json &a) {
         return log_softmax(in[0], a.at("dim").get<int64_t>());
       }},
      {"layer_norm",
       [](V in, const json &a) {
         return layer_norm(in[0], in[1], in[2], a.at("eps").get<double>());
       }},
      {"rms_norm",
       [](V in, const json &a) {
         return rms_norm(in[0], in[1], a.at("eps").get<double>());
       }},
      {"matmul", [](V in, const json &) { return matmul(in[0], in[1]); }},
      {"linear",
       [](V in, const json &) { return linear(in[0], in[1], in[2]); }},
      {"embedding", [](V in, const json &) { return embedding(in[0], in[1]); }},
      {"conv2d",
       [](V in, const json &a) {
         return conv2d(in[0], in[1], in[2], a.at("stride").get<Shape>(),
                       a.at("padding").get<Shape>(),
                       a.value("dilation", Shape{1}),
                       a.value("groups", int64_t(1)));
       }},
      {"max_pool2d",
       [](V in, const json &a) {
         return max_pool2d(in[0], a.at("kernel").get<Shape>(),
                           a.at("stride").get<Shape>(),
                           a.at("padding").get<Shape>(),
                           a.at("dilation").get<Shape>(),
                           a.at("ceil_mode").get<bool>());
       }},
      {"avg_pool2d",
       [](V in, const json &a) {
         std::optional<int64_t> divisor;
         if (a.contains("divisor"))
           divisor = a.at("divisor").get<int64_t>();
         return avg_pool2d(in[0], a.at("kernel").get<Shape>(),
                           a.at("stride").get<Shape>(),
                           a.at("padding").get<Shape>(),
                           a.at("ceil_mode").get<bool>(),
                           a.at("count_include_pad").get<bool>(), divisor);
       }},
      {"rand",
       [](V, const json &a) {
         return rand(a.at("shape").get<Shape>(), a.at("seed").get<uint64_t>());
       }},
      {"randint",
       [](V, const json &a) {
         return randint(a.at("low").get<int64_t>(), a.at("high").get<int64_t>(),
                        a.at("shape").get<Shape>(),
                        a.at("seed").get<uint64_t>());
       }},
      {"conv_transpose2d",
       [](V in, const json &a) {
         return conv_transpose2d(in[0], in[1], in[2],
                                 a.at("stride").get<Shape>(),
                                 a.at("padding").get<Shape>(),
                                 a.at("output_padding").get<Shape>(),
                                 a.at("groups").get<int64_t>(),
                                 a.at("dilation").get<Shape>());
       }},
      {"interpolate",
       [](V in, const json &a) {
         std::optional<bool> align;
         if (a.contains("align_corners"))
           align = a.at("align_corners").get<bool>();
         std::string mode = a.at("mode").get<std::string>();
         if (a.contains("size"))
           return interpolate(in[0], a.at("size").get<Shape>(), mode, align);
         return interpolate(in[0], a.at("scale_factor").get<double>(), mode,
                            align);
       }},
      {"einsum",
       [](V in, const json &a) {
         return einsum(a.at("equation").get<std::string>(), in);
       }},
      {"adaptive_avg_pool2d",
       [](V in, const json &a) {
         return adaptive_avg_pool2d(in[0], a.at("output_size").get<Shape>());
       }},
      {"cat",
       [](V in, const json &a) { return cat(in, a.at("dim").get<int64_t>()); }},
      {"cross_entropy",
       [](V in, const json &) { return cross_entropy(in[0], in[1]); }},
  };
  return table;
}

/// Relative tolerance per op: float32 results of a float64 reference.
double rtolFor(const std::string &op) {
  if (op == "pow" || op == "matmul" || op == "linear" || op == "conv2d" ||
      op == "conv_transpose2d" || op == "var" || op == "std" ||
      op == "logsumexp" || op == "norm" || op == "layer_norm" ||
      op == "rms_norm" || op == "cross_entropy" || op == "log_softmax" ||
      op == "scaled_dot_product_attention" || op == "bmm" || op == "addmm" ||
      op == "baddbmm" || op == "batch_norm")
    return 1e-5;
  return 1e-6;
}

} // namespace

TEST_CASE("every op matches numpy on the fixture inputs", "[fixture]") {
  std::ifstream in(std::string(KILN_FIXTURE_DIR) + "/ops.json");
  REQUIRE(in.good());
  json fixtures = json::parse(in);
  std::map<std::string, int> seen;
  for (const json &c : fixtures.at("cases")) {
    std::string op = c.at("op");
    std::vector<Tensor> inputs;
    for (const json &t : c.at("inputs"))
      inputs.push_back(parseTensor(t));
    std::string shapes;
    for (const Tensor &t : inputs)
      shapes += shapeStr(t.shape()) + " ";
    INFO("op " << op << " on " << shapes << "args " << c.at("args").dump());
    REQUIRE(ops().count(op));
    Tensor got = ops().at(op)(inputs, c.at("args"));
    Tensor want = parseTensor(c.at("expected"));
    // Attention's outputs are weighted sums of values of either sign over
    // hundreds of keys: float32 error relative to the terms, not the sum.
    double atol = op == "scaled_dot_product_attention" ? 1e-5 : 1e-6;
    checkTensor(got, want.shape(), want.dtype(), values(want), rtolFor(op),
                atol);
    ++seen[op];
  }
  // Every op of the table is exercised by the fixtures.
  for (const auto &entry : ops()) {
    INFO("op " << entry.first);
    CHECK(seen[entry.first] > 0);
  }
}

TEST_CASE("every differentiable op's gradient matches torch's autograd",
          "[fixture][autograd]") {
  // grad_out and torch's gradients (float64) were added to the fixtures by
  // scripts/gen_grad_fixtures.py; kiln computes on the same inputs in
  // float64 too.
  std::ifstream in(std::string(KILN_FIXTURE_DIR) + "/ops.json");
  REQUIRE(in.good());
  json fixtures = json::parse(in);
  int checked = 0;
  for (const json &c : fixtures.at("cases")) {
    if (!c.contains("grads"))
      continue;
    std::string op = c.at("op");
    std::vector<Tensor> inputs;
    const json &grads = c.at("grads");
    for (size_t i = 0; i < c.at("inputs").size(); ++i) {
      Tensor t = parseTensor(c.at("inputs")[i]);
      if (!grads[i].is_null())
        t = t.to(kFloat64).requires_grad_();
      inputs.push_back(t);
    }
    INFO("op " << op << " args " << c.at("args").dump());
    Tensor out = ops().at(op)(inputs, c.at("args"));
    Tensor gradOut = parseTensor(c.at("grad_out"));
    if (out.requires_grad())
      out.backward(gradOut.to(out.dtype()));
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (grads[i].is_null())
        continue;
      INFO("input " << i);
      Tensor want = parseTensor(grads[i]);
      Tensor got = inputs[i].grad();
      if (!got.defined())
        got = zeros(want.shape(), kFloat64);
      checkTensor(got, want.shape(), kFloat64, values(want), 1e-6, 1e-9);
    }
    ++checked;
  }
  CHECK(checked > 300);
}
