//! A generator of vISA debug tables for the tests: hand-made samples for each feature (empty
//! streams, kernels, spills, stack calls with save tables) and seeded pseudo-random streams of
//! many objects. Deterministic: the same seed gives the same bytes.
#![allow(dead_code)] // each test binary uses a different subset

use dwarv::unstable::visa::*;

pub use super::rng::Rng;

fn reg(file: RegFile, num: u16, sub: u16) -> Storage {
    Storage::Reg { file, num, sub }
}

fn mem(absolute: bool, offset: i32) -> Storage {
    Storage::Mem(Memory { absolute, offset })
}

fn iv<T>(start: T, end: T, virt: VirtType, loc: Storage) -> Interval<T> {
    Interval {
        start,
        end,
        virt,
        loc,
    }
}

/// `n` index-map entries: vISA index i at Gen offset 16·i (every third instruction compacted).
fn index_map(n: u32) -> Vec<MapEntry> {
    let mut gen = 0;
    (0..n)
        .map(|visa| {
            let e = MapEntry { visa, gen };
            gen += if visa % 3 == 2 { 8 } else { 16 };
            e
        })
        .collect()
}

fn kernel(name: &str) -> Object {
    Object {
        name: name.into(),
        index_map: index_map(40),
        offset_map: (0..40)
            .map(|i| MapEntry {
                visa: i * 24,
                gen: i * 16,
            })
            .collect(),
        vars: vec![
            Var {
                name: "x".into(),
                intervals: vec![
                    iv(2, 9, VirtType::General, reg(RegFile::Grf, 12, 0)),
                    iv(9, 20, VirtType::General, reg(RegFile::Grf, 13, 8)),
                ],
            },
            Var {
                name: "p".into(),
                intervals: vec![iv(1, 4, VirtType::Address, reg(RegFile::Address, 0, 2))],
            },
            Var {
                name: "cond".into(),
                intervals: vec![iv(5, 6, VirtType::Flag, reg(RegFile::Flag, 1, 0))],
            },
            Var {
                name: "dead".into(),
                intervals: vec![],
            },
            Var {
                name: "ünïcode_ß".into(),
                intervals: vec![iv(
                    30,
                    30,
                    VirtType::General,
                    reg(RegFile::Grf, 255, u16::MAX),
                )],
            },
        ],
        ..Default::default()
    }
}

/// Variables spilled to scratch: BE_FP-relative and absolute, at the 31-bit extremes.
fn spills() -> Object {
    let mut o = kernel("spill_kernel");
    o.vars.push(Var {
        name: "spilled".into(),
        intervals: vec![
            iv(3, 10, VirtType::General, reg(RegFile::Grf, 40, 4)),
            iv(10, 25, VirtType::General, mem(false, -64)),
            iv(25, 30, VirtType::General, mem(true, 4096)),
            iv(30, 35, VirtType::Flag, mem(false, Memory::MIN_OFFSET)),
            iv(35, 39, VirtType::Address, mem(true, Memory::MAX_OFFSET)),
        ],
    });
    o.frame = Frame {
        size: 128,
        befp: Some(vec![iv(
            0,
            600,
            VirtType::General,
            reg(RegFile::Grf, 125, 12),
        )]),
        ..Default::default()
    };
    o
}

fn save(ip: u32, entries: &[(u16, u16, SaveDst)]) -> SaveAtIp {
    SaveAtIp {
        gen_ip: ip,
        entries: entries
            .iter()
            .map(|&(src_reg_off, num_bytes, dst)| SaveEntry {
                src_reg_off,
                num_bytes,
                dst,
            })
            .collect(),
    }
}

/// A stack-call function with everything: frame lists, callee and caller saves, subroutines.
fn stack_call(name: &str, reloc: u32) -> Object {
    let mut o = kernel(name);
    o.reloc_offset = reloc;
    let m = |off| {
        SaveDst::Mem(Memory {
            absolute: false,
            offset: off,
        })
    };
    o.frame = Frame {
        size: 256,
        befp: Some(vec![
            iv(16, 300, VirtType::General, reg(RegFile::Grf, 125, 12)),
            iv(300, 400, VirtType::General, reg(RegFile::Grf, 126, 0)),
        ]),
        caller_befp: Some(vec![iv(16, 380, VirtType::General, mem(false, 8))]),
        ret_addr: Some(vec![
            iv(0, 32, VirtType::General, reg(RegFile::Grf, 127, 0)),
            iv(32, 400, VirtType::General, mem(false, 0)),
        ]),
        callee_saves: vec![
            save(
                16,
                &[
                    (60 * 32, 32, m(16)),
                    (61 * 32, 64, m(48)),
                    (63 * 32 + 8, 4, m(112)),
                ],
            ),
            save(48, &[(70 * 32, 32, SaveDst::Reg { num: 90, sub: 0 })]),
            save(64, &[]),
        ],
        caller_saves: vec![save(
            200,
            &[
                (10 * 32, 96, m(160)),
                (20 * 32 + 4, 2, SaveDst::Reg { num: 3, sub: 6 }),
            ],
        )],
    };
    o.subs = vec![
        Subroutine {
            name: "helper".into(),
            start: 20,
            end: 29,
            ret_val: vec![iv(320, 470, VirtType::General, reg(RegFile::Grf, 100, 0))],
        },
        Subroutine {
            name: "".into(),
            start: 35,
            end: 1000,
            ret_val: vec![],
        },
    ];
    o
}

/// Frames with valid but empty lists and a kernel with nothing at all.
fn odd_frames() -> Tables {
    let mut a = Object {
        name: "empty_kernel".into(),
        ..Default::default()
    };
    a.frame.befp = Some(vec![]);
    a.frame.ret_addr = Some(vec![]);
    let mut b = stack_call("no_befp", 0x10_0000);
    b.frame.befp = None;
    b.frame.caller_befp = Some(vec![]);
    Tables {
        objects: vec![a, b, Object::default()],
    }
}

fn storage(r: &mut Rng) -> Storage {
    match r.below(5) {
        0 => reg(RegFile::Address, r.below(16) as u16, r.below(16) as u16),
        1 => reg(RegFile::Flag, r.below(4) as u16, r.below(4) as u16 * 2),
        2 => mem(r.chance(50), r.below(1 << 20) as i32 - (1 << 19)),
        _ => reg(RegFile::Grf, r.below(256) as u16, r.below(8) as u16 * 4),
    }
}

fn virt(r: &mut Rng) -> VirtType {
    VirtType::ALL[r.below(3) as usize]
}

fn gen_list(r: &mut Rng, n: u64, code: u32) -> Vec<Interval<u32>> {
    (0..r.below(n))
        .map(|_| {
            let s = r.below(code as u64) as u32;
            iv(s, s + r.below(256) as u32, virt(r), storage(r))
        })
        .collect()
}

fn saves(r: &mut Rng, code: u32) -> Vec<SaveAtIp> {
    (0..r.below(4))
        .map(|_| SaveAtIp {
            gen_ip: r.below(code as u64) as u32,
            entries: (0..r.below(4))
                .map(|_| SaveEntry {
                    src_reg_off: r.below(128 * 32) as u16,
                    num_bytes: 1 + r.below(128) as u16,
                    dst: match r.chance(50) {
                        true => SaveDst::Reg {
                            num: r.below(256) as u16,
                            sub: r.below(32) as u16,
                        },
                        false => SaveDst::Mem(Memory {
                            absolute: r.chance(20),
                            offset: r.below(1 << 16) as i32,
                        }),
                    },
                })
                .collect(),
        })
        .collect()
}

/// A pseudo-random object exercising every table.
pub fn random_object(r: &mut Rng, i: usize) -> Object {
    let n = r.below(64) as u32;
    let map = index_map(n);
    let code = map.last().map_or(16, |e| e.gen + 16);
    let opt = |r: &mut Rng| r.chance(60).then(|| gen_list(r, 4, code));
    Object {
        name: format!("obj_{i}_{}", r.below(1000)),
        reloc_offset: if r.chance(30) {
            0
        } else {
            r.below(1 << 24) as u32 * 16
        },
        offset_map: if r.chance(50) {
            Vec::new()
        } else {
            map.iter()
                .map(|e| MapEntry {
                    visa: e.visa * 16,
                    gen: e.gen,
                })
                .collect()
        },
        vars: (0..r.below(8))
            .map(|k| Var {
                name: format!("v{k}"),
                intervals: (0..r.below(4))
                    .map(|_| {
                        let s = r.below(n as u64 + 2) as u16;
                        iv(s, s + r.below(8) as u16, virt(r), storage(r))
                    })
                    .collect(),
            })
            .collect(),
        // Subroutines are disjoint pieces of the object's code, in order, as a compiler lays
        // them out (overlapping ones would be overlapping sibling subprograms in DWARF).
        subs: {
            let mut next = 0;
            (0..r.below(3))
                .map(|k| {
                    let start = next + r.below(n as u64 / 2 + 1) as u32;
                    let end = start + r.below(10) as u32;
                    next = end + 1;
                    Subroutine {
                        name: format!("sub{k}"),
                        start,
                        end,
                        ret_val: gen_list(r, 3, code),
                    }
                })
                .collect()
        },
        frame: Frame {
            size: r.below(1024) as u16,
            befp: opt(r),
            caller_befp: opt(r),
            ret_addr: opt(r),
            callee_saves: saves(r, code),
            caller_saves: saves(r, code),
        },
        index_map: map,
    }
}

pub fn random_tables(seed: u64, objects: usize) -> Tables {
    let mut r = Rng::new(seed);
    Tables {
        objects: (0..objects).map(|i| random_object(&mut r, i)).collect(),
    }
}

/// Every sample: name and tables.
pub fn samples() -> Vec<(&'static str, Tables)> {
    vec![
        ("empty", Tables::default()),
        ("odd_frames", odd_frames()),
        (
            "kernel",
            Tables {
                objects: vec![kernel("k")],
            },
        ),
        (
            "spills",
            Tables {
                objects: vec![spills()],
            },
        ),
        (
            "stack_calls",
            Tables {
                objects: vec![
                    kernel("main_kernel"),
                    stack_call("callee_a", 0x400),
                    stack_call("callee_b", 0x2000),
                ],
            },
        ),
        ("random_small", random_tables(1, 5)),
        ("many_objects", random_tables(7, 300)),
    ]
}
