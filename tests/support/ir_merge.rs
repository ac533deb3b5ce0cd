//! What the `ir/merge` tests of both tiers share (tests/all/ir/merge.rs and
//! tests/judges/ir/merge.rs).

use dwarv::ir;
use dwarv::ir::Module;
use dwarv::ir::ScopeKind;
use dwarv::unstable::visa::*;

pub fn grf(num: u16) -> Storage {
    Storage::Reg {
        file: RegFile::Grf,
        num,
        sub: 0,
    }
}

pub fn var(name: &str, start: u16, end: u16, loc: Storage) -> Var {
    Var {
        name: name.into(),
        intervals: vec![Interval {
            start,
            end,
            virt: VirtType::General,
            loc,
        }],
    }
}

pub fn kernel_tables() -> Tables {
    let index_map: Vec<_> = (0..32)
        .map(|i| MapEntry {
            visa: i,
            gen: i * 16,
        })
        .collect();
    let composite = Object {
        name: "composite".into(),
        index_map: index_map.clone(),
        vars: vec![
            var("gid", 0, 30, grf(12)),
            var("acc", 4, 20, grf(20)),
            var("i", 6, 18, grf(21)),
            var(
                "w",
                8,
                12,
                Storage::Mem(Memory {
                    absolute: true,
                    offset: 64,
                }),
            ),
            var("V7", 1, 2, grf(30)),
        ],
        subs: vec![Subroutine {
            name: "composite_helper".into(),
            start: 22,
            end: 28,
            ret_val: vec![],
        }],
        ..Default::default()
    };
    let mut blend = Object {
        name: "blend".into(),
        reloc_offset: 0x800,
        index_map,
        vars: vec![var(
            "mode",
            2,
            9,
            Storage::Mem(Memory {
                absolute: false,
                offset: -16,
            }),
        )],
        ..Default::default()
    };
    blend.frame.befp = Some(vec![Interval {
        start: 0,
        end: 0x1f0,
        virt: VirtType::General,
        loc: Storage::Reg {
            file: RegFile::Grf,
            num: 125,
            sub: 12,
        },
    }]);
    let orphan = Object {
        name: "orphan".into(),
        ..Default::default()
    };
    Tables {
        objects: vec![composite, blend, orphan],
    }
}

pub fn function<'m>(m: &'m Module, name: &str) -> (ir::Handle<ir::Scope>, &'m ir::FunctionInfo) {
    m.scopes
        .iter()
        .find(|(_, s)| s.name.as_deref() == Some(name) && matches!(s.kind, ScopeKind::Function(_)))
        .and_then(|(h, s)| Some((h, s.function()?)))
        .unwrap_or_else(|| panic!("no function {name}"))
}
