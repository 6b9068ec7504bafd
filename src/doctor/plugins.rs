//! The plugins the client loads hooks from, as doctor reports them: an
//! enabled plugin whose folder is gone, a plugin hooks file the client
//! cannot use, one it would hang on. gk never edits a plugin's files; the
//! fixes are the plugin's own files or the client's `claude plugin`
//! commands. gk's own hooks in plugins are judged with the other
//! registrations ([`super::registrations`]).

use super::finding::{Code, Finding, Group, Severity};
use super::render::Report;
use crate::registry::plugins::{Plugin, Plugins, Trouble};
use crate::registry::scopes::{Load, Scope};

/// The findings about `plugins`, and one note per plugin read.
pub fn check(plugins: &Plugins, report: &mut Report) {
    for p in &plugins.enabled {
        report.notes.push((
            Group::Registrations,
            format!(
                "plugin {} (enabled in {} settings {}): read from {}",
                p.id,
                p.enabled_in.0.name(),
                p.enabled_in.1.display(),
                p.root
                    .as_deref()
                    .map(|r| r.display().to_string())
                    .unwrap_or_default()
            ),
        ));
        report.findings.extend(hooks_file_findings(p));
    }
    for t in &plugins.trouble {
        match t {
            Trouble::Missing {
                id,
                enabled_in,
                installed: false,
                ..
            } if !is_gks(id) => report.findings.push(never_installed(id, enabled_in)),
            Trouble::Missing {
                id,
                enabled_in,
                expected,
                ..
            } => report.findings.push(
                Finding::new(
                    Code::PluginMissing,
                    format!(
                        "plugin {id} is enabled in {} settings {} but its folder is {}: Claude Code runs none of its hooks (it says so only in its debug log)",
                        enabled_in.0.name(),
                        enabled_in.1.display(),
                        match expected {
                            Some(p) => format!("missing ({})", p.display()),
                            None => "recorded nowhere".to_string(),
                        }
                    ),
                )
                .at(&enabled_in.1, None)
                .fix(format!(
                    "install it again (`claude plugin install {id}`), or switch it off (`claude plugin disable {id}`)"
                ))
                .by_hand(),
            ),
            Trouble::NotChecked { count } => report.findings.push(
                Finding::new(
                    Code::SourceUnread,
                    format!(
                        "{count} more enabled plugins were not read (gk doctor reads {}): whatever they register is unknown, so gk doctor --fix leaves gk's registrations alone",
                        crate::registry::plugins::PluginBudget::DOCTOR.plugins
                    ),
                )
                .fix("switch off the plugins you do not use (`claude plugin disable <id>`)")
                .by_hand(),
            ),
        }
    }
    for u in &plugins.unread {
        report.findings.push(
            Finding::new(
                Code::SourceUnread,
                format!(
                    "{} {}: gk doctor did not read it, so whatever it registers is unknown, and gk doctor --fix leaves gk's registrations alone",
                    u.path.display(),
                    u.why
                ),
            )
            .at(&u.path, None)
            .fix(format!(
                "if Claude Code should load it, make {} smaller (a plugin's file: ask its author, or `claude plugin disable` the plugin)",
                u.path.display()
            ))
            .by_hand(),
        );
    }
}

/// The findings about plugin `p`'s hooks files: one the client would hang
/// on (a named pipe or a device), one it cannot use.
fn hooks_file_findings(p: &Plugin) -> Vec<Finding> {
    let mut out = Vec::new();
    for path in &p.hangs {
        out.push(
            Finding::new(
                Code::PluginHooksUnparseable,
                format!(
                    "plugin {}'s hooks file {} is not a regular file (a named pipe or a device): Claude Code waits on it for ever when it starts, so no hook runs",
                    p.id,
                    path.display()
                ),
            )
            .at(path, None)
            .fix(format!(
                "remove {} (the plugin's own file; gk never edits it), or `claude plugin disable {}`",
                path.display(),
                p.id
            ))
            .by_hand(),
        );
    }
    for f in &p.hooks {
        let why = match &f.load {
            Load::Unparseable(e) => format!("{}:{}: {}", e.line, e.column, e.reason),
            Load::Unreadable(why) if !p.hangs.contains(&f.path) => why.clone(),
            _ => continue,
        };
        out.push(
            Finding::new(
                Code::PluginHooksUnparseable,
                format!(
                    "plugin {}'s hooks file {}: {why}; Claude Code runs none of this plugin's hooks",
                    p.id,
                    f.path.display()
                ),
            )
            .severity(Severity::Warning)
            .at(&f.path, None)
            .fix(format!(
                "correct {} (the plugin's own file; gk never edits it), or `claude plugin disable {}`",
                f.path.display(),
                p.id
            ))
            .by_hand(),
        );
    }
    out
}

/// The first source `plugins` left unread (and how many more), for the
/// registration fixes that wait on it; `None` when everything was read.
pub fn unread_source(plugins: &Plugins) -> Option<String> {
    let mut named: Vec<String> = plugins
        .unread
        .iter()
        .map(|u| u.path.display().to_string())
        .collect();
    for t in &plugins.trouble {
        if let Trouble::NotChecked { count } = t {
            named.push(format!("{count} enabled plugins"));
        }
    }
    match named.len() {
        0 => None,
        1 => named.pop(),
        n => Some(format!("{} and {} more", named[0], n - 1)),
    }
}

/// gk's own plugin: its hooks missing is gk's business, always a warning.
fn is_gks(id: &str) -> bool {
    use crate::setup::plugin::{MARKETPLACE, PLUGIN};
    id.split_once('@') == Some((PLUGIN, MARKETPLACE))
}

/// `plugin-not-installed`: settings enable a plugin this machine never
/// installed (no marketplace it knows lists it, no install is recorded) —
/// the common case of a project that enables its team's plugins. Nothing
/// the user set up here fails, so it is a note, not a warning, and the
/// session check says nothing of it.
fn never_installed(id: &str, enabled_in: &(Scope, std::path::PathBuf)) -> Finding {
    let (name, mkt) = id.split_once('@').unwrap_or((id, ""));
    let who = match enabled_in.0 {
        scope if scope.in_project() => "this project enables".to_string(),
        scope => format!("{} settings enable", scope.name()),
    };
    let from = match mkt {
        "" => String::new(),
        mkt => format!(" from marketplace {mkt}"),
    };
    Finding::new(
        Code::PluginNotInstalled,
        format!(
            "{who} plugin {name}{from} ({}), which this machine has not installed; `claude plugin install {id}` to use it",
            enabled_in.1.display()
        ),
    )
    .at(&enabled_in.1, None)
}
