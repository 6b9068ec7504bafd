//! The hook-command recogniser (`hookcmd`) on any words and any folder.
//!
//! Input: a platform byte, then NUL-separated parts. Checked:
//! - `normalize` / `classify` take any string (no panic), on every platform;
//! - round trip of the exec form: a program and arguments, spelled as gk
//!   spells an exec-form handler (`exec_spelling`), read back as exactly
//!   those arguments (nothing expands, nothing is split or joined);
//! - the command gk registers for `<claude dir>` = the first part starts
//!   the binary in that folder with `hook <kind>` (`verified_wanted_hooks`),
//!   for any folder name Linux and macOS allow and any Windows allows but
//!   those with `$`, a backquote or `%`, and is recognised as gk's.
#![no_main]

use std::path::PathBuf;

use gk::testing::hookcmd::{classify, exec_spelling, normalize, CommandContext, Owner, ShellForm};
use gk::testing::platform::Os;
use gk::testing::setup::verified_wanted_hooks;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(all) = std::str::from_utf8(rest) else {
        return;
    };
    let os = [Os::Linux, Os::MacOs, Os::Windows][usize::from(which % 3)];
    let (home, sep) = if os.is_windows() {
        (r"C:\Users\u", '\\')
    } else {
        ("/home/u", '/')
    };
    let parts: Vec<&str> = all.split('\0').collect();

    let ctx = CommandContext {
        os,
        home: PathBuf::from(home),
        claude_dir: PathBuf::from(format!("{home}{sep}.claude")),
        claude_config_dir: None,
    };
    let _ = normalize(all, &ctx);
    let _ = classify(all, &ctx);

    // Exec form: the arguments come back exactly.
    if let [program, args @ ..] = parts.as_slice() {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let spelled = exec_spelling(program, &args);
        // A Python interpreter runs its script: the arguments shift (tested
        // in hookcmd's unit tests), so those programs are left out here.
        let normal = gk::testing::hookcmd::normalize_path(program, os).to_ascii_lowercase();
        let base = normal.rsplit(['/', '\\']).next().unwrap_or("").to_string();
        if !program.is_empty() && !base.starts_with("py") {
            let inv = normalize(&spelled, &ctx)
                .unwrap_or_else(|| panic!("exec form not read back: {spelled:?}"));
            assert_eq!(inv.args, args, "exec form args changed: {spelled:?}");
        }
    }

    // The registered command starts the binary in any allowed folder.
    let name = parts[0];
    // Windows forbids the first nine in a file name. `$`, a backquote and
    // `%` are allowed there but cannot be spelled for both Git Bash and
    // gk's reading of Windows commands; install refuses such a folder with
    // nothing written (docs/limitations.md), which verified_wanted_hooks
    // guarantees, so the round trip is only asked of the other names.
    let forbidden: &[char] = if os.is_windows() {
        &['<', '>', ':', '"', '|', '?', '*', '/', '\\', '$', '`', '%']
    } else {
        &['/']
    };
    if name.is_empty()
        || name
            .chars()
            .any(|c| c.is_control() || forbidden.contains(&c))
        || name == "."
        || name == ".."
    {
        return;
    }
    if os.is_windows() && (name.ends_with(' ') || name.ends_with('.')) {
        return; // Windows drops these from a file name
    }
    for dir in [
        format!("{home}{sep}{name}"),
        if os.is_windows() {
            format!(r"D:\{name}")
        } else {
            format!("/srv/{name}")
        },
    ] {
        let ctx = CommandContext {
            os,
            home: PathBuf::from(home),
            claude_dir: PathBuf::from(&dir),
            claude_config_dir: Some(PathBuf::from(&dir)),
        };
        let binary = PathBuf::from(format!("{dir}{sep}hooks{sep}{}", os.binary_name()));
        let shells: &[ShellForm] = if os.is_windows() {
            &[ShellForm::Bash, ShellForm::PowerShell]
        } else {
            &[ShellForm::Bash]
        };
        for &shell in shells {
            let wanted = verified_wanted_hooks(&ctx, shell, None, &binary, None)
                .unwrap_or_else(|e| panic!("{dir:?} {shell:?}: {e}"));
            for (kind, want) in wanted.iter() {
                assert_eq!(classify(&want.command, &ctx), Owner::Gk(kind));
            }
        }
    }
});
