//! What the `visa/tables` tests of both tiers share (tests/all/visa/tables.rs and
//! tests/judges/visa/tables.rs).

use dwarv::unstable::visa;

pub fn bytes_of(t: &visa::Tables) -> Vec<u8> {
    visa::encode(t).expect("generated tables encode")
}

pub mod cli {
    use super::*;
    use std::process::Command;

    fn dwarv(args: &[&str]) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_dwarv"))
            .args(args)
            .output()
            .unwrap()
    }

    #[test]
    fn dump_convert_and_back() {
        let dir = tempfile::tempdir().unwrap();
        for (name, t) in crate::support::visa_gen::samples() {
            let b = bytes_of(&t);
            let p = |f: &str| {
                dir.path()
                    .join(format!("{name}.{f}"))
                    .to_str()
                    .unwrap()
                    .to_string()
            };
            std::fs::write(p("bin"), &b).unwrap();
            let o = dwarv(&["dump", &p("bin")]);
            assert!(
                o.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let dumped = String::from_utf8(o.stdout).unwrap();
            assert!(dumped.starts_with("; dwarv-ir 1 source=visa"), "{name}");
            // `dump` shows the whole IR: every object's unit, function, variables, FDEs.
            let (m, _) = dwarv::unstable::front::visa::read(&b, name).unwrap();
            assert_eq!(dumped, dwarv::ir::text::print(&m), "{name}: dump");
            for o in &t.objects {
                let unit_and_function = format!(" = function {:?} in=u", o.name);
                assert!(dumped.contains(&unit_and_function), "{name}: {}", o.name);
            }
            // `empty` holds no tables: converted all the same when asked.
            let o = dwarv(&[
                "convert",
                &p("bin"),
                "-o",
                &p("dwir"),
                "--allow-no-debug-info",
            ]);
            assert!(
                o.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(std::fs::read_to_string(p("dwir")).unwrap(), dumped);
            let o = dwarv(&[
                "convert",
                &p("dwir"),
                "-o",
                &p("out"),
                "--to",
                "visa",
                "--strict",
                "--allow-no-debug-info",
            ]);
            assert!(
                o.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(std::fs::read(p("out")).unwrap(), b, "{name}: .dwir → visa");
            let o = dwarv(&[
                "convert",
                &p("bin"),
                "-o",
                &p("visa"),
                "--allow-no-debug-info",
            ]);
            assert!(
                o.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(std::fs::read(p("visa")).unwrap(), b, "{name}: visa → visa");
            let o = dwarv(&["validate", &p("bin")]);
            assert!(o.status.success(), "{name}");
        }
    }

    /// IR from another format has no vISA tables in it: a clear error, exit 2, no output.
    #[test]
    fn foreign_ir_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("f.dwir");
        std::fs::write(
            &src,
            "; dwarv-ir 1 source=ir\ns0 = function \"f\" ranges=[@0x0..0x10]\n",
        )
        .unwrap();
        let out = dir.path().join("f.visa");
        let o = dwarv(&[
            "convert",
            src.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("cannot write vISA tables") && err.contains("s0"),
            "{err}"
        );
        assert!(!out.exists());
    }
}
