//! Covers src/front/llvm/, llvm-bridge/. What real consumers judge of it:
//! tests/judges/llvm/read.rs.
//!
//! The LLVM frontend on a hand-written module (every table of the IR it fills), and bad input:
//! text that does not parse, metadata LLVM's verifier rejects, truncated and mutated bitcode —
//! exit 2 with a message naming the file, no output file, never a panic or a signal.

use crate::support::llvm_read::*;
use std::path::{Path, PathBuf};
use std::process::Command;

use dwarv::ir::{self, CodePos, EventKind, ScopeKind, TypeKind, Value, VarKind};

fn small() -> PathBuf {
    crate::support::repo_root().join("tests/llvm/small.ll")
}

#[test]
fn small_module_fills_every_table() {
    let (m, _) = lower(&small());
    assert_eq!(m.source.flavour.as_deref(), Some("spir64-unknown-unknown"));
    let u = m.units.values().next().unwrap();
    assert_eq!(u.language, ir::Language::OPENCL);
    assert_eq!((u.dwarf_version, u.debug_version), (Some(5), Some(3)));
    let f = m
        .scopes
        .values()
        .find(|s| s.name.as_deref() == Some("f"))
        .unwrap();
    let ScopeKind::Function(info) = &f.kind else {
        panic!("f is a definition")
    };
    assert_eq!(info.binding, Some(Value::Llvm("@f".into())));
    assert_eq!(info.scope_line, Some(2));
    assert_eq!(info.ranges.len(), 1);
    assert_eq!(info.ranges[0].start, CodePos::Llvm(0));
    assert_eq!(info.ranges[0].end, CodePos::Llvm(9));
    assert!(f.flags.has(dwarv::ir::Flags::OPTIMIZED) && f.flags.has(dwarv::ir::Flags::DEFINITION));

    let kinds: Vec<_> = m.events.iter().map(|e| (e.kind, e.pos)).collect();
    assert_eq!(
        kinds,
        [
            (EventKind::Declare, CodePos::Llvm(2)),
            (EventKind::Value, CodePos::Llvm(3)),
            (EventKind::Value, CodePos::Llvm(4)),
        ]
    );
    assert_eq!(m.events[0].values, [Value::Llvm("i32* %a.addr".into())]);
    assert_eq!(
        m.events[1].values,
        [Value::Llvm("i32 %a".into()), Value::Int(1)]
    );
    let frag = m.exprs.get(m.events[2].expr.unwrap());
    assert_eq!(frag.ops.len(), 1);
    assert_eq!(frag.ops[0].code, ir::OpCode(0x1000));

    let a = m
        .vars
        .values()
        .find(|v| v.name.as_deref() == Some("a"))
        .unwrap();
    assert_eq!(a.kind, VarKind::Param(1));
    let g = m
        .vars
        .values()
        .find(|v| v.name.as_deref() == Some("g"))
        .unwrap();
    assert_eq!(g.binding, Some(Value::Llvm("@g".into())));
    assert!(g.location.is_some());

    // The llvm.dbg.label (i5) marks the code after it: the `add` (i6), as DWARF gives a label
    // the address of the instruction that follows it.
    let label = m.labels.values().next().unwrap();
    assert_eq!(
        (label.name.as_str(), label.pos),
        ("again", Some(CodePos::Llvm(6)))
    );

    // Lines: `add` (i6) at 3:7, `mul` (i7) inlined from helper at 9:2, `ret` (i8) at 1:5;
    // the dbg intrinsics carry their location on the event, not as rows.
    let rows: Vec<_> = m.lines.iter().map(|r| (r.range.start, r.at.line)).collect();
    assert_eq!(
        rows,
        [
            (CodePos::Llvm(6), 3),
            (CodePos::Llvm(7), 9),
            (CodePos::Llvm(8), 1)
        ]
    );
    let inl = m.scope_runs[1].inlined.expect("the mul is inlined");
    assert_eq!(m.inlined.get(inl).at.line, 3);

    let e = m
        .types
        .values()
        .find_map(|t| match &t.kind {
            TypeKind::Enum { enumerators, .. } => Some(enumerators.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(e[1].value, 4294967295);
}

#[test]
fn small_module_text_round_trips() {
    let (m, _) = lower(&small());
    let text = ir::text::print(&m);
    assert!(text.contains(" @i2 llvm(\"i32* %a.addr\")"), "{text}");
    let back = ir::text::parse(&text, "small.dwir").unwrap();
    assert_eq!(back, m);
}

#[test]
fn bitcode_reads_as_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("small.bc");
    crate::support::run_ok(Command::new("llvm-as").arg(small()).arg("-o").arg(&bc));
    let (from_text, _) = lower(&small());
    let (from_bc, _) = lower(&bc);
    assert_eq!(ir::text::print(&from_text), ir::text::print(&from_bc));
}

/// `dwarv convert bad -o out.spv`: the exit code and stderr; asserts no output was left.
fn convert_bad(input: &Path, dir: &Path) -> (i32, String) {
    let out = dir.join("out.spv");
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .arg("convert")
        .arg(input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let code = o
        .status
        .code()
        .unwrap_or_else(|| panic!("dwarv died of a signal on {}", input.display()));
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        code == 0 || code == 2,
        "exit {code} on {}: {stderr}",
        input.display()
    );
    if code == 2 {
        assert!(!out.exists(), "output left behind for {}", input.display());
        assert!(stderr.contains(&input.display().to_string()), "{stderr}");
    } else {
        std::fs::remove_file(&out).unwrap();
    }
    (code, stderr)
}

#[test]
fn text_that_does_not_parse_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ll");
    let text = std::fs::read_to_string(small())
        .unwrap()
        .replace("%b = add i32 %a, 1", "%b = add i32 %a,");
    std::fs::write(&bad, text).unwrap();
    let (code, err) = convert_bad(&bad, dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("expected"), "{err}");
}

#[test]
fn metadata_the_verifier_rejects_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("badmd.ll");
    // A DILocation whose scope is a file.
    let text = std::fs::read_to_string(small()).unwrap().replace(
        "!12 = !DILocation(line: 1, column: 5, scope: !6)",
        "!12 = !DILocation(line: 1, column: 5, scope: !1)",
    );
    std::fs::write(&bad, text).unwrap();
    let (code, err) = convert_bad(&bad, dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("verifier"), "{err}");
}

/// Truncations at every 1/40 of the file and 300 deterministic byte mutations of the bitcode,
/// as LLVM 14, 15, 16 and 19 write it: every run ends in 0 or 2, never a panic or a signal (the
/// crashes of every LLVM reader are contained).
#[test]
fn corrupt_bitcode_never_crashes_dwarv() {
    // The same module written by each LLVM dwarv reads (each read by its own reader).
    for assembler in ["llvm-as", "llvm-as-15", "llvm-as-19"] {
        let dir = tempfile::tempdir().unwrap();
        let bc = dir.path().join("small.bc");
        crate::support::run_ok(
            Command::new(crate::support::tool(assembler))
                .arg(small())
                .arg("-o")
                .arg(&bc),
        );
        let (read, rejected, crashed) = corrupt_bitcode(&bc, dir.path());
        eprintln!(
            "corrupt bitcode of {assembler}: {read} read, {rejected} rejected, {crashed} LLVM \
             crashes contained"
        );
        assert!(rejected + crashed > 0);
    }
}

/// Converts corrupt versions of `bc`: how many read, were rejected, crashed LLVM (contained).
fn corrupt_bitcode(bc: &Path, dir: &Path) -> (usize, usize, usize) {
    let good = std::fs::read(bc).unwrap();
    let bad = dir.join("bad.bc");
    let (mut rejected, mut crashed, mut read) = (0, 0, 0);
    let mut tally = |(code, err): (i32, String)| match code {
        0 => read += 1,
        _ if err.contains("LLVM crashed") => crashed += 1,
        _ => rejected += 1,
    };
    for k in 1..40 {
        std::fs::write(&bad, &good[..good.len() * k / 40]).unwrap();
        tally(convert_bad(&bad, dir));
    }
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..300 {
        let mut b = good.clone();
        for _ in 0..3 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = 4 + (x as usize) % (b.len() - 4);
            b[i] ^= (x >> 32) as u8 | 1;
        }
        std::fs::write(&bad, &b).unwrap();
        tally(convert_bad(&bad, dir));
    }
    (read, rejected, crashed)
}

/// The assignment-tracking records of a text module, `#dbg_assign(…)` (LLVM 19) or `call void
/// @llvm.dbg.assign(metadata …)` (LLVM 16–18), each as its top-level arguments without
/// `metadata `: value, variable, expression, DIAssignID, address, address expression.
fn assign_records(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(at) = line
            .find("#dbg_assign(")
            .map(|i| i + "#dbg_assign(".len())
            .or_else(|| line.find("call void @llvm.dbg.assign(").map(|i| i + 27))
        else {
            continue;
        };
        let (mut depth, mut args, mut cur) = (0, Vec::new(), String::new());
        for c in line[at..].chars() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => break,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    args.push(cur.trim().trim_start_matches("metadata ").to_string());
                    cur.clear();
                    continue;
                }
                _ => {}
            }
            cur.push(c);
        }
        args.push(cur.trim().trim_start_matches("metadata ").to_string());
        out.push(args);
    }
    out
}

/// `!DIExpression(DW_OP_LLVM_fragment, 0, 32)` as the IR text prints its operations:
/// `[llvm_fragment 0 32]`.
fn ir_ops(di: &str) -> String {
    let inner = di
        .strip_prefix("!DIExpression(")
        .unwrap()
        .strip_suffix(')')
        .unwrap();
    let mut ops: Vec<String> = Vec::new();
    for item in inner.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item.strip_prefix("DW_OP_") {
            Some(name) => ops.push(name.to_lowercase()),
            None => *ops.last_mut().unwrap() += &format!(" {item}"),
        }
    }
    format!("[{}]", ops.join(", "))
}

/// Each assignment of `path` is read: a `value` event of its value, variable and expression at
/// the record's instruction, and a ledger line there naming its address as LLVM prints it and
/// its address expression (an IR expression with the record's operations). Returns how many.
fn assignments_read(path: &Path) -> usize {
    let records = assign_records(&std::fs::read_to_string(path).unwrap());
    let (m, d) = lower(path);
    let printed = ir::text::print(&m);
    let expr_text = |e: Option<ir::Handle<ir::Expr>>| {
        let e = e.map_or("none".into(), |e| format!("e{}", e.index()));
        let line = printed
            .lines()
            .find(|l| l.starts_with(&format!("{e} = expr ")));
        line.map(|l| l.split_once(" = expr ").unwrap().1.to_string())
    };
    let losses: Vec<_> = d
        .losses
        .iter()
        .filter(|l| l.message.starts_with("llvm.dbg.assign of "))
        .collect();
    assert_eq!(
        losses.len(),
        records.len(),
        "{}: {losses:?}",
        path.display()
    );
    for (rec, loss) in records.iter().zip(&losses) {
        let what = format!("{}: {rec:?} / {loss:?}", path.display());
        let n: u32 = loss
            .place
            .strip_prefix("instruction i")
            .unwrap()
            .parse()
            .unwrap();
        let e = m
            .events
            .iter()
            .find(|e| e.pos == CodePos::Llvm(n))
            .unwrap_or_else(|| panic!("{what}: no event at i{n}"));
        assert_eq!(e.kind, EventKind::Value, "{what}");
        match &e.values[..] {
            [Value::Llvm(t)] => assert_eq!(t, &rec[0], "{what}"),
            [Value::Int(k)] => assert!(rec[0].ends_with(&format!(" {k}")), "{what}"),
            [Value::Undef] => assert!(rec[0].ends_with("undef") || rec[0].ends_with("poison")),
            other => panic!("{what}: {other:?}"),
        }
        let var = m.vars.get(e.var).name.clone().unwrap_or_default();
        assert!(
            loss.message.contains(&format!("(variable {var:?})")),
            "{what}"
        );
        assert_eq!(expr_text(e.expr), Some(ir_ops(&rec[2])), "{what}");
        // An undef or poison address (the variable no longer in memory) is `undef`.
        let address = match rec[4].ends_with("undef") || rec[4].ends_with("poison") {
            true => "undef",
            false => &rec[4],
        };
        let address = format!("its address {address} with address expression e");
        let at = loss
            .message
            .find(&address)
            .unwrap_or_else(|| panic!("{what}"))
            + address.len();
        let k: usize = loss.message[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let addr_expr = expr_text(Some(ir::Handle::new(k as u32)));
        assert_eq!(addr_expr, Some(ir_ops(&rec[5])), "{what}");
    }
    records.len()
}

/// Assignment tracking: corpus/src/assign.c at -O2 by clang-19 (debug records,
/// LLVM 19's reader) and by clang-16 with the tracking asked for (llvm.dbg.assign calls, LLVM 16's),
/// and the clang-19 module with an address expression of its own: every assignment is read.
#[test]
fn dbg_assign_is_read_with_its_address_and_expression() {
    let dir = tempfile::tempdir().unwrap();
    let src = crate::support::repo_root().join("corpus/src/assign.c");
    let ll19 = crate::support::corpus().join("assign.O2.ll");
    let ll16 = dir.path().join("assign16.ll");
    crate::support::run_ok(
        Command::new(crate::support::tool("clang-16"))
            .args(["-g", "-O2", "-S", "-emit-llvm"])
            .args(["-Xclang", "-fexperimental-assignment-tracking"])
            .arg(&src)
            .arg("-o")
            .arg(&ll16),
    );
    assert!(assignments_read(&ll19) >= 4);
    assert!(assignments_read(&ll16) >= 4);
    // The second field's record with an address expression of its own.
    let text = std::fs::read_to_string(&ll19).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(
            |l| match l.contains("#dbg_assign(") && l.contains("fragment, 32, 32") {
                true => l.replace(
                    ", !DIExpression(), !",
                    ", !DIExpression(DW_OP_plus_uconst, 0), !",
                ),
                false => l.to_string(),
            },
        )
        .collect();
    let own = dir.path().join("assign-expr.ll");
    std::fs::write(&own, lines.join("\n")).unwrap();
    assert!(std::fs::read_to_string(&own)
        .unwrap()
        .contains("DW_OP_plus_uconst, 0"));
    assert!(assignments_read(&own) >= 4);
}

/// LLVM gives each instruction its own scope, so an inlined call's blocks are runs of their
/// own, not of the inlined function: the call site's ranges are their union, nothing
/// approximated (the writer said so of every such call: shapes.O2.ll twice, kernel.gfx900.ll
/// once).
#[test]
fn inlined_calls_with_blocks_are_written_without_a_ledger_line() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["shapes.O2.ll", "kernel.gfx900.ll", "frag.O2.ll"] {
        let out = dir.path().join(format!("{name}.o"));
        let report = crate::support::convert_report(
            &crate::support::corpus().join(name),
            &out,
            &["--to", "dwarf"],
        );
        let losses = report["diagnostics"]["losses"].as_array().unwrap();
        let said: Vec<_> = (losses.iter())
            .filter_map(|l| l["message"].as_str())
            .filter(|m| m.contains("call site's own ranges"))
            .collect();
        assert!(said.is_empty(), "{name}: {said:?}");
    }
}
