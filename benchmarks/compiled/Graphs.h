//===- Graphs.h - The three benchmark graphs, in the kiln dialect -*- C++
//-*-===//
//
// (a) chain: gelu(x*1.5+0.5)*sigmoid(x) - x/(abs(x)+1)
// (b) ln_softmax: layer_norm(softmax(x)+x)
// (c) mm_bias_gelu: gelu(a @ w + b)
// compiled_graphs runs them on the CPU, gpu_graphs on a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_BENCHMARKS_GRAPHS_H
#define KILN_BENCHMARKS_GRAPHS_H

#include <kiln/abi.h>

#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Target/Host.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

namespace {
constexpr const char *kGraphs = R"mlir(
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c15 = kiln.constant dense<1.5> : tensor<f32>
  %c05 = kiln.constant dense<0.5> : tensor<f32>
  %c1 = kiln.constant dense<1.0> : tensor<f32>
  %0 = kiln.mul %x, %c15 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = kiln.add %0, %c05 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %2 = kiln.gelu %1 : tensor<?xf32>
  %3 = kiln.sigmoid %x : tensor<?xf32>
  %4 = kiln.mul %2, %3 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %5 = kiln.abs %x : tensor<?xf32>
  %6 = kiln.add %5, %c1 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %7 = kiln.div %x, %6 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %8 = kiln.sub %4, %7 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %8 : tensor<?xf32>
}
func.func @ln_softmax(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.softmax %x dim 1 : tensor<?x?xf32>
  %1 = kiln.add %0, %x : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = kiln.layer_norm %1, %w, %b {eps = 1.0e-05 : f64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}
func.func @mm_bias_gelu(%a: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = kiln.matmul %a, %w : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = kiln.add %0, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %2 = kiln.gelu %1 : tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}
)mlir";
/// kGraphs compiled by the pipeline `build` appends, linked into a shared
/// library under workDir.
struct CompiledGraphs {
  std::string library;
  double seconds = 0; // to compile and link
  void *handle = nullptr;

  /// Loads the library (false, with dlerror printed, if it fails).
  bool load() {
    handle = dlopen(library.c_str(), RTLD_NOW);
    if (!handle)
      std::fprintf(stderr, "%s\n", dlerror());
    return handle != nullptr;
  }
  kiln::abi::EntryPoint entry(const char *name) const {
    return reinterpret_cast<kiln::abi::EntryPoint>(
        dlsym(handle, (std::string("kiln_entry_") + name).c_str()));
  }
};

/// False (diagnostics on stderr) when a graph does not compile or link.
bool compileGraphs(const mlir::kiln::CompileOptions &options,
                   const char *workDir, CompiledGraphs &out) {
  mlir::DialectRegistry registry;
  mlir::kiln::registerKilnCompiler(registry);
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kGraphs, &context);
  auto start = std::chrono::steady_clock::now();
  if (!module)
    return false;
  llvm::Expected<mlir::kiln::CompiledObject> object =
      mlir::kiln::compileModule(*module, options);
  if (!object) {
    std::fprintf(stderr, "%s\n", llvm::toString(object.takeError()).c_str());
    return false;
  }
  llvm::Expected<std::string> library =
      mlir::kiln::buildSharedLibrary(object->bytes, workDir, KILN_LINKER);
  if (!library) {
    std::fprintf(stderr, "%s\n", llvm::toString(library.takeError()).c_str());
    return false;
  }
  out.library = *library;
  out.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return true;
}

} // namespace

#endif
