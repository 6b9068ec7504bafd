//! `gk install --managed` and `gk uninstall --managed` on the CLI, in the
//! one test environment (the managed settings file and the machine-wide
//! program point into its temporary root: [`TestEnv`]): what lands where,
//! what a dry run and a missing right do, the byte-exact way back, the
//! drop-in written elsewhere with `--output`, and a user's `gk install`
//! beside a managed one. The client loading such a drop-in is end-to-end
//! scenario 17.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::doctor::all_codes;
use crate::common::{gk_bin, TestEnv};

/// What these tests do in a [`TestEnv`] (every run from the home folder).
trait ManagedEnv {
    fn dropin(&self) -> PathBuf;
    fn out(&self, args: &[&str]) -> (i32, String, String);
    fn ok(&self, args: &[&str]) -> String;
    fn doctor_codes(&self) -> Vec<String>;
}

impl ManagedEnv for TestEnv {
    /// gk's drop-in beside the managed settings file.
    fn dropin(&self) -> PathBuf {
        self.managed_settings()
            .parent()
            .unwrap()
            .join("managed-settings.d")
            .join("gk.json")
    }
    fn out(&self, args: &[&str]) -> (i32, String, String) {
        let run = self.gk(args).current_dir(self.home()).run();
        (run.code.unwrap_or(-1), run.stdout_text(), run.stderr_text())
    }
    fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.out(args);
        assert_eq!(code, 0, "gk {args:?}:\n{out}\n{err}");
        out
    }
    /// Doctor's finding codes, without the smoke runs: these tests ask
    /// what is registered where, and a smoke run's time (`hook-slow`) is
    /// the machine's load, not the install's (under Wine a loaded run
    /// passed 500 ms).
    fn doctor_codes(&self) -> Vec<String> {
        let (_, out, err) = self.out(&["doctor", "--json", "--no-smoke"]);
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
        all_codes(&v)
    }
}

/// The exec-form registrations of a settings file: (event, command, args).
fn registrations(text: &str) -> Vec<(String, String, Vec<String>)> {
    let v: Value = serde_json::from_str(text).unwrap();
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        for group in groups.as_array().unwrap() {
            for h in group["hooks"].as_array().unwrap() {
                let args = h["args"]
                    .as_array()
                    .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
                    .unwrap_or_default();
                out.push((
                    event.clone(),
                    h["command"].as_str().unwrap().to_string(),
                    args,
                ));
            }
        }
    }
    out
}

#[test]
fn a_managed_install_puts_the_program_and_an_exec_form_dropin_in_place() {
    let m = TestEnv::new();
    let out = m.ok(&["install", "--managed", "--yes"]);
    assert!(out.contains("smoke test: gk hook prompt passed"), "{out}");
    let program = m.managed_program();
    assert_eq!(fs::read(&program).unwrap(), fs::read(gk_bin()).unwrap());
    let p = program.to_str().unwrap().to_string();
    let arg = |k: &str| vec!["hook".to_string(), k.to_string()];
    assert_eq!(
        registrations(&fs::read_to_string(m.dropin()).unwrap()),
        [
            ("SessionStart".to_string(), p.clone(), arg("session")),
            ("Stop".to_string(), p.clone(), arg("stop")),
            ("UserPromptSubmit".to_string(), p.clone(), arg("prompt")),
        ]
    );
    // Nothing per user: the user's Claude folder is not made.
    assert!(!m.home().join(".claude").exists());
    // Doctor reads the drop-in as the client does: gk's hooks are there,
    // once each.
    let codes = m.doctor_codes();
    for code in [
        "hook-missing",
        "hook-fires-twice",
        "hook-redundant",
        "binary-missing",
    ] {
        assert!(!codes.iter().any(|c| c == code), "{code} in {codes:?}");
    }
    // Again: nothing to do.
    let out = m.ok(&["install", "--managed", "--yes"]);
    assert!(!out.contains("created"), "{out}");
}

#[test]
fn a_dry_run_shows_the_dropin_and_writes_nothing() {
    let m = TestEnv::new();
    let before = m.files();
    let out = m.ok(&["install", "--managed", "--dry-run"]);
    assert!(out.contains("managed-settings.d"), "{out}");
    assert!(
        out.contains("\"args\""),
        "the diff shows the drop-in: {out}"
    );
    assert!(out.contains("dry run: nothing written"), "{out}");
    assert_eq!(m.files(), before);
}

/// Another program named gk at the machine-wide path (`/usr/local/bin` is
/// where other tools install): install refuses it in one line and writes
/// nothing, as uninstall already left it; a gk build there is replaced.
#[test]
fn another_program_named_gk_at_the_machine_wide_path_is_never_replaced() {
    let m = TestEnv::new();
    let other = b"#!/bin/sh\necho another tool named gk\n";
    fs::create_dir_all(m.managed_program().parent().unwrap()).unwrap();
    fs::write(m.managed_program(), other).unwrap();
    let before = m.files();
    for args in [
        &["install", "--managed", "--yes", "--no-smoke"][..],
        &["install", "--managed", "--dry-run"],
    ] {
        let (code, out, err) = m.out(args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert_eq!(
            err,
            format!(
                "gk: {} is another program (it carries no gk version): gk does not replace it; move it away and run the command again; nothing written\n",
                m.managed_program().display()
            ),
            "{args:?}"
        );
        assert_eq!(m.files(), before, "{args:?}");
    }
    assert_eq!(fs::read(m.managed_program()).unwrap(), other);
    // A gk build there (an earlier install's) gives way.
    fs::copy(crate::common::gk_bin(), m.managed_program()).unwrap();
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
}

#[test]
fn uninstall_takes_a_managed_install_back_byte_for_byte() {
    let m = TestEnv::new();
    // An administrator's own managed file and a drop-in of theirs named
    // gk.json that already holds a key: both come back as they were.
    let managed = "{\n  \"allowManagedHooksOnly\": true\n}\n";
    let theirs = "{\r\n  \"env\": {\"ORG_TOKEN\": \"s3cret\"}\r\n}\r\n";
    fs::create_dir_all(m.dropin().parent().unwrap()).unwrap();
    fs::write(m.managed_settings(), managed).unwrap();
    fs::write(m.dropin(), theirs).unwrap();
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    let text = fs::read_to_string(m.dropin()).unwrap();
    assert!(
        text.contains("ORG_TOKEN") && text.contains("\"args\""),
        "{text}"
    );
    m.ok(&["uninstall", "--managed", "--yes"]);
    assert_eq!(fs::read_to_string(m.dropin()).unwrap(), theirs);
    assert_eq!(fs::read_to_string(m.managed_settings()).unwrap(), managed);
    assert!(!m.managed_program().exists());

    // A drop-in of gk's alone goes, with the folders gk made for it.
    let m = TestEnv::new();
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    m.ok(&["uninstall", "--managed", "--yes"]);
    assert!(!m.dropin().exists());
    assert!(!m.managed_settings().parent().unwrap().exists());
    assert!(!m.managed_program().exists());
    let out = m.ok(&["uninstall", "--managed", "--yes"]);
    assert!(out.contains("nothing to remove"), "{out}");
}

#[test]
fn uninstall_lists_the_folders_it_leaves_empty_before_it_removes_them() {
    let m = TestEnv::new();
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    let dropins = m.dropin().parent().unwrap().to_path_buf();
    let managed_dir = m.managed_settings().parent().unwrap().to_path_buf();
    let before = m.files();
    let out = m.ok(&["uninstall", "--managed", "--dry-run"]);
    for dir in [&dropins, &managed_dir] {
        assert!(
            out.contains(&format!(
                "remove    {}{}",
                dir.display(),
                std::path::MAIN_SEPARATOR
            )),
            "{out}"
        );
    }
    assert!(out.contains("dry run: nothing written"), "{out}");
    assert_eq!(m.files(), before);
    assert!(dropins.is_dir());

    // A file of someone else's in the managed folder: that folder is
    // neither listed nor removed; the emptied drop-in folder is.
    fs::write(managed_dir.join("notes.txt"), "mine").unwrap();
    let out = m.ok(&["uninstall", "--managed", "--yes"]);
    assert!(
        !out.contains(&format!(
            "{}{} ",
            managed_dir.display(),
            std::path::MAIN_SEPARATOR
        )),
        "{out}"
    );
    assert!(!dropins.exists());
    assert_eq!(
        fs::read_to_string(managed_dir.join("notes.txt")).unwrap(),
        "mine"
    );
}

/// Folders an administrator made before gk stay, even empty: uninstall
/// removes only the folders gk's install recorded making. A drop-in
/// holding none of gk's hooks (even `{}`) is named for what it is and left
/// as it is.
#[test]
fn uninstall_leaves_the_folders_gk_did_not_make_and_names_a_dropin_without_gk() {
    let m = TestEnv::new();
    let dropins = m.dropin().parent().unwrap().to_path_buf();
    let managed_dir = m.managed_settings().parent().unwrap().to_path_buf();
    fs::create_dir_all(&dropins).unwrap();
    // On Windows gk's program folder is gk's own to make (and record): here
    // it is there already, like the managed folders.
    fs::create_dir_all(m.managed_program().parent().unwrap()).unwrap();
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    assert!(
        !dropins.join(".gk-install.json").exists(),
        "gk made no folder"
    );
    let out = m.ok(&["uninstall", "--managed", "--yes"]);
    assert!(
        !out.contains("(when nothing else is left in it)"),
        "no folder listed: {out}"
    );
    assert!(dropins.is_dir() && managed_dir.is_dir());
    assert!(!m.dropin().exists());

    // Only the drop-in folder was missing: it alone is gk's to remove.
    fs::remove_dir(&dropins).unwrap();
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    // A second install keeps the record of the first.
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    m.ok(&["uninstall", "--managed", "--yes"]);
    assert!(!dropins.exists());
    assert!(managed_dir.is_dir());

    for theirs in ["{}", "{\n  \"env\": {\"ORG\": \"1\"}\n}\n"] {
        fs::create_dir_all(&dropins).unwrap();
        fs::write(m.dropin(), theirs).unwrap();
        let before = m.files();
        let out = m.ok(&["uninstall", "--managed", "--yes"]);
        assert!(
            out.contains(&format!(
                "gk is not installed for every user here ({} holds none of gk's hooks); nothing to remove",
                m.dropin().display()
            )),
            "{out}"
        );
        assert_eq!(m.files(), before);
    }
}

#[test]
fn output_writes_the_dropin_alone_and_uninstall_takes_it_back() {
    let m = TestEnv::new();
    let file = m.home().join("ship/gk.json");
    let f = file.to_str().unwrap();
    let out = m.ok(&["install", "--managed", "--output", f, "--yes"]);
    assert!(out.contains("it is not copied by --output"), "{out}");
    assert!(out.contains("managed-settings.d"), "{out}");
    let text = fs::read_to_string(&file).unwrap();
    let p = m.managed_program();
    assert!(
        registrations(&text)
            .iter()
            .all(|(_, c, _)| c == p.to_str().unwrap()),
        "{text}"
    );
    assert!(!p.exists(), "--output copies no program");
    assert!(
        !m.dropin().exists(),
        "--output writes nothing in the managed folder"
    );
    m.ok(&["uninstall", "--managed", "--output", f, "--yes"]);
    assert!(!file.exists());
}

/// The documented `--output gk.json`: a bare name (and a relative path
/// whose folder is missing) is a file in the current folder, for install
/// and uninstall alike; nothing is blamed on rights.
#[test]
fn output_takes_a_name_relative_to_the_current_folder() {
    let m = TestEnv::new();
    let out = m.ok(&["install", "--managed", "--output", "gk.json", "--yes"]);
    let file = m.home().join("gk.json");
    assert!(out.contains(file.to_str().unwrap()), "{out}");
    assert!(!registrations(&fs::read_to_string(&file).unwrap()).is_empty());
    m.ok(&["uninstall", "--managed", "--output", "gk.json", "--yes"]);
    assert!(!file.exists());
    // A folder that is not there yet is made, as for an absolute path.
    m.ok(&["install", "--managed", "--output", "ship/gk.json", "--yes"]);
    assert!(m.home().join("ship/gk.json").is_file());
    m.ok(&[
        "uninstall",
        "--managed",
        "--output",
        "ship/gk.json",
        "--yes",
    ]);
    assert!(!m.home().join("ship/gk.json").exists());
}

/// Eight installs and eight uninstalls at once, from an installed state,
/// three times over: the files always end in a state some order of the
/// runs gives (gk installed: the program and a drop-in with its hooks; or
/// not: neither), never a mix. A run that finds a file changed since its
/// plan stops with nothing written and says so.
#[test]
#[allow(clippy::disallowed_methods)] // starts the sixteen runs at once
fn concurrent_installs_and_uninstalls_end_in_a_state_some_order_gives() {
    let m = TestEnv::new();
    for round in 0..3 {
        m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
        let runs: Vec<_> = (0..16)
            .map(|i| {
                let args: &[&str] = if i % 2 == 0 {
                    &["install", "--managed", "--yes", "--no-smoke"]
                } else {
                    &["uninstall", "--managed", "--yes"]
                };
                // Sixteen processes at once: the runs race for the files.
                let mut cmd = m.gk(args).current_dir(m.home()).process().to_command();
                cmd.stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                (args[0], cmd.spawn().unwrap())
            })
            .collect();
        for (what, run) in runs {
            let out = run.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            match out.status.code() {
                Some(0) => {}
                Some(1) => assert!(
                    err.contains("changed since the plan was made"),
                    "round {round}, {what}: {err}"
                ),
                other => panic!("round {round}, {what}: exit {other:?}: {err}"),
            }
        }
        let program = m.managed_program().exists();
        let hooks = fs::read_to_string(m.dropin())
            .map(|t| registrations(&t).len())
            .unwrap_or(0);
        assert!(
            (program && hooks == 3) || (!program && !m.dropin().exists()),
            "round {round}: program {program}, drop-in with {hooks} gk hooks"
        );
    }
}

#[test]
fn without_the_right_to_write_there_one_line_says_why_and_nothing_is_written() {
    let m = TestEnv::new();
    // The managed folder cannot be made: a file is where it would go.
    let folder = m.managed_settings().parent().unwrap().to_path_buf();
    fs::create_dir_all(folder.parent().unwrap()).unwrap();
    fs::write(&folder, "not a folder").unwrap();
    let before = m.files();
    let (code, out, err) = m.out(&["install", "--managed", "--yes"]);
    assert_ne!(code, 0, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(folder.to_str().unwrap()), "{err}");
    assert!(err.contains("--output"), "{err}");
    assert_eq!(m.files(), before);
}

/// The managed folder a link to a folder that is not there (a share not
/// mounted): no right would help, and the line says what is missing.
#[cfg(unix)]
#[test]
fn a_managed_folder_that_links_to_nothing_is_named_and_nothing_is_written() {
    let m = TestEnv::new();
    let folder = m.managed_settings().parent().unwrap().to_path_buf();
    let share = m.root().join("share/managed");
    std::os::unix::fs::symlink(&share, &folder).unwrap();
    let before = m.files();
    let (code, out, err) = m.out(&["install", "--managed", "--yes"]);
    assert_ne!(code, 0, "{out}{err}");
    assert_eq!(
        err,
        format!(
            "gk: cannot write {}: {} is a link to {}, which is not there; nothing written\n",
            m.dropin().display(),
            folder.display(),
            share.display()
        )
    );
    assert_eq!(m.files(), before);
    assert!(!m.root().join("share").exists());
}

#[test]
fn a_users_install_beside_a_managed_one_registers_no_hooks_twice() {
    let m = TestEnv::new();
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    let out = m.ok(&["install", "--yes", "--no-smoke"]);
    assert!(
        out.contains("registers gk's hooks and runs the program it names, so install registers none and copies no program"),
        "{out}"
    );
    // The drop-in runs its own program: a copy in hooks/ would be a
    // second program that nothing runs.
    assert!(!m.binary().exists(), "{out}");
    let settings = fs::read_to_string(m.home().join(".claude/settings.json")).unwrap();
    assert!(!settings.contains("hook prompt"), "{settings}");
    assert!(
        settings.contains("Edit("),
        "the per-user rules still come: {settings}"
    );
    assert!(m.home().join(".claude/CLAUDE.md").exists());
    let codes = m.doctor_codes();
    assert!(!codes.iter().any(|c| c.starts_with("hook-")), "{codes:?}");
    let out = m.ok(&["uninstall", "--yes"]);
    assert!(out.contains("gk uninstall --managed"), "{out}");
    assert!(
        m.dropin().exists(),
        "a user's uninstall leaves the managed install"
    );
}

/// Beside a managed drop-in, the copy a status line runs is kept current
/// by a later `gk install` without `--statusline`; a copy an earlier
/// install made and nothing runs now is named, not updated.
#[test]
fn beside_a_managed_install_the_status_lines_copy_stays_current() {
    let m = TestEnv::new();
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    m.ok(&["install", "--statusline", "--yes", "--no-smoke"]);
    // With a byte order mark, as Windows editors save it.
    let settings = m.home().join(".claude/settings.json");
    let text = fs::read_to_string(&settings).unwrap();
    fs::write(&settings, format!("\u{feff}{text}")).unwrap();
    let fresh = fs::read(m.binary()).unwrap();
    fs::write(m.binary(), b"an older gk").unwrap();
    let out = m.ok(&["install", "--yes", "--no-smoke"]);
    assert!(out.contains("the program for the status line"), "{out}");
    assert_eq!(fs::read(m.binary()).unwrap(), fresh, "{out}");

    let m = TestEnv::new();
    m.ok(&["install", "--yes", "--no-smoke"]);
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    let out = m.ok(&["install", "--yes", "--no-smoke"]);
    assert!(
        out.contains(&format!(
            "note: {} is a copy an earlier install made; no hook or status line runs it now",
            m.binary().display()
        )),
        "{out}"
    );
    m.ok(&["uninstall", "--yes"]);
    assert!(!m.binary().exists());
}

/// Managed settings an administrator wrote by hand, whose hooks run each
/// user's own copy of gk: the user's install copies the program they run,
/// and says so; with `--statusline` it is copied for the status line.
#[test]
fn a_users_install_copies_the_program_a_managed_hook_runs() {
    let m = TestEnv::new();
    let copy = m.binary();
    let hooks: serde_json::Map<String, serde_json::Value> = [
        ("UserPromptSubmit", "prompt"),
        ("Stop", "stop"),
        ("SessionStart", "session"),
    ]
    .into_iter()
    .map(|(event, arg)| {
        let command = format!("\"{}\" hook {arg}", copy.display());
        (
            event.to_string(),
            serde_json::json!([{"hooks": [{"type": "command", "command": command}]}]),
        )
    })
    .collect();
    m.write(
        m.managed_settings(),
        serde_json::to_string_pretty(&serde_json::json!({ "hooks": hooks })).unwrap(),
    );
    let out = m.ok(&["install", "--yes", "--no-smoke"]);
    assert!(
        out.contains(&format!(
            "so install does not; it adds what that cannot carry: the permission rules, the Task State Convention, and the program its hooks run ({})",
            copy.display()
        )),
        "{out}"
    );
    assert!(copy.exists(), "{out}");
    let settings = fs::read_to_string(m.home().join(".claude/settings.json")).unwrap();
    assert!(!settings.contains("hook prompt"), "{settings}");
}

#[test]
fn managed_refuses_the_per_user_options() {
    let m = TestEnv::new();
    for extra in ["--statusline", "--no-permissions"] {
        let (code, _, err) = m.out(&["install", "--managed", extra, "--dry-run"]);
        assert_eq!(code, 2, "{extra}: {err}");
    }
    let (code, _, err) = m.out(&["install", "--output", "x.json", "--dry-run"]);
    assert_eq!(code, 2, "{err}");
}

/// The record of made folders is gk's own file: a link there is never
/// written through, and one uninstall cannot read (a link, a huge file)
/// is left with a note while the rest of the uninstall is done.
#[cfg(unix)]
#[test]
fn a_hostile_record_of_made_folders_is_passed_over() {
    let m = TestEnv::new();
    let dropins = m.dropin().parent().unwrap().to_path_buf();
    fs::create_dir_all(&dropins).unwrap();
    let outside = m.home().join("outside.txt");
    fs::write(&outside, "mine").unwrap();
    let record = dropins.join(".gk-install.json");
    std::os::unix::fs::symlink(&outside, &record).unwrap();
    // The program's folder is made: the record would list it.
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    assert_eq!(fs::read_to_string(&outside).unwrap(), "mine");
    let out = m.ok(&["uninstall", "--managed", "--yes"]);
    assert!(
        out.contains(&format!(
            "left {} in place (not a regular file",
            record.display()
        )),
        "{out}"
    );
    assert!(!m.dropin().exists() && !m.managed_program().exists());
    fs::remove_file(&record).unwrap();
    fs::File::create(&record)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    // Install refuses it in one line naming it, writing nothing; uninstall
    // passes over it.
    let before = m.files();
    let (code, _, err) = m.out(&["install", "--managed", "--yes", "--no-smoke"]);
    assert_eq!((code, err.lines().count()), (1, 1), "{err}");
    assert!(err.contains(record.to_str().unwrap()), "{err}");
    assert_eq!(m.files(), before);
    let out = m.ok(&["uninstall", "--managed", "--yes"]);
    assert!(out.contains("(larger than 16 MiB)"), "{out}");
}

/// The events of a drop-in's registrations, sorted.
fn events(text: &str) -> Vec<String> {
    let mut out: Vec<String> = registrations(text).into_iter().map(|r| r.0).collect();
    out.sort();
    out.dedup();
    out
}

/// `gk install --managed --with-switch-guard`, then `gk uninstall --managed`.
fn guarded_round_trip(m: &TestEnv) {
    let install = ["--managed", "--with-switch-guard", "--yes", "--no-smoke"];
    m.ok(&[&["install"][..], &install[..]].concat());
    m.ok(&["uninstall", "--managed", "--yes"]);
}

#[test]
fn the_switch_guard_is_in_the_dropin_only_with_the_flag_and_uninstall_takes_it_out() {
    let m = TestEnv::new();
    // An administrator's drop-in named gk.json with a key of theirs.
    let theirs = "{\n  \"env\": {\"ORG_FLAG\": \"1\"}\n}\n";
    fs::create_dir_all(m.dropin().parent().unwrap()).unwrap();
    fs::write(m.dropin(), theirs).unwrap();
    // Without the flag: the three hooks, and the plan says why not more.
    let out = m.ok(&["install", "--managed", "--yes"]);
    assert!(
        out.contains("the switch guard (PreModelSwitch, PostModelSwitch) is left out"),
        "{out}"
    );
    let three = ["SessionStart", "Stop", "UserPromptSubmit"];
    assert_eq!(events(&fs::read_to_string(m.dropin()).unwrap()), three);
    // With it: both events too, in the exec form, each smoke-tested.
    let out = m.ok(&["install", "--managed", "--with-switch-guard", "--yes"]);
    assert!(out.contains("as --with-switch-guard asks"), "{out}");
    assert!(
        out.contains("smoke test: gk hook pre-model-switch passed"),
        "{out}"
    );
    let text = fs::read_to_string(m.dropin()).unwrap();
    let p = m.managed_program().to_str().unwrap().to_string();
    let regs = registrations(&text);
    for (event, arg) in [
        ("PreModelSwitch", "pre-model-switch"),
        ("PostModelSwitch", "post-model-switch"),
    ] {
        assert!(
            regs.contains(&(event.into(), p.clone(), vec!["hook".into(), arg.into()])),
            "{text}"
        );
    }
    assert!(text.contains("ORG_FLAG"), "{text}");
    // Again without the flag: the drop-in says what the command line says.
    m.ok(&["install", "--managed", "--yes", "--no-smoke"]);
    assert_eq!(events(&fs::read_to_string(m.dropin()).unwrap()), three);
    // Uninstall takes every one of gk's entries out, the guard included.
    guarded_round_trip(&m);
    assert_eq!(fs::read_to_string(m.dropin()).unwrap(), theirs);

    // A drop-in of gk's alone, with the guard: uninstall removes the file.
    let m = TestEnv::new();
    guarded_round_trip(&m);
    assert!(!m.dropin().exists());
    assert!(!m.managed_program().exists());
}

#[test]
fn with_switch_guard_needs_managed() {
    let m = TestEnv::new();
    let (code, _, err) = m.out(&["install", "--with-switch-guard", "--dry-run"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--managed"), "{err}");
}
