//===- TraceRecords.cpp - Structs, pairs and tuples of traced values ------===//
//
// A struct of tensors and scalars that model code builds and reads
// (`Out o = block(x); o.y`, `auto [logits, loss] = model(x);`, a helper's
// `return {a, b};`, std::pair and std::tuple) is a record: the traced values
// of its fields, held like any local. Reading a field reads its value;
// assigning one makes a new record. Where code outside the graph can see
// such a local, each field is a graph output assigned to it (`o.y`,
// `std::get<1>(t)`, a binding's name). Structs the segment did not build
// (members, parameters) are spelled instead, field by field, as inputs.
//
//===----------------------------------------------------------------------===//
#include "Tracer.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"

using namespace clang;

namespace kiln::frontend {

std::string RecordModel::spellField(const std::string &object, size_t i) const {
  return tuple ? "std::get<" + std::to_string(i) + ">(" + object + ")"
               : object + "." + names[i];
}

std::optional<RecordModel> recordModelOf(QualType type) {
  type = type.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  const CXXRecordDecl *record = type->getAsCXXRecordDecl();
  if (!record || !record->hasDefinition() || isTensorRecord(record) ||
      record->isLambda() || record->isUnion())
    return std::nullopt;
  RecordModel model;
  auto add = [&](QualType field, llvm::StringRef name) {
    if (field->isReferenceType() || !valueKindOf(field))
      return false;
    model.fields.push_back(field);
    model.names.push_back(name.str());
    return true;
  };
  if (const auto *spec = dyn_cast<ClassTemplateSpecializationDecl>(record);
      spec && spec->isInStdNamespace() &&
      (spec->getName() == "pair" || spec->getName() == "tuple")) {
    const TemplateArgumentList &args = spec->getTemplateArgs();
    if (spec->getName() == "pair") {
      if (args.size() != 2 || args[0].getKind() != TemplateArgument::Type ||
          args[1].getKind() != TemplateArgument::Type ||
          !add(args[0].getAsType(), "first") ||
          !add(args[1].getAsType(), "second"))
        return std::nullopt;
      return model;
    }
    if (args.size() != 1 || args[0].getKind() != TemplateArgument::Pack)
      return std::nullopt;
    model.tuple = true;
    for (const TemplateArgument &a : args[0].pack_elements())
      if (a.getKind() != TemplateArgument::Type || !add(a.getAsType(), ""))
        return std::nullopt;
    return model.fields.empty() ? std::nullopt : std::optional(model);
  }
  if (!record->isAggregate() || record->getNumBases() != 0)
    return std::nullopt;
  model.aggregate = true;
  for (const FieldDecl *f : record->fields())
    if (f->isBitField() || f->getName().empty() ||
        !add(f->getType(), f->getName()))
      return std::nullopt;
  return model.fields.empty() ? std::nullopt : std::optional(model);
}

int Tracer::makeRecord(std::vector<int> fields) {
  segment_->records.push_back(std::move(fields));
  return kRecordBase - static_cast<int>(segment_->records.size() - 1);
}

std::optional<int> Tracer::fieldOf(int record, unsigned field,
                                   SourceLocation loc) {
  const std::vector<int> &fields = fieldsOf(record);
  if (field >= fields.size())
    return breakAt(loc, "a field the tracer does not model");
  if (fields[field] == kUndefinedTensor)
    return breakAt(loc, "a read of a tensor field that is not defined here "
                        "(its struct was made without it)");
  return fields[field];
}

std::optional<int> Tracer::traceRecordInit(QualType type, const Expr *init,
                                           SourceLocation loc) {
  std::optional<RecordModel> model = recordModelOf(type);
  if (!model)
    return breakAt(loc, "a struct of type '" + type.getAsString() +
                            "', which the tracer does not model");
  // A field's value, converted to the field's kind.
  auto fieldValue = [&](size_t i, const Expr *e) -> std::optional<int> {
    ValueKind kind = *valueKindOf(model->fields[i]);
    const Expr *plain = e ? stripTemporaries(e) : nullptr;
    if (const auto *d = dyn_cast_or_null<CXXDefaultInitExpr>(plain))
      plain = stripTemporaries(d->getExpr());
    // Omitted: a tensor is undefined, a number zero (value-initialized).
    if (!plain || isa<ImplicitValueInitExpr>(plain) ||
        (isa<CXXConstructExpr>(plain) &&
         cast<CXXConstructExpr>(plain)->getNumArgs() == 0))
      return kind == ValueKind::Tensor ? kUndefinedTensor
                                       : constant(0, kind, loc);
    std::optional<int> v = traceExpr(plain);
    if (!v)
      return v;
    if (*v < 0 && *v != kUndefinedTensor)
      return breakAt(plain->getExprLoc(), "a struct field of a type the "
                                          "tracer does not model");
    if (*v >= 0 && kind != ValueKind::Tensor && kindOf(*v) != kind)
      v = scalarCast(*v, kind, plain->getExprLoc());
    return v;
  };
  auto fromParts =
      [&](llvm::ArrayRef<const Expr *> parts) -> std::optional<int> {
    if (parts.size() > model->fields.size())
      return breakAt(loc, "a struct initializer the tracer does not model");
    std::vector<int> fields;
    for (size_t i = 0; i < model->fields.size(); ++i) {
      std::optional<int> v =
          fieldValue(i, i < parts.size() ? parts[i] : nullptr);
      if (!v)
        return v;
      fields.push_back(*v);
    }
    return makeRecord(std::move(fields));
  };
  // No initializer: each field's default member initializer, or nothing.
  auto defaults = [&]() -> std::optional<int> {
    std::vector<const Expr *> parts;
    if (model->aggregate)
      for (const FieldDecl *f :
           type.getNonReferenceType()->getAsCXXRecordDecl()->fields())
        parts.push_back(f->getInClassInitializer());
    return fromParts(parts);
  };
  if (!init)
    return defaults();
  const Expr *e = stripTemporaries(init);
  if (const auto *cast = dyn_cast<CXXFunctionalCastExpr>(e)) // Out{a, b}
    e = stripTemporaries(cast->getSubExpr());
  if (const auto *list = dyn_cast<InitListExpr>(e)) { // an aggregate
    if (list->isSyntacticForm() && list->getSemanticForm())
      list = list->getSemanticForm();
    std::vector<const Expr *> parts(list->inits().begin(), list->inits().end());
    return fromParts(parts);
  }
  if (const auto *c = dyn_cast<CXXConstructExpr>(e)) {
    if (c->getNumArgs() == 0)
      return defaults();
    // A copy or a move of a struct of this type.
    if (c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor())
      return traceExpr(c->getArg(0));
    // std::pair<Tensor, Tensor>(a, b), std::tuple{a, b, n}: one argument
    // per field, each of the field's own type.
    std::vector<const Expr *> parts(c->arguments().begin(),
                                    c->arguments().end());
    if (parts.size() != model->fields.size())
      return breakAt(loc, "a struct constructor the tracer does not model");
    for (size_t i = 0; i < parts.size(); ++i)
      if (valueKindOf(parts[i]->getType()) != valueKindOf(model->fields[i]))
        return breakAt(parts[i]->getExprLoc(),
                       "a struct field initialized from another type");
    return fromParts(parts);
  }
  std::optional<int> v = traceExpr(e);
  if (!v)
    return v;
  if (!isRecordValue(*v))
    return breakAt(loc, "a struct value the tracer does not model");
  return v;
}

bool Tracer::holdsRecord(const Expr *e, size_t frame) {
  e = stripTemporaries(e);
  if (const auto *c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1)
    return holdsRecord(c->getArg(0), frame);
  if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
    if (boundIn(&FrameState::locals, &SegmentState::env, ref->getDecl(), frame))
      return true;
    for (size_t f = std::min(frame + 1, frames_.size()); f-- > 0;)
      if (auto alias = frames_[f].aliases.find(ref->getDecl());
          alias != frames_[f].aliases.end())
        return holdsRecord(alias->second.first, alias->second.second);
    return false;
  }
  // A member or an element is spelled; a call or a temporary is traced.
  return !isa<MemberExpr, ArraySubscriptExpr, CXXThisExpr>(e) &&
         !(isa<CXXOperatorCallExpr>(e) &&
           cast<CXXOperatorCallExpr>(e)->getOperator() == OO_Subscript);
}

std::optional<int> Tracer::traceRecordMember(const MemberExpr *e,
                                             bool &handled) {
  handled = false;
  const auto *field = dyn_cast<FieldDecl>(e->getMemberDecl());
  if (!field || e->isArrow() || !recordModelOf(e->getBase()->getType()) ||
      !holdsRecord(e->getBase(), frames_.size() - 1))
    return std::nullopt;
  handled = true;
  std::optional<int> record = traceExpr(e->getBase());
  if (!record)
    return record;
  if (!isRecordValue(*record))
    return breakAt(e->getExprLoc(), "a struct value the tracer does not model");
  return fieldOf(*record, field->getFieldIndex(), e->getExprLoc());
}

std::optional<int> Tracer::traceRecordCall(const FunctionDecl *fn,
                                           const CallExpr *call,
                                           bool &handled) {
  handled = false;
  if (!fn->isInStdNamespace())
    return std::nullopt;
  llvm::StringRef name = fn->getName();
  if (name == "make_pair" || name == "make_tuple") {
    std::optional<RecordModel> model = recordModelOf(call->getType());
    if (!model || model->fields.size() != call->getNumArgs())
      return std::nullopt;
    handled = true;
    std::vector<int> fields;
    for (const Expr *arg : call->arguments()) {
      std::optional<int> v = traceExpr(arg);
      if (!v)
        return v;
      if (*v < 0)
        return breakAt(arg->getExprLoc(), "a struct field of a type the "
                                          "tracer does not model");
      fields.push_back(*v);
    }
    return makeRecord(std::move(fields));
  }
  // std::get<I>(t) of a held pair or tuple.
  const TemplateArgumentList *targs = fn->getTemplateSpecializationArgs();
  if (name != "get" || call->getNumArgs() != 1 || !targs || targs->size() < 1 ||
      targs->get(0).getKind() != TemplateArgument::Integral)
    return std::nullopt;
  const Expr *object = call->getArg(0);
  if (!recordModelOf(object->getType()) ||
      !holdsRecord(object, frames_.size() - 1))
    return std::nullopt;
  handled = true;
  std::optional<int> record = traceExpr(object);
  if (!record)
    return record;
  if (!isRecordValue(*record))
    return breakAt(call->getExprLoc(),
                   "a struct value the tracer does not model");
  return fieldOf(
      *record,
      static_cast<unsigned>(targs->get(0).getAsIntegral().getZExtValue()),
      call->getExprLoc());
}

bool Tracer::traceDecomposition(const DecompositionDecl *d) {
  std::optional<RecordModel> model = recordModelOf(d->getType());
  if (!model || d->bindings().size() != model->fields.size()) {
    breakAt(d->getLocation(), "structured bindings of a type the tracer does "
                              "not model");
    return false;
  }
  std::optional<int> record =
      traceRecordInit(d->getType(), d->getInit(), d->getLocation());
  if (!record)
    return false;
  for (size_t i = 0; i < d->bindings().size(); ++i)
    bindLocal(d->bindings()[i], fieldsOf(*record)[i]);
  return true;
}

std::optional<int> Tracer::choose(int cond, int a, int b, SourceLocation loc,
                                  const std::string &what) {
  if (a == b)
    return a;
  if (isRecordValue(a) != isRecordValue(b) ||
      (isRecordValue(a) && fieldsOf(a).size() != fieldsOf(b).size()))
    return breakAt(loc,
                   "a branch whose arms give " + what + " different kinds");
  if (isRecordValue(a)) {
    std::vector<int> fields;
    for (size_t i = 0; i < fieldsOf(a).size(); ++i) {
      std::optional<int> v =
          choose(cond, fieldsOf(a)[i], fieldsOf(b)[i], loc, what);
      if (!v)
        return v;
      fields.push_back(*v);
    }
    return makeRecord(std::move(fields));
  }
  if (a == kUndefinedTensor || b == kUndefinedTensor)
    return breakAt(loc, "a branch that defines " + what + " in one arm only");
  if (kindOf(a) != kindOf(b))
    return breakAt(loc,
                   "a branch whose arms give " + what + " different kinds");
  return select(cond, a, b, loc);
}

} // namespace kiln::frontend
