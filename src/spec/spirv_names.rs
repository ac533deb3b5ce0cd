//! The names of the debug sets' instructions and operands as typed constants: readers and writers
//! name them by these, so a misspelt name does not compile; a test holds every constant to the
//! layouts of `spec::spirv_grammar` (data only).

use std::fmt;

/// A debug instruction, named as the sets' layouts name it (`Layout::name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InsnName(pub &'static str);

/// An operand of a debug instruction, named as the sets' layouts name it (`Operand::name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OperandName(pub &'static str);

impl fmt::Display for InsnName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Display for OperandName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Debug instructions.
pub mod instruction {
    use super::InsnName as I;

    pub const DEBUG_BUILD_IDENTIFIER: I = I("DebugBuildIdentifier");
    pub const DEBUG_COMPILATION_UNIT: I = I("DebugCompilationUnit");
    pub const DEBUG_DECLARE: I = I("DebugDeclare");
    pub const DEBUG_ENTRY_POINT: I = I("DebugEntryPoint");
    pub const DEBUG_EXPRESSION: I = I("DebugExpression");
    pub const DEBUG_FUNCTION: I = I("DebugFunction");
    pub const DEBUG_FUNCTION_DECLARATION: I = I("DebugFunctionDeclaration");
    pub const DEBUG_FUNCTION_DEFINITION: I = I("DebugFunctionDefinition");
    pub const DEBUG_GLOBAL_VARIABLE: I = I("DebugGlobalVariable");
    pub const DEBUG_IMPORTED_ENTITY: I = I("DebugImportedEntity");
    pub const DEBUG_INFO_NONE: I = I("DebugInfoNone");
    pub const DEBUG_INLINED_AT: I = I("DebugInlinedAt");
    pub const DEBUG_INLINED_VARIABLE: I = I("DebugInlinedVariable");
    pub const DEBUG_LEXICAL_BLOCK: I = I("DebugLexicalBlock");
    pub const DEBUG_LEXICAL_BLOCK_DISCRIMINATOR: I = I("DebugLexicalBlockDiscriminator");
    pub const DEBUG_LINE: I = I("DebugLine");
    pub const DEBUG_LOCAL_VARIABLE: I = I("DebugLocalVariable");
    pub const DEBUG_MACRO_DEF: I = I("DebugMacroDef");
    pub const DEBUG_MACRO_UNDEF: I = I("DebugMacroUndef");
    pub const DEBUG_MODULE: I = I("DebugModule");
    pub const DEBUG_MODULE_INTEL: I = I("DebugModuleINTEL");
    pub const DEBUG_NO_LINE: I = I("DebugNoLine");
    pub const DEBUG_NO_SCOPE: I = I("DebugNoScope");
    pub const DEBUG_OPERATION: I = I("DebugOperation");
    pub const DEBUG_SCOPE: I = I("DebugScope");
    pub const DEBUG_SOURCE: I = I("DebugSource");
    pub const DEBUG_SOURCE_CONTINUED: I = I("DebugSourceContinued");
    pub const DEBUG_STORAGE_PATH: I = I("DebugStoragePath");
    pub const DEBUG_TYPE_ARRAY: I = I("DebugTypeArray");
    pub const DEBUG_TYPE_ARRAY_DYNAMIC: I = I("DebugTypeArrayDynamic");
    pub const DEBUG_TYPE_BASIC: I = I("DebugTypeBasic");
    pub const DEBUG_TYPE_COMPOSITE: I = I("DebugTypeComposite");
    pub const DEBUG_TYPE_ENUM: I = I("DebugTypeEnum");
    pub const DEBUG_TYPE_FUNCTION: I = I("DebugTypeFunction");
    pub const DEBUG_TYPE_INHERITANCE: I = I("DebugTypeInheritance");
    pub const DEBUG_TYPE_MATRIX: I = I("DebugTypeMatrix");
    pub const DEBUG_TYPE_MEMBER: I = I("DebugTypeMember");
    pub const DEBUG_TYPE_POINTER: I = I("DebugTypePointer");
    pub const DEBUG_TYPE_PTR_TO_MEMBER: I = I("DebugTypePtrToMember");
    pub const DEBUG_TYPE_QUALIFIER: I = I("DebugTypeQualifier");
    pub const DEBUG_TYPE_STRING: I = I("DebugTypeString");
    pub const DEBUG_TYPE_SUBRANGE: I = I("DebugTypeSubrange");
    pub const DEBUG_TYPE_TEMPLATE: I = I("DebugTypeTemplate");
    pub const DEBUG_TYPE_TEMPLATE_PARAMETER: I = I("DebugTypeTemplateParameter");
    pub const DEBUG_TYPE_TEMPLATE_PARAMETER_PACK: I = I("DebugTypeTemplateParameterPack");
    pub const DEBUG_TYPE_TEMPLATE_TEMPLATE_PARAMETER: I = I("DebugTypeTemplateTemplateParameter");
    pub const DEBUG_TYPE_VECTOR: I = I("DebugTypeVector");
    pub const DEBUG_TYPEDEF: I = I("DebugTypedef");
    pub const DEBUG_VALUE: I = I("DebugValue");
}

/// Operands (a grammar's spelling slips, `Paramter Types` and `Literal Flags`, are read as the
/// names they mean).
pub mod operand {
    use super::OperandName as O;

    pub const API_NOTES_FILE: O = O("APINotesFile");
    pub const ALLOCATED: O = O("Allocated");
    pub const ASSOCIATED: O = O("Associated");
    pub const CHECKSUM_KIND: O = O("Checksum Kind");
    pub const CHECKSUM_VALUE: O = O("Checksum Value");
    pub const COUNT: O = O("Count");
    pub const DATA_LOCATION: O = O("Data Location");
    pub const INLINE_NAMESPACE: O = O("Inline Namespace");
    pub const LENGTH_ADDRESS: O = O("Length Address");
    pub const LENGTH_SIZE: O = O("Length Size");
    pub const LOWER_BOUND: O = O("Lower Bound");
    pub const PRODUCER: O = O("Producer");
    pub const RANK: O = O("Rank");
    pub const STRIDE: O = O("Stride");
    pub const SUBRANGES: O = O("Subranges");
    pub const TARGET_FUNCTION_NAME: O = O("Target Function Name");
    pub const UPPER_BOUND: O = O("Upper Bound");
    pub const ACTUAL_TYPE: O = O("Actual Type");
    pub const ARG_NUMBER: O = O("Arg Number");
    pub const BASE_TYPE: O = O("Base Type");
    pub const CHILD: O = O("Child");
    pub const COLUMN: O = O("Column");
    pub const COLUMN_END: O = O("Column End");
    pub const COLUMN_MAJOR: O = O("Column Major");
    pub const COLUMN_START: O = O("Column Start");
    pub const COMMAND_LINE_ARGUMENTS: O = O("Command-line Arguments");
    pub const COMPILATION_UNIT: O = O("Compilation Unit");
    pub const COMPILER_SIGNATURE: O = O("Compiler Signature");
    pub const COMPONENT_COUNT: O = O("Component Count");
    pub const COMPONENT_COUNTS: O = O("Component Counts");
    pub const CONFIGURATION_MACROS: O = O("ConfigurationMacros");
    pub const DWARF_VERSION: O = O("DWARF Version");
    pub const DECLARATION: O = O("Declaration");
    pub const DEFINITION: O = O("Definition");
    pub const DISCRIMINATOR: O = O("Discriminator");
    pub const ENCODING: O = O("Encoding");
    pub const ENTITY: O = O("Entity");
    pub const ENTRY_POINT: O = O("Entry Point");
    pub const EXPRESSION: O = O("Expression");
    pub const FILE: O = O("File");
    pub const FLAGS: O = O("Flags");
    pub const FUNCTION: O = O("Function");
    pub const IDENTIFIER: O = O("Identifier");
    pub const INCLUDE_PATH: O = O("IncludePath");
    pub const INDEXES: O = O("Indexes");
    pub const INLINED: O = O("Inlined");
    pub const INLINED_AT: O = O("Inlined At");
    pub const IS_DECLARATION: O = O("IsDeclaration");
    pub const LANGUAGE: O = O("Language");
    pub const LINE: O = O("Line");
    pub const LINE_END: O = O("Line End");
    pub const LINE_START: O = O("Line Start");
    pub const LINKAGE_NAME: O = O("Linkage Name");
    pub const LOCAL_VARIABLE: O = O("Local Variable");
    pub const MACRO: O = O("Macro");
    pub const MEMBER_TYPE: O = O("Member Type");
    pub const MEMBERS: O = O("Members");
    pub const NAME: O = O("Name");
    pub const OFFSET: O = O("Offset");
    pub const OP_CODE: O = O("OpCode");
    pub const OPERANDS: O = O("Operands ...");
    pub const PARAMETER_TYPES: O = O("Parameter Types");
    /// DebugTypeFunction's operand as the DebugInfo (0.99) grammar spells it.
    pub const PARAMTER_TYPES: O = O("Paramter Types");
    pub const PARAMETERS: O = O("Parameters");
    pub const PARENT: O = O("Parent");
    pub const PATH: O = O("Path");
    pub const RETURN_TYPE: O = O("Return Type");
    pub const SCOPE: O = O("Scope");
    pub const SCOPE_LINE: O = O("Scope Line");
    pub const SIZE: O = O("Size");
    pub const SOURCE: O = O("Source");
    pub const STATIC_MEMBER_DECLARATION: O = O("Static Member Declaration");
    pub const STORAGE_CLASS: O = O("Storage Class");
    pub const TAG: O = O("Tag");
    pub const TARGET: O = O("Target");
    pub const TEMPLATE_NAME: O = O("Template Name");
    pub const TEMPLATE_PARAMETERS: O = O("Template Parameters");
    pub const TEXT: O = O("Text");
    pub const TYPE: O = O("Type");
    pub const TYPE_QUALIFIER: O = O("Type Qualifier");
    pub const UNDERLYING_TYPE: O = O("Underlying Type");
    pub const VALUE: O = O("Value");
    pub const VALUE_NAME: O = O("Value, Name");
    pub const VARIABLE: O = O("Variable");
    pub const VECTOR_COUNT: O = O("Vector Count");
    pub const VECTOR_TYPE: O = O("Vector Type");
    pub const VERSION: O = O("Version");
    /// One of an instruction's `Operands ...`, as error messages name it.
    pub const OPERAND_OF_OPERANDS: O = O("Operands");
}

#[cfg(test)]
mod tests {
    use super::super::spirv::FLAVOURS;

    /// Every constant is the name of a layout or of an operand of some set.
    #[test]
    fn names_are_the_grammars() {
        let layouts: Vec<_> = FLAVOURS.iter().flat_map(|(f, _, _)| f.layouts()).collect();
        let source = include_str!("spirv_names.rs");
        for line in source.lines() {
            let Some((_, rest)) = line.split_once(": I = I(\"") else {
                continue;
            };
            let name = rest.trim_end_matches("\");");
            assert!(layouts.iter().any(|l| l.name == name), "{name}");
        }
        for line in source.lines() {
            let Some((_, rest)) = line.split_once(": O = O(\"") else {
                continue;
            };
            let name = rest.trim_end_matches("\");");
            let known = layouts
                .iter()
                .flat_map(|l| l.operands)
                .any(|o| o.name == name || o.name.trim_end_matches(" ...") == name);
            assert!(known, "{name}");
        }
    }
}
