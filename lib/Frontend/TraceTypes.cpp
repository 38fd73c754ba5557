//===- TraceTypes.cpp - C++ types to traced value kinds -------------------===//
#include "Tracer.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Type.h"

using namespace clang;

namespace kiln::frontend {

namespace {
/// The record named kiln::NAME that type is (through references and
/// qualifiers), if it is one.
bool isKilnRecordDecl(const CXXRecordDecl *record, llvm::StringRef name) {
  if (!record || record->getName() != name)
    return false;
  const auto *ns = dyn_cast<NamespaceDecl>(record->getDeclContext());
  return ns && ns->getName() == "kiln" &&
         isa<TranslationUnitDecl>(ns->getDeclContext());
}

bool isKilnRecord(QualType type, llvm::StringRef name) {
  type = type.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  return isKilnRecordDecl(type->getAsCXXRecordDecl(), name);
}
} // namespace

bool isTensorRecord(const CXXRecordDecl *record) {
  return isKilnRecordDecl(record, "Tensor");
}

bool isTensorType(QualType type) { return isKilnRecord(type, "Tensor"); }

bool isTensorVectorType(QualType type) {
  const auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      type.getNonReferenceType()->getAsCXXRecordDecl());
  if (!spec || spec->getName() != "vector" || !spec->isInStdNamespace() ||
      spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  return isTensorType(spec->getTemplateArgs()[0].getAsType());
}

bool isErrorGuardType(QualType type) {
  return isKilnRecord(type, "error_on_graph_break");
}

std::optional<ValueKind> valueKindOf(QualType type) {
  if (isTensorType(type))
    return ValueKind::Tensor;
  QualType t =
      type.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (t->isBooleanType())
    return ValueKind::Bool;
  if (t->isIntegerType() && !t->isEnumeralType())
    return ValueKind::I64;
  if (t->isSpecificBuiltinType(BuiltinType::Float))
    return ValueKind::F32;
  if (t->isSpecificBuiltinType(BuiltinType::Double))
    return ValueKind::F64;
  return std::nullopt;
}

} // namespace kiln::frontend
