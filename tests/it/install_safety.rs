//! What install, uninstall and enable/disable must never do to a user's
//! files, each shown on the CLI in a temporary HOME: delete what a link
//! points to or a CLAUDE.md that was there before install, grow CLAUDE.md
//! on every run, report a switch the hooks will not see, fail half way when
//! another run got there first, or leave temp files behind after a kill.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Gk, TestEnv};

/// A temporary machine with a Claude folder holding `hooks/`.
fn safety_home() -> TestEnv {
    let env = TestEnv::new();
    fs::create_dir_all(env.hooks_dir()).unwrap();
    env
}

/// What these tests do in a [`TestEnv`] (every run from the home folder).
trait SafetyEnv {
    fn cmd(&self, args: &[&str]) -> Gk;
    fn out(&self, args: &[&str]) -> (i32, String, String);
    fn ok(&self, args: &[&str]) -> String;
    fn install(&self);
    fn uninstall(&self);
    fn names_with(&self, needle: &str) -> Vec<PathBuf>;
}

impl SafetyEnv for TestEnv {
    fn cmd(&self, args: &[&str]) -> Gk {
        let mut gk = self.gk(args);
        gk.current_dir(self.home());
        gk
    }

    /// Run and return (exit code, stdout, stderr).
    fn out(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.cmd(args).output();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.out(args);
        assert_eq!(code, 0, "{args:?} failed\n{out}\n{err}");
        out
    }

    fn install(&self) {
        self.ok(&["install", "--yes", "--no-smoke"]);
    }

    fn uninstall(&self) {
        self.ok(&["uninstall", "--yes"]);
    }

    /// Every path under the temporary root (home, data folder) whose name
    /// contains `needle`.
    fn names_with(&self, needle: &str) -> Vec<PathBuf> {
        fn walk(dir: &Path, needle: &str, out: &mut Vec<PathBuf>) {
            for e in fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if e.file_name().to_string_lossy().contains(needle) {
                    out.push(p.clone());
                }
                if fs::symlink_metadata(&p).unwrap().is_dir() {
                    walk(&p, needle, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(self.root(), needle, &mut out);
        out
    }
}

#[cfg(unix)] // the link tests: making links on Windows needs a privilege
fn is_link(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

// ------------------------------------------------------------ item 1: links

#[cfg(unix)]
#[test]
fn uninstall_removes_a_binary_link_and_keeps_what_it_points_to() {
    let h = safety_home();
    let mine = h.home().join("bin/gk-mine");
    fs::create_dir_all(mine.parent().unwrap()).unwrap();
    fs::copy(env!("CARGO_BIN_EXE_gk"), &mine).unwrap();
    let link = h.claude().join("hooks/gk");
    std::os::unix::fs::symlink(&mine, &link).unwrap();
    fs::write(h.claude().join("settings.json"), "{}\n").unwrap();
    h.install();
    assert!(is_link(&link), "install kept the link");
    h.uninstall();
    assert!(mine.is_file(), "uninstall deleted the link's target");
    assert!(
        fs::symlink_metadata(&link).is_err(),
        "the link is still there"
    );
}

#[cfg(unix)]
#[test]
fn a_claude_md_linked_into_dotfiles_gets_its_text_back_and_stays() {
    for before in ["# My notes\n\nBe brief.\n", ""] {
        let h = safety_home();
        let dotfiles = h.home().join("dotfiles/CLAUDE.md");
        fs::create_dir_all(dotfiles.parent().unwrap()).unwrap();
        fs::write(&dotfiles, before).unwrap();
        let link = h.claude().join("CLAUDE.md");
        std::os::unix::fs::symlink(&dotfiles, &link).unwrap();
        h.install();
        assert!(fs::read_to_string(&dotfiles).unwrap().contains("gk:begin"));
        h.uninstall();
        assert!(is_link(&link), "{before:?}: the link was removed");
        assert_eq!(
            fs::read_to_string(&dotfiles).ok().as_deref(),
            Some(before),
            "{before:?}: the dotfiles file"
        );
    }
}

/// A CLAUDE.md or settings.json that is a link into a folder that does
/// not exist: install made the folders and the file, which uninstall left
/// behind. Now install refuses in one line naming the link, and nothing
/// is made anywhere. (A link into a folder that is there is written
/// through: `a_settings_link_to_a_file_not_made_yet_is_written_through`.)
#[cfg(unix)]
#[test]
fn a_link_to_nothing_is_never_created_through() {
    for name in ["CLAUDE.md", "settings.json"] {
        let h = safety_home();
        let target = h.home().join("nowhere/dot").join(name);
        let link = h.claude().join(name);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let before = h.files();
        let (code, out, err) = h.out(&["install", "--yes", "--no-smoke"]);
        assert_eq!(code, 1, "{name}: {out}{err}");
        assert_eq!(
            err,
            format!(
                "gk: {} is a link to {}, whose folder does not exist: gk does not make folders through a link; remove the link or make the folder; nothing written\n",
                link.display(),
                target.display()
            ),
            "{name}"
        );
        assert!(!h.home().join("nowhere").exists(), "{name}");
        assert_eq!(h.files(), before, "{name}");
        assert!(is_link(&link));
    }
}

#[test]
fn an_empty_claude_md_that_was_there_before_install_is_kept() {
    let h = safety_home();
    let md = h.claude().join("CLAUDE.md");
    fs::write(&md, "").unwrap();
    h.install();
    h.uninstall();
    assert_eq!(
        fs::read(&md).ok(),
        Some(Vec::new()),
        "CLAUDE.md was deleted"
    );
    // One install created: uninstall takes it away again.
    fs::remove_file(&md).unwrap();
    h.install();
    assert!(md.is_file());
    h.uninstall();
    assert!(!md.exists(), "the CLAUDE.md install made is still there");
}

#[cfg(unix)]
#[test]
fn purge_removes_links_to_the_state_and_config_not_their_targets() {
    let h = safety_home();
    h.install();
    let dot = h.home().join("dotfiles");
    fs::create_dir_all(&dot).unwrap();
    for name in ["gk.json", "task_state.json"] {
        let target = dot.join(name);
        fs::write(&target, "{}\n").unwrap();
        let at = h.claude().join("hooks").join(name);
        fs::remove_file(&at).ok();
        std::os::unix::fs::symlink(&target, &at).unwrap();
    }
    h.ok(&["uninstall", "--yes", "--purge"]);
    for name in ["gk.json", "task_state.json"] {
        assert_eq!(
            fs::read_to_string(dot.join(name)).unwrap(),
            "{}\n",
            "{name}"
        );
        assert!(!is_link(&h.claude().join("hooks").join(name)), "{name}");
    }
}

// ------------------------------------------------------- item 5: CLAUDE.md

#[test]
fn an_unclosed_code_fence_gets_one_block_and_loses_it_again() {
    let h = safety_home();
    let md = h.claude().join("CLAUDE.md");
    let before = "My notes\n\n```sh\necho x\n";
    fs::write(&md, before).unwrap();
    h.install();
    let once = fs::read_to_string(&md).unwrap();
    for _ in 0..3 {
        h.install();
    }
    assert_eq!(
        fs::read_to_string(&md).unwrap(),
        once,
        "install is not idempotent"
    );
    assert_eq!(once.matches("gk:begin").count(), 1);
    let (code, out, err) = h.out(&["install", "--check"]);
    assert_eq!(code, 0, "{out}{err}");
    h.uninstall();
    assert_eq!(fs::read_to_string(&md).unwrap(), before);
}

#[test]
fn a_claude_md_ending_in_a_lone_carriage_return_round_trips() {
    let h = safety_home();
    let md = h.claude().join("CLAUDE.md");
    let before = "My notes\r";
    fs::write(&md, before).unwrap();
    h.install();
    let (code, out, err) = h.out(&["install", "--check"]);
    assert_eq!(code, 0, "install --check right after install\n{out}{err}");
    let (_, out, _) = h.out(&["doctor", "--no-smoke"]);
    assert!(!out.contains("claude-md-section"), "{out}");
    h.uninstall();
    assert_eq!(fs::read(&md).unwrap(), before.as_bytes());
}

// ------------------------------------------------- item 9: gk.json limits

#[test]
fn disable_refuses_a_gk_json_the_hooks_would_not_read() {
    let h = safety_home();
    let config = h.claude().join("hooks").join("gk.json");
    // Valid JSON, over the 1 MiB the hooks read.
    let big = format!("{{\"stale_hours\": 24{}}}\n", " ".repeat(1 << 20));
    // Just under the limit, but the edit would take it over.
    let edge = format!("{{\"stale_hours\": 24{}}}", " ".repeat((1 << 20) - 20));
    assert!(edge.len() < 1 << 20);
    for text in [big, edge] {
        fs::write(&config, &text).unwrap();
        let path = config.display().to_string();
        refused_in_one_line(
            &h,
            &["disable", "prompt", "--yes"],
            &config,
            &text,
            &[&path, "1 MiB"],
        );
        // And the hook, which reads the same limit, is still on.
        assert!(prompt_hook_speaks(&h));
    }
}

/// `args` exits 1 with one line on stderr holding each of `needles`, and
/// `config` still holds `text`.
fn refused_in_one_line(h: &TestEnv, args: &[&str], config: &Path, text: &str, needles: &[&str]) {
    let (code, out, err) = h.out(args);
    assert_eq!(code, 1, "{args:?} on {text:.60}: not refused\n{out}{err}");
    assert!(!out.contains("edited"), "{out}");
    let line = err.trim_end();
    assert!(
        line.lines().count() == 1 && needles.iter().all(|n| line.contains(n)),
        "{line}"
    );
    assert_eq!(fs::read_to_string(config).unwrap(), text);
}

/// Whether the prompt hook prints anything for a plain prompt.
fn prompt_hook_speaks(h: &TestEnv) -> bool {
    let out = h
        .cmd(&["hook", "prompt"])
        .stdin(r#"{"prompt":"ok"}"#)
        .output();
    !out.stdout.is_empty()
}

/// gk.json that this editor reads but the hooks' JSON reader refuses (a
/// number past f64, nesting past its depth): the hooks ignore the whole
/// file, `"enabled": false` with it. `gk disable` used to write the switch,
/// say "edited", and leave the hook on; `--check` then said "already
/// switched off".
#[test]
fn disable_refuses_a_gk_json_whose_switch_the_hooks_would_not_see() {
    let h = safety_home();
    let config = h.claude().join("hooks").join("gk.json");
    let deep = format!(
        "{{\"stale_hours\": 24, \"notes\": {}1{}}}\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    for text in [
        "{\"stale_hours\": 1e400}\n".to_string(),
        "{\"stale_hours\": 1e400, \"prompt\": {\"enabled\": false}}\n".to_string(),
        deep,
    ] {
        fs::write(&config, &text).unwrap();
        for check in [false, true] {
            let args: &[&str] = if check {
                &["disable", "prompt", "--check"]
            } else {
                &["disable", "prompt", "--yes"]
            };
            let place = format!("{}:1:", config.display());
            refused_in_one_line(
                &h,
                args,
                &config,
                &text,
                &[&place, "the prompt hook would stay on"],
            );
        }
        // The hook is on, as the refusal says.
        assert!(prompt_hook_speaks(&h));
    }
    // The place is the file's own (doctor's), not the unwritten edit's,
    // and the line stays short whatever the file holds.
    let text = "{\n  \"prompt\": {},\n  \"x\": 1e400\n}\n";
    fs::write(&config, text).unwrap();
    let place = format!("{}:3:", config.display());
    refused_in_one_line(
        &h,
        &["disable", "prompt", "--yes"],
        &config,
        text,
        &[&place],
    );
    let text = format!("{{\"{}\": 1e400}}", "k".repeat(500_000));
    fs::write(&config, &text).unwrap();
    let (code, _, err) = h.out(&["disable", "prompt", "--yes"]);
    assert_eq!(code, 1);
    assert!(
        err.len() < 1_000 && err.trim_end().lines().count() == 1,
        "{} bytes",
        err.len()
    );
    // Once the file reads, the same command works.
    fs::write(&config, "{\"stale_hours\": 24}\n").unwrap();
    let (code, out, err) = h.out(&["disable", "prompt", "--yes"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!prompt_hook_speaks(&h));
}

// ------------------------------------------- item 11: concurrent uninstall

#[test]
fn two_uninstalls_at_once_both_succeed() {
    const ROUNDS: usize = 10;
    let h = safety_home();
    fs::write(h.claude().join("CLAUDE.md"), "# mine\n").unwrap();
    fs::write(h.claude().join("settings.json"), "{\"model\": \"opus\"}\n").unwrap();
    let mut failures = Vec::new();
    for round in 0..ROUNDS {
        h.install();
        // Two processes at once, racing for the same files.
        let runs: Vec<_> = (0..2)
            .map(|_| {
                let mut c = h.cmd(&["uninstall", "--yes"]);
                c.process();
                std::thread::spawn(move || c.output())
            })
            .collect();
        for r in runs {
            let out = r.join().unwrap();
            if !out.status.success() {
                failures.push(format!(
                    "round {round}: {}",
                    String::from_utf8_lossy(&out.stderr).trim_end()
                ));
            }
        }
        assert_eq!(
            fs::read_to_string(h.claude().join("CLAUDE.md")).unwrap(),
            "# mine\n",
            "round {round}"
        );
        let binary = if cfg!(windows) { "gk.exe" } else { "gk" };
        assert!(
            !h.claude().join("hooks").join(binary).exists(),
            "round {round}"
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {ROUNDS} rounds:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// --------------------------------------------- item 12: killed runs' leftovers

/// A process id no process can have (above every Linux `pid_max`, within `pid_t`).
const DEAD_PID: u32 = 2_000_000_000;

#[test]
fn leftovers_of_a_dead_run_are_removed_by_the_next_run() {
    let h = safety_home();
    h.install();
    let hooks = h.claude().join("hooks");
    let binary = if cfg!(windows) { "gk.exe" } else { "gk" };
    let leftovers = [
        hooks.join(format!("{binary}.gk-tmp-{DEAD_PID}")),
        h.claude().join(format!("settings.json.gk-tmp-{DEAD_PID}")),
        h.claude().join(format!("CLAUDE.md.gk-tmp-{DEAD_PID}")),
    ];
    for p in &leftovers {
        fs::write(p, b"half a copy").unwrap();
    }
    // Not a leftover of gk's: a name that only looks similar.
    let other = h.claude().join("settings.json.gk-tmp-notes");
    fs::write(&other, "mine").unwrap();
    let out = h.ok(&["uninstall", "--yes"]);
    for p in &leftovers {
        assert!(!p.exists(), "{} is still there\n{out}", p.display());
        assert!(
            out.contains(&p.display().to_string()),
            "not reported\n{out}"
        );
    }
    assert_eq!(fs::read_to_string(&other).unwrap(), "mine");
}

#[test]
#[allow(clippy::disallowed_methods)] // the test starts the run it kills
fn installs_killed_mid_write_leave_nothing_after_the_next_run() {
    const KILLS: u32 = 30;
    let h = safety_home();
    // Spread the kills over a whole run: time one first.
    let start = std::time::Instant::now();
    h.install();
    let full = start.elapsed();
    h.uninstall();
    let mut left = 0;
    for i in 0..KILLS {
        // Alternate so that every run has files to write.
        let args: &[&str] = if i % 2 == 0 {
            &["install", "--yes", "--no-smoke"]
        } else {
            &["uninstall", "--yes"]
        };
        // A process: only a process can be killed mid-write.
        let mut child = h
            .cmd(args)
            .process()
            .to_command()
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(full * (2 * i + 1) / (2 * KILLS));
        let _ = child.kill();
        let _ = child.wait();
        left += h.names_with(".gk-tmp-").len();
        // Whatever a killed run left, the next one starts from.
    }
    h.install();
    h.uninstall();
    let after = h.names_with(".gk-tmp-");
    eprintln!(
        "{KILLS} kills spread over a {full:?} run; temp files seen after kills (summed): {left}; after the next runs: {}",
        after.len()
    );
    assert!(after.is_empty(), "{after:?}");
}

/// Windows: settings.json held open by another program that does not share
/// delete access (editors, sync clients, virus scanners open files so).
/// The rename over it failed after CLAUDE.md, the program and the record
/// were written; now the first look refuses in one line and nothing is
/// written. (Found under Wine, whose sharing rules are Windows'.)
#[cfg(windows)]
#[test]
fn a_settings_file_another_program_holds_open_stops_install_before_any_write() {
    use std::os::windows::fs::OpenOptionsExt;
    let h = safety_home();
    let settings = h.claude().join("settings.json");
    fs::write(&settings, "{\"model\": \"opus\"}\n").unwrap();
    fs::write(h.claude().join("CLAUDE.md"), "# mine\n").unwrap();
    let before = h.files();
    // FILE_SHARE_READ | FILE_SHARE_WRITE, no FILE_SHARE_DELETE.
    let holder = fs::OpenOptions::new()
        .read(true)
        .share_mode(0x1 | 0x2)
        .open(&settings)
        .unwrap();
    let (code, out, err) = h.out(&["install", "--yes", "--no-smoke"]);
    drop(holder);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.starts_with(&format!(
            "gk: {} is open in another program that does not let it be replaced (",
            settings.display()
        )) && err.ends_with(
            "close it (an editor, a sync client) and run the command again; nothing written\n"
        ),
        "{err}"
    );
    // The run lock (gk's own, empty) is all there is beside.
    let mut after = h.files();
    after.retain(|(p, _)| !p.ends_with("gk.lock"));
    assert_eq!(after, before);
    h.install();
}

/// A settings.json Windows PowerShell 5.1's `>` wrote (UTF-16 with a
/// BOM): refused as before, and the line now says what it is and the way
/// out (it said only "is not UTF-8 text").
#[test]
fn a_utf16_settings_file_is_named_as_such_with_the_way_out() {
    let h = safety_home();
    let settings = h.claude().join("settings.json");
    let mut bytes = vec![0xff, 0xfe];
    for unit in "{\"model\": \"opus\"}\r\n".encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    fs::write(&settings, &bytes).unwrap();
    let (code, out, err) = h.out(&["install", "--yes", "--no-smoke"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        err,
        format!(
            "gk: {} is UTF-16 text (as Windows PowerShell 5.1's `>` writes it); save it as UTF-8 and run the command again; nothing written\n",
            settings.display()
        )
    );
    assert_eq!(fs::read(&settings).unwrap(), bytes);
}
