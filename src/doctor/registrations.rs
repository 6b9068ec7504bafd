//! gk's registrations as doctor reports them: the rules of
//! `crate::registry::rules` (one per finding code, over the normalised
//! registration table) rendered as findings, each with the fix `--fix` or a
//! person can make. What `--fix` may do is decided here too
//! ([`RegistrationFix`]): managed settings are policy gk never edits, and an
//! undecidable command that may be gk's makes adding an entry a guess.

use std::path::{Path, PathBuf};

use super::finding::{Code, Finding, Severity, FIX_COMMAND};
use crate::hookcmd::{HookKind, Owner, WhenMissing};
use crate::registry::rules::{self, maybe_gk};
use crate::registry::table::{Registration, SwitchKey, Table};
use crate::setup::parts::Part;

fn place_of(path: &Path, line: Option<usize>) -> String {
    match line {
        Some(l) => format!("{}:{l}", path.display()),
        None => path.display().to_string(),
    }
}

/// `hooks-disabled` for a policy that switches gk off ([`rules::hooks_disabled`]).
pub fn check_policy(t: &Table) -> Vec<Finding> {
    let Some(d) = rules::hooks_disabled(t) else {
        return Vec::new();
    };
    let s = d.switch;
    let finding = if d.everything {
        Finding::new(
            Code::HooksDisabled,
            format!(
                "disableAllHooks is true in managed settings {}: Claude Code runs no hooks at all",
                place_of(&s.path, s.line)
            ),
        )
        .fix("managed policy: ask whoever manages this machine to remove disableAllHooks there (gk cannot change it)")
    } else {
        match s.key {
            SwitchKey::DisableAllHooks => Finding::new(
                Code::HooksDisabled,
                format!(
                    "disableAllHooks is true in {} settings {}: Claude Code runs no hooks from user, project or local settings",
                    s.scope.name(),
                    place_of(&s.path, s.line)
                ),
            )
            .fix(format!(
                "delete \"disableAllHooks\" from {} (or set it to false)",
                s.path.display()
            )),
            SwitchKey::AllowManagedHooksOnly => Finding::new(
                Code::HooksDisabled,
                format!(
                    "allowManagedHooksOnly is true in managed settings {}: Claude Code runs only managed hooks (and plugins managed settings enable), so gk's hooks in user, project or local settings, or in a plugin enabled there, never run",
                    place_of(&s.path, s.line)
                ),
            )
            .fix("managed policy: ask whoever manages this machine to register gk in managed settings (`gk install --managed` writes the drop-in) or lift allowManagedHooksOnly (gk cannot change it)"),
        }
    };
    vec![finding.at(&s.path, s.line)]
}

/// What `--fix` may do about gk's registrations. Managed settings are
/// policy gk never edits, so the hooks they already register decide it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistrationFix {
    /// No managed registration: one canonical entry per hook in user settings.
    UserEntry,
    /// Managed settings do every hook's job (gk or the Python hooks): remove
    /// gk's and the Python hooks' entries from user, project and local settings.
    RemoveOutsideManaged { managed: PathBuf },
    /// An enabled plugin does every hook's job: remove gk's and the Python
    /// hooks' entries from user, project and local settings (the client
    /// never merges a plugin's copy with a settings copy: both would run).
    RemoveOutsidePlugin { plugin: String },
    /// Plugins do some of the jobs only: each hook a plugin registers, with
    /// that plugin (the first that does). `--fix` removes gk's and the
    /// Python hooks' settings copies of those hooks from user, project and
    /// local settings (a plugin's files are never edited), and registers
    /// the other hooks in user settings as install does.
    RemovePluginCopies { carried: Vec<(HookKind, String)> },
    /// Doctor could not read `source` (past what it reads), which may
    /// register gk's hooks: no registration fix is offered on a guess.
    Unread { source: String },
    /// Managed settings do some of the jobs only (`kind`'s among them):
    /// writing user settings would register that hook a second time
    /// (install registers all three), so a person decides.
    Manual { managed: PathBuf, kind: HookKind },
    /// Nothing identifiable does `kind`'s job, but `command` may (doctor
    /// cannot decide it): writing user settings would add `kind` beside it.
    Unsure { command: String, kind: HookKind },
    /// User settings cannot be edited (do not parse, break the schema where
    /// gk edits, cannot be read): `why`, from `fix::editable`.
    Blocked { why: String },
}

/// Decide [`RegistrationFix`] from every registration of the loaded files.
/// A plugin counts as doing a hook's job only when its copy is gk's,
/// runs (`runs`: its program is there) and runs in every project (the
/// plugin is enabled by user or managed settings): taking the settings
/// copy out for one that does not would leave the hook running nowhere,
/// or only in one project.
pub fn registration_fix(
    regs: &[Registration],
    runs: &dyn Fn(&Registration) -> bool,
) -> RegistrationFix {
    let managed = |kind: HookKind| {
        regs.iter()
            .find(|r| r.scope.is_policy() && r.does(kind))
            .map(|r| r.path.clone())
    };
    let unsure = HookKind::ALL.into_iter().find_map(|kind| {
        let done = regs.iter().any(|r| r.does(kind));
        let maybe = regs.iter().find(|r| maybe_gk(r, kind));
        match maybe {
            Some(r) if !done => Some(RegistrationFix::Unsure {
                command: r.command.clone(),
                kind,
            }),
            _ => None,
        }
    });
    let managed_kinds: Vec<(HookKind, PathBuf)> = HookKind::ALWAYS
        .into_iter()
        .filter_map(|kind| managed(kind).map(|path| (kind, path)))
        .collect();
    let plugin = |kind: HookKind| {
        regs.iter()
            .find(|r| carries(r, kind, runs))
            .and_then(|r| r.plugin.as_ref().map(|p| p.id.clone()))
    };
    // Every hook of gk's a plugin carries, the switch guard's included
    // (its own plugin, gk-switch-guard, carries only those): their
    // settings copies would run beside the plugin's.
    let plugin_kinds: Vec<(HookKind, String)> = HookKind::ALL
        .into_iter()
        .filter_map(|kind| plugin(kind).map(|id| (kind, id)))
        .collect();
    let carries_always = HookKind::ALWAYS
        .iter()
        .all(|k| plugin_kinds.iter().any(|(c, _)| c == k));
    match managed_kinds.first() {
        None => match plugin_kinds.first() {
            None => unsure.unwrap_or(RegistrationFix::UserEntry),
            // HookKind::ALL starts with the always-on hooks: `id` is the
            // plugin of the first of them.
            Some((_, id)) if carries_always => {
                RegistrationFix::RemoveOutsidePlugin { plugin: id.clone() }
            }
            Some(_) => RegistrationFix::RemovePluginCopies {
                carried: plugin_kinds,
            },
        },
        Some((_, managed)) if managed_kinds.len() == HookKind::ALWAYS.len() => {
            RegistrationFix::RemoveOutsideManaged {
                managed: managed.clone(),
            }
        }
        Some((kind, managed)) => RegistrationFix::Manual {
            managed: managed.clone(),
            kind: *kind,
        },
    }
}

/// Does `r`, a plugin's row, do `kind`'s job for every project: gk's
/// command, a program that is there, the plugin enabled outside a
/// project's own settings?
fn carries(r: &Registration, kind: HookKind, runs: &dyn Fn(&Registration) -> bool) -> bool {
    r.plugin.as_ref().is_some_and(|p| p.everywhere)
        && r.does(kind)
        && matches!(r.owner, Owner::Gk(_))
        && runs(r)
}

impl RegistrationFix {
    /// [`RegistrationFix::fix`] for a finding about a settings copy of
    /// `kind`: beside a plugin that carries `kind`, `--fix` takes every
    /// settings copy of it out (none is kept), and the fix says so.
    pub fn fix_of(
        &self,
        kind: HookKind,
        f: Finding,
        user_fix: String,
        by_hand: &str,
        in_managed: bool,
    ) -> Finding {
        if let (false, RegistrationFix::RemovePluginCopies { carried }) = (in_managed, self) {
            if let Some((_, plugin)) = carried.iter().find(|(k, _)| *k == kind) {
                return f
                    .fix(format!(
                        "{FIX_COMMAND} (takes gk's settings copies of the {} hook out: plugin {plugin} registers it)",
                        kind.arg()
                    ))
                    .fixed_by(Part::Registrations);
            }
        }
        self.fix(f, user_fix, by_hand, in_managed)
    }

    /// Give a registration finding its fix. `user_fix`: what `--fix` does
    /// when nothing is managed; `by_hand`: what a person does otherwise;
    /// `in_managed`: the finding is about an entry of managed settings.
    pub fn fix(&self, f: Finding, user_fix: String, by_hand: &str, in_managed: bool) -> Finding {
        if in_managed {
            return f
                .fix(format!(
                    "managed policy: ask whoever manages this machine to {by_hand} (gk never edits managed settings)"
                ))
                .by_hand();
        }
        match self {
            RegistrationFix::UserEntry => f.fix(user_fix).fixed_by(Part::Registrations),
            RegistrationFix::RemoveOutsideManaged { managed } => f
                .fix(format!(
                    "{FIX_COMMAND} (removes gk's entries from user, project and local settings; managed settings {} register all of gk's hooks)",
                    managed.display()
                ))
                .fixed_by(Part::Registrations),
            RegistrationFix::RemoveOutsidePlugin { plugin } => f
                .fix(format!(
                    "{FIX_COMMAND} (removes gk's entries from user, project and local settings; plugin {plugin} registers all of gk's hooks)"
                ))
                .fixed_by(Part::Registrations),
            RegistrationFix::RemovePluginCopies { carried } => {
                let by: Vec<String> = carried
                    .iter()
                    .map(|(kind, plugin)| format!("{} ({plugin})", kind.arg()))
                    .collect();
                f.fix(format!(
                    "{user_fix}; plugins register gk's {} hook{}, so --fix registers only the hooks no plugin does, and takes gk's settings copies of those out",
                    crate::text::and_list(&by.iter().map(String::as_str).collect::<Vec<_>>()),
                    if by.len() == 1 { "" } else { "s" }
                ))
                .fixed_by(Part::Registrations)
            }
            RegistrationFix::Unread { source } => f
                .fix(format!(
                    "{by_hand}; gk doctor could not read {source}, which may register gk's hooks, so gk doctor --fix leaves registrations alone (see source-unread)"
                ))
                .by_hand(),
            RegistrationFix::Manual { managed, kind } => f
                .fix(format!(
                    "{by_hand}; managed settings {} register gk's {} hook but not all of gk's hooks, so gk doctor --fix leaves registrations alone (it would register the {} hook a second time)",
                    managed.display(),
                    kind.arg(),
                    kind.arg()
                ))
                .by_hand(),
            RegistrationFix::Blocked { why } => f
                .fix(format!("{why}; then {user_fix}"))
                .by_hand(),
            RegistrationFix::Unsure { command, kind } => f
                .fix(format!(
                    "{by_hand}; `{command}` may already run gk's {} hook, so gk doctor --fix leaves registrations alone (it would register that hook a second time)",
                    kind.arg()
                ))
                .by_hand(),
        }
    }
}

/// Findings about gk's registrations: missing, firing twice, redundant,
/// legacy, misplaced, or undecidable, in that order per hook and then in
/// file order. `t` holds every registration of the files Claude Code uses.
#[cfg(test)]
pub fn check_registrations(t: &Table, user_settings: &Path) -> Vec<Finding> {
    check_registrations_with(t, user_settings, &registration_fix(&t.rows, &|_| true))
}

/// [`check_registrations`] with what `--fix` can do decided by the caller.
pub fn check_registrations_with(
    t: &Table,
    user_settings: &Path,
    how: &RegistrationFix,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let missing = rules::missing(t);
    let twice = rules::fires_twice(t);
    let repeated = rules::repeated(t);
    // What doctor did not read may register it: not called missing.
    let unread = matches!(how, RegistrationFix::Unread { .. });
    for kind in HookKind::ALL {
        if missing.contains(&kind) && !unread {
            out.push(hook_missing(kind, user_settings, how));
        }
        for f in twice.iter().filter(|f| f.kind == kind) {
            out.push(fires_twice(f, user_settings, how));
        }
        for r in repeated.iter().filter(|r| r.kind == kind) {
            out.push(repeated_string(r, user_settings, how));
        }
    }
    // Per-row findings, merged back into file order (a row has at most one).
    let mut per_row: Vec<(usize, Finding)> = Vec::new();
    for (row, kind) in rules::legacy(t) {
        per_row.push((row, legacy(&t.rows[row], kind, how)));
    }
    for (row, kind) in rules::wrong_event(t) {
        per_row.push((row, wrong_event(&t.rows[row], kind, how)));
    }
    for (row, kind) in rules::in_project(t) {
        per_row.push((row, in_project(&t.rows[row], kind, user_settings, how)));
    }
    for u in rules::unrecognised(t) {
        per_row.push((u.row, unrecognised(&t.rows[u.row], &u)));
    }
    per_row.sort_by_key(|(row, _)| *row);
    out.extend(
        per_row
            .into_iter()
            .map(|(row, f)| match &t.rows[row].plugin {
                Some(p) => in_a_plugin(f, &p.id),
                None => f,
            }),
    );
    out
}

/// A finding about a row of a plugin's hooks file: gk never edits a
/// plugin's files, so the fix is the plugin's or the user's.
pub fn in_a_plugin(f: Finding, id: &str) -> Finding {
    f.fix(format!(
        "by hand: this is in plugin {id}'s hooks file, which gk never edits: update the plugin, or switch it off (`enabledPlugins` \"{id}\": false)"
    ))
    .by_hand()
}

fn hook_missing(kind: HookKind, user_settings: &Path, how: &RegistrationFix) -> Finding {
    // Without the session check the other two still work; only the warning
    // at a session's start is lost (an older install, say): a warning.
    let severity = match kind.spec().when_missing {
        WhenMissing::Warning => Severity::Warning,
        WhenMissing::Error => Severity::Error,
    };
    let f = Finding::new(
        Code::HookMissing,
        format!(
            "gk's {} hook ({}) is not registered in any settings file Claude Code loads",
            kind.arg(),
            kind.event()
        ),
    )
    .severity(severity);
    how.fix(
        f,
        format!("{FIX_COMMAND} (adds it to {})", user_settings.display()),
        &format!(
            "register `gk hook {}` under {} by hand (in {}, or ask whoever manages this machine to add it to managed settings)",
            kind.arg(),
            kind.event(),
            user_settings.display()
        ),
        false,
    )
}

/// How the copies of a hook that fires more than once differ: under
/// different command strings, or one string in places the client does not
/// merge (managed settings and user settings, say).
fn registered_how(t: &rules::FiresTwice<'_>) -> String {
    let n = t.spellings.len();
    let mut commands: Vec<&str> = t.spellings.iter().map(|s| s.command).collect();
    commands.sort_unstable();
    commands.dedup();
    match commands.len() {
        1 => format!("in {n} places under the same command"),
        c if c == n => format!("under {n} different commands"),
        c => format!("in {n} places under {c} different commands"),
    }
}

fn fires_twice(t: &rules::FiresTwice<'_>, user_settings: &Path, how: &RegistrationFix) -> Finding {
    let n = t.spellings.len();
    let first = t.spellings[0].places[0];
    let places = || t.spellings.iter().flat_map(|s| &s.places);
    let mut plugins: Vec<&str> = Vec::new();
    for r in places() {
        if let Some(p) = &r.plugin {
            if !plugins.contains(&p.id.as_str()) {
                plugins.push(&p.id);
            }
        }
    }
    let in_files = places().any(|r| r.plugin.is_none());
    if !in_files && plugins.len() >= 2 {
        return in_two_plugins(t, &plugins);
    }
    if !in_files {
        // Two spellings inside one plugin's hooks files.
        let f = Finding::new(
            Code::HookFiresTwice,
            format!(
                "gk's {} hook is registered {} in plugin {}; Claude Code runs each, so it fires {n} times",
                t.kind.arg(),
                registered_how(t),
                plugins[0]
            ),
        )
        .at(&first.path, Some(first.line));
        return with_places(in_a_plugin(f, plugins[0]), t);
    }
    let mut f = match plugins.first() {
        // Measured: the client merges identical handlers within one source
        // only; a plugin's copy and a settings file's both run.
        Some(_) => Finding::new(
            Code::HookInPluginAndSettings,
            format!(
                "gk's {} hook is registered by plugin {} and in settings files too; Claude Code runs each copy (it never merges a plugin's with a settings file's), so it fires {n} times",
                t.kind.arg(),
                plugins.join(" and "),
            ),
        ),
        None => Finding::new(
            Code::HookFiresTwice,
            format!(
                "gk's {} hook is registered {}; Claude Code runs each, so it fires {n} times",
                t.kind.arg(),
                registered_how(t),
            ),
        ),
    }
    .at(&first.path, Some(first.line));
    let all_managed = places().all(|r| r.scope.is_policy());
    let carrier = match how {
        RegistrationFix::RemovePluginCopies { carried } => carried
            .iter()
            .find(|(k, _)| *k == t.kind)
            .map(|(_, id)| id.as_str()),
        _ => None,
    };
    let in_settings = places().any(|r| r.plugin.is_none() && !r.scope.is_policy());
    f = match carrier {
        // A plugin's copy and settings copies: the settings ones go.
        Some(plugin) if in_settings => {
            let others: Vec<String> = plugins
                .iter()
                .filter(|p| **p != plugin)
                .map(|p| format!("`claude plugin disable {p}`"))
                .collect();
            let also = if others.is_empty() {
                String::new()
            } else {
                format!(
                    "; more plugins carry it too, keep one: {} (gk never edits a plugin's files)",
                    others.join(", ")
                )
            };
            f.fix(format!(
                "{FIX_COMMAND} (removes gk's settings copy of the {} hook from user, project and local settings; plugin {plugin} carries it){also}",
                t.kind.arg()
            ))
            .fixed_by(Part::Registrations)
        }
        // A plugin's copy gk does not count as doing the job (it cannot
        // run, or its plugin is enabled for one project only): --fix
        // takes no settings copy out for it, and never edits a plugin.
        None if !plugins.is_empty()
            && in_settings
            && !matches!(how, RegistrationFix::RemoveOutsidePlugin { .. }) =>
        {
            f.fix(format!(
                "by hand: plugin {} registers gk's {} hook too, but its copy cannot run or its plugin is enabled only in a project's settings, so gk doctor --fix keeps the settings copy (taking it out could leave the hook running nowhere); switch the plugin off where it runs twice (`enabledPlugins` \"{}\": false), or correct its copy",
                plugins[0],
                t.kind.arg(),
                plugins[0]
            ))
            .by_hand()
        }
        _ => how.fix(
            f,
            format!(
                "{FIX_COMMAND} (keeps one canonical entry in {})",
                user_settings.display()
            ),
            "keep one of these entries and delete the others",
            all_managed,
        ),
    };
    with_places(f, t)
}

/// `hook-in-two-plugins`: only plugins register the hook, and more than one
/// does. gk never edits a plugin: the fix is the client's command.
fn in_two_plugins(t: &rules::FiresTwice<'_>, plugins: &[&str]) -> Finding {
    let first = t.spellings[0].places[0];
    let f = Finding::new(
        Code::HookInTwoPlugins,
        format!(
            "gk's {} hook is registered by {} plugins ({}); Claude Code runs each plugin's copy, so it fires {} times",
            t.kind.arg(),
            plugins.len(),
            plugins.join(", "),
            t.spellings.len()
        ),
    )
    .at(&first.path, Some(first.line))
    .fix(format!(
        "keep one plugin: {} (gk never edits a plugin's files)",
        plugins[1..]
            .iter()
            .map(|p| format!("`claude plugin disable {p}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
    .by_hand();
    with_places(f, t)
}

/// `f` with each place and command of `t` as a detail line.
fn with_places(mut f: Finding, t: &rules::FiresTwice<'_>) -> Finding {
    for s in &t.spellings {
        for r in &s.places {
            f = f.detail(format!("{}  `{}`", r.place(), r.command));
        }
    }
    f
}

fn repeated_string(
    r: &rules::Repeated<'_>,
    user_settings: &Path,
    how: &RegistrationFix,
) -> Finding {
    let places = &r.spelling.places;
    let mut f = Finding::new(
        Code::HookRedundant,
        format!(
            "`{}` is registered {} times for {}; Claude Code runs it once, the other entries are clutter",
            r.spelling.command,
            places.len(),
            r.kind.event()
        ),
    )
    .at(&places[0].path, Some(places[0].line));
    f = how.fix_of(
        r.kind,
        f,
        format!(
            "{FIX_COMMAND} (keeps one entry in {})",
            user_settings.display()
        ),
        "keep one of these entries and delete the others",
        places.iter().all(|r| r.scope.is_policy()),
    );
    for p in places {
        f = f.detail(p.place());
    }
    f
}

fn legacy(r: &Registration, kind: HookKind, how: &RegistrationFix) -> Finding {
    how.fix_of(
        kind,
        Finding::new(
            Code::HookLegacy,
            format!(
                "the Python {} is still registered for {} in {}",
                kind.legacy_script().unwrap_or_default(),
                r.event,
                r.place()
            ),
        )
        .at(&r.path, Some(r.line)),
        format!("{FIX_COMMAND} (replaces it with `gk hook {}`)", kind.arg()),
        &format!("replace it with `gk hook {}`", kind.arg()),
        r.scope.is_policy(),
    )
}

fn wrong_event(r: &Registration, kind: HookKind, how: &RegistrationFix) -> Finding {
    how.fix(
        Finding::new(
            Code::HookWrongEvent,
            format!(
                "gk's {} hook is registered under {} in {}; it belongs under {}",
                kind.arg(),
                r.event,
                r.place(),
                kind.event()
            ),
        )
        .at(&r.path, Some(r.line)),
        format!("{FIX_COMMAND} (removes it there)"),
        &format!("delete that entry from {}", r.path.display()),
        r.scope.is_policy(),
    )
}

fn in_project(
    r: &Registration,
    kind: HookKind,
    user_settings: &Path,
    how: &RegistrationFix,
) -> Finding {
    how.fix_of(
        kind,
        Finding::new(
            Code::HookRedundant,
            format!(
                "gk's {} hook is registered in shared project settings {}:{}; it points at one machine's gk and belongs in user settings",
                kind.arg(),
                r.path.display(),
                r.line
            ),
        )
        .at(&r.path, Some(r.line)),
        format!(
            "{FIX_COMMAND} (removes it there; {} keeps the one entry)",
            user_settings.display()
        ),
        &format!("delete that entry from {}", r.path.display()),
        false,
    )
}

fn unrecognised(r: &Registration, u: &rules::Unrecognised) -> Finding {
    let why = if u.undecidable {
        "pipes, `&&` or variables doctor cannot resolve"
    } else {
        "it names gk or a gatekeeper script but is not a plain `gk hook prompt|stop|session` call"
    };
    let then = if u.job_registered {
        "if it does, that hook fires twice"
    } else {
        "if it does not, nothing registers gk's hook for this event"
    };
    Finding::new(
        Code::HookUnrecognised,
        format!(
            "cannot tell whether `{}` in {} runs a gk hook ({why}); {then}",
            r.command,
            r.place()
        ),
    )
    .at(&r.path, Some(r.line))
    .fix("if it runs gk, delete that entry by hand; gk doctor leaves commands it cannot identify alone")
}

#[cfg(test)]
mod tests;
