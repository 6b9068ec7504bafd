//! The Linux build's flags (`scripts/static-flags.sh`, what
//! `scripts/install-gk.sh` builds with) and its linker
//! (`scripts/link-in-order.sh`), checked on a small program linked with
//! them as gk is: static, non-PIE, and its functions laid out in the order
//! an order file names them by their demangled names (which is why the
//! hooks start faster: docs/maintainers/benchmarks.md, "Linked non-PIE, in
//! order").

#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{require_tool, TestEnv};

const PROGRAM: &str = r#"
#[inline(never)]
fn first_fn(n: u64) -> u64 { n.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(7) }
#[inline(never)]
fn second_fn(n: u64) -> u64 { n ^ (n >> 13) ^ 0x51_7cc1_b727_220a }
#[inline(never)]
fn third_fn(n: u64) -> u64 { n.wrapping_add(0x2545_f491_4f6c_dd1d).rotate_right(11) }
fn main() {
    let n = std::env::args().count() as u64;
    println!("{}", first_fn(n) ^ second_fn(n) ^ third_fn(n));
}
"#;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The flags `scripts/static-flags.sh` prints, as words.
fn static_flags() -> Vec<String> {
    let out = Command::new("sh")
        .arg("scripts/static-flags.sh")
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// Link [`PROGRAM`] with the build's flags and `order` as the order file;
/// the program, and what the linker said it found.
fn link_with_order(env: &TestEnv, name: &str, order: &[&str]) -> (PathBuf, String) {
    // The linker script needs binutils' `nm` to find the names.
    for tool in ["rustc", "cc", "nm"] {
        require_tool(tool);
    }
    let dir = env.root().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("h.rs");
    std::fs::write(&source, PROGRAM).unwrap();
    let order_file = dir.join("order");
    std::fs::write(&order_file, order.join("\n") + "\n").unwrap();
    let log = dir.join("log");
    let program = dir.join("h");
    // From the top of the repository, as cargo runs rustc for gk: the
    // flags name the linker by a path from there.
    let out = Command::new("rustc")
        .current_dir(repo())
        .args(["--edition", "2021", "--crate-name", "h", "-O", "-C", "lto"])
        .args(static_flags())
        .arg("-o")
        .arg(&program)
        .arg(&source)
        .env("GK_LINK_ORDER", &order_file)
        .env("GK_LINK_ORDER_LOG", &log)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    (program, said)
}

/// The address of the function `name` (demangled) in `program`.
fn address_of(program: &Path, name: &str) -> u64 {
    let out = Command::new("nm")
        .args(["--defined-only", "-C"])
        .arg(program)
        .output()
        .expect("nm (binutils) runs");
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.ends_with(&format!(" {name}")))
        .unwrap_or_else(|| panic!("{name} not in the program's symbols"));
    u64::from_str_radix(line.split(' ').next().unwrap(), 16).unwrap()
}

#[test]
fn the_build_links_the_functions_in_the_order_file_order() {
    let env = TestEnv::new();
    let (forward, said) = link_with_order(&env, "forward", &["h::third_fn", "h::first_fn"]);
    assert_eq!(
        said.trim(),
        "2 of 2 names found, 0 more passed on as C names"
    );
    let (backward, _) = link_with_order(&env, "backward", &["h::first_fn", "h::third_fn"]);
    // Each order is the one asked for, so neither is the linker's own.
    assert!(address_of(&forward, "h::third_fn") < address_of(&forward, "h::first_fn"));
    assert!(address_of(&backward, "h::first_fn") < address_of(&backward, "h::third_fn"));
    // Both run, and compute the same.
    let run = |p: &Path| Command::new(p).output().unwrap();
    let (a, b) = (run(&forward), run(&backward));
    assert!(a.status.success() && !a.stdout.is_empty());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn the_build_is_static_and_not_position_independent() {
    let env = TestEnv::new();
    let (program, _) = link_with_order(&env, "kind", &["h::first_fn"]);
    require_tool("readelf");
    let out = Command::new("readelf")
        .args(["-h", "-l"])
        .arg(&program)
        .output()
        .expect("readelf (binutils) runs");
    let text = String::from_utf8(out.stdout).unwrap();
    // EXEC, not DYN: loaded where it was linked, nothing to relocate first.
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("Type:") && l.contains("EXEC")),
        "{text}"
    );
    // No program interpreter: no dynamic loader.
    assert!(!text.contains("INTERP"), "{text}");
}

#[test]
fn a_name_the_objects_do_not_hold_is_passed_on_as_a_c_name_or_left() {
    let env = TestEnv::new();
    let (program, said) = link_with_order(
        &env,
        "unknown",
        &[
            "# a comment",
            "h::second_fn",
            "h::gone_fn",
            "memcpy",
            "<odd name>",
        ],
    );
    // The one Rust name there is found; `memcpy` (glibc's, not in the
    // program's own objects) is passed on; the rest are left out.
    assert_eq!(
        said.trim(),
        "1 of 4 names found, 1 more passed on as C names"
    );
    assert!(Command::new(&program).output().unwrap().status.success());
}
