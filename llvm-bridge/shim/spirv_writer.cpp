// The SPIR-V writer of `dwarv translate`: the SPIR-V translator's library (libLLVMSPIRVLib of the
// same LLVM) translating a module the reader shim (bridge.cpp) has parsed and stripped of its
// debug info. build.rs compiles it once per LLVM whose translator headers it finds, as its own
// shared object linked to that libLLVMSPIRVLib: a machine without the translator's library still
// loads the reader.
//
// Options arrive as `key=value` lines and mean what the same flags of the translator's command
// line (llvm-spirv) mean, so the ExtensionID names are this LLVM's translator's own.
#include "LLVMSPIRVLib/LLVMSPIRVLib.h"

#include "llvm/IR/Module.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstring>
#include <sstream>
#include <string>

using namespace llvm;

namespace {

// Applies `--spirv-ext` (`+all`, `-all`, `+SPV_X`, `-SPV_X`, comma-separated, left to right).
bool apply_extensions(StringRef list, SPIRV::TranslatorOpts::ExtensionsStatusMap &map,
                      std::string &err) {
  SmallVector<StringRef, 8> items;
  list.split(items, ',', -1, false);
  for (StringRef item : items) {
    item = item.trim();
    if (item.size() < 2 || (item[0] != '+' && item[0] != '-')) {
      err = "invalid --spirv-ext item '" + item.str() + "': expected +NAME or -NAME";
      return false;
    }
    bool on = item[0] == '+';
    StringRef ext = item.drop_front();
    if (ext == "all") {
#define EXT(X) map[SPIRV::ExtensionID::X] = on;
#include "LLVMSPIRVLib/LLVMSPIRVExtensions.inc"
#undef EXT
      continue;
    }
    bool known = false;
#define EXT(X)                                                                                    \
  if (ext == #X) {                                                                                \
    map[SPIRV::ExtensionID::X] = on;                                                              \
    known = true;                                                                                 \
  }
#include "LLVMSPIRVLib/LLVMSPIRVExtensions.inc"
#undef EXT
    if (!known) {
      err = "unknown extension '" + ext.str() + "' in --spirv-ext (this translator, LLVM " +
            std::to_string(LLVM_VERSION_MAJOR) + ", knows the names in its LLVMSPIRVExtensions.inc)";
      return false;
    }
  }
  return true;
}

bool max_version(StringRef v, SPIRV::VersionNumber &out) {
  static const struct {
    const char *name;
    SPIRV::VersionNumber number;
  } known[] = {{"1.0", SPIRV::VersionNumber::SPIRV_1_0}, {"1.1", SPIRV::VersionNumber::SPIRV_1_1},
               {"1.2", SPIRV::VersionNumber::SPIRV_1_2}, {"1.3", SPIRV::VersionNumber::SPIRV_1_3},
               {"1.4", SPIRV::VersionNumber::SPIRV_1_4}};
  for (const auto &k : known)
    if (v == k.name) {
      out = k.number;
      return true;
    }
  return false;
}

// The translator's options from `key=value` lines; false and a message on a bad one.
bool options_of(const char *text, SPIRV::TranslatorOpts &opts, std::string &err) {
  SPIRV::TranslatorOpts::ExtensionsStatusMap exts;
  SPIRV::VersionNumber max = SPIRV::VersionNumber::MaximumVersion;
  bool unknown_intrinsics = false;
  SPIRV::TranslatorOpts::ArgList intrinsic_prefixes;
  SPIRV::FPContractMode fp = SPIRV::FPContractMode::On;
  SmallVector<StringRef, 8> lines;
  StringRef(text ? text : "").split(lines, '\n', -1, false);
  for (StringRef line : lines) {
    auto [key, value] = line.split('=');
    if (key == "ext") {
      if (!apply_extensions(value, exts, err))
        return false;
    } else if (key == "max-version") {
      if (!max_version(value, max)) {
        err = "--spirv-max-version=" + value.str() + ": this translator writes 1.0 to 1.4";
        return false;
      }
    } else if (key == "allow-unknown-intrinsics") {
      unknown_intrinsics = true;
      value.split(intrinsic_prefixes, ',', -1, false);
    } else if (key == "fp-contract") {
      if (value == "on")
        fp = SPIRV::FPContractMode::On;
      else if (value == "off")
        fp = SPIRV::FPContractMode::Off;
      else if (value == "fast")
        fp = SPIRV::FPContractMode::Fast;
      else {
        err = "--spirv-fp-contract=" + value.str() + ": expected on, off or fast";
        return false;
      }
    } else {
      err = "unknown translator option '" + key.str() + "'";
      return false;
    }
  }
  opts = SPIRV::TranslatorOpts(max, exts);
  opts.setFPContractMode(fp);
  if (unknown_intrinsics)
    opts.setSPIRVAllowUnknownIntrinsics(intrinsic_prefixes);
  return true;
}

} // namespace

extern "C" {

// Translates `module` (an llvm::Module of this LLVM, without debug info). 0 and the SPIR-V in
// *out, or 1 and the translator's message; *handle is a std::string the caller deletes (the
// reader shim, built against the same C++ runtime).
__attribute__((visibility("default"))) int
dwarv_spirv_write(void *module, const char *options, const char **out, size_t *out_len,
                  void **handle) {
  std::string err;
  SPIRV::TranslatorOpts opts;
  std::ostringstream os;
  int status = 0;
  std::string result;
  if (!options_of(options, opts, err)) {
    status = 1;
    result = "translator options: " + err;
  } else if (!writeSpirv(static_cast<Module *>(module), opts, os, err)) {
    status = 1;
    result = err.empty() ? std::string("the translator failed without a message") : err;
  } else {
    result = os.str();
  }
  auto *keep = new std::string(std::move(result));
  *out = keep->data();
  *out_len = keep->size();
  *handle = keep;
  return status;
}
}
