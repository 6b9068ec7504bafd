//! Build-time switches for the test suite (no effect on what gk does).
//!
//! `gk_wine`: set when `scripts/windows-cross-test.sh test` builds the suite
//! as Windows programs to run under Wine (`GK_WINE=1`). Tests that hit a gap
//! in Wine rather than in gk carry
//! `#[cfg_attr(gk_wine, ignore = "Wine gap: …")]`; docs/testing.md lists them.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(gk_wine)");
    println!("cargo::rerun-if-env-changed=GK_WINE");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var_os("GK_WINE").is_some_and(|v| v == "1") {
        println!("cargo::rustc-cfg=gk_wine");
    }
}
