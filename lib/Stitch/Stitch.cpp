//===- Stitch.cpp - The user's file with segments replaced by graph calls -===//
//
// A segment
//     Tensor h = kiln::gelu(kiln::matmul(x, w1) + b1);
// becomes
//     kiln::Tensor h{};
//     if (!::kiln_stitched::kiln_Mlp_forward_0(h, x, this->w1, this->b1)) {
//     #line 12 "mlp.cpp"
//       h = (kiln::gelu(kiln::matmul(x, w1) + b1));
//     }
//     #line 12 "mlp.cpp"
// The variables a segment declares are declared first (its other code may
// read them), the call assigns what later code reads, and the original
// statements, declarations turned into assignments, run when the guard
// rejects the inputs or a shape check inside the graph fails (they then
// raise eager's kiln::Error). A segment that ends in `return` returns the
// graph's result.
//
//===----------------------------------------------------------------------===//
#include "kiln/Stitch/Stitch.h"

#include "kiln/Frontend/GraphBody.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace clang;

namespace kiln::stitch {

using namespace frontend;

namespace {

/// How many times g's ops read value v.
size_t usesOf(const Graph &g, int v) {
  mlir::Value value = g.body->values[v];
  return value ? static_cast<size_t>(
                     std::distance(value.use_begin(), value.use_end()))
               : 0;
}

std::string textOf(SourceRange range, const ASTContext &context) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(range),
                              context.getSourceManager(), context.getLangOpts())
      .str();
}

/// The initializer of var as source text, for `var = (text);`.
std::string initText(const VarDecl *var, const ASTContext &context) {
  const Expr *init = var->getInit();
  if (const auto *cleanups = dyn_cast<ExprWithCleanups>(init))
    init = cleanups->getSubExpr();
  if (const auto *construct =
          dyn_cast<CXXConstructExpr>(init->IgnoreImplicit())) {
    // `Tensor h;`: a fresh default value.
    if (construct->getNumArgs() == 0)
      return "decltype(" + var->getNameAsString() + ")()";
    // `std::vector<Tensor> v = {a, b};` or `v{a, b}`: the braces, typed
    // (a copy-list-initialization's braces are the whole expression).
    if (construct->isListInitialization()) {
      SourceRange braces = construct->getParenOrBraceRange();
      return "decltype(" + var->getNameAsString() + ")" +
             textOf(braces.isValid() ? braces : construct->getSourceRange(),
                    context);
    }
    if (construct->getParenOrBraceRange().isValid() &&
        construct->getNumArgs() == 1)
      init = construct->getArg(0);
  }
  return textOf(init->getSourceRange(), context);
}

/// A lambda's declaration as it is made before a graph call: each copy it
/// captures of a variable declared in [begin, end] (which the call or its
/// fallback sets after it) becomes a reference to that variable ([n] is
/// [&n], [=] is [=, &n], [&, n] is [&]). The
/// frontend has checked that no such variable changes after the lambda is
/// made, so the values read are the copies'.
std::string lambdaBeforeCall(const DeclStmt *decl, SourceLocation begin,
                             SourceLocation end, const ASTContext &context) {
  const SourceManager &sm = context.getSourceManager();
  SourceLocation from = sm.getExpansionLoc(decl->getBeginLoc());
  std::string text =
      textOf(SourceRange(from, sm.getExpansionLoc(decl->getEndLoc())), context);
  const LambdaExpr *lambda =
      frontend::lambdaOf(cast<VarDecl>(decl->getSingleDecl()));
  if (!lambda)
    return text;
  struct Edit {
    unsigned offset, erase;
    std::string insert;
  };
  std::vector<Edit> edits;
  unsigned base = sm.getFileOffset(from);
  std::string implicitRefs;
  for (const LambdaCapture &c : lambda->captures()) {
    if (!c.capturesVariable() || c.getCaptureKind() != LCK_ByCopy)
      continue;
    const ValueDecl *captured = c.getCapturedVar();
    SourceLocation declared = sm.getExpansionLoc(captured->getLocation());
    if (sm.isBeforeInTranslationUnit(declared, begin) ||
        sm.isBeforeInTranslationUnit(end, declared))
      continue;
    if (!c.isExplicit()) {
      implicitRefs += ", &" + captured->getNameAsString();
      continue;
    }
    unsigned at = sm.getFileOffset(sm.getExpansionLoc(c.getLocation())) - base;
    if (lambda->getCaptureDefault() == LCD_ByRef) {
      // [&, n] becomes [&] ([&, &n] is ill-formed).
      size_t comma = text.rfind(',', at);
      unsigned stop = at + captured->getName().size();
      edits.push_back({static_cast<unsigned>(comma),
                       stop - static_cast<unsigned>(comma), ""});
    } else {
      edits.push_back({at, 0, "&"});
    }
  }
  if (!implicitRefs.empty()) // [=] becomes [=, &n]
    edits.push_back(
        {sm.getFileOffset(sm.getExpansionLoc(lambda->getCaptureDefaultLoc())) -
             base + 1,
         0, implicitRefs});
  std::sort(edits.begin(), edits.end(),
            [](const Edit &a, const Edit &b) { return a.offset > b.offset; });
  for (const Edit &e : edits)
    text.replace(e.offset, e.erase, e.insert);
  return text;
}

/// The stitched file's array of the CPU features its compiled graphs need.
constexpr const char *kCpuFeaturesArray = "kiln_cpu_features_";

std::string lineDirective(unsigned line, const std::string &file) {
  std::string escaped;
  for (char c : file)
    escaped +=
        (c == '\\' || c == '"') ? std::string("\\") + c : std::string(1, c);
  return "#line " + std::to_string(line) + " \"" + escaped + "\"\n";
}

} // namespace

std::string
stitchFile(ASTContext &context, const std::string &file,
           const std::vector<Root> &roots,
           const std::vector<const Segment *> &stitched,
           const std::vector<std::pair<const FunctionDecl *, bool>> &scopes,
           const std::string &backendNote, const std::string &cpuFeatures,
           const std::vector<EmbeddedImage> &images) {
  SourceManager &sm = context.getSourceManager();
  Rewriter rewriter(sm, context.getLangOpts());
  // One '|'-separated feature list per CPU the object was compiled for.
  const int cpuTargets =
      1 +
      static_cast<int>(std::count(cpuFeatures.begin(), cpuFeatures.end(), '|'));
  PrintingPolicy policy(context.getLangOpts());
  policy.SuppressScope = false;
  std::set<const Segment *> chosen(stitched.begin(), stitched.end());
  std::string declarations, definitions;
  FileID main = sm.getMainFileID();
  std::string mainName = sm.getFileEntryRefForID(main)->getName().str();

  // A template's statements serve all its instantiations: each segment is
  // rewritten once, its call going through a class template specialized
  // for each instantiation to that instantiation's graph (the frontend's
  // reconcileInstantiations made their segments agree).
  std::map<const FunctionDecl *, int> templateIds;
  std::set<std::pair<int, size_t>> rewritten;
  std::string templatePrimaries, templateSpecializations, lateSpecializations;
  for (const Root &root : roots) {
    std::optional<TemplateSpelling> tpl = templateSpelling(root.function);
    int templateId = tpl ? templateIds.emplace(tpl->pattern, templateIds.size())
                               .first->second
                         : -1;
    for (size_t segIndex = 0; segIndex < root.segments.size(); ++segIndex) {
      const Segment &seg = root.segments[segIndex];
      if (!chosen.count(&seg))
        continue;
      const Graph &g = seg.graph;
      SourceLocation begin =
          sm.getExpansionLoc(seg.statements.front()->getBeginLoc());
      SourceLocation end =
          sm.getExpansionLoc(seg.statements.back()->getEndLoc());
      // Only segments written in the main file are rewritten.
      if (sm.getFileID(begin) != main || sm.getFileID(end) != main)
        continue;
      // The statement's terminating ';' belongs to the range.
      SourceLocation semi = Lexer::findLocationAfterToken(
          end, tok::semi, sm, context.getLangOpts(), false);
      SourceLocation last = semi.isValid() ? semi.getLocWithOffset(-1) : end;
      unsigned beginLine = sm.getSpellingLineNumber(begin);
      unsigned endLine = sm.getSpellingLineNumber(last);

      // The fallback: the original text, declarations made assignments.
      unsigned beginOffset = sm.getFileOffset(begin);
      std::string fallback =
          Lexer::getSourceText(
              CharSourceRange::getCharRange(begin, last.getLocWithOffset(1)),
              sm, context.getLangOpts())
              .str();
      struct Edit {
        unsigned from, to;
        std::string text;
      };
      std::vector<Edit> edits;
      std::string hoisted;
      for (const Stmt *s : seg.statements) {
        const auto *decl = dyn_cast<DeclStmt>(s);
        if (!decl)
          continue;
        std::string assignments;
        bool keep = false;
        // A lambda's declaration moves before the call, verbatim, and so
        // does one that only names things (using, typedef...), so that
        // what follows the segment and its fallback still see the names.
        bool verbatim = llvm::all_of(decl->decls(), [](const Decl *d) {
          return frontend::declaresNamesOnly(d);
        });
        bool lambda = false;
        if (decl->isSingleDecl())
          if (const auto *var = dyn_cast<VarDecl>(decl->getSingleDecl())) {
            if (const auto *record = var->getType()->getAsCXXRecordDecl();
                record && record->isLambda())
              lambda = true;
            // `const int64_t k = 4;`: the same value on every path, and
            // lambdas read it without capturing it (no odr-use), so it
            // stays a constant.
            if (var->isUsableInConstantExpressions(context))
              verbatim = true;
          }
        if (verbatim || lambda) {
          SourceLocation from = sm.getExpansionLoc(decl->getBeginLoc());
          SourceLocation to = sm.getExpansionLoc(decl->getEndLoc());
          hoisted += (lambda ? lambdaBeforeCall(decl, begin, last, context)
                             : textOf(SourceRange(from, to), context)) +
                     "\n";
          edits.push_back({sm.getFileOffset(from) - beginOffset,
                           sm.getFileOffset(to) - beginOffset + 1, ""});
          continue;
        }
        for (const Decl *d : decl->decls()) {
          const auto *var = cast<VarDecl>(d);
          QualType type = var->getType();
          // auto [a, b] = f(x);: the bindings name an object declared
          // first, which the fallback assigns.
          if (const auto *dd = dyn_cast<DecompositionDecl>(var)) {
            std::string object = "kiln_bindings" +
                                 std::to_string(sm.getFileOffset(
                                     sm.getExpansionLoc(dd->getLocation()))) +
                                 "_";
            std::string names;
            for (const BindingDecl *b : dd->bindings())
              names += (names.empty() ? "" : ", ") + b->getNameAsString();
            hoisted +=
                TypeName::getFullyQualifiedName(type.getNonReferenceType()
                                                    .getCanonicalType()
                                                    .getUnqualifiedType(),
                                                context, policy) +
                " " + object + "{};\nauto &[" + names + "] = " + object + ";\n";
            assignments += object + " = (" + initText(var, context) + ");";
            continue;
          }
          if (type.getAsString().find("error_on_graph_break") !=
              std::string::npos) {
            keep = true; // a guard stays a declaration (it does nothing at run
                         // time)
            continue;
          }
          QualType plain = type.getNonReferenceType().getUnqualifiedType();
          hoisted += TypeName::getFullyQualifiedName(plain, context, policy) +
                     " " + var->getNameAsString() + "{};\n";
          assignments +=
              var->getNameAsString() + " = (" + initText(var, context) + ");";
        }
        if (keep)
          continue;
        SourceLocation from = sm.getExpansionLoc(decl->getBeginLoc());
        SourceLocation to = sm.getExpansionLoc(decl->getEndLoc());
        edits.push_back({sm.getFileOffset(from) - beginOffset,
                         sm.getFileOffset(to) - beginOffset + 1, assignments});
      }
      std::sort(edits.begin(), edits.end(),
                [](const Edit &a, const Edit &b) { return a.from > b.from; });
      for (const Edit &e : edits)
        if (e.to <= fallback.size() + 1)
          fallback.replace(
              e.from, std::min<size_t>(e.to, fallback.size()) - e.from, e.text);

      // The call: outputs (the return value first), then inputs.
      auto partName = [](int i) {
        return "kiln_result" + std::to_string(i) + "_";
      };
      std::string args;
      for (const GraphOutput &out : g.outputs)
        args += (args.empty() ? "" : ", ") +
                (seg.returnsRecord      ? out.variable
                 : out.returnPart >= 0  ? partName(out.returnPart)
                 : out.variable.empty() ? std::string("kiln_result_")
                                        : out.variable);
      for (const GraphInput &in : g.inputs)
        args += (args.empty() ? "" : ", ") +
                (in.standIn.empty() || usesOf(g, in.value) != 1 ? in.expr
                                                                : in.standIn);
      std::string call = "::kiln_stitched::" + g.name + "(" + args + ")";
      bool rewrite = true;
      if (tpl) {
        std::string dispatch = "kiln_template" + std::to_string(templateId) +
                               "_" + std::to_string(segIndex);
        call = "::kiln_stitched::" + dispatch + "<" + tpl->args + ">::call(" +
               args + ")";
        rewrite = rewritten.insert({templateId, segIndex}).second;
        if (rewrite)
          templatePrimaries +=
              "template <" + tpl->params + "> struct " + dispatch +
              " {\n  template <class... A> static bool call(A &&...) {\n"
              "    return kiln::abi::uncompiledCall(kiln::abi::"
              "GraphSite(\"" +
              dispatch + "\", \"" + llvm::sys::path::filename(file).str() +
              ":" + std::to_string(sm.getSpellingLineNumber(begin)) +
              "\"), \"no graph was compiled for this instantiation of the "
              "template (kiln compile saw none of its uses)\");\n  }\n};\n";
        (tpl->userTypes ? lateSpecializations : templateSpecializations) +=
            "template <> struct " + dispatch + "<" + tpl->values +
            "> {\n  template <class... A> static bool call(A &&...a) "
            "{\n    return ::kiln_stitched::" +
            g.name + "(static_cast<A &&>(a)...);\n  }\n};\n";
      }
      if (rewrite) {
        std::string text = "\n" + hoisted;
        if (seg.endsWithReturn && !seg.returnParts.empty()) {
          // return {a, b};: the same braces around the graph's results.
          const Stmt *ret = seg.statements.back();
          SourceLocation retBegin = sm.getExpansionLoc(ret->getBeginLoc());
          unsigned retOffset = sm.getFileOffset(retBegin);
          std::string returned =
              Lexer::getSourceText(CharSourceRange::getCharRange(
                                       retBegin, last.getLocWithOffset(1)),
                                   sm, context.getLangOpts())
                  .str();
          std::string declared;
          for (size_t i = seg.returnParts.size(); i-- > 0;) {
            const Expr *part = seg.returnParts[i];
            SourceLocation from = sm.getExpansionLoc(part->getBeginLoc());
            SourceLocation to = Lexer::getLocForEndOfToken(
                sm.getExpansionLoc(part->getEndLoc()), 0, sm,
                context.getLangOpts());
            returned.replace(sm.getFileOffset(from) - retOffset,
                             sm.getFileOffset(to) - sm.getFileOffset(from),
                             partName(static_cast<int>(i)));
            QualType type =
                part->getType().getNonReferenceType().getUnqualifiedType();
            declared = TypeName::getFullyQualifiedName(type, context, policy) +
                       " " + partName(static_cast<int>(i)) + "{};\n" + declared;
          }
          text +=
              "{\n" + declared + "if (" + call + ")\n  " + returned + "\n}\n";
          text += lineDirective(beginLine, file) + fallback + "\n";
        } else if (seg.returnsRecord) {
          // return block(x);: a struct of the graph's results.
          QualType type = root.function->getReturnType()
                              .getNonReferenceType()
                              .getUnqualifiedType();
          text += "{\n" +
                  TypeName::getFullyQualifiedName(type, context, policy) +
                  " kiln_record_{};\nif (" + call +
                  ")\n  return kiln_record_;\n}\n";
          text += lineDirective(beginLine, file) + fallback + "\n";
        } else if (seg.endsWithReturn) {
          text += "if (kiln::Tensor kiln_result_; " + call +
                  ")\n  return kiln_result_;\n";
          text += lineDirective(beginLine, file) + fallback + "\n";
        } else {
          text += "if (!" + call + ") {\n" + lineDirective(beginLine, file) +
                  fallback + "\n}\n";
        }
        text += lineDirective(endLine, file);
        if (!seg.braced)
          text = "{" + text + "}";
        rewriter.ReplaceText(SourceRange(begin, last), text);
      }
      std::string location = llvm::sys::path::filename(file).str() + ":" +
                             std::to_string(beginLine);
      bool cuda = root.backend == mlir::kiln::Backend::Cuda;
      bool compiled = root.backend != mlir::kiln::Backend::Eager;
      std::string cpu =
          compiled && !cpuFeatures.empty() ? kCpuFeaturesArray : "";
      auto wrap = [&](const Graph &graph, bool dispatched) {
        WrapperCode code = emitWrapper(graph, compiled, root.derived, cuda,
                                       location, dispatched, cpu, cpuTargets);
        declarations += code.declaration;
        definitions += code.definition;
      };
      if (seg.variants.empty()) {
        wrap(g, false);
      } else {
        for (const GraphVariant &v : seg.variants)
          wrap(v.graph, true);
        WrapperCode code =
            emitDispatcher(g, seg.variants, root.derived, cuda, location, cpu);
        declarations += code.declaration;
        definitions += code.definition;
      }
    }
  }

  // After the wrappers they call (declared above, as the graphs were).
  declarations += templatePrimaries + templateSpecializations;

  // #include "..." of the main file name the file clang found, absolutely:
  // the stitched source is written elsewhere.
  for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
    FileID fid = sm.translateFile(it->first);
    if (fid.isInvalid())
      continue;
    SourceLocation at = sm.getIncludeLoc(fid);
    if (at.isInvalid() || sm.getFileID(sm.getExpansionLoc(at)) != main)
      continue;
    // `at` is where the included file's name starts; a quoted one is
    // replaced, an angled one left to the include path.
    at = sm.getExpansionLoc(at);
    bool invalid = false;
    const char *text = sm.getCharacterData(at, &invalid);
    if (invalid || *text != '"')
      continue;
    const char *close = std::strchr(text + 1, '"');
    if (!close)
      continue;
    llvm::SmallString<256> path(it->first.getName());
    llvm::sys::fs::make_absolute(path);
    llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
    rewriter.ReplaceText(at, static_cast<unsigned>(close - text + 1),
                         "\"" + std::string(path) + "\"");
  }

  // A root whose graphs kiln compile left as host code says so when it is
  // called (once) and counts each call: never silently eager.
  std::map<const FunctionDecl *, std::string> leftOnHost;
  for (const Root &root : roots)
    if (!root.leftOnHost.empty() &&
        !root.function->getTemplateInstantiationPattern())
      leftOnHost[root.function] =
          " kiln::abi::uncompiledCall(kiln::abi::GraphSite(" +
          cString(root.name) + ", " +
          cString(llvm::sys::path::filename(file).str() + ":" +
                  std::to_string(root.pos.line)) +
          "), " + cString(root.leftOnHost) + ");";
  std::set<unsigned> scoped; // one text may serve several instantiations
  for (const auto &[fn, compiled] : scopes) {
    const auto *body = dyn_cast_or_null<CompoundStmt>(fn->getBody());
    if (!body ||
        sm.getFileID(sm.getExpansionLoc(body->getLBracLoc())) != main ||
        !scoped.insert(sm.getExpansionLoc(body->getLBracLoc()).getRawEncoding())
             .second)
      continue;
    std::string entry = std::string(" kiln::abi::CompiledScope "
                                    "kiln_compiled_scope_(") +
                        (compiled ? "true" : "false") + ");";
    // A compile root notes its arguments for KILN_RECORD.
    if (compiled) {
      entry += " kiln::abi::recordRootCall(\"" +
               fn->getQualifiedNameAsString() + "\", {";
      for (unsigned i = 0; i < fn->getNumParams(); ++i) {
        const ParmVarDecl *p = fn->getParamDecl(i);
        const auto *record =
            p->getType().getNonReferenceType()->getAsCXXRecordDecl();
        bool tensor =
            record && record->getName() == "Tensor" &&
            record->getDeclContext()->isNamespace() &&
            cast<NamespaceDecl>(record->getDeclContext())->getName() == "kiln";
        entry += (i ? ", " : "") + (tensor && p->getIdentifier()
                                        ? "&" + p->getNameAsString()
                                        : std::string("nullptr"));
      }
      entry += "});";
      if (auto left = leftOnHost.find(fn); left != leftOnHost.end())
        entry += left->second;
    }
    rewriter.InsertTextAfterToken(sm.getExpansionLoc(body->getLBracLoc()),
                                  entry);
  }
  // A derived root (a callee compiled as a root of its own) runs its graphs
  // only when compiled code reaches it: so does its notice.
  for (const Root &root : roots) {
    auto left = leftOnHost.find(root.function);
    const auto *body = dyn_cast_or_null<CompoundStmt>(root.function->getBody());
    if (!root.derived || left == leftOnHost.end() || !body ||
        sm.getFileID(sm.getExpansionLoc(body->getLBracLoc())) != main)
      continue;
    rewriter.InsertTextAfterToken(sm.getExpansionLoc(body->getLBracLoc()),
                                  " if (kiln::abi::inCompiledCode())" +
                                      left->second);
  }

  std::string out;
  llvm::raw_string_ostream os(out);
  os << "// Stitched by kiln compile from " << mainName << " (" << backendNote
     << "); do not edit.\n"
     << "#define KILN_STITCHED 1\n"
     << "#include <kiln/kiln.h>\n#include <kiln/abi.h>\n#include <cmath>\n"
     << "#include <cstdint>\n#include <algorithm>\n#include <limits>\n"
     << "namespace kiln_stitched {\n";
  if (!cpuFeatures.empty()) // what the compiled graphs need of the CPU
    os << "[[maybe_unused]] static constexpr char " << kCpuFeaturesArray
       << "[] = " << cString(cpuFeatures) << ";\n";
  if (cpuTargets > 1) // which CPU's entry points the calls take
    os << "[[maybe_unused]] static const int kiln_cpu_target_ = "
          "kiln::abi::chooseCpuTarget("
       << kCpuFeaturesArray << ");\n";
  os << declarations << "} // namespace kiln_stitched\n"
     << lineDirective(1, file);
  const llvm::RewriteBuffer *buffer = rewriter.getRewriteBufferFor(main);
  if (buffer)
    os << std::string(buffer->begin(), buffer->end());
  else
    os << sm.getBufferData(main);
  // Instantiations over the source's classes, named once they are declared
  // (the template bodies that use them are instantiated at the end of the
  // translation unit).
  if (!lateSpecializations.empty())
    os << "\n#line 1 \"kiln-stitched\"\nnamespace kiln_stitched {\n"
       << lateSpecializations << "} // namespace kiln_stitched\n";
  if (!definitions.empty())
    os << "\n// The graphs' wrappers (kiln compile).\n#line 1 "
          "\"kiln-stitched\"\n"
       << "namespace kiln_stitched {\n"
       << definitions << "} // namespace kiln_stitched\n";
  for (const EmbeddedImage &image : images)
    os << emitImage(image);
  return out;
}

} // namespace kiln::stitch
