//===- Recording.cpp - KILN_RECORD: the signatures compile roots meet -----===//
//
// Example inputs, as torch.export takes them: a stitched program run with
// KILN_RECORD=sig.json notes, for every call of a compile root, its tensor
// arguments, and writes one signature per root at exit, which
// `kiln compile --signatures sig.json` (and kiln_compile's SIGNATURES)
// compile for.
//
//===----------------------------------------------------------------------===//
#include "kiln/abi.h"

#include "Core/Stats.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kiln::abi {

namespace {

/// What the calls of one parameter had in common.
struct ParamRecord {
  bool seen = false;
  bool tensor = true; // false: not a tensor, undefined, or rank/dtype varied
  DType dtype = DType::F32;
  std::vector<int64_t> sizes;
  std::vector<bool> varied;

  void add(const Tensor *t) {
    if (!t || !t->defined()) {
      tensor = false;
      seen = true;
      return;
    }
    if (!seen) {
      seen = true;
      dtype = t->dtype();
      sizes = t->shape();
      varied.assign(sizes.size(), false);
      return;
    }
    if (!tensor)
      return;
    if (t->dtype() != dtype || t->dim() != static_cast<int64_t>(sizes.size())) {
      tensor = false;
      return;
    }
    for (size_t d = 0; d < sizes.size(); ++d)
      if (t->shape()[d] != sizes[d])
        varied[d] = true;
  }

  std::string spelling() const {
    if (!seen || !tensor)
      return "_";
    std::string s = dtypeTag(dtype);
    s += "[";
    for (size_t d = 0; d < sizes.size(); ++d)
      s += (d ? "," : "") +
           (varied[d] ? std::string("?") : std::to_string(sizes[d]));
    return s + "]";
  }
};

struct Recorder {
  std::mutex mutex;
  std::map<std::string, std::vector<ParamRecord>> roots;
  std::string path;

  Recorder() {
    if (const char *p = std::getenv("KILN_RECORD"))
      path = p;
  }

  ~Recorder() {
    if (path.empty())
      return;
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "kiln: KILN_RECORD: cannot write %s\n",
                   path.c_str());
      return;
    }
    std::fprintf(f, "{\"kiln.signatures\": 1, \"signatures\": [");
    bool first = true;
    for (const auto &[root, params] : roots) {
      std::string sig = root + "(";
      for (size_t i = 0; i < params.size(); ++i)
        sig += (i ? ", " : "") + params[i].spelling();
      sig += ")";
      std::fprintf(f, "%s\n  \"%s\"", first ? "" : ",", sig.c_str());
      first = false;
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
  }
};

Recorder &recorder() {
  static Recorder instance;
  return instance;
}

} // namespace

void recordRootCall(const char *root,
                    std::initializer_list<const Tensor *> args) {
  Recorder &r = recorder();
  if (r.path.empty())
    return;
  detail::UncountedOps plumbing;
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<ParamRecord> &params = r.roots[root];
  params.resize(args.size());
  size_t i = 0;
  for (const Tensor *t : args)
    params[i++].add(t);
}

} // namespace kiln::abi
