//===- kiln-e2e.cpp - Compiled graphs against the eager runtime -----------===//
//
//   kiln-e2e FILE.mlir --work DIR --cxx COMPILER [--sanitize-address]
//            [--backend=cuda [--cuda-arch=sm_90] | --backend=cuda-emulated]
//            [--static-dims=SEED] [--min-parallel-work=N] [--outline-above=N]
//            [--split-ops=N]
//
// (--min-parallel-work=N sets the CPU pipeline's threshold for threads,
// kiln-parallel-where-it-pays: 0 runs every loop nest threaded, at sizes
// where the default would run it serially; --outline-above=N its count of
// nests above which a function's nests become one shared body each: 0
// outlines every nest; --split-ops=N the operations per function that
// kiln-split-large-functions cuts larger graph functions into.)
// (--static-dims=SEED runs, for each run line, a copy of its function whose
// tensor arguments have random dynamic dims made static at the run's sizes:
// ops that infer their types re-infer them, others get casts back, so the
// copy verifies with the mixes of static and dynamic dims traced graphs
// hold. The oracle runs the original; expect-error lines keep it.)
// (--sanitize-address instruments the compiled graphs with ASan; the
// harness itself must then be an ASan build.) With --backend=cuda the
// graphs go through buildGpuPipeline (PTX, checked by ptxas when the CUDA
// toolkit is there) and run on the GPU through kiln::abi::GraphCall, the
// inputs staged from the CPU; without a GPU the harness compiles, checks
// and links them, then prints "skipped: no GPU" instead of running.
// --backend=cuda-emulated maps the loop nests onto blocks and threads as
// the GPU pipeline does (vector accesses included) and runs that grid as
// serial loops on the CPU (test/lib: kiln-test-gpu-mapping-on-cpu-pipeline),
// checking its index arithmetic on any machine.
// Compiles every function of FILE (kiln dialect) through buildCpuPipeline to
// an object file in process, links it into a shared library, loads it, and
// for each `// E2E: @fn ARG...` line of FILE runs @fn compiled and through
// the eager interpreter on the same random inputs, comparing the results.
// ARG is `f32[5,7]` (standard normal), `i64[5]{0,10}` (integers in [0, 10)),
// `i1[4]` (random bools), `idx=5` (an index), `f32=2.5` (a float scalar).
// A float tensor may add `*S` (standard normal times S: `f32[999]*40` reaches
// where exp overflows and erf saturates) and `!` (its first elements are
// then inf, -inf, nan, 0, -0, 1e-40 and +-100).
// A float tensor with `{LO,HI}` holds evenly spaced values from LO to HI
// instead (`f32[400000]{-104,89}` sweeps exp's whole range; LO and HI may
// be decimals, `{-0.001,0.001}`).
// A line that ends in `expect-error` must make eager code throw kiln::Error
// and compiled code return status 1. An `// E2E-GRAD: @fn ARG...` line
// checks fn's backward instead (kiln-differentiate's buildBackward, built
// for it before anything is compiled): for random gradients of fn's float
// outputs, the gradient of each float input that @fn_backward returns,
// compiled and interpreted, against eager autograd's (the interpreter
// running fn on inputs that require grad, each runtime op recording as the
// uncompiled program's would). A `// E2E-TOLERANCE: RTOL ATOL` line
// widens the float32 tolerance for a file whose graphs are deep enough for
// float32 rounding (compiled) and double accumulation (eager) to drift
// further apart than the default rtol 1e-4, atol 1e-5. `// E2E-ULP: N`
// instead bounds float32 results by N units in the last place of eager's
// (below 2^-125, where compiled exp flushes to zero, by N * 2^-125).
//
// Prints one PASS or FAIL line per run; exits 1 if any run failed.
//
//===----------------------------------------------------------------------===//
#include "EagerInterpreter.h"

#include "TestPasses.h"
#include "kiln/Cuda.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Target/CUDA.h"
#include "kiln/Target/Host.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>

using namespace kiln;
using namespace kiln::e2e;

namespace {

struct ArgSpec {
  std::string kind; // f32, i64, i1, idx, ...
  Shape shape;
  bool isScalar = false;
  double value = 0;
  double lo = 0, hi = 10; // integers for integer tensors
  bool range = false;
  double scale = 1;
  bool special = false;
};

struct RunSpec {
  std::string line, function;
  std::vector<ArgSpec> args;
  bool expectError = false;
  /// An `E2E-GRAD:` line: the gradients of the function's backward
  /// (kiln-differentiate) against eager autograd's.
  bool gradients = false;
};

std::vector<RunSpec> parseSpecs(const std::string &text) {
  std::vector<RunSpec> runs;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    RunSpec run;
    auto pos = line.find("// E2E:");
    if (pos != std::string::npos) {
      run.line = line.substr(pos + 8);
    } else if ((pos = line.find("// E2E-GRAD:")) != std::string::npos) {
      run.line = line.substr(pos + 13);
      run.gradients = true;
    } else {
      continue;
    }
    std::istringstream words(run.line);
    std::string word;
    words >> word;
    run.function = word.substr(1);
    std::regex tensorRe(
        R"((\w+)\[([0-9,]*)\](\{(-?[0-9.eE+-]+),(-?[0-9.eE+-]+)\})?(\*([0-9.eE+-]+))?(!)?)");
    std::regex scalarRe(R"((\w+)=(-?[0-9.eE+-]+))");
    while (words >> word) {
      std::smatch m;
      ArgSpec arg;
      if (word == "expect-error") {
        run.expectError = true;
        continue;
      }
      if (std::regex_match(word, m, tensorRe)) {
        arg.kind = m[1];
        std::stringstream dims(m[2]);
        std::string d;
        while (std::getline(dims, d, ','))
          if (!d.empty())
            arg.shape.push_back(std::stoll(d));
        if (m[3].matched) {
          arg.lo = std::stod(m[4]);
          arg.hi = std::stod(m[5]);
          arg.range = true;
        }
        if (m[6].matched)
          arg.scale = std::stod(m[7]);
        arg.special = m[8].matched;
      } else if (std::regex_match(word, m, scalarRe)) {
        arg.kind = m[1];
        arg.isScalar = true;
        arg.value = std::stod(m[2]);
      } else {
        throw Error("e2e: cannot read argument '" + word + "'");
      }
      run.args.push_back(arg);
    }
    runs.push_back(run);
  }
  return runs;
}

DType dtypeNamed(const std::string &kind) {
  static const std::map<std::string, DType> names = {
      {"f16", kFloat16}, {"bf16", kBFloat16}, {"f32", kFloat32},
      {"f64", kFloat64}, {"i1", kBool},       {"i32", kInt32},
      {"i64", kInt64}};
  return names.at(kind);
}

RtValue makeInput(const ArgSpec &arg, uint64_t seed) {
  if (arg.isScalar) {
    if (arg.kind == "idx")
      return static_cast<int64_t>(arg.value);
    return arg.value;
  }
  DType dt = dtypeNamed(arg.kind);
  if (isFloating(dt)) {
    Tensor x = randn(arg.shape, seed, kFloat32) * arg.scale;
    if (arg.range) {
      float *data = x.data<float>();
      int64_t n = x.numel();
      for (int64_t i = 0; i < n; ++i)
        data[i] = static_cast<float>(arg.lo +
                                     (arg.hi - arg.lo) * double(i) /
                                         double(std::max<int64_t>(1, n - 1)));
    }
    if (arg.special) {
      const float values[] = {INFINITY, -INFINITY, NAN,    0.0f,
                              -0.0f,    1e-40f,    100.0f, -100.0f};
      float *data = x.data<float>();
      for (int64_t i = 0; i < std::min<int64_t>(8, x.numel()); ++i)
        data[i] = values[i];
    }
    return x.to(dt);
  }
  std::mt19937_64 gen(seed);
  int64_t lo = dt == kBool ? 0 : static_cast<int64_t>(arg.lo),
          hi = dt == kBool ? 2 : static_cast<int64_t>(arg.hi);
  std::uniform_int_distribution<int64_t> dist(lo, hi - 1);
  std::vector<int64_t> values(static_cast<size_t>(shapeNumel(arg.shape)));
  for (int64_t &v : values)
    v = dist(gen);
  return from_vector(values, arg.shape).to(dt);
}

/// Float32 units in the last place at `v`'s magnitude, at least 2^-125.
double ulpOf(double v) {
  float f = std::fabs(static_cast<float>(v));
  if (!std::isfinite(f))
    return 0;
  return std::max<double>(std::nextafter(f, INFINITY) - f, 0x1p-125);
}

/// The largest |a - b| where they differ by more than the tolerance (rtol
/// and atol, or `ulps` units in the last place when it is positive), or -1.
double compare(const Tensor &got, const Tensor &want, double rtol, double atol,
               double ulps, std::string &why) {
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
    why = "got " + shapeStr(got.shape()) + " " + dtypeName(got.dtype()) +
          ", want " + shapeStr(want.shape()) + " " + dtypeName(want.dtype());
    return -1;
  }
  Tensor g = got.to(kFloat64).contiguous(), w = want.to(kFloat64).contiguous();
  const double *pg = g.data<double>(), *pw = w.data<double>();
  double worst = 0;
  bool exact = !isFloating(want.dtype());
  for (int64_t i = 0; i < g.numel(); ++i) {
    double a = pg[i], b = pw[i];
    if (std::isnan(a) && std::isnan(b))
      continue;
    double err = std::fabs(a - b);
    if (a == b)
      continue;
    double bound = ulps > 0 ? ulps * ulpOf(b) : atol + rtol * std::fabs(b);
    if (exact || std::isnan(err) || err > bound) {
      std::ostringstream message;
      message << std::setprecision(9) << "element " << i << ": got " << a
              << ", want " << b;
      why = message.str();
      return -1;
    }
    worst = std::max(worst, err);
  }
  return worst;
}

/// allow_in_graph functions for test/e2e/opaque-call.mlir: run by the
/// interpreter eagerly, and by compiled graphs through their C interface,
/// as stitched code will provide it.
std::vector<Tensor> clipAndShift(const std::vector<Tensor> &in) {
  return {minimum(maximum(in[0], full({}, -1.0)), full({}, 1.0)) + in[1]};
}

/// Writes the PTX of each gpu.binary of `module` to DIR/graphs.ptx and runs
/// ptxas on it for `arch`; false (with the reason printed) if ptxas rejects
/// it. True without checking when the toolkit has no ptxas.
bool checkPtx(mlir::ModuleOp module, const std::string &work,
              const std::string &arch, int &kernels, bool &checked) {
  std::string ptxas = mlir::kiln::findCudaToolkit() + "/bin/ptxas";
  bool ok = true;
  module.walk([&](mlir::gpu::BinaryOp binary) {
    for (mlir::Attribute a : binary.getObjects()) {
      auto object = mlir::cast<mlir::gpu::ObjectAttr>(a);
      std::string ptx = object.getObject().getValue().str();
      for (size_t at = ptx.find(".entry"); at != std::string::npos;
           at = ptx.find(".entry", at + 1))
        ++kernels;
      if (!llvm::sys::fs::can_execute(ptxas))
        continue;
      checked = true;
      std::string path = work + "/graphs.ptx";
      std::ofstream(path) << ptx.c_str();
      std::string archFlag = "-arch=" + arch;
      llvm::SmallVector<llvm::StringRef> args = {ptxas, archFlag, path, "-o",
                                                 "/dev/null"};
      std::string message;
      if (llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, {}, 0, 0,
                                    &message)) {
        std::cout << "FAIL ptxas rejected " << path << " " << message << "\n";
        ok = false;
      }
    }
  });
  return ok;
}

} // namespace

extern "C" void _mlir_ciface_e2e_clip_and_shift(void *result, void *x,
                                                void *shift) {
  std::vector<Tensor> in = {abi::borrow(x, 2, kFloat32),
                            abi::borrow(shift, 1, kFloat32)};
  abi::returnTensor(clipAndShift(in)[0], result);
}

/// --static-dims: a copy of fn, named `name`, whose tensor arguments have
/// some of their dynamic dims (each with probability 1/2) made static at
/// the sizes the run passes. Ops that infer their result types take the
/// refined types; other ops, and the return, get a tensor.cast back to the
/// type they had, so the copy verifies whatever mix of static and dynamic
/// dims reaches each op: the mixes a traced graph can hold, fuzzed. False
/// with `why` when a kiln op rejects the refined types (a valid program
/// that no longer verifies).
bool specializeDims(mlir::func::FuncOp fn, const RunSpec &run,
                    const std::string &name, std::mt19937_64 &gen,
                    std::string &why) {
  mlir::OpBuilder b(fn);
  auto copy = mlir::cast<mlir::func::FuncOp>(b.clone(*fn));
  copy.setSymName(name);
  mlir::Block &entry = copy.getBody().front();
  bool changed = false;
  for (size_t i = 0; i < run.args.size() && i < entry.getNumArguments(); ++i) {
    auto type =
        mlir::dyn_cast<mlir::RankedTensorType>(entry.getArgument(i).getType());
    if (!type || run.args[i].isScalar ||
        run.args[i].shape.size() != static_cast<size_t>(type.getRank()))
      continue;
    llvm::SmallVector<int64_t> shape(type.getShape());
    for (size_t d = 0; d < shape.size(); ++d)
      if (mlir::ShapedType::isDynamic(shape[d]) && gen() % 2) {
        shape[d] = run.args[i].shape[d];
        changed = true;
      }
    entry.getArgument(i).setType(type.clone(shape));
  }
  llvm::SmallVector<mlir::Type> inputs(entry.getArgumentTypes());
  copy.setFunctionType(
      mlir::FunctionType::get(fn.getContext(), inputs, fn.getResultTypes()));
  if (!changed)
    return true;
  // Each op of the body in order sees its operands' refined types.
  std::map<mlir::Operation *, llvm::SmallVector<mlir::Type>> original;
  for (mlir::Operation &op : entry)
    for (mlir::Value v : op.getResults())
      original[&op].push_back(v.getType());
  for (mlir::Operation &op : llvm::make_early_inc_range(entry)) {
    auto infer = mlir::dyn_cast<mlir::InferTypeOpInterface>(&op);
    if (infer && op.getNumRegions() == 0) {
      llvm::SmallVector<mlir::Type> types;
      if (mlir::failed(infer.inferReturnTypes(
              op.getContext(), op.getLoc(), op.getOperands(),
              op.getRawDictionaryAttrs(), op.getPropertiesStorage(),
              op.getRegions(), types))) {
        why = "'" + op.getName().getStringRef().str() +
              "' rejects the refined operand types";
        return false;
      }
      for (auto [result, type] : llvm::zip(op.getResults(), types))
        result.setType(type);
      continue;
    }
    // Anything else reads its operands as they were typed.
    for (mlir::OpOperand &use : op.getOpOperands()) {
      mlir::Value v = use.get();
      mlir::Type was = v.getType();
      if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(v)) {
        if (arg.getOwner() == &entry)
          was = fn.getArgumentTypes()[arg.getArgNumber()];
      } else if (auto it = original.find(v.getDefiningOp());
                 it != original.end()) {
        was = it->second[mlir::cast<mlir::OpResult>(v).getResultNumber()];
      }
      if (was == v.getType() || !mlir::isa<mlir::RankedTensorType>(was))
        continue;
      mlir::OpBuilder at(&op);
      use.set(mlir::tensor::CastOp::create(at, op.getLoc(), was, v));
    }
  }
  return true;
}

/// Runs fn's compiled entry on inputs through the GraphCall stitched code
/// uses (on the GPU, CPU inputs are copied over and results copied back);
/// false where a shape check or opaque call fails (status 1).
bool runCompiled(abi::EntryPoint entry, const std::string &name,
                 mlir::func::FuncOp fn, const std::vector<RtValue> &inputs,
                 bool cuda, std::vector<Tensor> &got) {
  abi::GraphCall call(name.c_str(), entry,
                      cuda ? Device::cuda() : Device::cpu());
  for (size_t i = 0; i < inputs.size(); ++i) {
    mlir::Type type = fn.getArgumentTypes()[i];
    if (auto *tensor = std::get_if<Tensor>(&inputs[i]))
      call.input(*tensor);
    else if (auto *n = std::get_if<int64_t>(&inputs[i]))
      call.input(*n);
    else if (type.isF32())
      call.input(static_cast<float>(std::get<double>(inputs[i])));
    else
      call.input(std::get<double>(inputs[i]));
  }
  got.resize(fn.getNumResults());
  for (unsigned r = 0; r < fn.getNumResults(); ++r) {
    auto rt = mlir::cast<mlir::RankedTensorType>(fn.getResultTypes()[r]);
    call.output(got[r], rt.getRank(), dtypeOf(rt.getElementType()));
  }
  return call.run();
}

bool isFloatTensor(const RtValue &v) {
  const auto *t = std::get_if<Tensor>(&v);
  return t && isFloating(t->dtype());
}

/// What each E2E-GRAD function's partitioned forward saves.
std::map<std::string, llvm::SmallVector<mlir::kiln::SavedValue>> &savedOf() {
  static std::map<std::string, llvm::SmallVector<mlir::kiln::SavedValue>> m;
  return m;
}

/// Where a backward comes from: the joint graph fn_joint (the forward
/// recomputed from fn's arguments), or the partition, fn_forward's saved
/// values read by fn_backward.
enum class BackwardKind { Joint, Partitioned };

/// The gradients fn's backward of `kind` gives, compiled (interpreted:
/// false) or interpreted, for output gradients dys; false with why. The
/// partitioned backward is told that only the gradients `only` names are
/// needed (all when it is empty).
bool backwardGradients(mlir::ModuleOp module, void *handle,
                       const std::string &function, BackwardKind kind,
                       bool interpreted, const std::vector<RtValue> &inputs,
                       const std::vector<Tensor> &dys,
                       const std::vector<RtValue> &outputs, bool cuda,
                       std::vector<Tensor> &grads, std::string &why,
                       const std::set<size_t> &only = {}) {
  auto lookup = [&](const std::string &name, mlir::func::FuncOp &fn,
                    abi::EntryPoint &entry) {
    fn = module.lookupSymbol<mlir::func::FuncOp>(name);
    entry = reinterpret_cast<abi::EntryPoint>(
        dlsym(handle, ("kiln_entry_" + name).c_str()));
    if (!fn || !entry)
      why = "no " + name;
    return fn && entry;
  };
  auto run = [&](const std::string &name, mlir::func::FuncOp fn,
                 abi::EntryPoint entry, const std::vector<RtValue> &args,
                 std::vector<RtValue> &results) {
    if (interpreted) {
      NoGradGuard noGrad;
      results = interpret(fn, args);
      return true;
    }
    std::vector<Tensor> got;
    if (!runCompiled(entry, name, fn, args, cuda, got)) {
      why = name + " compiled: status 1";
      return false;
    }
    results.assign(got.begin(), got.end());
    return true;
  };
  std::vector<RtValue> backwardInputs;
  mlir::func::FuncOp fn;
  abi::EntryPoint entry;
  std::string name = function + "_backward";
  if (kind == BackwardKind::Joint) {
    name = function + "_joint";
    backwardInputs = inputs;
  } else {
    // The forward returns fn's results (checked against the oracle's) and
    // what it saves.
    std::vector<RtValue> forward;
    if (!lookup(function + "_forward", fn, entry) ||
        !run(function + "_forward", fn, entry, inputs, forward))
      return false;
    for (size_t r = 0; r < outputs.size(); ++r)
      if (const auto *want = std::get_if<Tensor>(&outputs[r]);
          want && isFloating(want->dtype()) &&
          compare(std::get<Tensor>(forward[r]), want->detach(), 1e-4, 1e-5, 0,
                  why) < 0) {
        why = function + "_forward's result " + std::to_string(r) + ": " + why;
        return false;
      }
    for (const mlir::kiln::SavedValue &s : savedOf()[function]) {
      using From = mlir::kiln::SavedValue::From;
      if (s.from == From::Argument) {
        backwardInputs.push_back(inputs[s.index]);
      } else if (s.from == From::Result) {
        backwardInputs.push_back(forward[s.index]);
      } else if (!s.scalar) {
        backwardInputs.push_back(forward[outputs.size() + s.index]);
      } else {
        // A scalar comes back as a 0-d tensor and goes in as a scalar.
        const Tensor &t = std::get<Tensor>(forward[outputs.size() + s.index]);
        if (isFloating(t.dtype()))
          backwardInputs.push_back(t.item<double>());
        else
          backwardInputs.push_back(t.item<int64_t>());
      }
    }
  }
  backwardInputs.insert(backwardInputs.end(), dys.begin(), dys.end());
  // Every result's gradient arrived.
  backwardInputs.insert(backwardInputs.end(), dys.size(), RtValue(int64_t(1)));
  if (kind == BackwardKind::Partitioned) {
    size_t floatInputs =
        std::count_if(inputs.begin(), inputs.end(),
                      [](const RtValue &v) { return isFloatTensor(v); });
    for (size_t i = 0; i < floatInputs; ++i)
      backwardInputs.push_back(int64_t(only.empty() || only.count(i)));
  }
  std::vector<RtValue> results;
  if (!lookup(name, fn, entry) ||
      !run(name, fn, entry, backwardInputs, results))
    return false;
  grads.clear();
  for (RtValue &r : results)
    grads.push_back(std::get<Tensor>(r));
  return true;
}

/// An E2E-GRAD run: eager autograd's gradients of sum(outputs * dy) (the
/// interpreter runs the forward on inputs that require grad, each op
/// recording as the uncompiled program's would) against those of
/// fn_joint and of the partition fn_forward + fn_backward, each compiled
/// and interpreted, for random output gradients dy.
bool checkGradients(mlir::ModuleOp module, void *handle, const RunSpec &run,
                    const std::vector<RtValue> &inputs, bool cuda,
                    double f32Rtol, double f32Atol, double &worst,
                    std::string &why) {
  auto fn = module.lookupSymbol<mlir::func::FuncOp>(run.function);
  std::vector<RtValue> tracked = inputs;
  std::vector<Tensor> floatInputs;
  for (RtValue &v : tracked)
    if (isFloatTensor(v)) {
      Tensor &t = std::get<Tensor>(v);
      t = t.detach().requires_grad_();
      floatInputs.push_back(t);
    }
  std::vector<RtValue> outputs = interpret(fn, tracked);
  std::vector<Tensor> reached, dys, allDys;
  uint64_t seed = 1000;
  for (const RtValue &v : outputs)
    if (isFloatTensor(v)) {
      const Tensor &y = std::get<Tensor>(v);
      Tensor dy = randn(y.shape(), seed++, kFloat32).to(y.dtype());
      allDys.push_back(dy);
      if (y.requires_grad()) {
        reached.push_back(y);
        dys.push_back(dy);
      }
    }
  std::vector<Tensor> want(floatInputs.size());
  if (!reached.empty())
    want = autograd::grad(reached, floatInputs, dys);
  for (size_t i = 0; i < want.size(); ++i)
    if (!want[i].defined())
      want[i] = zeros(floatInputs[i].shape(), floatInputs[i].dtype());

  // float64 tolerances where everything is float64: a float64 input's
  // gradient through float32 ops has float32's rounding.
  bool f64 = llvm::all_of(
      floatInputs, [](const Tensor &t) { return t.dtype() == kFloat64; });
  for (BackwardKind kind : {BackwardKind::Joint, BackwardKind::Partitioned})
    for (bool interpreted : {false, true}) {
      std::vector<Tensor> got;
      if (!backwardGradients(module, handle, run.function, kind, interpreted,
                             inputs, allDys, outputs, cuda, got, why))
        return false;
      for (size_t i = 0; i < want.size(); ++i) {
        double rtol = f64 ? 1e-9 : f32Rtol;
        double atol = f64 ? 1e-9 : f32Atol;
        double w = compare(got[i], want[i], rtol, atol, 0, why);
        if (w < 0) {
          why = "gradient of float input " + std::to_string(i) + " (" +
                (kind == BackwardKind::Joint ? "joint" : "partitioned") + ", " +
                (interpreted ? "interpreted" : "compiled") + "): " + why;
          return false;
        }
        worst = std::max(worst, w);
      }
    }
  // The compiled partition asked for one gradient at a time (what the
  // others alone read skipped) gives the same one.
  if (want.size() > 1)
    for (size_t i = 0; i < want.size(); ++i) {
      std::vector<Tensor> got;
      if (!backwardGradients(module, handle, run.function,
                             BackwardKind::Partitioned, false, inputs, allDys,
                             outputs, cuda, got, why, {i}))
        return false;
      double w = compare(got[i], want[i], f64 ? 1e-9 : f32Rtol,
                         f64 ? 1e-9 : f32Atol, 0, why);
      if (w < 0) {
        why = "gradient of float input " + std::to_string(i) +
              " (partitioned, compiled, the only one needed): " + why;
        return false;
      }
    }
  return true;
}

int main(int argc, char **argv) {
  registerOpaqueFunction("e2e_clip_and_shift", clipAndShift);
  std::string file, work = ".", cxx = "c++", arch = "sm_90";
  bool cuda = false, emulated = false;
  std::optional<uint64_t> staticDims; // --static-dims=SEED
  std::optional<int64_t> minParallelWork, outlineAbove, splitOps;
  mlir::kiln::CodegenOptions codegen;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sanitize-address")
      codegen.sanitizeAddress = true;
    else if (a == "--backend=cuda")
      cuda = true;
    else if (a == "--backend=cuda-emulated")
      emulated = true;
    else if (a.rfind("--static-dims=", 0) == 0)
      staticDims = std::stoull(a.substr(14));
    else if (a.rfind("--min-parallel-work=", 0) == 0)
      minParallelWork = std::stoll(a.substr(20));
    else if (a.rfind("--outline-above=", 0) == 0)
      outlineAbove = std::stoll(a.substr(16));
    else if (a.rfind("--split-ops=", 0) == 0)
      splitOps = std::stoll(a.substr(12));
    else if (a.rfind("--cuda-arch=", 0) == 0)
      arch = a.substr(12);
    else if (a == "--work" && i + 1 < argc)
      work = argv[++i];
    else if (a == "--cxx" && i + 1 < argc)
      cxx = argv[++i];
    else
      file = a;
  }
  std::ifstream in(file);
  if (!in) {
    std::cerr << "kiln-e2e: cannot read " << file << "\n";
    return 2;
  }
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::vector<RunSpec> runs = parseSpecs(text);
  double f32Rtol = 1e-4, f32Atol = 1e-5;
  if (auto pos = text.find("// E2E-TOLERANCE:"); pos != std::string::npos) {
    std::istringstream tolerance(text.substr(pos + 17));
    tolerance >> f32Rtol >> f32Atol;
  }
  double f32Ulps = 0;
  if (auto pos = text.find("// E2E-ULP:"); pos != std::string::npos)
    f32Ulps = std::stod(text.substr(pos + 11));

  mlir::DialectRegistry registry;
  mlir::kiln::registerKilnCompiler(registry);
  mlir::MLIRContext context(registry);
  context.loadDialect<mlir::tensor::TensorDialect>(); // --static-dims' casts
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return 2;
  // An E2E-GRAD line's function gets its joint graph (kiln-differentiate)
  // and its partitioned forward and backward, compiled and interpreted
  // beside it.
  {
    std::set<std::string> differentiated;
    for (const RunSpec &run : runs)
      if (run.gradients && differentiated.insert(run.function).second) {
        auto fn = module->lookupSymbol<mlir::func::FuncOp>(run.function);
        if (!fn || mlir::failed(
                       mlir::kiln::buildBackward(fn, run.function + "_joint")))
          return 2;
        auto pair = mlir::kiln::buildForwardBackward(
            fn, run.function + "_forward", run.function + "_backward");
        if (mlir::failed(pair))
          return 2;
        savedOf()[run.function] = pair->saved;
      }
  }
  // The oracle runs the ops as the runtime would with the dialect's
  // promotions explicit: the runtime promotes a kiln.from_scalar result as
  // a 0-d tensor, where the dialect takes it for a wrapped number.
  {
    mlir::PassManager pm(&context);
    pm.addPass(mlir::kiln::createKilnMaterializePromotions());
    if (mlir::failed(pm.run(*module)))
      return 2;
  }

  // Compile a copy; the original stays in the kiln dialect for the oracle.
  mlir::OwningOpRef<mlir::ModuleOp> compiled = module->clone();
  // With --static-dims, each run calls a copy of its function with some
  // dims static (the oracle still runs the original).
  std::vector<std::string> entryOf(runs.size());
  int staticFailures = 0;
  if (staticDims) {
    std::mt19937_64 gen(*staticDims);
    for (size_t r = 0; r < runs.size(); ++r) {
      entryOf[r] = runs[r].function;
      auto fn = compiled->lookupSymbol<mlir::func::FuncOp>(runs[r].function);
      if (!fn || runs[r].expectError || runs[r].gradients)
        continue; // static sizes may turn a run-time error into a type error
      std::string name = runs[r].function + "__static" + std::to_string(r);
      std::string why;
      if (!specializeDims(fn, runs[r], name, gen, why)) {
        std::cout << "FAIL " << runs[r].line << ": with static dims, " << why
                  << "\n";
        ++staticFailures;
        compiled->lookupSymbol(name)->erase();
        continue;
      }
      entryOf[r] = name;
    }
    if (mlir::failed(mlir::verify(*compiled))) {
      std::cout << "FAIL: the module with static dims does not verify\n";
      return 1;
    }
  }
  mlir::kiln::CompileOptions options;
  options.backend = cuda ? mlir::kiln::Backend::Cuda : mlir::kiln::Backend::Cpu;
  options.gpu.chip = arch;
  if (minParallelWork)
    options.cpu.minParallelWork = *minParallelWork;
  if (outlineAbove)
    options.cpu.outlineAbove = *outlineAbove;
  if (splitOps)
    options.cpu.splitOps = *splitOps;
  options.gpu.format =
      "isa"; // PTX: checked here by ptxas, compiled by the driver
  if (emulated)
    options.pipeline = mlir::kiln::test::buildGpuMappingOnCpuPipeline;
  mlir::kiln::ObjectOptions object;
  object.codegen = codegen;
  llvm::Expected<mlir::kiln::CompiledObject> objectFile =
      mlir::kiln::compileModule(*compiled, options, object);
  if (!objectFile) {
    std::cerr << "kiln-e2e: " << llvm::toString(objectFile.takeError()) << "\n";
    return 2;
  }
  if (llvm::sys::fs::create_directories(work))
    return 2;
  int kernels = 0;
  bool ptxasChecked = false;
  // (The lowered module still holds the kernels' gpu.binary.)
  if (cuda && !checkPtx(*compiled, work, arch, kernels, ptxasChecked))
    return 1;
  llvm::Expected<std::string> library =
      mlir::kiln::buildSharedLibrary(objectFile->bytes, work, cxx);
  if (!library) {
    std::cerr << llvm::toString(library.takeError()) << "\n";
    return 2;
  }
  if (cuda && !kiln::cuda::is_available()) {
    // Never a silent pass: say what was and was not checked.
    std::cout << "skipped: no GPU: " << runs.size() << " runs not executed; "
              << kernels << " kernels compiled for " << arch
              << (ptxasChecked ? ", accepted by ptxas,"
                               : " (no ptxas to check them)")
              << " and linked\n";
    return 0;
  }
  void *handle = dlopen(library->c_str(), RTLD_NOW);
  if (!handle) {
    std::cerr << "kiln-e2e: " << dlerror() << "\n";
    return 2;
  }

  int failures = staticFailures;
  uint64_t seed = 1;
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunSpec &run = runs[r];
    auto fn = module->lookupSymbol<mlir::func::FuncOp>(run.function);
    std::string entryName = entryOf[r].empty() ? run.function : entryOf[r];
    auto entry = reinterpret_cast<abi::EntryPoint>(
        dlsym(handle, ("kiln_entry_" + entryName).c_str()));
    if (!fn || !entry) {
      std::cout << "FAIL " << run.line << ": no function\n";
      ++failures;
      continue;
    }
    std::vector<RtValue> inputs;
    for (const ArgSpec &arg : run.args)
      inputs.push_back(makeInput(arg, seed++));

    // The oracle.
    std::vector<RtValue> expected;
    std::string eagerError;
    try {
      expected = interpret(fn, inputs);
    } catch (const Error &e) {
      eagerError = e.what();
    }

    // The inputs are the caller's: compiled code reads them only.
    std::vector<Tensor> before;
    for (const RtValue &v : inputs)
      if (const auto *t = std::get_if<Tensor>(&v))
        before.push_back(t->clone());
    std::vector<Tensor> got;
    int32_t status =
        runCompiled(entry, run.function, fn, inputs, cuda, got) ? 0 : 1;

    std::string why;
    bool ok;
    double worst = 0;
    size_t written = 0;
    for (const RtValue &v : inputs)
      if (const auto *t = std::get_if<Tensor>(&v)) {
        if (compare(*t, before[written], 0, 0, 0, why) < 0) {
          why = "the compiled call wrote into its tensor input " +
                std::to_string(written) + ": " + why;
          break;
        }
        ++written;
      }
    if (written < before.size()) {
      ok = false;
    } else if (run.expectError) {
      ok = !eagerError.empty() && status == 1;
      why = "eager: " +
            (eagerError.empty() ? std::string("no error") : eagerError) +
            "; compiled status " + std::to_string(status);
    } else if (!eagerError.empty() || status != 0) {
      ok = false;
      why = "eager: " + eagerError + "; compiled status " +
            std::to_string(status);
    } else if (run.gradients) {
      ok = checkGradients(*module, handle, run, inputs, cuda, f32Rtol, f32Atol,
                          worst, why);
    } else {
      ok = true;
      for (size_t r = 0; ok && r < got.size(); ++r) {
        const Tensor &want = std::get<Tensor>(expected[r]);
        // float32 tolerance: polynomial exp/erf/tanh and float32
        // accumulation in compiled code vs libm and double accumulation in
        // the runtime (docs/abi.md).
        double rtol = want.dtype() == kFloat64 ? 1e-9 : f32Rtol;
        double atol = want.dtype() == kFloat64 ? 1e-9 : f32Atol;
        if (want.dtype() == kFloat16 || want.dtype() == kBFloat16)
          rtol = atol = 1e-2;
        double ulps = want.dtype() == kFloat32 ? f32Ulps : 0;
        double w = compare(got[r], want, rtol, atol, ulps, why);
        ok = w >= 0;
        worst = std::max(worst, w);
      }
    }
    std::cout << (ok ? "PASS " : "FAIL ") << run.line;
    if (!ok)
      std::cout << ": " << why;
    else if (!run.expectError)
      std::cout << " (max abs diff " << worst << ")";
    else
      std::cout << " (both raise: " << eagerError << ")";
    std::cout << "\n";
    failures += ok ? 0 : 1;
  }
  std::cout << runs.size() - failures << " passed, " << failures << " failed\n";
  return failures ? 1 : 0;
}
