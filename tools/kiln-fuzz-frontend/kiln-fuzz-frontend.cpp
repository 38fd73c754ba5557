//===- kiln-fuzz-frontend.cpp - libFuzzer target for the frontend ---------===//
//
// Each input, taken as a C++ source, goes in process through what
// `kiln compile --emit=linalg` runs: Clang's parse, the tracer, the graphs'
// typing, the kiln dialect's construction and verification, and the
// conversion to linalg (everything before the code generators). Every input
// must end in exit status 0, 1 or 2, with its diagnostics; an assertion, a
// signal, a leak or an input past libFuzzer's -timeout is a finding.
//
// Kiln's headers come from a precompiled header that clang-22 makes once at
// start-up, so an input costs its own parse. Inputs that name a device or
// process file (`#include "/dev/stdin"`) are rejected: clang would read it
// forever, for any tool. docs/testing.md says how to run it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Driver/Compile.h"
#include "kiln/Frontend/Frontend.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

/// The files one process works in: a directory of its own under the
/// system's temporary directory, removed at exit.
struct Workspace {
  std::string dir, input, output, pch;
};

Workspace &workspace() {
  static Workspace w;
  return w;
}

void removeWorkspace() {
  if (!workspace().dir.empty())
    llvm::sys::fs::remove_directories(workspace().dir);
}

bool writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return false;
  os << text;
  return !os.has_error();
}

/// Runs one source through `kiln compile --emit=linalg`; its exit status.
int compileSource(llvm::StringRef source) {
  const Workspace &w = workspace();
  if (!writeFile(w.input, source)) {
    llvm::errs() << "kiln-fuzz-frontend: cannot write " << w.input << "\n";
    std::abort();
  }
  kiln::driver::CompileRequest request;
  request.files = {w.input};
  request.output = w.output;
  request.emit = kiln::driver::Emit::Linalg;
  if (!w.pch.empty())
    request.clangArgs = {"-include-pch", w.pch};
  return kiln::driver::runCompile(request);
}

/// The precompiled <kiln/kiln.h>, made with the clang that Kiln's Clang
/// libraries come from; empty if that fails (inputs then parse the headers
/// each time, slower but the same).
std::string precompileKilnHeader(const std::string &dir) {
  std::string header = dir + "/prelude.h", pch = dir + "/prelude.pch";
  if (!writeFile(header, "#include <kiln/kiln.h>\n"))
    return "";
  std::vector<std::string> args = {KILN_CLANG, "-std=c++17", "-x", "c++-header",
                                   header,     "-o",         pch};
  for (const std::string &include : kiln::frontend::kilnIncludeDirs())
    args.push_back("-I" + include);
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  std::string error;
  if (llvm::sys::ExecuteAndWait(KILN_CLANG, refs, std::nullopt, {}, 0, 0,
                                &error) != 0) {
    llvm::errs() << "kiln-fuzz-frontend: note: no precompiled header ("
                 << (error.empty() ? "clang failed" : error) << ")\n";
    return "";
  }
  return pch;
}

} // namespace

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
/// LLVM's headers poison the free part of a BumpPtrAllocator slab when the
/// code that includes them is built with ASan, and unpoison what they hand
/// out; the Debian libclang-cpp that shares those allocators is built
/// without it and hands out memory it never unpoisons (the precompiled
/// header's lazily read declarations are the first to meet one). The
/// allocators' own annotations go; ASan's checks of every access stay.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
#endif
#endif

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  Workspace &w = workspace();
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("kiln-fuzz-frontend", dir)) {
    llvm::errs() << "kiln-fuzz-frontend: cannot make a directory: "
                 << ec.message() << "\n";
    std::exit(1);
  }
  w.dir = std::string(dir);
  w.input = w.dir + "/input.cpp";
  w.output = w.dir + "/output.mlir";
  std::atexit(removeWorkspace);
  w.pch = precompileKilnHeader(w.dir);
  // The header must serve: a plain root compiles with it.
  if (!w.pch.empty() &&
      compileSource("KILN_COMPILE() kiln::Tensor f(const kiln::Tensor &x) "
                    "{ return x * 2.0f; }\n") != 0) {
    llvm::errs() << "kiln-fuzz-frontend: note: the precompiled header does "
                    "not load; parsing the headers for each input\n";
    w.pch.clear();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  for (llvm::StringRef special : {"/dev/", "/proc/", "/sys/"})
    if (source.contains(special))
      return -1; // never kept in the corpus
  int status = compileSource(source);
  if (status < 0 || status > 2) {
    llvm::errs() << "kiln-fuzz-frontend: exit status " << status
                 << " is not 0, 1 or 2\n";
    std::abort();
  }
  return 0;
}
