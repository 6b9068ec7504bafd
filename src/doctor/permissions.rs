//! Can Claude keep its task record? Two checks for the per-session scope:
//!
//! - `state-permission-missing`: no `permissions.allow` rule in a settings
//!   file Claude Code uses lets Claude write records in the state folder
//!   (or a `permissions.deny` rule refuses it, or a `permissions.ask` rule,
//!   which weighs above `allow`, asks). Claude Code then asks before
//!   every update, and `claude -p` refuses it (measured on 2.1.332).
//!   Sessions that start in bypassPermissions mode write the records with
//!   no allow rule (measured), so there the missing rule is only a note.
//! - `state-folder-unwritable`: the state folder cannot be written (or
//!   created), so every record write fails.
//! - `state-folder-readable`: other users may read the state folder (Unix
//!   modes; the client creates it 0755 and its records 0644).
//!
//! Which rules count is decided by [`covers`], from what was measured on the
//! client: `Edit(...)` rules govern the Write and Edit tools (and let the
//! file be read too); `Write(...)` rules do not; `~/` is the home folder,
//! `//` an absolute path (`//c/...` on Windows, where `C:\...`, `C:/...`
//! and `~\...` count too, but not `//C:/...`); a folder, `folder/`,
//! `folder/*`, `folder/*.json` and `folder/**` all cover the records.

use std::path::Path;

use super::finding::{Code, Finding, Severity, FIX_COMMAND};
use crate::hookcmd::normalize_path;
use crate::platform::Os;
use crate::registry::scopes::ScopeFile;
use crate::setup::parts::Part;

/// Whether permission rule `rule` covers using `tool` on a record
/// (`<dir>/<name>.json`). Undecidable forms (paths relative to a settings
/// file or to the working folder, globs inside the path) do not count.
pub fn covers(rule: &str, tool: &str, dir: &Path, home: &Path, os: Os) -> bool {
    let rule = rule.trim();
    if rule == tool {
        return true;
    }
    let Some(spec) = rule
        .strip_prefix(tool)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.strip_suffix(')'))
    else {
        return false;
    };
    // The Windows client reads `\` in a rule as `/` (`~\.local\…` and
    // `C:\Users\…` both let Claude write, measured).
    let spec = if os.is_windows() {
        spec.replace('\\', "/")
    } else {
        spec.to_string()
    };
    let expanded = if let Some(rest) = spec.strip_prefix("~/") {
        format!("{}/{rest}", home.to_string_lossy())
    } else if let Some(rest) = spec.strip_prefix("//") {
        format!("/{rest}")
    } else if os.is_windows() && is_drive_path(&spec) {
        spec.clone()
    } else {
        return false;
    };
    let (folder, any_depth) = if let Some(f) = expanded.strip_suffix("/**") {
        (f, true)
    } else if let Some(f) = expanded
        .strip_suffix("/*.json")
        .or_else(|| expanded.strip_suffix("/*"))
    {
        (f, false)
    } else {
        (expanded.trim_end_matches('/'), false)
    };
    if folder.contains(['*', '?', '[', '{']) {
        return false;
    }
    let want = normalize_path(&dir.to_string_lossy(), os);
    let have = normalize_path(folder, os);
    want == have || (any_depth && want.starts_with(&format!("{}/", have.trim_end_matches('/'))))
}

/// `C:/…`: a Windows path from a drive's root (backslashes already made
/// forward slashes).
fn is_drive_path(spec: &str) -> bool {
    let b = spec.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/'
}

fn string_list(v: &serde_json::Value, key: &str) -> Vec<String> {
    v.get("permissions")
        .and_then(|p| p.get(key))
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|r| r.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `state-permission-missing` findings for the state folder `dir`, from the
/// settings files Claude Code uses.
/// `user_editable`: whether `--fix` can edit user settings (else why not).
pub fn check_rules(
    files: &[ScopeFile],
    dir: &Path,
    home: &Path,
    os: Os,
    claude_dir: &Path,
    user_settings: &Path,
    user_editable: std::result::Result<(), String>,
) -> Vec<Finding> {
    if let Some(finding) = folder_no_rule_may_allow(dir, home, os, claude_dir) {
        return vec![finding];
    }
    let Some(rules) = crate::paths::state_rules(os, dir, Some(home)) else {
        return vec![folder_no_rule_can_name(dir)];
    };
    let mut out = Vec::new();
    let allowed = refusing_rules(files, dir, home, os, &mut out);
    if !allowed {
        out.push(no_allow_rule(
            files,
            dir,
            &rules,
            user_settings,
            user_editable,
        ));
    }
    out
}

/// Why no rule may let Claude write records in `dir`, if none may: it is
/// inside the Claude folder, or not a folder of gk's own.
fn folder_no_rule_may_allow(dir: &Path, home: &Path, os: Os, claude_dir: &Path) -> Option<Finding> {
    let shown = dir.display();
    let inside = |outer: &Path| {
        let outer = normalize_path(&outer.to_string_lossy(), os);
        let inner = normalize_path(&dir.to_string_lossy(), os);
        inner == outer || inner.starts_with(&format!("{}/", outer.trim_end_matches('/')))
    };
    if inside(claude_dir) {
        return Some(Finding::new(
            Code::StatePermissionMissing,
            format!(
                "the state folder {shown} is inside {}: Claude Code refuses Claude's writes of every file there, whatever the rules (measured)",
                claude_dir.display()
            ),
        )
        .fix(format!(
            "point {} (or XDG_STATE_HOME) at a folder outside {}",
            crate::paths::STATE_DIR_VAR,
            claude_dir.display()
        )));
    }
    if let Some(why) = crate::paths::state_dir_problem(os, dir, Some(home), Some(claude_dir)) {
        return Some(Finding::new(
            Code::StatePermissionMissing,
            format!(
                "the state folder {shown} is not a folder of gk's own ({why}); gk writes no rule for it, and `gk state` and `gk install` refuse it"
            ),
        )
        .fix(format!(
            "point {} (or XDG_STATE_HOME) at a folder of gk's own",
            crate::paths::STATE_DIR_VAR
        )));
    }
    None
}

/// No rule can name `dir`: its path holds a character rules treat specially.
fn folder_no_rule_can_name(dir: &Path) -> Finding {
    Finding::new(
        Code::StatePermissionMissing,
        format!(
            "no permission rule can name the state folder {} (its path holds a character rules treat specially); Claude Code asks before every task record write",
            dir.display()
        ),
    )
    .fix(format!(
        "point {} (or XDG_STATE_HOME) at a folder whose path has none of * ? [ ] {{ }} ( )",
        crate::paths::STATE_DIR_VAR
    ))
}

/// One finding per `deny` or `ask` rule covering the records in `dir`, in
/// the settings files Claude Code uses; whether an `allow` rule covers them.
fn refusing_rules(
    files: &[ScopeFile],
    dir: &Path,
    home: &Path,
    os: Os,
    out: &mut Vec<Finding>,
) -> bool {
    let shown = dir.display();
    let mut allowed = false;
    for f in files.iter().filter(|f| f.effective()) {
        let Some(settings) = f.settings() else {
            continue;
        };
        // A deny rule refuses; an ask rule weighs above `allow` (measured:
        // `an_ask_rule_beats_the_allow_rules_and_doctor_names_it` in the e2e
        // tests), so Claude Code asks anyway and `-p` refuses.
        for (list, does, unless) in [
            (
                "deny",
                format!("refuses Claude's writes of its task records in {shown}"),
                "",
            ),
            (
                "ask",
                format!("makes Claude Code ask before every task record write in {shown}, whatever the allow rules say, and `claude -p` refuses it"),
                " without asking",
            ),
        ] {
            for rule in string_list(&settings.value, list) {
                if covers(&rule, "Edit", dir, home, os) {
                    out.push(
                        Finding::new(
                            Code::StatePermissionMissing,
                            format!("the {list} rule `{rule}` in {} {does}", f.label()),
                        )
                        .at(&f.path, None)
                        .fix(format!(
                            "remove `{rule}` from {} if the task records should be kept{unless}",
                            f.path.display()
                        )),
                    );
                }
            }
        }
        allowed |= string_list(&settings.value, "allow")
            .iter()
            .any(|r| covers(r, "Edit", dir, home, os));
    }
    allowed
}

/// No allow rule covers the records in `dir`: a note where sessions start
/// in bypassPermissions mode, else a warning `--fix` can act on when the
/// user settings are `user_editable`.
fn no_allow_rule(
    files: &[ScopeFile],
    dir: &Path,
    rules: &[String; 2],
    user_settings: &Path,
    user_editable: std::result::Result<(), String>,
) -> Finding {
    let shown = dir.display();
    if let Some(from) = bypass_start(files) {
        // Measured (2.1.332, `-p`): in bypassPermissions mode the record
        // is written with no allow rule; deny and ask rules still refuse
        // it, so they were reported above whatever the mode.
        return Finding::new(
            Code::StatePermissionMissing,
            format!(
                "no permissions.allow rule lets Claude write its task records in {shown}; none is needed while a session stays in bypassPermissions mode, where sessions start (`defaultMode` in {}), but a session switched to another mode asks before every update",
                from.label()
            ),
        )
        .severity(Severity::Info)
        .at(&from.path, None)
        .fix(format!(
            "to keep the records in every mode, add `{}` and `{}` to permissions.allow in {} (`gk install` adds them)",
            rules[0],
            rules[1],
            user_settings.display()
        ));
    }
    let f = Finding::new(
        Code::StatePermissionMissing,
        format!(
            "no permissions.allow rule lets Claude write its task records in {shown}; Claude Code asks before every update, and `claude -p` refuses it"
        ),
    )
    .at(user_settings, None);
    let fix = format!(
        "{FIX_COMMAND} (adds `{}` and `{}` to {})",
        rules[0],
        rules[1],
        user_settings.display()
    );
    match user_editable {
        Ok(()) => f.fix(fix).fixed_by(Part::PermissionRules),
        Err(why) => f.fix(format!("{why}; then {fix}")),
    }
}

/// The file whose `permissions.defaultMode` starts sessions in
/// `bypassPermissions` mode: the highest scope that sets a mode (managed
/// over local over project over user; the last such file of that scope).
/// `None` when sessions start in another mode, or when a loaded file sets
/// `permissions.disableBypassPermissionsMode` to `"disable"` (the client then
/// refuses the mode; read from the setting's meaning, not measured).
fn bypass_start(files: &[ScopeFile]) -> Option<&ScopeFile> {
    let permission = |f: &ScopeFile, key: &str| -> Option<String> {
        f.settings()?
            .value
            .get("permissions")?
            .get(key)?
            .as_str()
            .map(String::from)
    };
    let used = || files.iter().filter(|f| f.effective());
    if used().any(|f| permission(f, "disableBypassPermissionsMode").as_deref() == Some("disable")) {
        return None;
    }
    let (file, mode) = used()
        .filter_map(|f| Some((f, permission(f, "defaultMode")?)))
        .max_by_key(|(f, _)| f.scope)?;
    (mode == "bypassPermissions").then_some(file)
}

/// `state-folder-readable` when others may list or enter `dir` (a mode
/// with group or other bits; only where the platform has modes).
pub fn check_private(dir: &Path) -> Option<Finding> {
    let mode = folder_mode(dir)?;
    (mode & 0o077 != 0).then(|| {
        Finding::new(
            Code::StateFolderReadable,
            format!(
                "the state folder {} has mode {mode:o}: other users can read the task records in it",
                dir.display()
            ),
        )
        .at(dir, None)
        .fix(format!(
            "run `gk install` (it makes the folder private), or chmod 700 {}",
            dir.display()
        ))
    })
}

#[cfg(unix)]
fn folder_mode(dir: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(dir).ok().filter(|m| m.is_dir())?;
    Some(meta.permissions().mode() & 0o777)
}

#[cfg(not(unix))]
fn folder_mode(_dir: &Path) -> Option<u32> {
    None
}

/// `state-folder-unwritable` when records cannot be written in `dir`:
/// asked as install asks before it writes ([`crate::change::fs::can_create`]:
/// the folder, or the nearest one above it that exists when it is not made
/// yet, must be a folder this user may write; on Unix the system is asked,
/// so doctor writes nothing to find out, and read-only mounts and ACLs
/// count).
pub fn check_folder(dir: &Path) -> Option<Finding> {
    let answer = crate::change::fs::can_create(&dir.join("record.json"));
    answer.err().map(|no| unwritable(dir, no))
}

/// The finding for `dir` when the answer was no: `at` is the folder (or
/// the file in the way) the answer is about.
fn unwritable(dir: &Path, (at, e): (std::path::PathBuf, std::io::Error)) -> Finding {
    use crate::bounded::{in_the_way, io_reason as reason};
    let why = match (at == dir, in_the_way(&e)) {
        (true, Some(how)) => how,
        (true, None) => format!("cannot be written ({})", reason(&e)),
        (false, Some(how)) => format!("cannot be created: {} {how}", at.display()),
        (false, None) => format!(
            "cannot be created: {} cannot be written ({})",
            at.display(),
            reason(&e)
        ),
    };
    Finding::new(
        Code::StateFolderUnwritable,
        format!(
            "the state folder {} {why}; Claude cannot keep its task records there (the hooks show the shared record instead)",
            dir.display()
        ),
    )
    .at(dir, None)
    .fix(format!(
        "make {} a folder you can write, or point {} at one",
        dir.display(),
        crate::paths::STATE_DIR_VAR
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::scopes::Scope;
    use std::path::PathBuf;

    #[test]
    fn rule_forms_that_cover_the_records() {
        let home = Path::new("/home/u");
        let dir = Path::new("/home/u/.local/state/gk");
        let yes = [
            "Edit(~/.local/state/gk/*.json)",
            "Edit(~/.local/state/gk/**)",
            "Edit(~/.local/state/gk/*)",
            "Edit(~/.local/state/gk/)",
            "Edit(~/.local/state/gk)",
            "Edit(~/.local/**)",
            "Edit(//home/u/.local/state/gk/*.json)",
            "Edit",
        ];
        for rule in yes {
            assert!(covers(rule, "Edit", dir, home, Os::Linux), "{rule}");
        }
        let no = [
            "Write(~/.local/state/gk/**)",
            "Read(~/.local/state/gk/**)",
            "Edit(~/.local/state/gk2/**)",
            "Edit(~/.local/*)",
            "Edit(/home/u/.local/state/gk/**)",
            "Edit(.local/state/gk/**)",
            "Edit(~/.local/st*te/gk/**)",
            "Bash(ls:*)",
        ];
        for rule in no {
            assert!(!covers(rule, "Edit", dir, home, Os::Linux), "{rule}");
        }
        let win_home = Path::new(r"C:\Users\Ann");
        let win_dir = PathBuf::from(r"C:\Users\Ann\.local\state\gk");
        assert!(covers(
            "Edit(~/.local/state/gk/*.json)",
            "Edit",
            &win_dir,
            win_home,
            Os::Windows
        ));
        // The forms measured on the Windows client (docs/claude-code-facts.md).
        for rule in [
            "Edit(//c/users/ann/.local/state/GK/**)",
            r"Edit(~\.local\state\gk\*.json)",
            r"Edit(C:\Users\Ann\.local\state\gk\*.json)",
            "Edit(C:/Users/Ann/.local/state/gk/*.json)",
            r"Edit(c:\users\ann\.local\state\gk)",
        ] {
            assert!(
                covers(rule, "Edit", &win_dir, win_home, Os::Windows),
                "{rule}"
            );
        }
        for rule in [
            "Edit(//C:/Users/Ann/.local/state/gk/*.json)",
            r"Edit(D:\Users\Ann\.local\state\gk\*.json)",
            r"Edit(\.local\state\gk\*.json)",
            "Edit(%LOCALAPPDATA%/gk/*.json)",
        ] {
            assert!(
                !covers(rule, "Edit", &win_dir, win_home, Os::Windows),
                "{rule}"
            );
        }
        // A backslash is no separator in a Linux rule.
        assert!(!covers(
            r"Edit(~\.local\state\gk\*.json)",
            "Edit",
            dir,
            home,
            Os::Linux
        ));
    }

    /// check_rules on settings texts, one per scope, for /home/u's records.
    fn rules_for(files: &[(Scope, &str)]) -> Vec<Finding> {
        check_rules(
            &crate::registry::scopes::test_files(files),
            Path::new("/home/u/.local/state/gk"),
            Path::new("/home/u"),
            Os::Linux,
            Path::new("/home/u/.claude"),
            Path::new("/home/u/.claude/settings.json"),
            Ok(()),
        )
    }

    fn severities(f: &[Finding]) -> Vec<(&str, Severity)> {
        f.iter().map(|f| (f.code.as_str(), f.severity)).collect()
    }

    #[test]
    fn sessions_that_start_in_bypass_mode_need_no_allow_rule_but_are_told() {
        let bypass = r#"{"permissions": {"defaultMode": "bypassPermissions"}}"#;
        let f = rules_for(&[(Scope::User, bypass)]);
        assert_eq!(
            severities(&f),
            [("state-permission-missing", Severity::Info)]
        );
        assert!(
            f[0].message
                .contains("`defaultMode` in user settings /user.json")
                && f[0].message.contains("switched to another mode asks"),
            "{}",
            f[0].message
        );
        assert!(
            f[0].fix
                .as_deref()
                .unwrap()
                .contains("`Edit(~/.local/state/gk/*.json)`"),
            "{:?}",
            f[0].fix
        );
        assert_eq!(f[0].path.as_deref(), Some(Path::new("/user.json")));
        // A mode set by a higher scope decides (managed > local > project > user).
        for (scope, mode) in [
            (Scope::Project, "acceptEdits"),
            (Scope::Local, "default"),
            (Scope::Managed, "plan"),
        ] {
            let other = format!(r#"{{"permissions": {{"defaultMode": "{mode}"}}}}"#);
            let f = rules_for(&[(Scope::User, bypass), (scope, &other)]);
            assert_eq!(
                severities(&f),
                [("state-permission-missing", Severity::Warning)],
                "{mode} in {scope:?}"
            );
            // And the other way round, bypass from the higher scope wins.
            let f = rules_for(&[(Scope::User, &other), (scope, bypass)]);
            assert_eq!(
                severities(&f),
                [("state-permission-missing", Severity::Info)],
                "bypass in {scope:?}"
            );
        }
        // A file that switches the mode off, or that Claude Code skips.
        let off = r#"{"permissions": {"disableBypassPermissionsMode": "disable"}}"#;
        let f = rules_for(&[(Scope::User, bypass), (Scope::Managed, off)]);
        assert_eq!(
            severities(&f),
            [("state-permission-missing", Severity::Warning)]
        );
        let skipped = r#"{"permissions": {"defaultMode": "bypassPermissions",}}"#;
        let f = rules_for(&[(Scope::User, skipped)]);
        assert_eq!(
            severities(&f),
            [("state-permission-missing", Severity::Warning)]
        );
        // Not a string: no mode.
        let f = rules_for(&[(Scope::User, r#"{"permissions": {"defaultMode": true}}"#)]);
        assert_eq!(
            severities(&f),
            [("state-permission-missing", Severity::Warning)]
        );
        // Deny and ask rules refuse in bypass mode too (measured): still warned.
        let deny = r#"{"permissions": {"defaultMode": "bypassPermissions", "deny": ["Edit(~/.local/**)"], "allow": ["Edit(~/.local/state/gk/*.json)"]}}"#;
        let f = rules_for(&[(Scope::User, deny)]);
        assert_eq!(
            severities(&f),
            [("state-permission-missing", Severity::Warning)]
        );
        assert!(f[0].message.contains("the deny rule"), "{}", f[0].message);
        // With the rules, nothing to say in any mode.
        let allowed = r#"{"permissions": {"defaultMode": "bypassPermissions", "allow": ["Edit(~/.local/state/gk/*.json)"]}}"#;
        assert!(rules_for(&[(Scope::User, allowed)]).is_empty());
    }

    #[test]
    fn a_state_folder_inside_the_claude_dir_cannot_be_allowed() {
        let home = Path::new("/home/u");
        let f = check_rules(
            &[],
            Path::new("/home/u/.claude/state"),
            home,
            Os::Linux,
            Path::new("/home/u/.claude"),
            Path::new("/home/u/.claude/settings.json"),
            Ok(()),
        );
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message.contains("whatever the rules"),
            "{}",
            f[0].message
        );
        assert!(f[0].remedy.is_none());
        // A sibling that only shares the prefix is not inside.
        let f = check_rules(
            &[],
            Path::new("/home/u/.claude-state/gk"),
            home,
            Os::Linux,
            Path::new("/home/u/.claude"),
            Path::new("/home/u/.claude/settings.json"),
            Ok(()),
        );
        assert_eq!(f[0].remedy, Some(Part::PermissionRules), "{}", f[0].message);
    }

    #[test]
    fn a_folder_below_a_file_cannot_be_created_and_a_missing_one_is_fine() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("a-file");
        std::fs::write(&file, "x").unwrap();
        let f = check_folder(&file.join("gk")).unwrap();
        assert_eq!(f.code, Code::StateFolderUnwritable);
        assert!(f.message.contains("is not a folder"), "{}", f.message);
        assert_eq!(
            check_folder(&file).unwrap().code,
            Code::StateFolderUnwritable
        );
        assert!(check_folder(&tmp.path().join("not/yet/made")).is_none());
        assert!(check_folder(tmp.path()).is_none());
        // Nothing is written to find out.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
        // Each way the answer can be no, in words (root may write any
        // folder, so these are the system's answers, as it gives them).
        let denied = || std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let not_dir = || std::io::Error::from(std::io::ErrorKind::NotADirectory);
        let dir = tmp.path().join("state/gk");
        let up = tmp.path().join("state");
        let said = |at: &Path, e| unwritable(&dir, (at.to_path_buf(), e)).message;
        assert!(said(&dir, denied()).contains("gk cannot be written (permission denied)"));
        assert!(said(&dir, not_dir()).contains("gk is not a folder"));
        let above = said(&up, denied());
        assert!(
            above.contains(&format!(
                "cannot be created: {} cannot be written",
                up.display()
            )),
            "{above}"
        );
        assert!(said(&up, not_dir()).contains("is not a folder"));
        // No folder above it at all (a drive that is not there).
        let gone = || std::io::Error::from(std::io::ErrorKind::NotFound);
        assert!(said(&up, gone()).contains(&format!(
            "cannot be created: {} does not exist;",
            up.display()
        )));
    }
}
