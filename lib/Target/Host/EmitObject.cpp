//===- EmitObject.cpp - LLVM dialect -> optimized host object file --------===//
#include "kiln/CpuTargets.h"
#include "kiln/Target/Host.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"
#include "llvm/Transforms/Instrumentation/AddressSanitizer.h"

using namespace mlir;

namespace {

/// kiln_entry_NAME(void **args) calling _mlir_ciface_NAME: one calling
/// convention for every graph, so that callers need no per-graph prototype.
void addPackedEntryPoints(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(ctx);
  SmallVector<llvm::Function *> wrappers;
  for (llvm::Function &fn : module)
    if (fn.getName().starts_with("_mlir_ciface_") && !fn.isDeclaration())
      wrappers.push_back(&fn);
  for (llvm::Function *fn : wrappers) {
    std::string name =
        "kiln_entry_" + fn->getName().drop_front(strlen("_mlir_ciface_")).str();
    auto *type =
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false);
    auto *entry = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                         name, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
    llvm::Value *args = entry->getArg(0);
    auto slot = [&](unsigned i) {
      return b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, args, i));
    };
    // A non-void wrapper returns its one scalar result: store it in args[0].
    bool returnsValue = !fn->getReturnType()->isVoidTy();
    unsigned first = returnsValue ? 1 : 0;
    SmallVector<llvm::Value *> params;
    for (llvm::Argument &arg : fn->args()) {
      llvm::Value *p = slot(first + arg.getArgNo());
      params.push_back(
          arg.getType()->isPointerTy() ? p : b.CreateLoad(arg.getType(), p));
    }
    llvm::Value *result = b.CreateCall(fn, params);
    if (returnsValue)
      b.CreateStore(result, slot(0));
    b.CreateRetVoid();
  }
}

/// The CPU name and the feature string a target machine for `cpu` (one of
/// cpuTargets; empty for the host) is created with: the host's CPU and
/// features, or the named CPU (its features implied), then `extra` on top.
std::pair<std::string, std::string> targetCpu(std::string cpu,
                                              const std::string &extra) {
  std::string features;
  if (cpu.empty()) {
    cpu = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features += (features.empty() ? "" : ",") +
                  std::string(feature.second ? "+" : "-") +
                  feature.first().str();
  }
  if (!extra.empty())
    features += (features.empty() ? "" : ",") + extra;
  return {cpu, features};
}

/// The enabled features of one CPU of cpuTargets (empty: the host's) with
/// `extra` applied, LLVM's names, sorted and comma-separated.
std::string featuresOf(const std::string &cpu, const std::string &extra) {
  llvm::StringMap<bool> enabled;
  if (cpu.empty()) {
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      enabled[feature.first()] = feature.second;
  } else {
    llvm::SmallVector<llvm::StringRef> implied;
    llvm::X86::getFeaturesForCPU(cpu, implied);
    for (llvm::StringRef f : implied) { // sse4.2 implies sse4.1, ...
      enabled[f] = true;
      llvm::X86::updateImpliedFeatures(f, true, enabled);
    }
  }
  llvm::SmallVector<llvm::StringRef> more;
  llvm::StringRef(extra).split(more, ',', -1, false);
  for (llvm::StringRef f : more)
    if (f.size() > 1 && (f[0] == '+' || f[0] == '-')) {
      enabled[f.drop_front()] = f[0] == '+';
      llvm::X86::updateImpliedFeatures(f.drop_front(), f[0] == '+', enabled);
    }
  std::vector<std::string> names;
  for (const auto &entry : enabled)
    if (entry.second)
      names.push_back(entry.first().str());
  std::sort(names.begin(), names.end());
  return llvm::join(names, ",");
}

} // namespace

std::vector<std::string> mlir::kiln::cpuTargets(const CodegenOptions &options) {
  std::vector<std::string> cpus;
  llvm::SmallVector<llvm::StringRef> names;
  llvm::StringRef(options.cpu).split(names, ',', -1, false);
  for (llvm::StringRef name : names)
    cpus.push_back(name.trim() == "native" ? "" : name.trim().str());
  if (cpus.empty())
    cpus.push_back("");
  return cpus;
}

bool mlir::kiln::isKnownCpu(llvm::StringRef cpu) {
  if (cpu == "native" ||
      !llvm::Triple(llvm::sys::getDefaultTargetTriple()).isX86())
    return true; // left to LLVM's own warning
  return llvm::X86::parseArchX86(cpu, /*Only64Bit=*/true) != llvm::X86::CK_None;
}

std::string mlir::kiln::cpuFeaturesFor(const CodegenOptions &options) {
  if (!llvm::Triple(options.triple.empty() ? llvm::sys::getDefaultTargetTriple()
                                           : options.triple)
           .isX86())
    return "";
  std::string lists;
  for (const std::string &cpu : cpuTargets(options))
    lists += (lists.empty() ? "" : "|") + featuresOf(cpu, options.features);
  return lists;
}

LogicalResult mlir::kiln::emitObject(ModuleOp module,
                                     const CodegenOptions &options,
                                     llvm::raw_pwrite_stream &os,
                                     bool emitLLVMIR) {
  return emitObject(ArrayRef<ModuleOp>{module}, options, os, emitLLVMIR);
}

LogicalResult mlir::kiln::emitObject(ArrayRef<ModuleOp> modules,
                                     const CodegenOptions &options,
                                     llvm::raw_pwrite_stream &os,
                                     bool emitLLVMIR) {
  ModuleOp module = modules.front();
  // Every backend LLVM was built with, so that --target can cross-compile.
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  module->getContext()->appendDialectRegistry(registry);

  llvm::Triple triple(options.triple.empty()
                          ? llvm::sys::getDefaultTargetTriple()
                          : options.triple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError("kiln: no target for ")
           << triple.str() << ": " << error;
  std::vector<std::string> cpus = cpuTargets(options);

  // Every module translated once per CPU of the list, its C interfaces
  // (the object's symbols) suffixed after the first, linked into one LLVM
  // module whose functions carry their CPU: LLVM compiles each function
  // for its own subtarget, and inlines none across CPUs.
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  for (size_t t = 0; t < cpus.size(); ++t) {
    auto [cpu, features] = targetCpu(cpus[t], options.features);
    std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
        target->createMCSubtargetInfo(triple, cpu, features));
    // 512-bit vectors wherever the CPU has AVX-512. LLVM's tuning for
    // Intel's AVX-512 cores prefers 256 bits (the frequency cost of 512-bit
    // code on Skylake-era parts); Zen 4 and 5 prefer 512 already. Measured
    // on a 5th-generation Xeon (2 cores, alternating runs of the sweep):
    // layer_norm(softmax(x)+x) [4096, 1024] 0.82-0.88x the 256-bit time, a
    // 16M-element chain 0.89x, the rest unchanged within noise.
    bool wide =
        triple.isX86() && subtarget && subtarget->checkFeatures("+avx512f");
    for (ModuleOp m : modules) {
      std::unique_ptr<llvm::Module> translated =
          translateModuleToLLVMIR(m, llvmContext);
      if (!translated)
        return m.emitError("kiln: translation to LLVM IR failed");
      if (options.afterTranslation)
        options.afterTranslation(m, *translated);
      for (llvm::Function &fn : *translated) {
        if (fn.isDeclaration())
          continue;
        // Only the C interfaces (and the entry points added below) are the
        // object's: helpers such as the deallocation pipeline's
        // dealloc_helper exist in every module, so that linking two (a
        // file's cpu and cuda graphs, or two compiled files into one
        // program) would clash.
        if (!fn.getName().starts_with("_mlir_ciface_"))
          fn.setLinkage(llvm::GlobalValue::InternalLinkage);
        else if (t > 0)
          fn.setName(fn.getName() + ::kiln::cpuTargetSuffix(t));
        // The functions carry the target, so that every IR pass (the loop
        // vectorizer above all) sees the CPU's vector width.
        fn.addFnAttr("target-cpu", cpu);
        if (!features.empty())
          fn.addFnAttr("target-features", features);
        if (wide)
          fn.addFnAttr("prefer-vector-width", "512");
      }
      if (!llvmModule)
        llvmModule = std::move(translated);
      else if (llvm::Linker::linkModules(*llvmModule, std::move(translated)))
        return m.emitError("kiln: linking the compiled modules failed");
    }
  }
  addPackedEntryPoints(*llvmModule);

  auto [cpu, features] = targetCpu(cpus.front(), options.features);
  // Multiplications and additions fuse into FMAs, as in the runtime (built
  // with clang's default -ffp-contract=on); fused results are closer to the
  // exact value, not further.
  llvm::TargetOptions targetOptions;
  targetOptions.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, targetOptions, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return module.emitError("kiln: cannot create a target machine for ")
           << triple.str() << " " << cpu;
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  for (llvm::Function &fn : *llvmModule) {
    if (fn.isDeclaration())
      continue;
    // Divisions marked arcp (sigmoid's, erf's) become a reciprocal
    // estimate refined by Newton steps. x86's 12-bit rcpps (what 256-bit
    // code gets where AVX-512's 14-bit vrcp14ps is not chosen, as on Intel
    // cores that prefer 256-bit vectors) needs two steps to stay within
    // docs/abi.md's bound; one left sigmoid 5 ulp from eager there.
    fn.addFnAttr("reciprocal-estimates", "divf:2,vec-divf:2");
    if (options.sanitizeAddress)
      fn.addFnAttr(llvm::Attribute::SanitizeAddress);
  }

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine.get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  if (options.sanitizeAddress)
    builder.registerOptimizerLastEPCallback([](llvm::ModulePassManager &mpm,
                                               llvm::OptimizationLevel,
                                               llvm::ThinOrFullLTOPhase) {
      mpm.addPass(llvm::AddressSanitizerPass(llvm::AddressSanitizerOptions()));
    });
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(*llvmModule, mam);

  if (emitLLVMIR) {
    llvmModule->print(os, nullptr);
    return success();
  }
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return module.emitError("kiln: the target cannot emit object files");
  codegen.run(*llvmModule);
  return success();
}
