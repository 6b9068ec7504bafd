//! The settings files as the client loads them (parse errors, schema
//! issues, a BOM, one file under two names), the backups beside them, and
//! what doctor never shows of them (the secrets, found here).

use std::path::Path;

use super::finding::{Code, Finding, Group, Severity};
use super::render::Report;
use super::render::{self, Redactor};
use super::{fix, Inputs};
use crate::registry::scopes::{self, Load, ScopeFile, ScopePaths};
use crate::settings::{ParseError, SchemaIssue};

/// A settings file the client skips whole (it cannot be read, does not
/// parse, or a schema issue voids it) makes the hooks and rules it holds
/// count as missing; but every such finding's fix starts with "correct
/// that file first". One thing to do is one finding: those findings go,
/// and their messages are listed under the file's own finding
/// (`settings-unparseable` or `settings-schema`), whose fix says what
/// comes after.
pub(super) fn fold_into_skipped(files: &[ScopeFile], findings: &mut Vec<Finding>) {
    for f in files {
        let skipped_as = match &f.load {
            Load::Unparseable(_) | Load::Unreadable(_) => Code::SettingsUnparseable,
            Load::Parsed { .. } if !f.effective() => Code::SettingsSchema,
            _ => continue,
        };
        let Err(why) = fix::editable(f) else {
            continue;
        };
        let Some(at) = findings
            .iter()
            .position(|x| x.code == skipped_as && x.path.as_deref() == Some(&f.path))
        else {
            continue;
        };
        let blocked = |x: &Finding| x.fix.as_deref().is_some_and(|fix| fix.starts_with(&why));
        let folded: Vec<String> = findings
            .iter()
            .filter(|x| blocked(x))
            .map(|x| format!("while it is skipped: {}", x.message))
            .collect();
        if folded.is_empty() {
            continue;
        }
        findings[at].details.extend(folded);
        if let Some(fix) = &mut findings[at].fix {
            fix.push_str(
                "; then run `gk doctor` again (`gk doctor --fix` adds what is still missing)",
            );
        }
        findings.retain(|x| !blocked(x));
    }
}

/// Every secret of every settings file, whether it parsed or not.
pub(super) fn redactor_for(files: &[ScopeFile]) -> Redactor {
    let mut secrets = Vec::new();
    for f in files {
        match &f.load {
            Load::Parsed { settings, .. } => render::secrets_in(&settings.value, &mut secrets),
            Load::Unparseable(_) => {
                if let Ok(c) = crate::bounded::read(&f.path, crate::bounded::TEXT_LIMIT) {
                    render::secrets_in_lenient(&String::from_utf8_lossy(&c.bytes), &mut secrets);
                }
            }
            _ => {}
        }
    }
    Redactor::new(secrets)
}

/// What each settings file gave, in file order: a note for one with
/// nothing to check, a finding for one the client reads twice or skips,
/// and for a parsed one its BOM, schema issues and handler count.
pub(super) fn check_settings_files(
    files: &[ScopeFile],
    paths: &ScopePaths<'_>,
    report: &mut Report,
) {
    for f in files {
        match &f.load {
            Load::Absent => report
                .notes
                .push((Group::Settings, format!("{}: not present", f.label()))),
            Load::Empty => report.notes.push((
                Group::Settings,
                format!("{}: empty, nothing loaded", f.label()),
            )),
            Load::SameAsUser => report.findings.push(home_is_project(f, paths)),
            Load::Unreadable(why) => report.findings.push(unreadable(f, why)),
            Load::SameAs { scope, path } => report.findings.push(same_file(f, *scope, path)),
            // Doctor reads every file whole; only the session check's
            // bounded reading sets a file aside.
            Load::Unchecked(why) => report
                .notes
                .push((Group::Settings, format!("{}: {why}", f.label()))),
            Load::Unparseable(e) => report.findings.push(unparseable(f, e)),
            Load::Hidden { by } => report.findings.push(managed_hidden(f, by)),
            Load::Parsed {
                settings,
                entries,
                issues,
            } => parsed_findings(f, settings.bom, entries.len(), issues, report),
        }
    }
}

/// Who corrects `f` by hand, as the start of a fix.
fn who_corrects(f: &ScopeFile) -> &'static str {
    // Managed files are policy: only their administrator changes them.
    if f.scope.is_policy() {
        "managed policy: ask whoever manages this machine to correct"
    } else {
        "correct by hand:"
    }
}

/// `home-is-project`: started in the home folder, the client reads the
/// user file as project settings too.
fn home_is_project(f: &ScopeFile, paths: &ScopePaths<'_>) -> Finding {
    // Only a project file is the user file: there is a project folder.
    let home = paths.project_dir.as_deref().unwrap_or(Path::new(""));
    // Measured (2.1.332): started in the home folder, the client runs
    // every hook of that file once, command, prompt and http hooks
    // alike, so nothing runs twice because of it. Said, not warned.
    Finding::new(
        Code::HomeIsProject,
        format!(
            "Claude Code started in {} (the home folder) reads {} as user and as project settings; each of its hooks still runs once, so nothing runs twice because of it (doctor counts the file once)",
            home.display(),
            paths.user.display()
        ),
    )
    .at(&f.path, None)
}

/// `managed-hidden`: a managed source the client does not read, because
/// another takes the managed tier (Windows; measured on client 2.1.332
/// under Wine: a registry value under HKLM with any setting hides the
/// managed file, its drop-ins and the HKCU value; the managed file or a
/// drop-in hides the HKCU value). Nothing of it runs: gk's hooks in it
/// included.
fn managed_hidden(f: &ScopeFile, by: &Path) -> Finding {
    let by_registry = crate::registry::scopes::is_registry_value(by);
    let fix = if by_registry {
        format!(
            "put what it holds into the value {} (gk's hooks too: `gk install --managed --output gk.json` writes them) or remove that value",
            by.display()
        )
    } else {
        format!(
            "put what it holds into {} or a drop-in beside it",
            by.display()
        )
    };
    Finding::new(
        Code::ManagedHidden,
        format!(
            "{} is not read: Claude Code takes its managed settings from {} alone, so nothing in this one applies (its hooks never run)",
            f.label(),
            by.display()
        ),
    )
    .at(&f.path, None)
    .fix(format!("managed policy: ask whoever manages this machine to {fix}"))
}

/// `settings-same-file`: `f` is an earlier scope's file under another name.
fn same_file(f: &ScopeFile, scope: scopes::Scope, path: &Path) -> Finding {
    // Measured: identical command strings run once however many
    // files register them, so one file under two names changes
    // nothing that runs; but an edit made for one scope (a
    // project's local file) would land in the other.
    Finding::new(
        Code::SettingsSameFile,
        format!(
            "{} is the same file as {} settings {} (a link); read once, as {} settings, and --fix edits it only as that file",
            f.label(),
            scope.name(),
            path.display(),
            scope.name()
        ),
    )
    .at(&f.path, None)
}

/// `settings-unparseable` for a file that cannot be read.
fn unreadable(f: &ScopeFile, why: &str) -> Finding {
    Finding::new(
        Code::SettingsUnparseable,
        format!("{} cannot be read ({why}); Claude Code skips it", f.label()),
    )
    .at(&f.path, None)
    .fix(format!("make {} a readable file", f.path.display()))
}

/// `settings-unparseable` for a file that is not strict JSON or not UTF-8.
fn unparseable(f: &ScopeFile, e: &ParseError) -> Finding {
    let (who, shown) = (who_corrects(f), f.path.display());
    Finding::new(
        Code::SettingsUnparseable,
        format!(
            "{}:{}:{}: {}; {}",
            f.label(),
            e.line,
            e.column,
            e.reason,
            if crate::registry::scopes::is_registry_value(&f.path) {
                // Measured (Windows client under Wine): `claude -p` stops.
                "Claude Code takes none of its settings and may refuse to start"
            } else {
                "Claude Code skips this whole file: none of its hooks, permissions or env are in effect"
            }
        ),
    )
    .at(&f.path, Some(e.line))
    .column(e.column)
    .fix(if e.not_utf8 {
        format!(
            "{who} {shown}: save it as UTF-8 (the text at line {} column {} is in another encoding, such as a Windows code page or the UTF-16 of Windows PowerShell's `>`); gk never rewrites a file it cannot parse",
            e.line, e.column
        )
    } else {
        format!(
            "{who} {shown} at line {} column {} (comments and trailing commas are not allowed); gk never rewrites a file it cannot parse",
            e.line, e.column
        )
    })
}

/// A parsed file: `settings-bom`, one `settings-schema` per issue, and a
/// note counting its `handlers`.
fn parsed_findings(
    f: &ScopeFile,
    bom: bool,
    handlers: usize,
    issues: &[SchemaIssue],
    report: &mut Report,
) {
    if bom {
        report.findings.push(
            Finding::new(
                Code::SettingsBom,
                format!("{} starts with a UTF-8 BOM; some Claude Code versions reject the file", f.label()),
            )
            .at(&f.path, Some(1))
            .fix(format!("save {} as UTF-8 without BOM (PowerShell 5.1: use Set-Content -Encoding utf8NoBOM in PowerShell 7, or an editor)", f.path.display())),
        );
    }
    report
        .findings
        .extend(issues.iter().filter_map(|i| schema_finding(f, i)));
    report.notes.push((
        Group::Settings,
        format!(
            "{}: {} hook handler(s){}",
            f.label(),
            handlers,
            if f.effective() {
                ""
            } else {
                ", skipped by Claude Code"
            }
        ),
    ));
}

/// The finding for one issue of a parsed file, by what the client does
/// ([`crate::settings::Effect`]): `settings-schema` (an error) when it
/// skips the whole file; `settings-part-dropped` when it ignores that part
/// alone (a warning for a hook part: a hook the user set up does not run;
/// a note for another setting); nothing when it loads the part as it is
/// (a key repeated: the client reads the last).
fn schema_finding(f: &ScopeFile, i: &SchemaIssue) -> Option<Finding> {
    let (who, shown) = (who_corrects(f), f.path.display());
    let at = crate::text::one_line(&i.at, 120);
    let place = format!("{}:{}:{}: {at}: {}", f.label(), i.line, i.column, i.reason);
    if i.rejects_file() {
        return Some(
            Finding::new(
                Code::SettingsSchema,
                format!(
                    "{place}; Claude Code skips this whole file: none of its hooks, permissions or env are in effect"
                ),
            )
            .at(&f.path, Some(i.line))
            .fix(format!("{who} {at} in {shown}")),
        );
    }
    if !i.drops_part() {
        return None;
    }
    let (severity, consequence) = if i.is_hooks() {
        (
            Severity::Warning,
            if i.is_unknown_event() {
                "Claude Code ignores this event and its hooks; the rest of the file is in effect"
            } else {
                "Claude Code ignores this entry (its hooks never run); the rest of the file is in effect"
            },
        )
    } else {
        (
            Severity::Info,
            "Claude Code ignores this setting; the rest of the file is in effect",
        )
    };
    Some(
        Finding::new(
            Code::SettingsPartDropped,
            format!("{place}; {consequence}"),
        )
        .severity(severity)
        .at(&f.path, Some(i.line))
        .fix(if i.is_unknown_event() {
            format!("check the event name {at} in {shown}: if it is misspelt, its hooks never run (Claude Code after 2.1.332 may know it)")
        } else {
            format!("{who} {at} in {shown}")
        }),
    )
}

/// `backup-beside-file`: copies of settings files an older gk kept beside
/// them (`settings.json.gk-backup-<stamp>`): in a project's `.claude/`,
/// which is committed, or in `<claude dir>`, which Claude reads. They may
/// hold the credentials of `env`; gk now keeps its backups in its own folder.
pub(super) fn check_backups_beside_files(inputs: &Inputs, report: &mut Report) {
    let folders = [
        (
            inputs.project_dir.join(".claude"),
            "a project folder that is usually committed",
        ),
        (
            inputs.machine.paths.dir().to_path_buf(),
            "the folder Claude reads",
        ),
        (inputs.machine.paths.hooks_dir(), "the folder Claude reads"),
    ];
    let mut seen = Vec::new();
    for (dir, what) in folders {
        for path in crate::change::backup::left_beside(&dir) {
            if seen.contains(&path) {
                continue;
            }
            report.findings.push(
                Finding::new(
                    Code::BackupBesideFile,
                    format!(
                        "{} is a backup an older gk left in {what}; it may hold the credentials of env",
                        path.display()
                    ),
                )
                .at(&path, None)
                .fix("delete it once you no longer need it (gk keeps its backups in its own folder now)"),
            );
            seen.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::doctor::{diagnose, Inputs};
    use crate::hookcmd::CommandContext;
    use crate::machine::{PolicyValue, RegistryPolicy};
    use crate::paths::ClaudePaths;
    use crate::platform::Os;
    use std::path::Path;

    /// Doctor on a Windows machine whose managed folder holds gk's drop-in,
    /// with `machine` as the HKLM registry value: each finding's code and
    /// path.
    fn findings(home: &Path, machine: Option<&str>) -> Vec<(&'static str, String)> {
        let managed_dir = home.join("ClaudeCode");
        std::fs::create_dir_all(managed_dir.join("managed-settings.d")).unwrap();
        std::fs::write(
            managed_dir.join("managed-settings.d/gk.json"),
            r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "C:\\gk\\gk.exe", "args": ["hook", "prompt"]}]}]}}"#,
        )
        .unwrap();
        let ctx = CommandContext::with_home(Os::Windows, r"C:\Users\Ann");
        let paths = ClaudePaths::at(home.join(".claude"));
        let machine = crate::machine::Machine {
            managed: managed_dir.join("managed-settings.json"),
            registry_policy: RegistryPolicy {
                machine: machine.map(|t| PolicyValue::Text(t.to_string())),
                user: None,
            },
            plugins_dir: home.join(".claude/plugins"),
            ..crate::machine::Machine::of(ctx, paths)
        };
        let inputs = Inputs {
            machine,
            project_dir: home.to_path_buf(),
            env: crate::env::Env::new("/", "/gk"),
            smoke: false,
            now: std::time::SystemTime::now(),
        };
        diagnose(&inputs)
            .report
            .findings
            .into_iter()
            .map(|f| {
                let at = f.path.map(|p| p.display().to_string()).unwrap_or_default();
                (f.code.as_str(), at)
            })
            .collect()
    }

    const HKLM: &str = r"HKLM\SOFTWARE\Policies\ClaudeCode\Settings";

    #[test]
    fn a_drop_in_hidden_by_the_registry_is_named_and_its_hooks_do_not_count() {
        let home = tempfile::tempdir().unwrap();
        let dropin = home
            .path()
            .join("ClaudeCode")
            .join("managed-settings.d")
            .join("gk.json");
        let hidden = findings(home.path(), Some(r#"{"env": {"PROXY": "x"}}"#));
        assert!(
            hidden.contains(&("managed-hidden", dropin.display().to_string())),
            "{hidden:?}"
        );
        // gk's prompt hook is only in the hidden drop-in: not registered.
        assert!(
            hidden.iter().any(|(c, _)| *c == "hook-missing"),
            "{hidden:?}"
        );
        // `{}` leaves the tier to the drop-in: nothing hidden.
        let read = findings(home.path(), Some("{}"));
        assert!(
            !read.iter().any(|(c, _)| *c == "managed-hidden"),
            "{read:?}"
        );
    }

    #[test]
    fn a_registry_value_that_is_not_json_is_an_error_at_its_name() {
        let home = tempfile::tempdir().unwrap();
        let found = findings(home.path(), Some(r#"{"hooks": ,}"#));
        assert!(
            found.contains(&("settings-unparseable", HKLM.to_string())),
            "{found:?}"
        );
    }
}
