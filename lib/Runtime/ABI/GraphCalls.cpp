//===- GraphCalls.cpp - Guards, graph calls and modes --------------------===//
//
// The runtime side of kiln/abi.h for control: the compiled/eager/disabled
// mode of each thread, KILN_LOGS, guards, GraphCall and opaque calls.
//
//===----------------------------------------------------------------------===//
#include "kiln/Autocast.h"
#include "kiln/Autograd.h"
#include "kiln/abi.h"

#include "CUDA/CudaDriver.h"
#include "Core/Autograd.h"
#include "Core/CpuFeatures.h"
#include "Core/Stats.h"

#include "kiln/Ops.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::abi {

namespace {
/// Set by callOpaque when an opaque call inside a graph failed.
thread_local bool opaqueFailed = false;
/// This thread's mode: eager (no root on the stack), compiled (a compile
/// root below no KILN_DISABLE()), disabled (below a KILN_DISABLE()).
enum Mode : int { kEager, kCompiled, kDisabled };
thread_local int mode = kEager;

/// KILN_STATS=1: one line at exit.
struct StatsAtExit {
  ~StatsAtExit() {
    const char *env = std::getenv("KILN_STATS");
    if (!env || !*env || std::strcmp(env, "0") == 0)
      return;
    detail::Stats &s = detail::stats();
    std::fprintf(stderr,
                 "kiln-stats graph_calls=%lld compiled=%lld guard_misses=%lld "
                 "ops_compiled=%lld ops_eager=%lld",
                 static_cast<long long>(s.graphCalls.load()),
                 static_cast<long long>(s.compiled.load()),
                 static_cast<long long>(s.guardMisses.load()),
                 static_cast<long long>(s.opsCompiled.load()),
                 static_cast<long long>(s.opsEager.load()));
    // Compiled backward graphs run by autograd (kiln compile --autograd).
    if (int64_t n = s.backwardCompiled.load())
      std::fprintf(stderr, " backward_compiled=%lld",
                   static_cast<long long>(n));
    std::fprintf(stderr, "\n");
  }
} statsAtExit;

/// The first guard miss of each graph is a warning (later ones are
/// printed with KILN_LOGS=guards).
void warnOnce(const GraphSite &site, const std::string &why) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!warned.insert(site.graph).second)
      return;
  }
  std::fprintf(stderr,
               "kiln: warning: graph %s%s%s%s runs eagerly: %s (reported once "
               "per graph; KILN_LOGS=guards reports every miss)\n",
               site.graph, *site.location ? " (" : "", site.location,
               *site.location ? ")" : "", why.c_str());
}

/// The parts of `text` between the delimiters (one empty part for "").
std::vector<std::string_view> splitOn(std::string_view text, char delimiter) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t end = std::min(text.find(delimiter), text.size());
    parts.push_back(text.substr(0, end));
    if (end == text.size())
      return parts;
    text.remove_prefix(end + 1);
  }
}

/// The C++ spelling of input `index` of a site, or "".
std::string inputName(const GraphSite &site, size_t index) {
  std::vector<std::string_view> names = splitOn(site.inputs, ',');
  return index < names.size() ? std::string(names[index]) : "";
}
} // namespace

CompiledScope::CompiledScope(bool compiled) : saved_(mode) {
  mode = !compiled ? kDisabled : mode == kDisabled ? kDisabled : kCompiled;
  detail::setUnderCompileRoot(mode == kCompiled);
}

CompiledScope::~CompiledScope() {
  mode = saved_;
  detail::setUnderCompileRoot(mode == kCompiled);
}

bool inCompiledCode() { return mode == kCompiled; }

bool inDisabledCode() { return mode == kDisabled; }

void callOpaque(const char *name, void *result, int64_t rank, DType dtype,
                Tensor (*fn)(void *context), void *context) {
  Tensor t;
  const char *why = nullptr;
  try {
    t = fn(context);
    if (!t.defined() || t.dim() != rank || t.dtype() != dtype)
      why = "it returned another rank or dtype than the graph was built for";
  } catch (const std::exception &) {
    why = "it threw";
  }
  if (why) {
    if (logEnabled("guards"))
      std::fprintf(stderr, "kiln: opaque call of %s: %s\n", name, why);
    opaqueFailed = true;
    t = empty(Shape(static_cast<size_t>(rank), 0), dtype);
  }
  returnTensor(t, result);
}

bool logEnabled(const char *name) {
  // Read once: every graph call asks.
  static const std::string all = [] {
    const char *logs = std::getenv("KILN_LOGS");
    return logs ? std::string(",") + logs + "," : std::string();
  }();
  return !all.empty() &&
         all.find(std::string(",") + name + ",") != std::string::npos;
}

namespace {
/// Why `t` cannot enter a graph compiled for `g` on the CPU (or, `cuda`,
/// the GPU), or null.
const char *mismatch(const Tensor &t, const TensorGuard &g, bool cuda) {
  if (g.rank < 0)
    return nullptr; // not read by this version
  if (!t.defined())
    return "undefined";
  if (!cuda && t.device().type != DeviceType::CPU)
    return "not on the CPU";
  if (cuda && t.device() != Device::cpu() && t.device() != Device::cuda())
    return "not on the CPU or cuda:0";
  if (t.dim() != g.rank)
    return "rank";
  if (t.dtype() != g.dtype)
    return "dtype";
  return nullptr;
}

/// Counts a guard miss of `site` that runs it eagerly because of `why`,
/// and says so: every time with KILN_LOGS=guards, else once per graph.
void countEagerRun(const GraphSite &site, const std::string &why) {
  detail::stats().guardMisses.fetch_add(1, std::memory_order_relaxed);
  if (logEnabled("guards"))
    std::fprintf(stderr, "kiln: graph %s: %s; running it eagerly\n", site.graph,
                 why.c_str());
  else
    warnOnce(site, why);
}

/// A graph whose compiled code needs CPU features this CPU lacks: counts
/// the miss.
bool cpuMissing(const GraphSite &site) {
  if (!*site.cpuFeatures)
    return false;
  // One stitched file's graphs share one feature list: remember the last.
  thread_local const char *checked = nullptr;
  thread_local std::string missing;
  if (checked != site.cpuFeatures) {
    missing = missingCpuFeatures(site.cpuFeatures);
    checked = site.cpuFeatures;
  }
  if (missing.empty())
    return false;
  std::string why =
      "its compiled code needs CPU features this CPU lacks (" + missing + ")";
  if (detail::cpuCapabilityLevel() < 4)
    why += " at KILN_CPU_CAPABILITY=" +
           std::string(std::getenv("KILN_CPU_CAPABILITY"));
  countEagerRun(site, why);
  return true;
}

/// A graph compiled for cuda cannot run without a GPU: counts the miss.
bool cudaMissing(const GraphSite &site, bool cuda) {
  if (!cuda || kiln::cuda::detail::ready())
    return false;
  detail::stats().guardMisses.fetch_add(1, std::memory_order_relaxed);
  if (logEnabled("guards"))
    std::fprintf(
        stderr, "kiln: graph %s is compiled for cuda: %s; running it eagerly\n",
        site.graph, kiln::cuda::detail::whyNotReady().c_str());
  else
    warnOnce(site,
             "it is compiled for cuda: " + kiln::cuda::detail::whyNotReady());
  return true;
}

/// A graph with ops kiln::autocast changes, called while autocast is on:
/// it was compiled for the dtypes it was traced with, so it runs eagerly,
/// where those ops cast (counted as a guard miss, said once). Autocast is
/// the CPU's: a cuda graph whose tensors are all on the GPU is not its
/// business (torch's "cpu" autocast leaves CUDA ops alone); given CPU
/// tensors, eager code would cast them, so that call runs eagerly too.
bool autocasting(const GraphSite &site, bool cuda,
                 std::initializer_list<TensorGuard> tensors) {
  if (site.autocast == AutocastSite::Unaffected || !is_autocast_enabled())
    return false;
  if (cuda &&
      std::all_of(tensors.begin(), tensors.end(), [](const TensorGuard &g) {
        return !g.tensor.defined() ||
               g.tensor.device().type == DeviceType::CUDA;
      }))
    return false;
  if (site.autocast == AutocastSite::BFloat16Twins &&
      get_autocast_dtype() == kBFloat16)
    return false; // the dispatcher chooses a twin

  countEagerRun(site,
                std::string("kiln::autocast is on (") +
                    dtypeName(get_autocast_dtype()) +
                    (site.autocast == AutocastSite::Eager
                         ? ") and its products were compiled for the dtypes "
                           "they were traced with"
                         : ") and its autocast versions were compiled for "
                           "bfloat16"));
  return true;
}

/// A graph called on a tensor that requires grad while grad mode is on:
/// compiled graphs record no autograd yet, so it runs eagerly, where every
/// op records, and says so once (counted as a guard miss).
bool recordsGrad(const GraphSite &site,
                 std::initializer_list<TensorGuard> tensors) {
  if (!GradMode::is_enabled() || site.autograd)
    return false;
  size_t index = 0;
  for (const TensorGuard &g : tensors) {
    if (g.tensor.requires_grad()) {
      std::string name = inputName(site, index);
      countEagerRun(site, "input " + std::to_string(index) +
                              (name.empty() ? "" : " (" + name + ")") +
                              " requires grad and the graph was compiled "
                              "without its backward (kiln compile "
                              "--autograd compiles it)");
      return true;
    }
    ++index;
  }
  return false;
}

/// The first input of `tensors` that `g`'s guard rejects, or -1.
int firstMismatch(std::initializer_list<TensorGuard> tensors, bool cuda,
                  const char **why) {
  int index = 0;
  for (const TensorGuard &g : tensors) {
    if ((*why = mismatch(g.tensor, g, cuda)))
      return index;
    ++index;
  }
  return -1;
}

/// Reports the miss of one guard, at input `index` (warnOnce, or every
/// miss with KILN_LOGS=guards).
void reportMiss(const GraphSite &site, const TensorGuard &g, size_t index,
                const char *why, bool cuda) {
  detail::stats().guardMisses.fetch_add(1, std::memory_order_relaxed);
  const Tensor &t = g.tensor;
  if (logEnabled("guards")) {
    std::fprintf(stderr,
                 "kiln: guard of graph %s failed on input %zu (%s): "
                 "compiled for rank %lld %s; running it eagerly\n",
                 site.graph, index, why, static_cast<long long>(g.rank),
                 dtypeName(g.dtype));
    return;
  }
  std::string name = inputName(site, index);
  std::string arrived = !t.defined()
                            ? std::string("undefined")
                            : std::string("a ") + dtypeName(t.dtype()) +
                                  " tensor of rank " + std::to_string(t.dim()) +
                                  " on " + t.device().str();
  warnOnce(site, "input " + std::to_string(index) +
                     (name.empty() ? "" : " (" + name + ")") + " is " +
                     arrived + ", the graph is compiled for " +
                     dtypeName(g.dtype) + " of rank " + std::to_string(g.rank) +
                     " on " + (cuda ? "cpu or cuda:0" : "cpu"));
}

/// "f32[?,?]", as signatures write a type (no sizes: guards take any).
std::string typeText(DType dtype, int64_t rank) {
  std::string s = std::string(dtypeTag(dtype)) + "[";
  for (int64_t d = 0; d < rank; ++d)
    s += d ? ",?" : "?";
  return s + "]";
}
} // namespace

bool guard(const GraphSite &site, std::initializer_list<TensorGuard> tensors,
           Device device) {
  detail::UncountedOps plumbing;
  detail::stats().graphCalls.fetch_add(1, std::memory_order_relaxed);
  bool cuda = device.type == DeviceType::CUDA;
  if (cudaMissing(site, cuda) || cpuMissing(site) ||
      autocasting(site, cuda, tensors) || recordsGrad(site, tensors))
    return false;
  const char *why = nullptr;
  int index = firstMismatch(tensors, cuda, &why);
  if (index >= 0) {
    reportMiss(site, tensors.begin()[index], index, why, cuda);
    return false;
  }
  if (logEnabled("graph_calls"))
    std::fprintf(stderr, "kiln: graph %s: guard passed\n", site.graph);
  return true;
}

namespace {
/// The features of one comma-separated list the running CPU lacks.
std::vector<std::string> missingOf(std::string_view list) {
  std::vector<std::string> missing;
  for (std::string_view name : splitOn(list, ','))
    if (!name.empty() &&
        detail::cpuFeature(name) == detail::CpuFeature::Missing)
      missing.emplace_back(name);
  return missing;
}
} // namespace

std::string missingCpuFeatures(const char *features) {
  std::vector<std::string> nearest;
  bool first = true;
  for (std::string_view list : splitOn(features, '|')) {
    std::vector<std::string> missing = missingOf(list);
    if (missing.empty())
      return "";
    if (first || missing.size() < nearest.size())
      nearest = std::move(missing);
    first = false;
  }
  std::string joined;
  for (const std::string &name : nearest)
    joined += (joined.empty() ? "" : ",") + name;
  return joined;
}

int chooseCpuTarget(const char *features) {
  int best = -1;
  size_t bestCount = 0;
  std::vector<std::string_view> lists = splitOn(features, '|');
  for (size_t i = 0; i < lists.size(); ++i) {
    if (!missingOf(lists[i]).empty())
      continue;
    size_t count = splitOn(lists[i], ',').size();
    if (best < 0 || count > bestCount) {
      best = static_cast<int>(i);
      bestCount = count;
    }
  }
  if (logEnabled("graph_calls")) {
    if (best < 0)
      std::fprintf(stderr,
                   "kiln: graphs compiled for %zu CPUs: this CPU lacks "
                   "features of each\n",
                   lists.size());
    else
      std::fprintf(stderr,
                   "kiln: graphs compiled for %zu CPUs: running CPU %d's "
                   "code\n",
                   lists.size(), best + 1);
  }
  return best;
}

Tensor absentBias(const Tensor &bias, const Tensor &weight) {
  if (bias.defined() || !weight.defined())
    return bias;
  detail::UncountedOps plumbing;
  return kiln::full({weight.size(0)}, -0.0, weight.dtype());
}

std::optional<Scalar> optionalScalar(const Tensor &t) {
  if (!t.defined())
    return std::nullopt;
  if (t.dtype() == kBool)
    return Scalar(t.item<int64_t>() != 0);
  if (isFloating(t.dtype()))
    return Scalar(t.item<double>());
  return Scalar(t.item<int64_t>());
}

bool uncompiledCall(const GraphSite &site, const char *why) {
  detail::UncountedOps plumbing;
  detail::stats().graphCalls.fetch_add(1, std::memory_order_relaxed);
  countEagerRun(site, why);
  return false;
}

int chooseVersion(const GraphSite &site,
                  std::initializer_list<GraphVersion> versions, Device device) {
  detail::UncountedOps plumbing;
  detail::stats().graphCalls.fetch_add(1, std::memory_order_relaxed);
  bool cuda = device.type == DeviceType::CUDA;
  if (cudaMissing(site, cuda) || cpuMissing(site) ||
      (versions.size() && (autocasting(site, cuda, versions.begin()->tensors) ||
                           recordsGrad(site, versions.begin()->tensors))))
    return -1;
  const GraphVersion *only = nullptr;
  size_t allowed = 0;
  int chosen = 0;
  for (const GraphVersion &v : versions) {
    const char *why = nullptr;
    if (v.when && firstMismatch(v.tensors, cuda, &why) < 0) {
      if (logEnabled("graph_calls"))
        std::fprintf(stderr, "kiln: graph %s: guard of version %d passed\n",
                     site.graph, chosen);
      return chosen;
    }
    if (v.when) {
      only = &v;
      ++allowed;
    }
    ++chosen;
  }
  if (allowed == 1) {
    const char *why = nullptr;
    int index = firstMismatch(only->tensors, cuda, &why);
    reportMiss(site, only->tensors.begin()[index], index, why, cuda);
    return -1;
  }
  detail::stats().guardMisses.fetch_add(1, std::memory_order_relaxed);
  // The inputs as they arrived, and each allowed version's types.
  std::string names, arrived, compiled;
  const GraphVersion &any = *versions.begin();
  size_t index = 0;
  for (const TensorGuard &g : any.tensors) {
    const Tensor &t = g.tensor;
    names += (index ? ", " : "") + inputName(site, index);
    ++index;
    arrived += arrived.empty() ? "" : ", ";
    if (!t.defined())
      arrived += "undefined";
    else
      arrived +=
          typeText(t.dtype(), t.dim()) +
          (t.device().type == DeviceType::CPU ? "" : " on " + t.device().str());
  }
  size_t listed = 0;
  for (const GraphVersion &v : versions) {
    if (!v.when)
      continue;
    std::string types;
    for (const TensorGuard &g : v.tensors)
      types += (types.empty() ? "" : ", ") +
               (g.rank < 0 ? std::string("_") : typeText(g.dtype, g.rank));
    compiled += std::string(listed == 0             ? ""
                            : listed + 1 == allowed ? " and "
                                                    : ", ") +
                "(" + types + ")";
    ++listed;
  }
  std::string why = "its inputs (" + names + ") arrive as (" + arrived +
                    "), the graph is compiled for " + compiled +
                    (cuda ? " on cpu or cuda:0" : " on cpu");
  if (logEnabled("guards"))
    std::fprintf(stderr,
                 "kiln: guards of graph %s failed: %s; running it "
                 "eagerly\n",
                 site.graph, why.c_str());
  else
    warnOnce(site, why);
  return -1;
}

GraphCall &GraphCall::input(const Tensor &t) {
  if (backwardGiven_)
    tensors_.push_back(t);
  descriptors_.emplace_back(descriptorSize(t.dim()) / sizeof(int64_t));
  if (device_.type == DeviceType::CUDA && t.device().type == DeviceType::CPU) {
    hostInputs_ = true;
    staged_.push_back(t.to(device_));
    describe(staged_.back(), descriptors_.back().data());
  } else {
    deviceInputs_ = deviceInputs_ || t.device().type != DeviceType::CPU;
    describe(t, descriptors_.back().data());
  }
  args_.push_back({true, descriptors_.size() - 1});
  return *this;
}

GraphCall &GraphCall::input(int64_t value) {
  scalars_.push_back(value);
  args_.push_back({false, scalars_.size() - 1});
  return *this;
}

/// The slot a scalar argument is passed in: its bits, read back by the
/// entry point as its own type.
template <typename T> static int64_t argumentBits(T value) {
  int64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(value));
  return bits;
}

GraphCall &GraphCall::input(float value) { return input(argumentBits(value)); }

GraphCall &GraphCall::input(double value) { return input(argumentBits(value)); }

GraphCall &GraphCall::output(Tensor &out, int64_t rank, DType dtype) {
  outputs_.push_back({&out, rank, dtype});
  return *this;
}

GraphCall &
GraphCall::backward(EntryPoint forward, EntryPoint backward,
                    std::initializer_list<SavedValue> saved,
                    std::initializer_list<SavedValue> versionChecked) {
  forward_ = forward;
  backward_ = backward;
  saved_.assign(saved.begin(), saved.end());
  versionChecked_.assign(versionChecked.begin(), versionChecked.end());
  backwardGiven_ = true;
  return *this;
}

GraphCall &GraphCall::gradientSources(
    std::initializer_list<std::initializer_list<unsigned>> sources) {
  gradientSources_.clear();
  for (const auto &from : sources)
    gradientSources_.emplace_back(from);
  return *this;
}

GraphCall &GraphCall::noBackward(const char *why) {
  backwardGiven_ = true;
  noBackward_ = why;
  return *this;
}

bool GraphCall::run() {
  bool differentiate =
      backwardGiven_ && GradMode::is_enabled() &&
      std::any_of(tensors_.begin(), tensors_.end(), [](const Tensor &t) {
        return t.defined() && t.requires_grad();
      });
  if (!differentiate)
    return call();
  if (!backward_) {
    countEagerRun(site_, std::string("an input requires grad and the graph "
                                     "has no compiled backward (") +
                             noBackward_ + ")");
    return false;
  }
  return runForward();
}

bool GraphCall::runForward() {
  // Grad mode is off while the recorder lives: the call records nothing
  // of its own.
  autograd::Recorder recorder("CompiledFunctionBackward", tensors_);
  // The training forward: the results, then the extra values it saves.
  size_t results = outputs_.size();
  std::vector<Tensor> extras(
      std::count_if(saved_.begin(), saved_.end(), [](const SavedValue &s) {
        return s.from == SavedValue::extra;
      }));
  for (const SavedValue &s : saved_)
    if (s.from == SavedValue::extra)
      outputs_.push_back({&extras[s.index], s.rank, s.dtype});
  entry_ = forward_;
  bool ok = call();
  outputs_.resize(results);
  if (!ok)
    return false;
  // The node keeps what the forward saved (a scalar as its bits) and each
  // output's shape, and calls the backward with the gradients of the
  // floating-point outputs (zeros where none arrived); it gives a gradient
  // to each floating-point tensor input.
  struct Replay {
    std::string graph;
    EntryPoint entry;
    Device device;
    std::vector<autograd::SavedTensor> tensors;
    /// What eager would have saved besides: checked, never passed.
    std::vector<autograd::SavedTensor> checked;
    std::vector<int64_t> scalars;
    std::vector<Arg> args; // per saved value, into tensors or scalars
    std::vector<autograd::GradSlot> inputs, results;
    /// Per floating-point input, the floating-point results whose
    /// gradients make its gradient.
    std::vector<std::vector<unsigned>> sources;
  };
  auto replay = std::make_shared<Replay>();
  replay->graph = std::string(site_.graph) + "_backward";
  replay->entry = backward_;
  replay->device = device_;
  auto keep = [&](const Tensor &t, bool isOutput, uint32_t outputNr = 0) {
    replay->args.push_back({true, replay->tensors.size()});
    replay->tensors.push_back(recorder.save(t, isOutput, outputNr));
  };
  auto keepScalar = [&](int64_t bits) {
    replay->args.push_back({false, replay->scalars.size()});
    replay->scalars.push_back(bits);
  };
  for (const SavedValue &s : saved_) {
    if (s.from == SavedValue::input) {
      const Arg &a = args_[s.index];
      if (a.tensor)
        keep(tensors_[a.index], false);
      else
        keepScalar(scalars_[a.index]);
    } else if (s.from == SavedValue::result) {
      keep(*outputs_[s.index].target, true, s.index);
    } else if (!s.scalar) {
      keep(extras[s.index], false);
    } else {
      // Passed back as input() passes a scalar of this dtype.
      const Tensor &t = extras[s.index];
      keepScalar(s.dtype == kFloat32
                     ? argumentBits(static_cast<float>(t.item<double>()))
                 : isFloating(s.dtype) ? argumentBits(t.item<double>())
                                       : t.item<int64_t>());
    }
  }
  for (const SavedValue &s : versionChecked_)
    if (s.from == SavedValue::result)
      replay->checked.push_back(
          recorder.save(*outputs_[s.index].target, true, s.index));
    else if (const Arg &a = args_[s.index]; a.tensor)
      replay->checked.push_back(recorder.save(tensors_[a.index]));
  for (const Tensor &t : tensors_)
    replay->inputs.push_back(t.defined()
                                 ? autograd::GradSlot{t.shape(), t.dtype()}
                                 : autograd::GradSlot{{}, kBool}); // takes none
  std::vector<Tensor> outs;
  unsigned floatingResults = 0;
  for (const Output &o : outputs_) {
    outs.push_back(*o.target);
    replay->results.push_back({o.target->shape(), o.dtype});
    floatingResults += isFloating(o.dtype);
  }
  size_t floatingInputs = std::count_if(
      replay->inputs.begin(), replay->inputs.end(),
      [](const autograd::GradSlot &s) { return isFloating(s.dtype); });
  if (gradientSources_.empty()) {
    std::vector<unsigned> all(floatingResults);
    for (unsigned r = 0; r < floatingResults; ++r)
      all[r] = r;
    replay->sources.assign(floatingInputs, all);
  } else {
    replay->sources = gradientSources_;
  }
  if (replay->sources.size() != floatingInputs)
    throw Error("graph " + std::string(site_.graph) + ": " +
                std::to_string(replay->sources.size()) +
                " gradient sources for " + std::to_string(floatingInputs) +
                " floating-point inputs");
  recorder.record(
      outs,
      [replay](const autograd::Grads &grads, const autograd::Needs &needs) {
        GraphSite site(replay->graph.c_str());
        GraphCall call(site, replay->entry, replay->device);
        call.backwardOf_ = true;
        for (const autograd::SavedTensor &c : replay->checked)
          (void)c.get(); // raises if an in-place op changed it
        std::vector<Tensor> saved;
        for (const Arg &a : replay->args)
          if (a.tensor)
            call.input(saved.emplace_back(replay->tensors[a.index].get()));
          else
            call.input(replay->scalars[a.index]);
        // Each floating-point result's gradient where the graph runs (zeros
        // where none arrived; the results follow the inputs), kept alive until
        // the call returns, then whether each arrived.
        std::vector<Tensor> resultGrads;
        std::vector<bool> arrived;
        for (size_t k = 0; k < replay->results.size(); ++k)
          if (const autograd::GradSlot &r = replay->results[k];
              isFloating(r.dtype)) {
            arrived.push_back(grads[k].defined());
            Tensor g = grads[k].defined() ? grads[k] : zeros(r.shape, r.dtype);
            if (g.device().type != replay->device.type)
              g = g.to(replay->device);
            call.input(resultGrads.emplace_back(std::move(g)));
          }
        for (bool a : arrived)
          call.input(static_cast<int64_t>(a));
        // Then whether each gradient is needed: the backward skips what only
        // the others read (an input that does not require grad). A gradient
        // made of result gradients none of which arrived is left undefined, as
        // eager leaves it.
        autograd::Grads result(replay->inputs.size());
        std::vector<bool> defined(replay->inputs.size(), false);
        for (size_t i = 0, k = 0; i < replay->inputs.size(); ++i)
          if (const autograd::GradSlot &in = replay->inputs[i];
              isFloating(in.dtype)) {
            const std::vector<unsigned> &from = replay->sources[k++];
            defined[i] =
                needs[i] && std::any_of(from.begin(), from.end(),
                                        [&](unsigned r) { return arrived[r]; });
            call.input(static_cast<int64_t>(defined[i]));
            call.output(result[i], static_cast<int64_t>(in.shape.size()),
                        in.dtype);
          }
        if (!call.call())
          throw Error(
              "graph " + replay->graph +
              ": the compiled backward failed a check (a shape check, or "
              "an allow_in_graph call)");
        for (size_t i = 0; i < result.size(); ++i)
          if (!defined[i])
            result[i] = Tensor(); // not computed
        return result;
      },
      autograd::Recorder::Missing::Undefined);
  return true;
}

bool GraphCall::call() {
  detail::UncountedOps plumbing;
  // Results: one descriptor per output, then the int32 status.
  size_t words = 1;
  for (const Output &o : outputs_)
    words += descriptorSize(o.rank) / sizeof(int64_t);
  std::vector<int64_t> results(words, 0);
  std::vector<void *> args;
  args.push_back(results.data());
  // Scalars are passed by address; their storage no longer moves now.
  for (const Arg &a : args_)
    args.push_back(a.tensor ? static_cast<void *>(descriptors_[a.index].data())
                            : static_cast<void *>(&scalars_[a.index]));
  opaqueFailed = false;
  bool cuda = device_.type == DeviceType::CUDA;
  // KILN_PROFILE's report gives the call's own time too (read only then:
  // a CPU graph call takes well under a microsecond).
  bool profile = cuda && kiln::cuda::detail::profiling();
  std::chrono::steady_clock::time_point start;
  if (profile)
    start = std::chrono::steady_clock::now();
  entry_(args.data());
  // Kernels run asynchronously: wait for them, and take what went wrong.
  std::string deviceError;
  if (cuda) {
    deviceError = kiln::cuda::detail::takeError();
    if (deviceError.empty()) {
      try {
        kiln::cuda::detail::synchronize("graph");
      } catch (const Error &e) {
        deviceError = e.what();
      }
    }
  }
  if (profile)
    kiln::cuda::detail::reportProfile(
        site_.graph, std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count());
  // A failed opaque call fails the graph like a shape check: its results
  // are discarded (below) and the statements run eagerly.
  bool opaque = opaqueFailed;
  opaqueFailed = false;
  int32_t status = 1;
  if (!opaque)
    std::memcpy(&status, results.data() + words - 1, sizeof(status));
  std::vector<ResultDescriptor> descriptors;
  size_t at = 0;
  for (const Output &o : outputs_) {
    descriptors.push_back({results.data() + at, o.rank, o.dtype});
    at += descriptorSize(o.rank) / sizeof(int64_t);
  }
  // On a failed check the buffers are still the caller's: taking them
  // into Tensors frees them either way.
  std::vector<Tensor> adopted = adoptResults(descriptors, device_);
  if (status == 0 && deviceError.empty())
    for (size_t i = 0; i < outputs_.size(); ++i)
      *outputs_[i].target = cuda && (hostInputs_ || !deviceInputs_)
                                ? adopted[i].to(Device::cpu())
                                : std::move(adopted[i]);
  staged_.clear();
  if (!deviceError.empty())
    throw Error(std::string("graph ") + site_.graph + ": " + deviceError);
  if (status != 0) {
    // A fallback like a guard miss: counted, and warned of once.
    detail::stats().guardMisses.fetch_add(1, std::memory_order_relaxed);
    const char *why = opaque ? "an opaque call failed"
                             : "a shape check failed (sizes the compiled "
                               "graph does not serve, or that eager rejects)";
    if (logEnabled("guards"))
      std::fprintf(stderr, "kiln: graph %s: %s; running it eagerly\n",
                   site_.graph, why);
    else
      warnOnce(site_, why);
    return false;
  }
  detail::Stats &stats = detail::stats();
  (backwardOf_ ? stats.backwardCompiled : stats.compiled)
      .fetch_add(1, std::memory_order_relaxed);
  stats.opsCompiled.fetch_add(site_.ops, std::memory_order_relaxed);
  if (logEnabled("graph_calls"))
    std::fprintf(stderr, "kiln: graph %s: ran compiled\n", site_.graph);
  return true;
}

} // namespace kiln::abi
