//! The CLAUDE.md editor (`install::claude_md`) on any text.
//!
//! Whenever install accepts a file: installing again changes nothing, the
//! result holds exactly one gk block, uninstall gives back the original
//! bytes when the file held no gk block or Python-era section, and
//! uninstalling again changes nothing.
#![no_main]

use std::path::Path;

use gk::testing::edit::{insert_section, remove_section, section_for};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("CLAUDE.md");
    let section = section_for("/home/u/.claude/hooks/task_state.json");
    let Ok(after) = insert_section(path, text, &section) else {
        return;
    };
    if !text.contains("gk:begin") {
        assert_eq!(
            after.matches("<!-- gk:begin").count(),
            1,
            "not one block: {after:?}"
        );
    }
    let again = insert_section(path, &after, &section).expect("a second install refused");
    assert_eq!(again, after, "install is not idempotent: {text:?}");
    let back = remove_section(path, &after).expect("uninstall refused install's file");
    let had_gk = text.contains("gk:begin")
        || text.contains("gk:end")
        || text.contains("Task State Convention");
    if !had_gk {
        assert_eq!(back, text, "uninstall did not give the file back");
    }
    assert_eq!(
        remove_section(path, &back).expect("a second uninstall refused"),
        back,
        "uninstall is not idempotent"
    );
});
