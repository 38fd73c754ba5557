//===- Tracer.h - Tracing a compile root into graphs ------------*- C++ -*-===//
//
// The tracer, split like Clang's CodeGen: TraceFunction.cpp (roots, frames,
// inlining, the error-on-break mode, segments, derived roots), TraceStmt.cpp
// (statements, loops, branches), TraceExpr.cpp (expressions, host scalars,
// inputs), TraceOps.cpp (kiln:: ops and Tensor methods), TraceRecords.cpp
// (structs, pairs and tuples of traced values), TraceTypes.cpp (C++ types to
// value kinds), TypeEvidence.cpp (ranks and dtypes the source shows).
// Anything it does not model goes through breakAt(), the one place an
// unsupported construct becomes a graph break with its reason.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_FRONTEND_TRACER_H
#define KILN_LIB_FRONTEND_TRACER_H

#include "AnnotationIndex.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Frontend/Frontend.h"
#include "kiln/Frontend/GraphBody.h"
#include "kiln/Frontend/Signature.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <type_traits>
#include <vector>

namespace kiln::frontend {

/// A std::map with an undo log, for the bindings of a segment, which grow
/// with the root's locals: a checkpoint is the log's length, and going
/// back undoes the changes made since. Checkpointing before every
/// statement then costs nothing however many locals the root has (a copy
/// of the map per statement made a body of n locals trace in O(n^2)).
/// Reads go through get(), writes through set and erase.
template <typename Key, typename Value> class UndoMap {
public:
  using Map = std::map<Key, Value>;
  const Map &get() const { return map_; }
  size_t count(const Key &key) const { return map_.count(key); }
  const Value &at(const Key &key) const { return map_.at(key); }
  /// The value bound to key, or null.
  const Value *lookup(const Key &key) const {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second;
  }
  void set(const Key &key, Value value) {
    remember(key);
    map_[key] = std::move(value);
  }
  void erase(const Key &key) {
    remember(key);
    map_.erase(key);
  }
  /// Replaces the whole map (an if's arms start from the bindings before
  /// it): logged key by key.
  void assign(const Map &map) {
    for (const auto &entry : map_)
      remember(entry.first);
    for (const auto &entry : map)
      remember(entry.first);
    map_ = map;
  }
  size_t mark() const { return log_.size(); }
  void undoTo(size_t mark) {
    while (log_.size() > mark) {
      auto &[key, old] = log_.back();
      if (old)
        map_[key] = std::move(*old);
      else
        map_.erase(key);
      log_.pop_back();
    }
  }

private:
  void remember(const Key &key) {
    auto it = map_.find(key);
    log_.emplace_back(key, it == map_.end() ? std::nullopt
                                            : std::optional<Value>(it->second));
  }
  Map map_;
  std::vector<std::pair<Key, std::optional<Value>>> log_;
};

/// The kind of value a C++ type holds when traced, if any.
std::optional<ValueKind> valueKindOf(clang::QualType type);
bool isTensorType(clang::QualType type);
/// std::vector<kiln::Tensor> (a local the tracer models as a list).
bool isTensorVectorType(clang::QualType type);
/// Whether d is declared in top-level namespace `name` (through inline
/// namespaces).
bool inNamespace(const clang::Decl *d, llvm::StringRef name);
bool isTensorRecord(const clang::CXXRecordDecl *record);
/// e without parentheses, implicit nodes, temporaries and default
/// arguments (the argument as written).
const clang::Expr *stripTemporaries(const clang::Expr *e);
/// A call argument as written: without conversions to kiln::Scalar,
/// temporaries and copies.
const clang::Expr *stripArg(const clang::Expr *e);
/// True for kiln::error_on_graph_break.
bool isErrorGuardType(clang::QualType type);

/// What the translation unit shows of a tensor member, parameter or local:
/// the ranks and element types of the tensors stored in it or passed for it
/// (TypeEvidence.cpp).
struct SourceTypes {
  std::set<int64_t> ranks;
  std::set<ElementType> elements;
  /// An undefined tensor is stored in it somewhere (`Tensor()`, or a
  /// member an aggregate initialization leaves out): a module's absent
  /// bias.
  bool undefined = false;
  bool operator==(const SourceTypes &o) const {
    return ranks == o.ranks && elements == o.elements &&
           undefined == o.undefined;
  }
};
using TypeEvidence = std::map<const clang::ValueDecl *, SourceTypes>;
/// What the call sites in other sources of the program pass for the
/// parameters of functions they declare but do not define, by the
/// function's key (callSiteKey), one entry per parameter.
using CallSites = std::map<std::string, std::vector<SourceTypes>>;
/// A function's qualified name and parameter types (and const), the same
/// in every translation unit that declares it.
std::string callSiteKey(const clang::FunctionDecl *fn);
/// The evidence of a translation unit; `elsewhere`'s entries count as call
/// sites of the functions this one defines.
TypeEvidence collectTypeEvidence(clang::ASTContext &context,
                                 const CallSites *elsewhere = nullptr);
/// Adds what `evidence` says of the parameters of the functions `context`
/// declares without defining them (their callers are here, their bodies
/// elsewhere) to `out`.
void exportCallSites(clang::ASTContext &context, const TypeEvidence &evidence,
                     CallSites &out);
/// Whether `var`, a local, is set by its initializer alone: never assigned,
/// passed by non-const reference or have its address taken in its function.
bool onlyInitialized(const clang::VarDecl *var);
/// The rank (or -1) and element type the source shows for `var`'s
/// initializer when the locals it reads have the types `given` returns
/// (nullopt: what `evidence` says).
std::pair<int64_t, std::optional<ElementType>> typeInitializerWith(
    clang::ASTContext &context, const TypeEvidence &evidence,
    const clang::VarDecl *var,
    const std::function<std::optional<std::pair<int64_t, ElementType>>(
        const clang::VarDecl *)> &given);

/// The value of a `Tensor h;` local before its first assignment.
constexpr int kUndefinedTensor = -3;

/// A struct the tracer holds as a record of traced values: an aggregate
/// whose fields are tensors and scalars (no bases, no references), or a
/// std::pair or std::tuple of them.
struct RecordModel {
  std::vector<clang::QualType> fields;
  /// The fields' names (empty for a std::tuple, read with std::get).
  std::vector<std::string> names;
  bool tuple = false;
  bool aggregate = false; // not a std::pair or std::tuple
  /// How code names field i of the object spelled `object`.
  std::string spellField(const std::string &object, size_t i) const;
};
std::optional<RecordModel> recordModelOf(clang::QualType type);

/// A record value: kRecordBase - i names the segment's records[i] (the
/// values of its fields; kUndefinedTensor where a tensor field has none).
constexpr int kRecordBase = -1000;
inline bool isRecordValue(int v) { return v <= kRecordBase; }

class Tracer {
public:
  Tracer(clang::ASTContext &context, const AnnotationIndex &annotations,
         const FrontendOptions &options,
         std::shared_ptr<const TypeEvidence> evidence);

  /// Traces a compile root: its segments and breaks.
  Root traceRoot(const clang::FunctionDecl *fn, const Annotations &a);
  /// The types --signature states for fn's parameters (statedParams_),
  /// after checking them against its declaration and the source: a
  /// contradiction is an error at the parameter.
  void applySignature(const clang::FunctionDecl *fn);
  /// Functions to compile as roots of their own, found while tracing:
  /// callees that break (their calls stay host code) and the callees of
  /// KILN_DISABLE(recursive=false) functions.
  std::vector<const clang::FunctionDecl *> takeDerivedRoots();
  /// Warns of each --signature whose function this translation unit does
  /// not declare at all (a misspelt name would otherwise be ignored).
  void warnUnknownSignatures();

  /// The <cmath>/<algorithm> functions traced on host scalars.
  enum class HostMath { Sqrt, Exp, Log, Tanh, Pow, Abs, Min, Max };

  // ---- TraceFunction.cpp ------------------------------------------------
private:
  /// The values lambdas copied when they were made (their by-copy
  /// captures), by the lambda's class: their bodies read these, not the
  /// variables' later values.
  using LambdaCopies = std::map<const clang::CXXRecordDecl *,
                                std::map<const clang::ValueDecl *, int>>;
  struct FrameState {
    const clang::FunctionDecl *function;
    clang::SourceLocation callSite;
    /// How stitched code spells this frame's `this` object ("(*this)",
    /// "block", "(*this).attn", ...); empty for free functions.
    std::string thisPrefix;
    Annotations annotations;
    /// error_on_graph_break guards active in this frame, innermost last.
    std::vector<bool> guards;
    /// Values of this frame's parameters and locals (inlined frames).
    std::map<const clang::ValueDecl *, int> locals;
    /// Reference parameters of an inlined call: what each argument names
    /// and the frame that names it, so that assigning the parameter
    /// assigns the caller's variable.
    std::map<const clang::ValueDecl *, std::pair<const clang::Expr *, size_t>>
        aliases;
    /// std::vector<Tensor> locals, as the values pushed into them.
    std::map<const clang::ValueDecl *, std::vector<int>> lists;
    /// What each lambda made here copied when it was made.
    LambdaCopies lambdaCopies;
    std::optional<int> returnValue;
  };
  /// The segment being built at the root's level.
  struct SegmentState {
    Segment segment;
    UndoMap<const clang::ValueDecl *, int> env;       // root-frame variables
    std::map<std::string, int> inputsByExpr;          // spelled inputs
    UndoMap<const clang::ValueDecl *, bool> assigned; // the keys
    /// Members the segment assigns, by their spelling ("this->cache"), in
    /// the order first assigned: each is a graph output.
    std::map<std::string, int> members;
    std::vector<std::string> memberOrder;
    /// The root frame's std::vector<Tensor> locals (FrameState::lists).
    std::map<const clang::ValueDecl *, std::vector<int>> lists;
    /// Record values' fields (kRecordBase).
    std::vector<std::vector<int>> records;
    /// What each lambda the root makes copied when it was made.
    LambdaCopies lambdaCopies;
  };
  /// The segment as it was before a statement, to go back to when the
  /// statement breaks. The graph's ops and values and the segment's
  /// statements are only ever appended to (or cut back to an earlier
  /// length), so they are kept as lengths, not copied: a checkpoint per
  /// statement then costs the segment's small maps, not its ops, and a body
  /// of n statements traces in O(n) op copies instead of O(n^2).
  struct SegmentCheckpoint {
    SegmentState rest; // without values, statements, env and assigned
    BodyMark body;     // the ops
    size_t values = 0, statements = 0, env = 0, assigned = 0;
  };
  SegmentCheckpoint checkpoint();
  void restore(const SegmentCheckpoint &checkpoint);
  /// Binds (unbinds) a variable of the innermost frame: a callee's local,
  /// or at the root's level the segment's.
  void bind(const clang::ValueDecl *var, int value);
  void unbind(const clang::ValueDecl *var);

  /// The values of the std::vector<Tensor> local `e` names, or null.
  std::vector<int> *listOf(const clang::Expr *e);
  /// What decl is bound to in one kind of binding map: frame `innermost`'s
  /// and those outside it, then the segment's (root-frame variables); null
  /// when unbound. A variable belongs to one frame (recursion breaks), so
  /// the order only saves lookups.
  template <typename Map, typename SegmentMap>
  typename Map::mapped_type *
  boundIn(Map FrameState::*inFrame, SegmentMap SegmentState::*inSegment,
          const clang::ValueDecl *decl, size_t innermost) {
    for (size_t f = std::min(innermost + 1, frames_.size()); f-- > 0;)
      if (auto it = (frames_[f].*inFrame).find(decl);
          it != (frames_[f].*inFrame).end())
        return &it->second;
    if (!segment_)
      return nullptr;
    if constexpr (!std::is_same_v<Map, SegmentMap>) {
      // An UndoMap: bound values are read through this pointer, never
      // written (writes go through set, which logs them).
      return const_cast<typename Map::mapped_type *>(
          ((*segment_).*inSegment).lookup(decl));
    } else {
      auto it = ((*segment_).*inSegment).find(decl);
      return it == ((*segment_).*inSegment).end() ? nullptr : &it->second;
    }
  }
  /// std::vector<Tensor> locals of the root that code outside a graph
  /// reads: kept on the host (their declaration breaks).
  std::set<const clang::ValueDecl *> hostLists_;
  /// Those the current top-level statement declared.
  std::vector<const clang::ValueDecl *> declaredLists_;

  bool errorModeHere() const;
  /// Records a break at loc (with the current inline chain) and returns
  /// nullopt, so that tracing code can `return breakAt(...)`.
  std::nullopt_t breakAt(clang::SourceLocation loc, const std::string &reason);
  /// Inlines a call of fn with traced arguments; nullopt on a break.
  /// argExprs are the arguments as written (what a reference parameter
  /// names).
  std::optional<int>
  inlineCall(const clang::FunctionDecl *fn, const std::vector<int> &args,
             const std::vector<const clang::Expr *> &argExprs,
             const std::string &thisPrefix, clang::SourceLocation callSite);
  void noteDerivedRoot(const clang::FunctionDecl *fn);
  void noteCalleesAsRoots(const clang::FunctionDecl *fn);
  void startSegment();
  void finishSegment();
  /// Whether code outside the segment [begin, end] can observe var after
  /// the segment assigns it: reads after or before it (a loop), writes
  /// through a reference parameter, variables of static storage.
  bool isLiveOut(const clang::ValueDecl *var, clang::SourceLocation begin,
                 clang::SourceLocation end) const;
  SourcePos posOf(clang::SourceLocation loc) const;

  // ---- TraceStmt.cpp ----------------------------------------------------
  /// A root-level statement list: segments and host statements.
  void traceBlock(const clang::CompoundStmt *block);
  /// braced: the statements are a block's (false: an if's or a loop's
  /// single-statement body, which the stitched code must brace).
  void traceStatements(const std::vector<const clang::Stmt *> &body,
                       bool braced);
  /// A host statement: recurse into the blocks it holds.
  void traceHostStmt(const clang::Stmt *s);
  /// One statement into the current segment; false on a break.
  bool traceStmt(const clang::Stmt *s);
  bool traceDecl(const clang::VarDecl *var);
  /// What the lambda of this class copied when it was made, or null when
  /// host code made it.
  const std::map<const clang::ValueDecl *, int> *
  lambdaCopiesOf(const clang::CXXRecordDecl *lambda) const;
  /// A variable of the root that `lambda` copies and the root changes
  /// somewhere, or null: then the copy may differ from the variable.
  const clang::VarDecl *changedCopy(const clang::CXXRecordDecl *lambda);
  /// `auto f = [..](..) {..};`: records what the lambda copies; false
  /// (the break recorded) when the stitched code could not make it.
  bool traceLambdaDecl(const clang::VarDecl *var,
                       const clang::LambdaExpr *lambda);
  /// A local (or binding) declared with value v, in the current frame.
  void bindLocal(const clang::ValueDecl *var, int v);
  /// An if on a host value: both arms traced and each variable they assign
  /// chosen by the condition. With `rest`, the statements after an if whose
  /// then-arm returns and that has no else are its else-arm (an early
  /// return): both arms return, and the value returned is chosen too.
  bool traceIf(const clang::IfStmt *i,
               llvm::ArrayRef<const clang::Stmt *> rest = {});
  /// Whether s is an if without else whose then-arm ends in a return.
  static bool isEarlyReturn(const clang::Stmt *s);
  bool traceFor(const clang::ForStmt *f);
  bool traceAssignment(const clang::Expr *lhs, const clang::Expr *rhs,
                       clang::SourceLocation loc);
  /// Binds value v to what lhs names, as seen from frame `frame`: a local
  /// or parameter (through reference parameters to the caller's variable),
  /// or a member of an object the stitched code can name; false on a break.
  bool assignTo(const clang::Expr *lhs, int v, clang::SourceLocation loc,
                size_t frame);

  // ---- TraceExpr.cpp ----------------------------------------------------
  std::optional<int> traceExpr(const clang::Expr *e);
  /// e traced as frame `frame` sees it (what a reference parameter names).
  std::optional<int> traceInFrame(const clang::Expr *e, size_t frame);
  std::optional<int> traceConditional(const clang::ConditionalOperator *e);
  /// push_back, emplace_back, size, back, front, reserve, clear of a
  /// std::vector<Tensor> local (a list of traced values).
  std::optional<int> traceListMethod(std::vector<int> &list,
                                     const clang::CXXMethodDecl *method,
                                     const clang::CXXMemberCallExpr *call);
  /// Whether a root returns braces (`return {logits, loss};`, `return
  /// Out{a, b};`, a braced std::pair or std::tuple): their elements as
  /// written.
  static bool returnedBraces(const clang::Expr *value,
                             std::vector<const clang::Expr *> &parts);
  bool traceBracedReturn(const std::vector<const clang::Expr *> &elements);
  /// A loop the tracer cannot unroll: it stays on the host, its body traced
  /// on its own (a break marked hostLoop).
  void hostLoopAt(clang::SourceLocation loc);
  /// How stitched code at the root's level names a variable, a member or
  /// an element (`x`, `this->w1`, `(*this).attn.w`, `ns::g`,
  /// `this->layers[2]`), read in frame `frame` (a reference parameter names
  /// its argument); empty if it cannot (a temporary, a call, a local of a
  /// function other than the root, an index known only at run time).
  std::string spell(const clang::Expr *e, size_t frame);
  /// How stitched code names the object of a member call (`block`,
  /// `(*this).attn`), or empty.
  std::string spellObject(const clang::Expr *object, bool arrow);
  /// Whether the i-th parameter of fn is a non-const lvalue reference: its
  /// argument is then an alias, read only where the callee reads it.
  static bool isOutParam(const clang::FunctionDecl *fn, unsigned i);
  /// An out-parameter, or a const reference or pointer to what the graph
  /// does not model: bound to what its argument names (frame aliases),
  /// not to a traced value.
  static bool isNamedParam(const clang::FunctionDecl *fn, unsigned i);
  std::optional<int> traceDeclRef(const clang::ValueDecl *decl,
                                  const clang::Expr *e);
  std::optional<int> traceMember(const clang::MemberExpr *e);
  std::optional<int> traceCall(const clang::CallExpr *call);
  std::optional<int> traceKilnCall(const clang::FunctionDecl *fn,
                                   const clang::CallExpr *call);
  /// A kiln op called by name: `args` as a free function takes them.
  std::optional<int> traceKilnOp(const std::string &name,
                                 const std::vector<const clang::Expr *> &args,
                                 clang::SourceLocation loc);
  /// A call of a kiln:: function being traced: its name, its arguments as
  /// the free function takes them (a method's object first), where it is.
  struct KilnCall {
    const std::string &name;
    const std::vector<const clang::Expr *> &args;
    clang::SourceLocation loc;
    unsigned size() const { return static_cast<unsigned>(args.size()); }
    const clang::Expr *arg(unsigned i) const { return args[i]; }
  };
  /// What the handlers shared by several kiln:: functions compute, chosen
  /// by each function's entry in kilnCalls() (a template argument).
  enum class Fill { Zeros, Ones, Value };       // zeros, ones, full (_like)
  enum class NormGroups { Given, PerChannel };  // group_norm, instance_norm
  enum class BelowZero { Linear, Exponential }; // leaky_relu, elu
  /// bmm, addmm, baddbmm.
  enum class BatchedProduct { Plain, AddMatrix, AddBatched };
  /// How a kiln:: function is traced, and whether the Tensor method of the
  /// same name is that function on its object (x.exp(), x.sum({-1}, true)).
  static constexpr size_t kAnyArgs = ~size_t(0);
  struct KilnCallTracer {
    std::optional<int> (Tracer::*trace)(const KilnCall &);
    bool method;
    /// The arguments (defaults included) it traces: others break.
    size_t minArgs = 0, maxArgs = kAnyArgs;
  };
  /// The kiln:: functions traced as the op (or ops) they are, by name.
  static const std::map<std::string, KilnCallTracer> &kilnCalls();
  /// Argument i as a tensor (a scalar becomes a 0-d tensor).
  std::optional<int> tensorArg(const KilnCall &c, unsigned i);
  /// Tensor arguments 0 .. count-1 into ops, leaving out the one at
  /// `optional` (a bias) where the call passes the default; false when one
  /// cannot be traced (the break is recorded). weightedBias: the optional
  /// one is a weight's bias (an absent one has a stand-in).
  bool tensorArgs(const KilnCall &c, unsigned count, int optional,
                  std::vector<int> &ops, bool weightedBias = false);
  /// Argument i, which must be a compile-time constant integer.
  std::optional<int64_t> constArg(const KilnCall &c, unsigned i,
                                  const char *what);
  template <typename OpTy> std::optional<int> traceUnary(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceBinary(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceReduction(const KilnCall &c);
  template <typename OpTy>
  std::optional<int> traceArgReduction(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceSoftmax(const KilnCall &c);
  std::optional<int> traceGelu(const KilnCall &c);
  std::optional<int> traceWhere(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceNorm(const KilnCall &c);
  std::optional<int> traceAttention(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceProduct(const KilnCall &c);
  template <int SpatialDims> std::optional<int> traceConv(const KilnCall &c);
  template <mlir::kiln::RandomDistribution Distribution>
  std::optional<int> traceRandom(const KilnCall &c);
  std::optional<int> traceAdaptivePool(const KilnCall &c);
  /// False, with the break recorded, where a constant size is negative.
  bool nonNegativeSizes(const KilnCall &c, llvm::ArrayRef<int> sizes);
  template <mlir::kiln::PoolKind Kind>
  std::optional<int> tracePool(const KilnCall &c);
  std::optional<int> traceCat(const KilnCall &c);
  template <Fill With> std::optional<int> traceFull(const KilnCall &c);
  std::optional<int> traceArange(const KilnCall &c);
  /// A stride, padding, dilation or groups argument at `a`: one value for
  /// both dims or {h, w} (one: a single value), `byDefault` when left out,
  /// at least `minimum`; constants into attrs, a value known only at run
  /// time as kDynamic there and an operand in runtime. False on a break.
  bool pairArg(const KilnCall &c, unsigned a, const char *what,
               int64_t byDefault, int64_t minimum, bool one,
               llvm::SmallVectorImpl<int64_t> &attrs,
               llvm::SmallVectorImpl<mlir::Value> &runtime);
  /// Whether Tensor::NAME is an ATen-style method traced as kiln::NAME.
  static bool isAtenStyleMethod(const std::string &name);
  /// The Tensor methods that are not ATen-style (their object is argument
  /// 0 of the call): size, dim, numel; the reshapes; the dim-taking views;
  /// to(dtype).
  std::optional<int> traceSizeMethod(const KilnCall &c, int self);
  std::optional<int> traceRankMethod(const KilnCall &c, int self);
  std::optional<int> traceNumelMethod(const KilnCall &c, int self);
  std::optional<int> traceCopyMethod(const KilnCall &c, int self);
  std::optional<int> traceReshapeAsMethod(const KilnCall &c, int self);
  std::optional<int> traceExpandAsMethod(const KilnCall &c, int self);
  std::optional<int> traceReshapeMethod(const KilnCall &c, int self);
  std::optional<int> traceExpandMethod(const KilnCall &c, int self);
  std::optional<int> traceTransposeMethod(const KilnCall &c, int self);
  std::optional<int> tracePermuteMethod(const KilnCall &c, int self);
  std::optional<int> traceUnsqueezeMethod(const KilnCall &c, int self);
  std::optional<int> traceSqueezeMethod(const KilnCall &c, int self);
  std::optional<int> traceFlattenMethod(const KilnCall &c, int self);
  std::optional<int> traceSliceMethod(const KilnCall &c, int self);
  std::optional<int> traceToMethod(const KilnCall &c, int self);
  /// Argument i of a method call, a compile-time constant dim.
  std::optional<int64_t> methodConstArg(const KilnCall &c, unsigned i);
  /// A kiln reduction's dims and keepdim from a call's arguments (null:
  /// left out; no dims: all of them), which must be constants; false on a
  /// break.
  bool reductionArgs(const std::string &name, int x, const clang::Expr *dimsArg,
                     const clang::Expr *keepArg, std::vector<int64_t> &dims,
                     bool &keepdim);
  /// OpTy (a reduction) of x over dims.
  template <typename OpTy>
  int reduce(int x, llvm::ArrayRef<int64_t> dims, bool keepdim,
             clang::SourceLocation loc) {
    mlir::Builder b(val(x).getContext());
    return build<OpTy>(loc, val(x), b.getDenseI64ArrayAttr(dims),
                       keepdim ? b.getUnitAttr() : mlir::UnitAttr());
  }
  /// Marks the graph input that `mask` is (or views) as bool (where's
  /// condition, masked_fill's mask) or an index as int64 (gather's), as the
  /// runtime requires.
  void maskInput(int mask, ElementType element = ElementType::Bool);
  /// A range-for over a list of traced tensors, unrolled.
  bool traceOverList(const clang::CXXForRangeStmt *r, std::vector<int> values);
  /// Whether e calls chunk or split (kiln:: or the Tensor method).
  bool isPiecesCall(const clang::Expr *e);
  /// The pieces of such a call (views: slices along its dim), checked as
  /// eager counts them. split by a size makes `needed` pieces (its count
  /// is known only at run time; -1: a break); false after a break.
  bool tracePieces(const clang::Expr *e, int64_t needed,
                   std::vector<int> &pieces);
  /// How many pieces the code reads from list var: one past its largest
  /// constant subscript, or -1 when it is used otherwise.
  int64_t piecesRead(const clang::VarDecl *var);
  /// The tensors of a list argument of op `name` (a braced list or a
  /// traced std::vector<Tensor>); false after a break.
  bool tensorList(const std::string &name, const clang::Expr *arg,
                  clang::SourceLocation loc, std::vector<int> &ops);
  /// An optional scalar argument of op `name`: nullopt with `absent` set
  /// where the call leaves it out (std::nullopt, {}, the default, or no
  /// argument), nullopt after a break where it cannot be traced.
  std::optional<int> optionalScalar(const std::string &name,
                                    const clang::Expr *arg, bool &absent);
  /// The composites: each traced as the ops the runtime composes it of,
  /// with the helpers of Composite (TraceOps.cpp).
  struct Composite;
  std::optional<int> traceUnflatten(const KilnCall &c);
  template <NormGroups Groups>
  std::optional<int> traceGroupNorm(const KilnCall &c);
  std::optional<int> traceLinspace(const KilnCall &c);
  std::optional<int> traceEinsum(const KilnCall &c);
  std::optional<int> traceRandint(const KilnCall &c);
  std::optional<int> traceConvTranspose2d(const KilnCall &c);
  std::optional<int> traceInterpolate(const KilnCall &c);
  template <typename ReduceOp, typename ArgOp>
  std::optional<int> traceExtremum(const KilnCall &c);
  template <typename OpTy>
  std::optional<int> traceCumulative(const KilnCall &c);
  std::optional<int> traceTopk(const KilnCall &c);
  std::optional<int> traceScatterAdd(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceGather(const KilnCall &c);
  std::optional<int> traceIndexSelect(const KilnCall &c);
  std::optional<int> traceFlip(const KilnCall &c);
  std::optional<int> traceRoll(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceRepeat(const KilnCall &c);
  std::optional<int> tracePad(const KilnCall &c);
  template <BelowZero Below>
  std::optional<int> traceLeakyRelu(const KilnCall &c);
  std::optional<int> traceClamp(const KilnCall &c);
  std::optional<int> traceMaskedFill(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceTriangle(const KilnCall &c);
  std::optional<int> traceDropout(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceNarrow(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceStack(const KilnCall &c);
  template <BatchedProduct Product>
  std::optional<int> traceBmm(const KilnCall &c);
  std::optional<int> traceEye(const KilnCall &c);
  std::optional<int> traceOneHot(const KilnCall &c);
  std::optional<int> traceBatchNorm(const KilnCall &c);
  std::optional<int> traceLerp(const KilnCall &c);
  template <Fill With> std::optional<int> traceFullLike(const KilnCall &c);
  template <typename OpTy> std::optional<int> traceVariance(const KilnCall &c);
  template <typename OpTy>
  std::optional<int> traceVectorNorm(const KilnCall &c);
  std::optional<int> traceTensorMethod(const clang::CXXMethodDecl *method,
                                       const clang::CXXMemberCallExpr *call);
  std::optional<int> traceOperator(const clang::CXXOperatorCallExpr *call);
  // ---- TraceInPlace.cpp ---------------------------------------------------
  /// An in-place call (isInPlaceCall) with its arguments after the tensor:
  /// the functional op's result bound to the tensor's variable where no
  /// other binding shares its elements, else a break.
  std::optional<int> traceInPlace(const clang::Expr *call,
                                  llvm::ArrayRef<const clang::Expr *> args,
                                  clang::SourceLocation loc);
  std::optional<int> traceOpaqueCall(const clang::FunctionDecl *fn,
                                     const clang::CallExpr *call);
  std::optional<int> traceScalarBinary(const clang::BinaryOperator *op);
  std::optional<int> traceScalarMath(HostMath fn, const clang::CallExpr *call);
  /// An integer list argument ({B, T, C} or a vector of them).
  bool traceIntList(const clang::Expr *e, std::vector<int> &values);
  bool constantIntList(const clang::Expr *e, std::vector<int64_t> &values);
  std::optional<int64_t> constantInt(const clang::Expr *e);
  std::optional<double> constantFloat(const clang::Expr *e);

  // ---- TraceRecords.cpp -------------------------------------------------
  int makeRecord(std::vector<int> fields);
  const std::vector<int> &fieldsOf(int record) const {
    return segment_->records[kRecordBase - record];
  }
  /// A struct's value from its initializer: braces (`{a, b}`, `Out{a, b}`,
  /// std::make_pair), a copy, a call that returns one, or none (its
  /// defaults); nullopt on a break.
  std::optional<int> traceRecordInit(clang::QualType type,
                                     const clang::Expr *init,
                                     clang::SourceLocation loc);
  /// Whether the struct `e` names (as frame `frame` sees it) is held as a
  /// record (a local bound here, a call's result, a temporary) rather than
  /// spelled (a member, a parameter or a local of an earlier segment).
  bool holdsRecord(const clang::Expr *e, size_t frame);
  /// Field `field` of a record, read at loc (an undefined tensor breaks).
  std::optional<int> fieldOf(int record, unsigned field,
                             clang::SourceLocation loc);
  /// `o.y`, `p.first` of a held struct; nullopt without a break when the
  /// struct is spelled instead (handled).
  std::optional<int> traceRecordMember(const clang::MemberExpr *e,
                                       bool &handled);
  /// std::get<I>(t), std::make_pair and std::make_tuple on traced values;
  /// handled is false for any other call.
  std::optional<int> traceRecordCall(const clang::FunctionDecl *fn,
                                     const clang::CallExpr *call,
                                     bool &handled);
  /// `auto [a, b] = f(x);`: each binding is a value of its own.
  bool traceDecomposition(const clang::DecompositionDecl *d);
  /// The value a condition chooses between a and b (per field for
  /// records); `what` names the variable in a break's reason.
  std::optional<int> choose(int cond, int a, int b, clang::SourceLocation loc,
                            const std::string &what);

  // ---- TraceBuild.cpp: the graph's ops -----------------------------------
  /// The graph's value of traced value v.
  mlir::Value val(int v) const {
    return segment_->segment.graph.body->values[v];
  }
  llvm::SmallVector<mlir::Value> vals(llvm::ArrayRef<int> vs) const {
    llvm::SmallVector<mlir::Value> out;
    for (int v : vs)
      out.push_back(val(v));
    return out;
  }
  /// A builder at the end of the graph's body.
  mlir::OpBuilder bodyBuilder();
  /// Where an op traced at loc is: its source, under the op's name
  /// (kiln::NAME for a kiln op), which an error about it names.
  mlir::Location opLoc(clang::SourceLocation loc, llvm::StringRef opName);
  /// Numbers `value` (the result of an op just built) as a traced value of
  /// the kind its type is.
  int number(mlir::Value value);
  /// OpTy built at the end of the graph on open types (GraphBody.h's
  /// buildOpen) with its builder's arguments, its result numbered.
  template <typename OpTy, typename... Args>
  int build(clang::SourceLocation loc, Args &&...args) {
    mlir::OpBuilder b = bodyBuilder();
    return number(buildOpen<OpTy>(b, opLoc(loc, OpTy::getOperationName()),
                                  std::forward<Args>(args)...)
                      ->getResult(0));
  }
  /// OpTy of traced values (an op without attributes: add, exp, matmul).
  template <typename OpTy, typename... Values>
  int apply(clang::SourceLocation loc, Values... operands) {
    return build<OpTy>(loc, val(operands)...);
  }
  /// where(cond, a, b): cond as bool, as the runtime takes it.
  int where(int cond, int a, int b, clang::SourceLocation loc);
  /// An op (`opName`: "kiln.gelu") that cannot be built as the source calls
  /// it: the graph's error (the first, spelled as typing's, opErrorText),
  /// and a value of `kind` standing for its result, so that tracing goes on.
  int refuse(clang::SourceLocation loc, llvm::StringRef opName,
             const std::string &why, ValueKind kind = ValueKind::Tensor);
  /// Host scalar arithmetic and logic, as C++ computes it, on operands of
  /// the result's kind (a comparison: of one kind, giving a bool); on
  /// constants it folds (so that reshape sees its -1, and `if (i == 1)` in
  /// an unrolled loop takes one arm).
  int hostBinary(clang::BinaryOperatorKind op, int a, int b,
                 clang::SourceLocation loc);
  int hostNeg(int v, clang::SourceLocation loc);
  int hostNot(int v, clang::SourceLocation loc);
  int hostMath(HostMath fn, llvm::ArrayRef<int> args,
               clang::SourceLocation loc);
  /// v converted to `kind` as C++ converts it.
  int scalarCast(int v, ValueKind kind, clang::SourceLocation loc);
  /// cond ? a : b, on host scalars or tensors.
  int select(int cond, int a, int b, clang::SourceLocation loc);
  /// A check eager makes on values known only at run time: a failed one
  /// fails the graph call (its statements then rerun eagerly and throw).
  void check(int ok, const std::string &why, clang::SourceLocation loc);
  /// v as an index (a size or a seed) or an f64 (an eps, a scale).
  mlir::Value indexOf(int v, clang::SourceLocation loc);
  mlir::Value f64Of(int v, clang::SourceLocation loc);
  /// Tensor v in element type e / in the element type of `like`: a
  /// conversion that typing drops where it is a no-op.
  mlir::Value convertTo(int v, ElementType e, clang::SourceLocation loc);
  mlir::Value convertLike(int v, mlir::Value like, clang::SourceLocation loc);
  /// Tensor v cast to element type e (always a cast: a graph's results are
  /// never its inputs' buffers).
  int castTo(int v, ElementType e, clang::SourceLocation loc);
  /// Shape queries of tensor x.
  int dimOf(int x, int64_t dim, clang::SourceLocation loc);
  int rankOf(int x, clang::SourceLocation loc);
  int numelOf(int x, clang::SourceLocation loc);
  /// A shape from host integers: constants become static sizes, one -1 the
  /// size the element count of `input` leaves (reshape).
  void shapeOf(llvm::ArrayRef<int> sizes, mlir::Value input,
               clang::SourceLocation loc,
               llvm::SmallVectorImpl<int64_t> &staticSizes,
               llvm::SmallVectorImpl<mlir::Value> &dynamic);
  int reshape(int x, llvm::ArrayRef<int> sizes, clang::SourceLocation loc);
  /// x expanded to sizes (trailing dims align; -1 keeps x's size).
  int expand(int x, llvm::ArrayRef<int> sizes, clang::SourceLocation loc);
  /// A tensor of `sizes` filled with `value`, of kiln::DType `dtype`.
  int full(llvm::ArrayRef<int> sizes, int64_t dtype, double value,
           clang::SourceLocation loc);
  /// kiln::randn (normal) or kiln::rand of `sizes` from host integer seed.
  int random(int seed, llvm::ArrayRef<int> sizes, bool normal, int64_t dtype,
             clang::SourceLocation loc);
  /// int64 start, start + step, ... below end.
  int arange(int start, int end, int step, clang::SourceLocation loc);
  /// A call of a C++ function on traced tensors that the graph calls back.
  int opaqueCall(const std::string &callee, llvm::ArrayRef<int> args,
                 clang::SourceLocation loc);
  /// x[start:end:step] along dim (start and end host integers).
  int slice(int x, int64_t dim, int start, int end, int64_t step,
            clang::SourceLocation loc);
  /// The tensors `parts` joined along dim.
  int concat(llvm::ArrayRef<int> parts, int64_t dim, clang::SourceLocation loc);
  /// x's dim split into host-integer sizes.
  int unflatten(int x, int64_t dim, llvm::ArrayRef<int> sizes,
                clang::SourceLocation loc);
  /// An elementwise comparison of tensors (kiln.cmp).
  int compare(mlir::kiln::CmpPredicate predicate, int a, int b,
              clang::SourceLocation loc);
  /// An input spelled expr; decl (a member, parameter or variable) gives
  /// the rank the source shows for it.
  int addInput(const std::string &expr, ValueKind kind,
               const clang::ValueDecl *decl = nullptr);
  /// Prefers rank 1 for an input added to a matmul's or linear's result.
  void preferBiasRank(const std::vector<int> &operands);
  GraphInput *inputOf(int value);
  /// An op reads dim `dim` of value: an input must then have that rank.
  void needsDim(int value, int64_t dim);
  /// v as a tensor: scalars become 0-d tensors (kind-preserving).
  int asTensor(int value, clang::SourceLocation loc);
  int constant(double value, ValueKind kind, clang::SourceLocation loc);
  ValueKind kindOf(int value) const;
  Graph &graph() { return segment_->segment.graph; }

  clang::ASTContext &context_;
  const AnnotationIndex &annotations_;
  const FrontendOptions &options_;
  /// Shared with the graph inputs typed again from earlier graphs
  /// (GraphInput::typeFromEarlierGraphs), which typeGraphs calls after the
  /// tracer is gone.
  std::shared_ptr<const TypeEvidence> evidenceOwner_;
  const TypeEvidence &evidence_;
  /// --signature, by function name.
  std::map<std::string, StatedSignature> signatures_;
  /// The stated types of the current root's tensor parameters.
  std::map<const clang::ValueDecl *, StatedTensor> statedParams_;
  Root *root_ = nullptr;
  /// Every reference to a variable in the root's body, with its location.
  std::multimap<const clang::ValueDecl *, clang::SourceLocation> rootRefs_;
  std::vector<FrameState> frames_;
  std::optional<SegmentState> segment_;
  std::optional<GraphBreak> pendingBreak_;
  /// The statement of the root's block being traced (a return elsewhere
  /// is inside a branch or a loop).
  const clang::Stmt *topLevelStmt_ = nullptr;
  /// Inside the arms of a root's early-return if: a return sets the root
  /// frame's returnValue, which the if chooses between and returns.
  int rootReturnArms_ = 0;
  int graphCounter_ = 0;
  std::vector<const clang::FunctionDecl *> derivedRoots_;
  /// Functions being inlined (recursion is a break).
  std::set<const clang::FunctionDecl *> inlining_;
  /// Loops left on the host whose bodies are being traced, innermost last.
  std::vector<const clang::Stmt *> hostLoops_;
};

/// Whether e is a call of one of Tensor's in-place ops the tracer writes as
/// functional ops (add_, operator+=, zero_, copy_, ...).
bool isInPlaceCall(const clang::Expr *e);

/// Whether any function of context's translation unit modifies a tensor in
/// place (an in-place op, an optimizer step): then a root whose graphs hand
/// out copies where eager code hands out views runs eagerly (Compile.cpp).
bool unitWritesInPlace(clang::ASTContext &context);
/// Root::graphLocals of a traced root.
std::set<std::string> graphLocals(const Root &root);

} // namespace kiln::frontend

#endif
