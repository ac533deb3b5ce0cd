// The reader shim: parses an LLVM module (.ll or .bc; on LLVM 14 retrying
// with opaque pointers), verifies it, and serialises every debug-metadata node, the `!dbg` of every
// instruction and the llvm.dbg.* intrinsics into one flat little-endian buffer (the wire format
// decoded by src/wire.rs). The same buffer crosses the pipe from the containment child, so the C++
// side never hands a pointer to Rust.
//
// build.rs compiles it once per installed LLVM (14 and newer); `#if LLVM_VERSION_MAJOR` marks
// where their APIs differ. What a newer LLVM adds is sent only when present, so an LLVM 14 module
// gives the same buffer whichever LLVM wrote the shim.
//
// dwarv_llvm_split also strips the parsed module of its debug info and hands its code on: to the
// SPIR-V writer (spirv_writer.cpp) when one is given, else as bitcode.
#include "llvm/ADT/DenseMap.h"
#include "llvm/AsmParser/LLParser.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Config/llvm-config.h"

#include <cstdint>
#include <cstdlib>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <sys/wait.h>
#include <unistd.h>
#include <string>
#include <vector>

using namespace llvm;

// A SPIR-V writer (spirv_writer.cpp, linked to the translator's library): translates `module`
// with the options in `options` (`key=value` lines), 0 and the words in *out, or a status and
// the translator's message.
typedef int (*SpirvWriter)(void *module, const char *options, const char **out, size_t *out_len,
                           void **handle);
// Receives one part of a split's output as it is ready (see dwarv_llvm_split).
typedef void (*Emit)(void *ctx, int status, const char *data, size_t len);

namespace {

// Field keys and node kinds travel by name (listed in the buffer's header), so the Rust side maps
// them by name and an addition here never shifts the meaning of another.
#define KEYS(X)                                                                                   \
  X(language) X(file) X(producer) X(isOptimized) X(flags) X(runtimeVersion)                       \
  X(splitDebugFilename) X(emissionKind) X(enums) X(retainedTypes) X(globals) X(imports)           \
  X(macros) X(dwoId) X(splitDebugInlining) X(debugInfoForProfiling) X(nameTableKind)              \
  X(rangesBaseAddress) X(sysroot) X(sdk) X(filename) X(directory) X(checksumkind) X(checksum)     \
  X(source) X(name) X(size) X(align) X(encoding) X(stringLength) X(stringLengthExpression)        \
  X(stringLocationExpression) X(line) X(scope) X(baseType) X(offset) X(extraData)                 \
  X(dwarfAddressSpace) X(annotations) X(elements) X(runtimeLang) X(vtableHolder)                 \
  X(templateParams) X(identifier) X(discriminator) X(dataLocation) X(associated) X(allocated)     \
  X(rank) X(cc) X(types) X(count) X(lowerBound) X(upperBound) X(stride) X(value) X(isUnsigned)   \
  X(type) X(defaulted) X(linkageName) X(scopeLine) X(containingType) X(unit) X(virtuality)       \
  X(virtualIndex) X(thisAdjustment) X(spFlags) X(declaration) X(retainedNodes) X(thrownTypes)    \
  X(column) X(exportSymbols) X(configMacros) X(includePath) X(apinotes) X(isDecl) X(arg)        \
  X(isLocal) X(isDefinition) X(var) X(expr) X(entity) X(macinfoType) X(nodes) X(getter)          \
  X(setter) X(attributes) X(inlinedAt) X(isImplicitCode) X(args) X(header) X(operands)           \
  X(intValue) X(defInst) X(argNo) X(allocaNo) X(targetFuncName) X(ptrAuthKey)                   \
  X(ptrAuthIsAddressDiscriminated) X(ptrAuthExtraDiscriminator) X(ptrAuthIsaPointer)            \
  X(ptrAuthAuthenticatesNullValues)

#define KINDS(X)                                                                                  \
  X(DICompileUnit) X(DIFile) X(DIBasicType) X(DIStringType) X(DIDerivedType) X(DICompositeType)   \
  X(DISubroutineType) X(DISubrange) X(DIGenericSubrange) X(DIEnumerator)                          \
  X(DITemplateTypeParameter) X(DITemplateValueParameter) X(DISubprogram) X(DILexicalBlock)        \
  X(DILexicalBlockFile) X(DINamespace) X(DIModule) X(DICommonBlock) X(DILocalVariable)            \
  X(DIGlobalVariable) X(DIGlobalVariableExpression) X(DIExpression) X(DILabel)                    \
  X(DIImportedEntity) X(DIMacro) X(DIMacroFile) X(DIObjCProperty) X(DILocation) X(DIArgList)      \
  X(GenericDINode) X(MDTuple) X(MDString) X(Value) X(Other) X(DIAssignID)

#define ENUM(n) K_##n,
enum Key : uint8_t { KEYS(ENUM) KEY_COUNT };
#undef ENUM
#define ENUM(n) N_##n,
enum Kind : uint8_t { KINDS(ENUM) KIND_COUNT };
#undef ENUM
#define NAME(n) #n,
const char *const KEY_NAMES[] = {KEYS(NAME)};
const char *const KIND_NAMES[] = {KINDS(NAME)};
#undef NAME

enum FieldType : uint8_t { F_INT = 0, F_STR = 1, F_REF = 2, F_REFS = 3, F_OPS = 4 };

struct Out {
  std::string b;
  void u8(uint8_t v) { b.push_back(char(v)); }
  void u16(uint16_t v) { b.append(reinterpret_cast<const char *>(&v), 2); }
  void u32(uint32_t v) { b.append(reinterpret_cast<const char *>(&v), 4); }
  void u64(uint64_t v) { b.append(reinterpret_cast<const char *>(&v), 8); }
  void str(StringRef s) {
    u32(uint32_t(s.size()));
    b.append(s.data(), s.size());
  }
  size_t mark() {
    size_t at = b.size();
    u32(0);
    return at;
  }
  void patch(size_t at, uint32_t v) { memcpy(&b[at], &v, 4); }
};

// Node numbering: 0 is "no node", real nodes count from 1 in discovery order; the worklist keeps
// discovery order so records come out numbered.
struct Walker {
  Out &o;
  DenseMap<const Metadata *, uint32_t> ids;
  // The number of each instruction of the function being walked, for `defInst` of values.
  DenseMap<const Value *, uint32_t> inst_of;
  // The ordinal of each alloca of that function (llvm-spirv makes them its OpVariables, in order).
  DenseMap<const Value *, uint32_t> alloca_of;
  // The slot (`%N`) of each unnamed argument, block and instruction of that function, numbered
  // as LLVM's slot tracker does (arguments, then each block and its non-void instructions).
  // LLVM's tracker would also number every metadata node of every function in one map that
  // grows with the module: a fifth of the shim's time on a large module, for nothing printed.
  DenseMap<const Value *, uint32_t> slot_of;
  std::deque<const Metadata *> work;
  uint32_t nfields = 0;
  size_t nfields_at = 0;

  explicit Walker(Out &o) : o(o) {}

  uint32_t id(const Metadata *m) {
    if (!m)
      return 0;
    auto it = ids.find(m);
    if (it != ids.end())
      return it->second;
    uint32_t n = uint32_t(ids.size()) + 1;
    ids[m] = n;
    work.push_back(m);
    return n;
  }

  void begin(Kind k, bool distinct, unsigned tag) {
    o.u8(k);
    o.u8(distinct);
    o.u16(uint16_t(tag));
    nfields_at = o.mark();
    nfields = 0;
  }
  void end() { o.patch(nfields_at, nfields); }
  void i(Key k, int64_t v) {
    o.u8(k), o.u8(F_INT), o.u64(uint64_t(v));
    nfields++;
  }
  void s(Key k, StringRef v) {
    o.u8(k), o.u8(F_STR), o.str(v);
    nfields++;
  }
  // Absent optional strings are left out, as LLVM's printer leaves them out.
  void so(Key k, const MDString *v) {
    if (v)
      s(k, v->getString());
  }
  void r(Key k, const Metadata *m) {
    if (!m)
      return;
    uint32_t n = id(m);
    o.u8(k), o.u8(F_REF), o.u32(n);
    nfields++;
  }
  template <typename Range> void rs(Key k, const Range &ops) {
    std::vector<uint32_t> v;
    for (const auto &m : ops)
      v.push_back(id(m));
    o.u8(k), o.u8(F_REFS), o.u32(uint32_t(v.size()));
    for (uint32_t n : v)
      o.u32(n);
    nfields++;
  }
  void ops(Key k, ArrayRef<uint64_t> e) {
    o.u8(k), o.u8(F_OPS), o.u32(uint32_t(e.size()));
    for (uint64_t v : e)
      o.u64(v);
    nfields++;
  }

  void type_common(const DIType *t) {
    s(K_name, t->getName());
    r(K_file, t->getRawFile());
    i(K_line, t->getLine());
    r(K_scope, t->getRawScope());
    i(K_size, int64_t(t->getSizeInBits()));
    i(K_align, t->getAlignInBits());
    i(K_offset, int64_t(t->getOffsetInBits()));
    i(K_flags, t->getFlags());
  }

  void value(const ValueAsMetadata *v, ModuleSlotTracker *mst) {
    begin(N_Value, false, 0);
    std::string text;
    raw_string_ostream os(text);
    const Value *x = v->getValue();
    auto slot = slot_of.find(x);
    if (slot != slot_of.end() && plain(x->getType())) {
      x->getType()->print(os, /*IsForDebug=*/false, /*NoDetails=*/true);
      os << " %" << slot->second;
    } else if (mst)
      x->printAsOperand(os, true, *mst);
    else
      x->printAsOperand(os, true);
    s(K_value, os.str());
    if (auto *ci = dyn_cast<ConstantInt>(v->getValue()))
      if (ci->getBitWidth() <= 64)
        i(K_intValue, ci->getSExtValue());
    // Where a local value comes from, so that a consumer can find it without a name.
    auto found = inst_of.find(v->getValue());
    if (found != inst_of.end())
      i(K_defInst, found->second);
    if (auto *a = dyn_cast<Argument>(v->getValue()))
      i(K_argNo, a->getArgNo());
    auto al = alloca_of.find(v->getValue());
    if (al != alloca_of.end())
      i(K_allocaNo, al->second);
    end();
  }

  // Whether the type prints the same without its module: it names no unnamed identified struct
  // (which only the module's numbering names).
  static bool plain(Type *t) {
    if (auto *st = dyn_cast<StructType>(t)) {
      if (!st->isLiteral())
        return st->hasName();
    }
    for (Type *c : t->subtypes())
      if (!plain(c))
        return false;
    return true;
  }

  void node(const Metadata *m, ModuleSlotTracker *mst) {
    if (auto *v = dyn_cast<ValueAsMetadata>(m))
      return value(v, mst);
    if (auto *st = dyn_cast<MDString>(m)) {
      begin(N_MDString, false, 0);
      s(K_value, st->getString());
      return end();
    }
    if (auto *al = dyn_cast<DIArgList>(m)) {
      begin(N_DIArgList, false, 0);
      std::vector<const Metadata *> a(al->getArgs().begin(), al->getArgs().end());
      rs(K_args, a);
      return end();
    }
    auto *n = dyn_cast<MDNode>(m);
    if (!n) {
      begin(N_Other, false, 0);
      return end();
    }
    bool d = n->isDistinct();
    if (auto *x = dyn_cast<DICompileUnit>(n)) {
      begin(N_DICompileUnit, d, x->getTag());
      i(K_language, x->getSourceLanguage());
      r(K_file, x->getRawFile());
      s(K_producer, x->getProducer());
      i(K_isOptimized, x->isOptimized());
      s(K_flags, x->getFlags());
      i(K_runtimeVersion, x->getRuntimeVersion());
      s(K_splitDebugFilename, x->getSplitDebugFilename());
      i(K_emissionKind, x->getEmissionKind());
      r(K_enums, x->getRawEnumTypes());
      r(K_retainedTypes, x->getRawRetainedTypes());
      r(K_globals, x->getRawGlobalVariables());
      r(K_imports, x->getRawImportedEntities());
      r(K_macros, x->getRawMacros());
      i(K_dwoId, int64_t(x->getDWOId()));
      i(K_splitDebugInlining, x->getSplitDebugInlining());
      i(K_debugInfoForProfiling, x->getDebugInfoForProfiling());
      i(K_nameTableKind, int64_t(x->getNameTableKind()));
      i(K_rangesBaseAddress, x->getRangesBaseAddress());
      s(K_sysroot, x->getSysRoot());
      s(K_sdk, x->getSDK());
    } else if (auto *x = dyn_cast<DIFile>(n)) {
      begin(N_DIFile, d, x->getTag());
      s(K_filename, x->getFilename());
      s(K_directory, x->getDirectory());
      if (auto cs = x->getRawChecksum()) {
        i(K_checksumkind, cs->Kind);
        s(K_checksum, cs->Value->getString());
      }
#if LLVM_VERSION_MAJOR >= 16
      if (auto *src = x->getRawSource())
        s(K_source, src->getString());
#else
      if (auto src = x->getRawSource())
        s(K_source, (*src)->getString());
#endif
    } else if (auto *x = dyn_cast<DIBasicType>(n)) {
      begin(N_DIBasicType, d, x->getTag());
      type_common(x);
      i(K_encoding, x->getEncoding());
    } else if (auto *x = dyn_cast<DIStringType>(n)) {
      begin(N_DIStringType, d, x->getTag());
      type_common(x);
      r(K_stringLength, x->getRawStringLength());
      r(K_stringLengthExpression, x->getRawStringLengthExp());
      r(K_stringLocationExpression, x->getRawStringLocationExp());
      i(K_encoding, x->getEncoding());
    } else if (auto *x = dyn_cast<DIDerivedType>(n)) {
      begin(N_DIDerivedType, d, x->getTag());
      type_common(x);
      r(K_baseType, x->getRawBaseType());
      r(K_extraData, x->getRawExtraData());
      if (auto as = x->getDWARFAddressSpace())
        i(K_dwarfAddressSpace, *as);
      r(K_annotations, x->getRawAnnotations());
#if LLVM_VERSION_MAJOR >= 19
      if (auto pa = x->getPtrAuthData()) {
        i(K_ptrAuthKey, pa->key());
        i(K_ptrAuthIsAddressDiscriminated, pa->isAddressDiscriminated());
        i(K_ptrAuthExtraDiscriminator, pa->extraDiscriminator());
        i(K_ptrAuthIsaPointer, pa->isaPointer());
        i(K_ptrAuthAuthenticatesNullValues, pa->authenticatesNullValues());
      }
#endif
    } else if (auto *x = dyn_cast<DICompositeType>(n)) {
      begin(N_DICompositeType, d, x->getTag());
      type_common(x);
      r(K_baseType, x->getRawBaseType());
      r(K_elements, x->getRawElements());
      i(K_runtimeLang, x->getRuntimeLang());
      r(K_vtableHolder, x->getRawVTableHolder());
      r(K_templateParams, x->getRawTemplateParams());
      so(K_identifier, x->getRawIdentifier());
      r(K_discriminator, x->getRawDiscriminator());
      r(K_dataLocation, x->getRawDataLocation());
      r(K_associated, x->getRawAssociated());
      r(K_allocated, x->getRawAllocated());
      r(K_rank, x->getRawRank());
      r(K_annotations, x->getRawAnnotations());
    } else if (auto *x = dyn_cast<DISubroutineType>(n)) {
      begin(N_DISubroutineType, d, x->getTag());
      i(K_flags, x->getFlags());
      i(K_cc, x->getCC());
      r(K_types, x->getRawTypeArray());
    } else if (auto *x = dyn_cast<DISubrange>(n)) {
      begin(N_DISubrange, d, x->getTag());
      r(K_count, x->getRawCountNode());
      r(K_lowerBound, x->getRawLowerBound());
      r(K_upperBound, x->getRawUpperBound());
      r(K_stride, x->getRawStride());
    } else if (auto *x = dyn_cast<DIGenericSubrange>(n)) {
      begin(N_DIGenericSubrange, d, x->getTag());
      r(K_count, x->getRawCountNode());
      r(K_lowerBound, x->getRawLowerBound());
      r(K_upperBound, x->getRawUpperBound());
      r(K_stride, x->getRawStride());
    } else if (auto *x = dyn_cast<DIEnumerator>(n)) {
      begin(N_DIEnumerator, d, x->getTag());
      s(K_name, x->getName());
      const APInt &v = x->getValue();
      i(K_value, v.getBitWidth() <= 64 ? (x->isUnsigned() ? int64_t(v.getZExtValue())
                                                          : v.getSExtValue())
                                       : int64_t(v.trunc(64).getZExtValue()));
      i(K_isUnsigned, x->isUnsigned());
    } else if (auto *x = dyn_cast<DITemplateTypeParameter>(n)) {
      begin(N_DITemplateTypeParameter, d, x->getTag());
      s(K_name, x->getName());
      r(K_type, x->getRawType());
      i(K_defaulted, x->isDefault());
    } else if (auto *x = dyn_cast<DITemplateValueParameter>(n)) {
      begin(N_DITemplateValueParameter, d, x->getTag());
      s(K_name, x->getName());
      r(K_type, x->getRawType());
      r(K_value, x->getValue());
      i(K_defaulted, x->isDefault());
    } else if (auto *x = dyn_cast<DISubprogram>(n)) {
      begin(N_DISubprogram, d, x->getTag());
      r(K_scope, x->getRawScope());
      s(K_name, x->getName());
      s(K_linkageName, x->getLinkageName());
      r(K_file, x->getRawFile());
      i(K_line, x->getLine());
      r(K_type, x->getRawType());
      i(K_scopeLine, x->getScopeLine());
      r(K_containingType, x->getRawContainingType());
      r(K_unit, x->getRawUnit());
      i(K_virtuality, x->getVirtuality());
      i(K_virtualIndex, x->getVirtualIndex());
      i(K_thisAdjustment, x->getThisAdjustment());
      i(K_flags, x->getFlags());
      i(K_spFlags, x->getSPFlags());
      r(K_templateParams, x->getRawTemplateParams());
      r(K_declaration, x->getRawDeclaration());
      r(K_retainedNodes, x->getRawRetainedNodes());
      r(K_thrownTypes, x->getRawThrownTypes());
      r(K_annotations, x->getRawAnnotations());
#if LLVM_VERSION_MAJOR >= 15
      if (!x->getTargetFuncName().empty())
        s(K_targetFuncName, x->getTargetFuncName());
#endif
    } else if (auto *x = dyn_cast<DILexicalBlock>(n)) {
      begin(N_DILexicalBlock, d, x->getTag());
      r(K_scope, x->getRawScope());
      r(K_file, x->getRawFile());
      i(K_line, x->getLine());
      i(K_column, x->getColumn());
    } else if (auto *x = dyn_cast<DILexicalBlockFile>(n)) {
      begin(N_DILexicalBlockFile, d, x->getTag());
      r(K_scope, x->getRawScope());
      r(K_file, x->getRawFile());
      i(K_discriminator, x->getDiscriminator());
    } else if (auto *x = dyn_cast<DINamespace>(n)) {
      begin(N_DINamespace, d, x->getTag());
      r(K_scope, x->getRawScope());
      s(K_name, x->getName());
      i(K_exportSymbols, x->getExportSymbols());
    } else if (auto *x = dyn_cast<DIModule>(n)) {
      begin(N_DIModule, d, x->getTag());
      r(K_scope, x->getRawScope());
      s(K_name, x->getName());
      s(K_configMacros, x->getConfigurationMacros());
      s(K_includePath, x->getIncludePath());
      s(K_apinotes, x->getAPINotesFile());
      r(K_file, x->getRawFile());
      i(K_line, x->getLineNo());
      i(K_isDecl, x->getIsDecl());
    } else if (auto *x = dyn_cast<DICommonBlock>(n)) {
      begin(N_DICommonBlock, d, x->getTag());
      r(K_scope, x->getRawScope());
      r(K_declaration, x->getRawDecl());
      s(K_name, x->getName());
      r(K_file, x->getRawFile());
      i(K_line, x->getLineNo());
    } else if (auto *x = dyn_cast<DILocalVariable>(n)) {
      begin(N_DILocalVariable, d, x->getTag());
      s(K_name, x->getName());
      r(K_scope, x->getRawScope());
      r(K_file, x->getRawFile());
      i(K_line, x->getLine());
      r(K_type, x->getRawType());
      i(K_arg, x->getArg());
      i(K_flags, x->getFlags());
      i(K_align, x->getAlignInBits());
      r(K_annotations, x->getRawAnnotations());
    } else if (auto *x = dyn_cast<DIGlobalVariable>(n)) {
      begin(N_DIGlobalVariable, d, x->getTag());
      s(K_name, x->getName());
      s(K_linkageName, x->getLinkageName());
      r(K_scope, x->getRawScope());
      r(K_file, x->getRawFile());
      i(K_line, x->getLine());
      r(K_type, x->getRawType());
      i(K_isLocal, x->isLocalToUnit());
      i(K_isDefinition, x->isDefinition());
      r(K_declaration, x->getRawStaticDataMemberDeclaration());
      r(K_templateParams, x->getRawTemplateParams());
      i(K_align, x->getAlignInBits());
      r(K_annotations, x->getRawAnnotations());
    } else if (auto *x = dyn_cast<DIGlobalVariableExpression>(n)) {
      begin(N_DIGlobalVariableExpression, d, 0);
      r(K_var, x->getRawVariable());
      r(K_expr, x->getRawExpression());
    } else if (auto *x = dyn_cast<DIExpression>(n)) {
      begin(N_DIExpression, d, 0);
      ops(K_elements, x->getElements());
    } else if (auto *x = dyn_cast<DILabel>(n)) {
      begin(N_DILabel, d, x->getTag());
      r(K_scope, x->getRawScope());
      s(K_name, x->getName());
      r(K_file, x->getRawFile());
      i(K_line, x->getLine());
    } else if (auto *x = dyn_cast<DIImportedEntity>(n)) {
      begin(N_DIImportedEntity, d, x->getTag());
      r(K_scope, x->getRawScope());
      r(K_entity, x->getRawEntity());
      s(K_name, x->getName());
      r(K_file, x->getRawFile());
      i(K_line, x->getLine());
      r(K_elements, x->getRawElements());
    } else if (auto *x = dyn_cast<DIMacro>(n)) {
      begin(N_DIMacro, d, 0);
      i(K_macinfoType, x->getMacinfoType());
      i(K_line, x->getLine());
      s(K_name, x->getName());
      s(K_value, x->getValue());
    } else if (auto *x = dyn_cast<DIMacroFile>(n)) {
      begin(N_DIMacroFile, d, 0);
      i(K_macinfoType, x->getMacinfoType());
      i(K_line, x->getLine());
      r(K_file, x->getRawFile());
      r(K_nodes, x->getRawElements());
    } else if (auto *x = dyn_cast<DIObjCProperty>(n)) {
      begin(N_DIObjCProperty, d, x->getTag());
      s(K_name, x->getName());
      r(K_file, x->getRawFile());
      i(K_line, x->getLine());
      s(K_getter, x->getGetterName());
      s(K_setter, x->getSetterName());
      i(K_attributes, x->getAttributes());
      r(K_type, x->getRawType());
    } else if (auto *x = dyn_cast<DILocation>(n)) {
      begin(N_DILocation, d, 0);
      i(K_line, x->getLine());
      i(K_column, x->getColumn());
      r(K_scope, x->getRawScope());
      r(K_inlinedAt, x->getRawInlinedAt());
      i(K_isImplicitCode, x->isImplicitCode());
#if LLVM_VERSION_MAJOR >= 16
    } else if (isa<DIAssignID>(n)) {
      // Assignment tracking's link between a store and its dbg.assign: identity only.
      begin(N_DIAssignID, d, 0);
#endif
    } else if (auto *x = dyn_cast<GenericDINode>(n)) {
      begin(N_GenericDINode, d, x->getTag());
      s(K_header, x->getHeader());
      std::vector<const Metadata *> v(x->dwarf_op_begin(), x->dwarf_op_end());
      rs(K_operands, v);
    } else {
      // Any other MDNode (tuples of lists, llvm.module.flags rows): its operands.
      begin(N_MDTuple, d, 0);
      std::vector<const Metadata *> v(n->op_begin(), n->op_end());
      rs(K_elements, v);
    }
    end();
  }

};

struct Diags {
  std::string text;
  bool bad_debug_info = false;
};

void on_diag(const DiagnosticInfo &di, void *ctx) {
  auto *d = static_cast<Diags *>(ctx);
  std::string msg;
  raw_string_ostream os(msg);
  DiagnosticPrinterRawOStream dp(os);
  di.print(dp);
  os.flush();
  if (di.getKind() == DK_DebugMetadataInvalid || StringRef(msg).contains("invalid debug info"))
    d->bad_debug_info = true;
  if (di.getSeverity() <= DS_Warning)
    d->text += msg + "\n";
}

#if LLVM_VERSION_MAJOR >= 18
// LLVM 18 hands the diagnostic by pointer.
void on_diag_ptr(const DiagnosticInfo *di, void *ctx) { on_diag(*di, ctx); }
#define ON_DIAG on_diag_ptr
#else
#define ON_DIAG on_diag
#endif

// Text is parsed without LLVM's debug-info upgrade, which would silently strip metadata the
// verifier rejects: our own verifier run then names the problem. Bitcode always gets the
// upgrade; its "ignoring invalid debug info" warning is turned into an error by on_diag.
// `verified`: the bitcode reader's debug-info upgrade already ran LLVM's verifier on the module
// (it does when the module's Debug Info Version is the reader's own, and aborts on a broken
// module): a second run would cost as much again (a quarter of `opt -disable-output`'s time).
std::unique_ptr<Module> parse(const char *data, size_t len, const char *name, LLVMContext &ctx,
                              std::string &err, bool &verified) {
  SMDiagnostic sm;
  std::unique_ptr<Module> m;
  verified = false;
  auto bytes = reinterpret_cast<const unsigned char *>(data);
  if (isBitcode(bytes, bytes + len)) {
    auto buf = MemoryBuffer::getMemBuffer(StringRef(data, len), name, false);
    auto r = parseBitcodeFile(buf->getMemBufferRef(), ctx);
    if (r) {
      m = std::move(*r);
      verified = getDebugMetadataVersionFromModule(*m) == DEBUG_METADATA_VERSION;
    } else {
      raw_string_ostream os(err);
      os << toString(r.takeError()) << "\n";
      return nullptr;
    }
  } else {
    SourceMgr srcs;
    srcs.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(StringRef(data, len), name), SMLoc());
    m = std::make_unique<Module>(name, ctx);
    StringRef text = srcs.getMemoryBuffer(1)->getBuffer();
    if (LLParser(text, srcs, sm, m.get(), nullptr, ctx).Run(/*UpgradeDebugInfo=*/false))
      m.reset();
  }
  if (!m) {
    raw_string_ostream os(err);
    sm.print(nullptr, os, false);
  }
  return m;
}

const char *intrinsic_kind(Intrinsic::ID id) {
  switch (id) {
  case Intrinsic::dbg_declare:
    return "declare";
  case Intrinsic::dbg_value:
    return "value";
#if LLVM_VERSION_MAJOR < 17
  case Intrinsic::dbg_addr:
    return "addr";
#endif
#if LLVM_VERSION_MAJOR >= 16
  case Intrinsic::dbg_assign:
    return "assign";
#endif
  case Intrinsic::dbg_label:
    return "label";
  default:
    return nullptr;
  }
}

// How many debug records (LLVM 19+) stand before `in`.
uint32_t records_before(const Instruction &in) {
#if LLVM_VERSION_MAJOR >= 19
  auto r = in.getDbgRecordRange();
  return uint32_t(std::distance(r.begin(), r.end()));
#else
  (void)in;
  return 0;
#endif
}

void serialise(Module &m, Out &o, bool opaque, const std::string &warnings) {
  Walker w(o);
  o.b.append("DWVLLVM2", 8); // the wire layout's version (llvm-bridge/src/wire.rs)
  o.u32(KEY_COUNT);
  for (auto *k : KEY_NAMES)
    o.str(k);
  o.u32(KIND_COUNT);
  for (auto *k : KIND_NAMES)
    o.str(k);
  o.str(m.getTargetTriple());
  o.str(m.getSourceFileName());
  o.u8(opaque);

  // The records of the node table are interleaved with the module tables below: a node record
  // is written as soon as it is discovered, tagged 0xFF, so that one pass suffices.
  auto flush = [&](ModuleSlotTracker *mst) {
    while (!w.work.empty()) {
      o.u8(0xFF);
      const Metadata *md = w.work.front();
      w.work.pop_front();
      w.node(md, mst);
    }
  };

  if (auto *cus = m.getNamedMetadata("llvm.dbg.cu")) {
    std::vector<const Metadata *> v(cus->op_begin(), cus->op_end());
    std::vector<uint32_t> ids;
    for (auto *x : v)
      ids.push_back(w.id(x));
    flush(nullptr);
    o.u8(1);
    o.u32(uint32_t(ids.size()));
    for (uint32_t n : ids)
      o.u32(n);
  }
  // Module flags (Dwarf Version, Debug Info Version) as plain tuples.
  if (auto *fl = m.getNamedMetadata("llvm.module.flags")) {
    std::vector<uint32_t> ids;
    for (auto *x : fl->operands())
      ids.push_back(w.id(x));
    flush(nullptr);
    o.u8(6);
    o.u32(uint32_t(ids.size()));
    for (uint32_t n : ids)
      o.u32(n);
  }
  for (GlobalVariable &g : m.globals()) {
    SmallVector<MDNode *, 2> mds;
    g.getMetadata(LLVMContext::MD_dbg, mds);
    std::vector<uint32_t> ids;
    for (auto *x : mds)
      ids.push_back(w.id(x));
    flush(nullptr);
    o.u8(2);
    o.str(g.getName());
    o.u8(uint8_t(g.getLinkage()));
    o.u32(g.getAddressSpace());
    o.u8(g.isDeclaration());
    o.u32(uint32_t(ids.size()));
    for (uint32_t n : ids)
      o.u32(n);
  }
  uint32_t inst_no = 0;
  // One tracker for the module, for the values the shim does not number itself (constants that
  // name unnamed globals or types); it numbers no metadata, and no function is incorporated.
  ModuleSlotTracker mst(&m, /*ShouldInitializeAllMetadata=*/false);
  for (Function &f : m.functions()) {
#if LLVM_VERSION_MAJOR >= 17
    if (f.isIntrinsic() && f.isDeclaration() && f.getName().starts_with("llvm.dbg."))
#else
    if (f.isIntrinsic() && f.isDeclaration() && f.getName().startswith("llvm.dbg."))
#endif
      continue;
    uint32_t sp = w.id(f.getSubprogram());
    flush(&mst);
    o.u8(3);
    o.str(f.getName());
    o.u8(uint8_t(f.getLinkage()));
    o.u8(f.isDeclaration());
    o.u32(sp);
    o.u32(inst_no);
    size_t count_at = o.mark();
    uint32_t first = inst_no;
    std::vector<uint32_t> block_sizes;
    w.inst_of.clear();
    w.alloca_of.clear();
    w.slot_of.clear();
    uint32_t next_no = inst_no, allocas = 0, slots = 0;
    for (Argument &a : f.args())
      if (!a.hasName())
        w.slot_of[&a] = slots++;
    for (BasicBlock &bb : f) {
      if (!bb.hasName())
        w.slot_of[&bb] = slots++;
      for (Instruction &in : bb) {
        next_no += records_before(in);
        w.inst_of[&in] = next_no++;
        if (isa<AllocaInst>(in))
          w.alloca_of[&in] = allocas++;
        if (!in.getType()->isVoidTy() && !in.hasName())
          w.slot_of[&in] = slots++;
      }
    }
    // llvm.dbg.* : kind, position, location, operands (variable/label, expression, …).
    auto debug_event = [&](const char *kind, uint32_t here, const DILocation *dl,
                           const std::vector<const Metadata *> &args) {
      std::vector<uint32_t> ids;
      for (auto *a : args)
        ids.push_back(w.id(a));
      uint32_t loc = w.id(dl);
      flush(&mst);
      o.u8(5);
      o.str(kind);
      o.u32(here);
      o.u32(loc);
      o.u32(uint32_t(ids.size()));
      for (uint32_t n : ids)
        o.u32(n);
    };
    for (BasicBlock &bb : f) {
      uint32_t block_size = uint32_t(bb.size());
      for (Instruction &in : bb)
        block_size += records_before(in);
      block_sizes.push_back(block_size);
      for (Instruction &in : bb) {
#if LLVM_VERSION_MAJOR >= 19
        // Debug records, each numbered and sent as the intrinsic call it stands for (which
        // LLVM would put right before this instruction): one numbering for both forms.
        for (DbgRecord &rec : in.getDbgRecordRange()) {
          uint32_t here = inst_no++;
          if (auto *v = dyn_cast<DbgVariableRecord>(&rec)) {
            std::vector<const Metadata *> args = {v->getRawLocation(), v->getRawVariable(),
                                                  v->getRawExpression()};
            const char *kind = v->isDbgDeclare() ? "declare" : "value";
            if (v->isDbgAssign()) {
              kind = "assign";
              args.push_back(v->getRawAssignID());
              args.push_back(v->getRawAddress());
              args.push_back(v->getRawAddressExpression());
            }
            debug_event(kind, here, rec.getDebugLoc().get(), args);
          } else if (auto *l = dyn_cast<DbgLabelRecord>(&rec)) {
            debug_event("label", here, rec.getDebugLoc().get(), {l->getLabel()});
          }
        }
#endif
        uint32_t here = inst_no++;
        if (auto *call = dyn_cast<CallInst>(&in)) {
          Function *callee = call->getCalledFunction();
          const char *kind = callee ? intrinsic_kind(callee->getIntrinsicID()) : nullptr;
          if (kind) {
            std::vector<const Metadata *> args;
            for (unsigned a = 0; a < call->arg_size(); a++) {
              auto *mv = dyn_cast<MetadataAsValue>(call->getArgOperand(a));
              args.push_back(mv ? mv->getMetadata() : nullptr);
            }
            debug_event(kind, here, in.getDebugLoc().get(), args);
            continue;
          }
        }
        if (const DILocation *dl = in.getDebugLoc().get()) {
          uint32_t loc = w.id(dl);
          flush(&mst);
          o.u8(4);
          o.u32(here);
          o.u32(loc);
        }
      }
    }
    o.patch(count_at, inst_no - first);
    o.u8(8);
    o.u32(uint32_t(block_sizes.size()));
    for (uint32_t n : block_sizes)
      o.u32(n);
  }
  flush(nullptr);
  if (!warnings.empty()) {
    o.u8(7);
    o.str(warnings);
  }
  o.u8(0);
}

// A module parsed and verified, or why not.
struct Read {
  std::unique_ptr<LLVMContext> ctx;
  std::unique_ptr<Module> m;
  bool opaque = false;
  Diags diags;
  // 0 read; 1 does not parse; 2 parses but is rejected (verifier, invalid debug info).
  int status = 1;
  std::string message;
  // Rejected for its debug info alone: the code is sound (LLVM's bitcode upgrade already dropped
  // the debug info, or the verifier found nothing wrong but it).
  bool debug_info_only = false;
};

Read read_module(const char *data, size_t len, const char *name) {
  Read r;
  r.ctx = std::make_unique<LLVMContext>();
  r.ctx->setDiagnosticHandlerCallBack(ON_DIAG, &r.diags);
  bool verified = false;
  std::string err;
  r.m = parse(data, len, name, *r.ctx, err, verified);
#if LLVM_VERSION_MAJOR < 15
  if (!r.m) {
    // Modules written with opaque pointers (`ptr`) only parse in a context that has them on.
    std::string err2;
    auto ctx2 = std::make_unique<LLVMContext>();
    ctx2->enableOpaquePointers();
    Diags diags2;
    ctx2->setDiagnosticHandlerCallBack(ON_DIAG, &diags2);
    bool verified2 = false;
    auto m2 = parse(data, len, name, *ctx2, err2, verified2);
    if (m2) {
      r.m = std::move(m2), r.ctx.swap(ctx2), r.opaque = true, err.clear(), verified = verified2;
      std::swap(r.diags, diags2);
      r.ctx->setDiagnosticHandlerCallBack(ON_DIAG, &r.diags);
    }
  }
#elif LLVM_VERSION_MAJOR < 17
  // LLVM 15 and 16 decide typed or opaque pointers from what they parse.
  r.opaque = r.m && !r.ctx->supportsTypedPointers();
#else
  r.opaque = true;
#endif
  if (!r.m) {
    r.message = err;
    return r;
  }
  if (r.diags.bad_debug_info) {
    r.status = 2;
    r.debug_info_only = true;
    r.message = "invalid debug info (LLVM's verifier rejected it):\n" + r.diags.text;
    return r;
  }
  // As LLVM's own readers do: debug info of another Debug Info Version is dropped (a warning
  // the core turns into a diagnostic), never misread.
  unsigned version = getDebugMetadataVersionFromModule(*r.m);
  if (version != DEBUG_METADATA_VERSION && StripDebugInfo(*r.m))
    r.diags.text += "debug info dropped: the module's Debug Info Version is " +
                    std::to_string(version) + ", LLVM " + std::to_string(LLVM_VERSION_MAJOR) +
                    " reads " + std::to_string(DEBUG_METADATA_VERSION) + "\n";
  std::string v;
  raw_string_ostream os(v);
  bool broken_di = false;
  // Given broken_di, verifyModule returns true for broken code only.
  bool broken_code = !verified && verifyModule(*r.m, &os, &broken_di);
  if (broken_code || broken_di) {
    r.message = "the module fails LLVM's verifier:\n" + os.str();
    r.status = 2;
    r.debug_info_only = !broken_code;
    return r;
  }
  r.status = 0;
  return r;
}

// What the shim hands out: a buffer the caller frees with dwarv_llvm_free.
void hand_out(std::string &&bytes, const char **out, size_t *out_len, void **handle) {
  auto *keep = new std::string(std::move(bytes));
  *out = keep->data();
  *out_len = keep->size();
  *handle = keep;
}

// The model of a read module: about three times its bitcode, reserved at once, not grown by
// copying (the pages reserved and not written are never touched).
std::string model_of(Read &r, size_t len) {
  Out o;
  o.b.reserve(3 * len + 4096);
  serialise(*r.m, o, r.opaque, r.diags.text);
  return std::move(o.b);
}

// Strips `m`'s debug info and emits its code: what `writer` makes of it, or its bitcode.
void write_code(Module &m, SpirvWriter writer, const char *options, Emit emit, void *ctx) {
  StripDebugInfo(m);
  if (writer) {
    const char *code = nullptr;
    size_t code_len = 0;
    void *handle = nullptr;
    int written = writer(&m, options, &code, &code_len, &handle);
    emit(ctx, written, code, code_len);
    delete static_cast<std::string *>(handle);
  } else {
    std::string bitcode;
    raw_string_ostream os(bitcode);
    WriteBitcodeToFile(m, os);
    os.flush();
    emit(ctx, 0, bitcode.data(), bitcode.size());
  }
}

// Whether a module of the caller's has opaque pointers.
bool opaque_pointers(Module &m) {
#if LLVM_VERSION_MAJOR < 17
  return !m.getContext().supportsTypedPointers();
#else
  (void)m;
  return true;
#endif
}

// The status a code part carries when the process making it died (bridge.cpp's own).
constexpr int CODE_CRASHED = 4;

bool write_all(int fd, const void *data, size_t len) {
  auto *p = static_cast<const char *>(data);
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n <= 0)
      return false;
    p += n, len -= size_t(n);
  }
  return true;
}

bool read_all(int fd, void *data, size_t len) {
  auto *p = static_cast<char *>(data);
  while (len > 0) {
    ssize_t n = read(fd, p, len);
    if (n <= 0)
      return false;
    p += n, len -= size_t(n);
  }
  return true;
}

// The code of a module being made in a forked process, while this one serialises the model: the
// two share the parsed module copy-on-write, and the model no longer waits for the translator
// nor the translator for the model.
struct CodeBeside {
  pid_t pid = -1;
  int fd = -1;
};

void to_pipe(void *ctx, int status, const char *data, size_t len) {
  int fd = *static_cast<int *>(ctx);
  unsigned char header[9];
  header[0] = static_cast<unsigned char>(status);
  uint64_t n = len;
  memcpy(header + 1, &n, 8);
  if (!write_all(fd, header, 9) || !write_all(fd, data, len))
    _exit(3);
}

// Starts making the code of `m` in a child; no child (pid -1) when it cannot fork.
CodeBeside start_code(Module &m, SpirvWriter writer, const char *options) {
  int fds[2];
  if (pipe(fds) != 0)
    return {};
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return {};
  }
  if (pid == 0) {
    close(fds[0]);
    int fd = fds[1];
    write_code(m, writer, options, to_pipe, &fd);
    _exit(0);
  }
  close(fds[1]);
  return {pid, fds[0]};
}

// Emits what the child of start_code made, or that it died.
void finish_code(CodeBeside code, Emit emit, void *ctx) {
  unsigned char header[9];
  std::string body;
  bool complete = read_all(code.fd, header, 9);
  if (complete) {
    uint64_t len;
    memcpy(&len, header + 1, 8);
    body.resize(len);
    complete = len == 0 || read_all(code.fd, &body[0], len);
  }
  close(code.fd);
  int status = 0;
  while (waitpid(code.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (complete && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    emit(ctx, header[0], body.data(), body.size());
    return;
  }
  std::string how = WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                         : "exit status " + std::to_string(WEXITSTATUS(status));
  emit(ctx, CODE_CRASHED, how.data(), how.size());
}

// A part held back: what an Emit was given, copied.
struct Held {
  int status = 0;
  std::string bytes;
};

void hold(void *ctx, int status, const char *data, size_t len) {
  auto *held = static_cast<Held *>(ctx);
  held->status = status;
  held->bytes.assign(data ? data : "", data ? len : 0);
}

// Starts serialising the model of `r` in a forked process that emits it itself (the containment
// child's pipe is inherited) and exits; -1 when it cannot fork. This process then makes the code:
// the module's pages are shared only while the model is written, not while the translator, which
// needs most memory, runs.
pid_t start_model(Read &r, size_t len, Emit emit, void *ctx) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string model = model_of(r, len);
    emit(ctx, 0, model.data(), model.size());
    _exit(0);
  }
  return pid;
}

// Waits for the process of start_model; when it did not end well, ends this one the same way
// (signal or status), as if the model had been serialised here: the caller sees a reader that
// died, and no part follows a model that may be cut short.
void finish_model(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return;
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 3);
}

} // namespace

// build.rs compiles with hidden visibility: the entry points below are the shim's only exported
// symbols.
#define EXPORT __attribute__((visibility("default")))

extern "C" {

// Parses, verifies and serialises `data`. Returns 0 and the model in *out, or a message and 1
// (the input does not parse) or 2 (it parses, but is rejected: verifier, invalid debug info);
// *out stays valid until the caller passes *handle to dwarv_llvm_free (no copy of the model).
// `exiting`: the process ends right after (the crash-containment child), so the module and its
// context are not torn down (a quarter of the run's CPU on a large module, for memory the exit
// frees anyway).
EXPORT int dwarv_llvm_load(const char *data, size_t len, const char *name, int exiting,
                    const char **out, size_t *out_len, void **handle) {
  Read r = read_module(data, len, name);
  std::string bytes = r.status == 0 ? model_of(r, len) : std::move(r.message);
  if (exiting) {
    (void)r.m.release();
    (void)r.ctx.release();
  }
  hand_out(std::move(bytes), out, out_len, handle);
  return r.status;
}

// The module's model and its code without debug info, from one parse. `emit` gets the model (or
// the message and status of dwarv_llvm_load; a module rejected for its debug info alone gets
// status 3 and the message, and its code is still written), then the code: the SPIR-V `writer`
// makes of the stripped module (status 0, or the writer's status and message), or without a
// writer the stripped module's bitcode. Each part is freed once emitted. `exiting` (the
// containment child): the model is serialised by a forked process beside the translation.
// Returns the first part's status.
EXPORT int dwarv_llvm_split(const char *data, size_t len, const char *name, int exiting,
                            SpirvWriter writer, const char *options, Emit emit, void *ctx) {
  Read r = read_module(data, len, name);
  if (r.status != 0 && !r.debug_info_only) {
    emit(ctx, r.status, r.message.data(), r.message.size());
    return r.status;
  }
#if LLVM_VERSION_MAJOR < 15
  // LLVM 14's translator aborts on opaque pointers, which this LLVM reads only when told to:
  // such a module is left to a newer LLVM (status 1, as if it did not parse).
  if (writer && r.opaque) {
    std::string message = "LLVM 14's SPIR-V translator takes no opaque pointers (`ptr`)";
    emit(ctx, 1, message.data(), message.size());
    return 1;
  }
#endif
  int status = r.status == 0 ? 0 : 3;
  // In the containment child the model is serialised beside the code; in a caller's process
  // (which must not fork), or with no model to serialise, before it.
  pid_t model = exiting && r.status == 0 ? start_model(r, len, emit, ctx) : -1;
  if (model > 0) {
    Held code;
    write_code(*r.m, writer, options, hold, &code);
    finish_model(model);
    emit(ctx, code.status, code.bytes.data(), code.bytes.size());
  } else {
    {
      std::string first = r.status == 0 ? model_of(r, len) : std::move(r.message);
      emit(ctx, status, first.data(), first.size());
    }
    write_code(*r.m, writer, options, emit, ctx);
  }
  if (exiting) {
    (void)r.m.release();
    (void)r.ctx.release();
  }
  return status;
}

// Serialises a module that lives in the caller's process (an `LLVMModuleRef` of this LLVM, as
// inkwell hands one over): no parse, no copy of its bitcode. Returns 0 and the model in *out, or
// 2 and the verifier's message when its debug info is broken; *out as for dwarv_llvm_load.
EXPORT int dwarv_llvm_serialise(void *module, const char **out, size_t *out_len, void **handle) {
  Out o;
  Module &m = *static_cast<Module *>(module);
  std::string v;
  raw_string_ostream os(v);
  bool broken_di = false;
  int status = 0;
  if (verifyModule(m, &os, &broken_di) || broken_di) {
    o.b = "the module fails LLVM's verifier:\n" + os.str();
    status = 2;
  } else {
    serialise(m, o, opaque_pointers(m), "");
  }
  hand_out(std::move(o.b), out, out_len, handle);
  return status;
}

// dwarv_llvm_split of a module that lives in the caller's process (an `LLVMModuleRef`): run in
// a forked child, whose copies of the module are the ones serialised and stripped.
EXPORT int dwarv_llvm_split_module(void *module, SpirvWriter writer, const char *options,
                                   Emit emit, void *ctx) {
  Module &m = *static_cast<Module *>(module);
  std::string v;
  raw_string_ostream os(v);
  bool broken_di = false;
  if (verifyModule(m, &os, &broken_di) || broken_di) {
    std::string message = "the module fails LLVM's verifier:\n" + os.str();
    emit(ctx, 2, message.data(), message.size());
    return 2;
  }
  CodeBeside code = start_code(m, writer, options);
  {
    Out o;
    serialise(m, o, opaque_pointers(m), "");
    emit(ctx, 0, o.b.data(), o.b.size());
  }
  if (code.pid > 0)
    finish_code(code, emit, ctx);
  else
    write_code(m, writer, options, emit, ctx);
  return 0;
}

EXPORT void dwarv_llvm_free(void *handle) { delete static_cast<std::string *>(handle); }
}
