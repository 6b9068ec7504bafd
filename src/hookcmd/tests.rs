use super::*;

fn linux() -> CommandContext {
    CommandContext::with_home(Os::Linux, "/home/u")
}

fn mac() -> CommandContext {
    CommandContext::with_home(Os::MacOs, "/Users/Jo Smith")
}

fn windows() -> CommandContext {
    CommandContext::with_home(Os::Windows, r"C:\Users\Ann")
}

#[test]
fn with_home_puts_the_claude_dir_under_home_in_native_form() {
    assert_eq!(linux().claude_dir, PathBuf::from("/home/u/.claude"));
    assert_eq!(windows().claude_dir, PathBuf::from(r"C:\Users\Ann\.claude"));
    assert_eq!(windows().claude_config_dir, None);
}

fn inv(program: &str, args: &[&str]) -> Option<Invocation> {
    Some(Invocation {
        program: program.to_string(),
        args: args.iter().map(|s| s.to_string()).collect(),
        shown: program.to_string(),
    })
}

#[test]
fn canonical_linux_and_mac_use_quoted_home_variable() {
    let c = canonical(HookKind::Prompt, &linux(), ShellForm::Bash);
    assert_eq!(c.command, r#""$HOME/.claude/hooks/gk" hook prompt"#);
    assert_eq!(c.shell, None);
    let c = canonical(HookKind::Stop, &mac(), ShellForm::Bash);
    assert_eq!(c.command, r#""$HOME/.claude/hooks/gk" hook stop"#);
}

#[test]
fn canonical_windows_git_bash_adds_exe() {
    let c = canonical(HookKind::Prompt, &windows(), ShellForm::Bash);
    assert_eq!(c.command, r#""$HOME/.claude/hooks/gk.exe" hook prompt"#);
    assert_eq!(c.shell, None);
}

#[test]
fn canonical_windows_powershell_uses_call_operator() {
    let c = canonical(HookKind::Stop, &windows(), ShellForm::PowerShell);
    assert_eq!(
        c.command,
        r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" hook stop"#
    );
    assert_eq!(c.shell, Some("powershell"));
}

#[test]
fn canonical_exec_form_is_the_absolute_program_and_its_words() {
    let c = canonical(HookKind::Prompt, &windows(), ShellForm::Exec);
    assert_eq!(c.command, r"C:\Users\Ann\.claude\hooks\gk.exe");
    assert_eq!(c.args, Some(vec!["hook".to_string(), "prompt".to_string()]));
    assert_eq!(c.shell, None);
    assert_eq!(
        c.run_command(),
        r"'C:\Users\Ann\.claude\hooks\gk.exe' 'hook' 'prompt'"
    );
    // A user name with a space needs no quoting: no shell splits it.
    let mut spaced = windows();
    spaced.home = PathBuf::from(r"C:\Users\Ann Lee");
    spaced.claude_dir = PathBuf::from("C:/Users/Ann Lee/.claude/");
    assert_eq!(
        canonical(HookKind::Stop, &spaced, ShellForm::Exec).command,
        r"C:\Users\Ann Lee\.claude\hooks\gk.exe"
    );
    let c = canonical(HookKind::Stop, &mac(), ShellForm::Exec);
    assert_eq!(c.command, "/Users/Jo Smith/.claude/hooks/gk");
    assert_eq!(c.args, Some(vec!["hook".to_string(), "stop".to_string()]));
}

#[test]
fn canonical_with_config_dir_under_home_stays_home_relative() {
    let mut ctx = linux();
    ctx.claude_dir = PathBuf::from("/home/u/cfg/claude");
    ctx.claude_config_dir = Some(ctx.claude_dir.clone());
    let c = canonical(HookKind::Prompt, &ctx, ShellForm::Bash);
    assert_eq!(c.command, r#""$HOME/cfg/claude/hooks/gk" hook prompt"#);
}

#[test]
fn canonical_with_config_dir_elsewhere_is_absolute() {
    let mut ctx = linux();
    ctx.claude_dir = PathBuf::from("/opt/claude conf");
    ctx.claude_config_dir = Some(ctx.claude_dir.clone());
    let c = canonical(HookKind::Stop, &ctx, ShellForm::Bash);
    assert_eq!(c.command, r#""/opt/claude conf/hooks/gk" hook stop"#);

    let mut w = windows();
    w.claude_dir = PathBuf::from(r"D:\claude");
    w.claude_config_dir = Some(w.claude_dir.clone());
    assert_eq!(
        canonical(HookKind::Prompt, &w, ShellForm::Bash).command,
        r#""D:/claude/hooks/gk.exe" hook prompt"#
    );
    assert_eq!(
        canonical(HookKind::Prompt, &w, ShellForm::PowerShell).command,
        r#"& "D:\claude\hooks\gk.exe" hook prompt"#
    );
}

/// Found by an attack under Wine: lower-casing a Kelvin sign (3 bytes)
/// gives a `k` (1 byte), and a dotted capital I grows, so the relative
/// part was cut inside a character: install and `doctor --fix` panicked.
/// Such a folder is spelled absolute, and is read back as gk's program.
#[test]
fn a_name_whose_lower_case_changes_length_is_spelled_in_full() {
    for dir in [
        "C:\\Users\\Ann\\a\u{212a}",
        "C:\\Users\\Ann\\\u{130}\u{130}",
    ] {
        let mut w = windows();
        w.claude_dir = PathBuf::from(dir);
        w.claude_config_dir = Some(w.claude_dir.clone());
        let bash = canonical(HookKind::Prompt, &w, ShellForm::Bash).command;
        assert_eq!(
            bash,
            format!("\"{}/hooks/gk.exe\" hook prompt", dir.replace('\\', "/"))
        );
        assert!(normalize(&bash, &w).is_some(), "{bash}");
        let ps = canonical(HookKind::Prompt, &w, ShellForm::PowerShell).command;
        assert_eq!(ps, format!("& \"{dir}\\hooks\\gk.exe\" hook prompt"));
        let exec = canonical(HookKind::Prompt, &w, ShellForm::Exec);
        assert_eq!(exec.command, format!("{dir}\\hooks\\gk.exe"));
    }
}

/// PowerShell reads “ ” „ as `"`: each is escaped with a backtick, and a
/// folder under home holding one is spelled in full (escaped) rather than
/// from `$env:USERPROFILE` unescaped.
#[test]
fn typographic_double_quotes_are_escaped_for_powershell() {
    let mut w = windows();
    w.claude_dir = PathBuf::from("D:\\a\u{201c}b\u{201e}\\cfg");
    w.claude_config_dir = Some(w.claude_dir.clone());
    assert_eq!(
        canonical(HookKind::Prompt, &w, ShellForm::PowerShell).command,
        "& \"D:\\a`\u{201c}b`\u{201e}\\cfg\\hooks\\gk.exe\" hook prompt"
    );
    let mut w = windows();
    w.claude_dir = PathBuf::from("C:\\Users\\Ann\\x\u{201d}y");
    w.claude_config_dir = Some(w.claude_dir.clone());
    assert_eq!(
        canonical(HookKind::Prompt, &w, ShellForm::PowerShell).command,
        "& \"C:\\Users\\Ann\\x`\u{201d}y\\hooks\\gk.exe\" hook prompt"
    );
    assert_eq!(
        ps_single_quoted("Ann\u{2019}s 'x'"),
        "'Ann\u{2019}\u{2019}s ''x'''"
    );
}

#[test]
fn a_folder_named_like_a_program_keeps_its_name() {
    // Found by fuzz/fuzz_targets/hook_command.rs: `.exe` was dropped from
    // the folder name too, and the command named another folder.
    let mut w = windows();
    w.claude_dir = PathBuf::from(r"C:\Users\Ann\.exe.exe");
    w.claude_config_dir = Some(w.claude_dir.clone());
    assert_eq!(
        canonical(HookKind::Stop, &w, ShellForm::Bash).command,
        r#""$HOME/.exe.exe/hooks/gk.exe" hook stop"#
    );
}

#[test]
fn a_percent_sign_is_a_variable_only_on_windows() {
    // Found by fuzz/fuzz_targets/hook_command.rs: a Linux folder named
    // `50%off` made install refuse its own command, and `date +%s`
    // read as undecidable.
    assert_eq!(
        normalize("\"/home/u/50%off/hooks/gk\" hook stop", &linux()),
        inv("/home/u/50%off/hooks/gk", &["hook", "stop"])
    );
    assert_eq!(normalize("date +%s", &mac()), inv("date", &["+%s"]));
    assert_eq!(
        normalize(r"%USERPROFILE%\.claude\hooks\gk.exe hook stop", &windows()),
        inv("c:/users/ann/.claude/hooks/gk", &["hook", "stop"])
    );
}

#[test]
fn a_backslash_in_a_linux_config_dir_is_part_of_the_name() {
    let mut ctx = linux();
    for dir in ["/home/u/a\\b", "/srv/a\\b"] {
        ctx.claude_dir = PathBuf::from(dir);
        ctx.claude_config_dir = Some(ctx.claude_dir.clone());
        let c = canonical(HookKind::Prompt, &ctx, ShellForm::Bash);
        assert_eq!(
            c.command,
            format!("\"{}/hooks/gk\" hook prompt", dir.replace('\\', "\\\\"))
        );
        assert_eq!(
            normalize(&c.command, &ctx),
            Some(Invocation {
                program: format!("{dir}/hooks/gk"),
                args: vec!["hook".into(), "prompt".into()],
                shown: format!("{dir}/hooks/gk"),
            }),
            "{}",
            c.command
        );
    }
}

#[test]
fn canonical_forms_classify_as_gk() {
    for ctx in [linux(), mac(), windows()] {
        for kind in HookKind::ALL {
            let shells: &[ShellForm] = if ctx.os.is_windows() {
                &[ShellForm::Bash, ShellForm::PowerShell, ShellForm::Exec]
            } else {
                &[ShellForm::Bash, ShellForm::Exec]
            };
            for &shell in shells {
                let c = canonical(kind, &ctx, shell);
                let run = c.run_command();
                assert_eq!(classify(&run, &ctx), Owner::Gk(kind), "{run}");
            }
        }
    }
}

#[test]
fn linux_spellings_all_run_the_same_program() {
    let ctx = linux();
    let expected = inv("/home/u/.claude/hooks/gk", &["hook", "prompt"]);
    for s in [
        "$HOME/.claude/hooks/gk hook prompt",
        "\"$HOME/.claude/hooks/gk\" hook prompt",
        "${HOME}/.claude/hooks/gk hook prompt",
        "~/.claude/hooks/gk hook prompt",
        "/home/u/.claude/hooks/gk hook prompt",
        "'/home/u/.claude/hooks/gk' hook prompt",
        "/home/u//.claude/./hooks/gk   hook prompt",
    ] {
        assert_eq!(normalize(s, &ctx), expected, "{s}");
    }
}

#[test]
fn mac_home_with_space_quoted() {
    let ctx = mac();
    assert_eq!(
        normalize("\"$HOME/.claude/hooks/gk\" hook stop", &ctx),
        inv("/Users/Jo Smith/.claude/hooks/gk", &["hook", "stop"])
    );
    assert_eq!(
        normalize("/Users/Jo\\ Smith/.claude/hooks/gk hook stop", &ctx),
        inv("/Users/Jo Smith/.claude/hooks/gk", &["hook", "stop"])
    );
}

#[test]
fn windows_spellings_all_run_the_same_program() {
    let ctx = windows();
    let expected = inv("c:/users/ann/.claude/hooks/gk", &["hook", "stop"]);
    for s in [
        r#""$HOME/.claude/hooks/gk.exe" hook stop"#,
        "$HOME/.claude/hooks/gk hook stop",
        "~/.claude/hooks/gk.exe hook stop",
        r"C:\Users\Ann\.claude\hooks\gk.exe hook stop",
        r#""C:\Users\Ann\.claude\hooks\gk.exe" hook stop"#,
        "C:/Users/Ann/.claude/hooks/gk.exe hook stop",
        "/c/Users/Ann/.claude/hooks/gk.exe hook stop",
        "/C/users/ann/.CLAUDE/hooks/GK.EXE hook stop",
        r"%USERPROFILE%\.claude\hooks\gk.exe hook stop",
        "$USERPROFILE/.claude/hooks/gk.exe hook stop",
        r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" hook stop"#,
        // Windows drops trailing dots and spaces (found under Wine: the
        // Stop hook fired twice, install kept this spelling beside its own).
        r"C:\Users\Ann\.claude\hooks\gk.exe. hook stop",
        r#""C:\Users\Ann.\.claude\hooks\gk.exe . " hook stop"#,
    ] {
        assert_eq!(normalize(s, &ctx), expected, "{s}");
    }
}

#[test]
fn claude_config_dir_variable_expands_only_when_set() {
    let mut ctx = linux();
    assert_eq!(
        normalize("$CLAUDE_CONFIG_DIR/hooks/gk hook prompt", &ctx),
        None
    );
    ctx.claude_config_dir = Some(PathBuf::from("/cfg"));
    assert_eq!(
        normalize("\"${CLAUDE_CONFIG_DIR}/hooks/gk\" hook prompt", &ctx),
        inv("/cfg/hooks/gk", &["hook", "prompt"])
    );
}

#[test]
fn python_hooks_are_identified_by_their_script() {
    let w = windows();
    assert_eq!(
        normalize(
            "/c/miniforge3/python /c/Users/Ann/.claude/hooks/gatekeeper.py",
            &w
        ),
        inv("c:/users/ann/.claude/hooks/gatekeeper.py", &[])
    );
    assert_eq!(
        classify(
            "/c/miniforge3/python /c/Users/ann/.claude/hooks/gatekeeper.py",
            &w
        ),
        Owner::Legacy(HookKind::Prompt)
    );
    assert_eq!(
        classify("python3 -u ~/.claude/hooks/state_monitor.py", &linux()),
        Owner::Legacy(HookKind::Stop)
    );
    // Options that take a value: UTF-8 mode is common on Windows.
    assert_eq!(
        classify(
            r"C:\miniforge3\python.exe -X utf8 -W ignore C:\Users\Ann\.claude\hooks\gatekeeper.py",
            &w
        ),
        Owner::Legacy(HookKind::Prompt)
    );
    assert_eq!(
        classify("python3 -m gatekeeper.py", &linux()),
        Owner::Foreign,
        "-m runs a module, not the script"
    );
    assert_eq!(
        classify(
            r"C:\miniforge3\python.exe C:\Users\Ann\.claude\hooks\STATE_MONITOR.PY",
            &w
        ),
        Owner::Legacy(HookKind::Stop)
    );
}

#[test]
fn a_script_named_like_a_python_hook_but_with_arguments_is_foreign() {
    assert_eq!(
        classify("python3 /opt/acme/gatekeeper.py --policy strict", &linux()),
        Owner::Foreign
    );
}

#[test]
fn exec_form_is_read_literally() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let spelled = exec_spelling("/home/u/.claude/hooks/gk", &args(&["hook", "stop"]));
    assert_eq!(spelled, "'/home/u/.claude/hooks/gk' 'hook' 'stop'");
    assert_eq!(classify(&spelled, &linux()), Owner::Gk(HookKind::Stop));
    // No shell runs in exec form, so nothing expands: `$HOME` stays text.
    let literal = exec_spelling("$HOME/.claude/hooks/gk", &args(&["hook", "stop"]));
    assert_eq!(
        normalize(&literal, &linux()),
        inv("$HOME/.claude/hooks/gk", &["hook", "stop"])
    );
    let w = exec_spelling(
        r"C:\Users\Ann\.claude\hooks\gk.exe",
        &args(&["hook", "prompt"]),
    );
    assert_eq!(
        normalize(&w, &windows()),
        inv("c:/users/ann/.claude/hooks/gk", &["hook", "prompt"])
    );
    let quote = exec_spelling("/opt/it's/gk", &args(&["hook", "prompt"]));
    assert_eq!(
        normalize(&quote, &linux()),
        inv("/opt/it's/gk", &["hook", "prompt"])
    );
    // Found by fuzz/fuzz_targets/hook_command.rs: an apostrophe on Windows.
    let w = exec_spelling(
        r"C:\Users\O'Brien\.claude\hooks\gk.exe",
        &args(&["hook", "it's"]),
    );
    assert_eq!(
        normalize(&w, &windows()),
        inv("c:/users/o'brien/.claude/hooks/gk", &["hook", "it's"])
    );
    assert_eq!(
        classify(
            &exec_spelling(
                r"C:\Users\O'Brien\.claude\hooks\gk.exe",
                &args(&["hook", "stop"])
            ),
            &windows()
        ),
        Owner::Gk(HookKind::Stop)
    );
}

#[test]
fn the_session_check_is_gks_and_has_no_python_counterpart() {
    assert_eq!(
        classify("\"$HOME/.claude/hooks/gk\" hook session", &linux()),
        Owner::Gk(HookKind::Session)
    );
    assert_eq!(
        classify(
            r"C:\Users\Ann\.claude\hooks\GK.EXE hook session",
            &windows()
        ),
        Owner::Gk(HookKind::Session)
    );
    assert_eq!(HookKind::Session.legacy_script(), None);
    for script in ["session.py", "session_start.py", "gatekeeper_session.py"] {
        assert_eq!(
            classify_under(
                "SessionStart",
                &format!("python3 ~/.claude/hooks/{script}"),
                &linux()
            ),
            Owner::Foreign,
            "{script}"
        );
    }
    // The v5 scripts under SessionStart are another tool's.
    assert_eq!(
        classify_under(
            "SessionStart",
            "python3 ~/.claude/hooks/gatekeeper.py",
            &linux()
        ),
        Owner::Foreign
    );
    assert_eq!(
        HookKind::ALL.map(HookKind::index),
        [0, 1, 2, 3, 4],
        "index() is the position in ALL"
    );
}

#[test]
fn gk_on_path_or_elsewhere_is_still_gk() {
    assert_eq!(
        classify("gk hook prompt", &linux()),
        Owner::Gk(HookKind::Prompt)
    );
    assert_eq!(
        classify("/home/u/.cargo/bin/gk hook stop", &linux()),
        Owner::Gk(HookKind::Stop)
    );
    assert_eq!(
        classify("GK.EXE hook stop", &windows()),
        Owner::Gk(HookKind::Stop)
    );
}

#[test]
fn other_commands_are_foreign() {
    let ctx = linux();
    for s in [
        "gk hook promt",
        "gk hook prompt extra",
        "gk rules",
        "/usr/bin/gkx hook prompt",
        "echo gk hook prompt",
        "$HOME/.claude/hooks/gk hook prompt | tee /tmp/x",
        "$HOME/.claude/hooks/gk hook prompt && echo hi",
        "$HOME/.claude/hooks/gk hook prompt > /dev/null",
        "FOO=1 $HOME/.claude/hooks/gk hook prompt",
        "$OTHER/gk hook prompt",
        "$(which gk) hook prompt",
        "node ~/.claude/hooks/gatekeeper.js",
        "~bob/.claude/hooks/gk hook prompt",
        "",
        "\"unterminated",
    ] {
        assert_eq!(classify(s, &ctx), Owner::Foreign, "{s:?}");
    }
    assert_eq!(
        classify("echo gatekeeper.py", &ctx),
        Owner::Foreign,
        "a script name as an argument is not the program"
    );
}

#[test]
fn linux_is_case_sensitive_windows_is_not() {
    assert_ne!(
        normalize("/home/u/.claude/hooks/gk hook prompt", &linux()),
        normalize("/HOME/u/.claude/hooks/gk hook prompt", &linux())
    );
    assert_eq!(
        normalize("C:/Users/Ann/.claude/hooks/gk.exe hook prompt", &windows()),
        normalize("c:/users/ann/.claude/hooks/GK hook prompt", &windows())
    );
}

#[test]
fn undecidable_commands_give_none() {
    let ctx = linux();
    assert_eq!(
        normalize("$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh", &ctx),
        None
    );
    assert_eq!(normalize("a; b", &ctx), None);
    assert_eq!(normalize("python3 -c 'print(1)'", &ctx), None);
}

#[test]
fn normalize_path_windows_forms() {
    assert_eq!(normalize_path(r"C:\X\Y.EXE", Os::Windows), "c:/x/y");
    assert_eq!(normalize_path(r"C:\X\gk.exe.", Os::Windows), "c:/x/gk");
    assert_eq!(normalize_path(r"C:\X\..\gk.exe", Os::Windows), "c:/x/../gk");
    assert_eq!(normalize_path("/x/gk.", Os::Linux), "/x/gk.");
    assert_eq!(
        normalize_path("/d/tools/gk.exe", Os::Windows),
        "d:/tools/gk"
    );
    assert_eq!(
        normalize_path("/usr/bin/gk.exe", Os::Linux),
        "/usr/bin/gk.exe"
    );
}

#[test]
fn a_windows_program_is_compared_folded_and_shown_as_it_was_written() {
    let ctx = windows();
    let inv = normalize(r#""C:\Users\Ann\.claude\hooks\gk.exe" hook prompt"#, &ctx).unwrap();
    assert_eq!(inv.program, "c:/users/ann/.claude/hooks/gk");
    assert_eq!(inv.shown, "C:/Users/Ann/.claude/hooks/gk.exe");
    let home = normalize("~/.claude/hooks/gk hook stop", &ctx).unwrap();
    assert_eq!(home.shown, "C:/Users/Ann/.claude/hooks/gk");
    let bare = normalize("GK.exe hook stop", &ctx).unwrap();
    assert_eq!(
        (bare.program.as_str(), bare.shown.as_str()),
        ("gk", "GK.exe")
    );
}

#[test]
fn each_row_of_the_table_sits_at_its_kind_s_index_and_names_are_unique() {
    for (i, row) in HOOKS.iter().enumerate() {
        assert_eq!(row.kind.index(), i, "{:?}", row.kind);
        assert_eq!(HookKind::from_arg(row.arg), Some(row.kind));
        assert!(
            serde_json::from_str::<serde_json::Value>(row.smoke_fields)
                .is_ok_and(|v| v.is_object()),
            "{:?}",
            row.kind
        );
    }
    for (i, a) in HOOKS.iter().enumerate() {
        for b in &HOOKS[i + 1..] {
            assert!(a.event != b.event && a.arg != b.arg);
        }
    }
}

#[test]
fn always_is_the_rows_without_a_first_version_and_versions_parse_as_printed() {
    let always: Vec<HookKind> = HOOKS
        .iter()
        .filter(|h| h.since.is_none())
        .map(|h| h.kind)
        .collect();
    assert_eq!(always, HookKind::ALWAYS);
    assert_eq!(HookKind::known_to(None), HookKind::ALWAYS);
    assert_eq!(
        HookKind::known_to(Some(ClientVersion(2, 1, 233))),
        HookKind::ALWAYS
    );
    assert_eq!(HookKind::known_to(Some(SWITCH_EVENTS_SINCE)), HookKind::ALL);
    // Measured on both sides of the line: 2.1.250 does not know the
    // switch events, 2.1.251 does.
    assert_eq!(
        HookKind::known_to(Some(ClientVersion(2, 1, 250))),
        HookKind::ALWAYS
    );
    assert_eq!(
        HookKind::known_to(Some(ClientVersion(2, 1, 251))),
        HookKind::ALL
    );
    assert_eq!(
        HookKind::known_to(Some(ClientVersion(3, 0, 0))),
        HookKind::ALL
    );
    assert_eq!(
        ClientVersion::parse("2.1.332 (Claude Code)\n"),
        Some(ClientVersion(2, 1, 332))
    );
    assert_eq!(
        ClientVersion::parse("Claude Code 10.20.3"),
        Some(ClientVersion(10, 20, 3))
    );
    for bad in ["", "2.1", "2.1.x", "v2.1.3", "2.1.3.4", "99999999999.1.1"] {
        assert_eq!(ClientVersion::parse(bad), None, "{bad}");
    }
}

/// What a person types: sh reads each quoted word back as itself, quotes,
/// dollars, backquotes and backslashes included, whether `sh_word` left it
/// plain or quoted it.
#[cfg(unix)]
#[test]
#[allow(clippy::disallowed_types, clippy::disallowed_methods)]
fn an_sh_quoted_word_is_read_back_by_sh_as_it_is() {
    for word in [
        "it's",
        "''",
        "'",
        "a b",
        "$HOME",
        "`id`",
        r"\n\",
        "x'\"'y",
        "",
        r"/w/a\b",
        "/w/a,b@c%d=e+f",
    ] {
        for quoted in [sh_single_quoted(word), sh_word(word)] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {quoted}"))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), word, "{quoted}");
        }
    }
    // Left plain only when nothing in it needs quoting.
    assert_eq!(sh_word("/w/a,b@c%d=e+f"), "/w/a,b@c%d=e+f");
    assert_eq!(sh_word(r"/w/a\b"), r"'/w/a\b'");
}

/// PowerShell's plain words: no comma (an array), no `@` (splatting), a
/// backslash as it is; the rest in single quotes.
#[test]
fn a_ps_word_is_plain_only_when_powershell_reads_it_literally() {
    assert_eq!(ps_word(r"C:\Users\Ann\p-1.x"), r"C:\Users\Ann\p-1.x");
    for odd in [
        r"C:\a,b", r"C:\@b", r"C:\a b", r"C:\$x", "C:\\a`b", r"C:\(a)", r"C:\a;b", "",
    ] {
        assert_eq!(ps_word(odd), ps_single_quoted(odd), "{odd}");
    }
}
