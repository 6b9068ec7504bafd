//! Which of gk's hooks Claude Code will really run, and how many times.
//!
//! Claude Code adds the hooks of every settings file it loads together and
//! deduplicates them by the raw command string only (measured): the same
//! string twice runs once, two spellings of the same program run twice. So
//! "the same hook" is decided by what a command runs (`hookcmd`), and
//! "runs twice" by how many *different* strings run it. `disableAllHooks`
//! and managed `allowManagedHooksOnly` then decide which scopes run at all.
//! Everything here is pure: registrations and switches come in as values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;

use super::finding::{Finding, Group, Remedy, Severity, FIX_COMMAND};
use super::scopes::{Scope, ScopeFile};
use crate::hookcmd::{HookKind, Invocation, Owner};
use crate::settings;

/// One command handler from a loaded settings file, with what it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Registration {
    pub scope: Scope,
    pub path: PathBuf,
    pub line: usize,
    pub event: String,
    pub command: String,
    /// Exec form: the program and its arguments as the client starts them
    /// (no shell); `None` for a command string run through a shell.
    pub exec: Option<Vec<String>>,
    pub shell: Option<String>,
    pub timeout: Option<f64>,
    pub owner: Owner,
    /// `None` when the command could not be decided (pipes, `&&`, unknown variables).
    pub invocation: Option<Invocation>,
}

impl Registration {
    /// `scope path:line`, for messages.
    pub fn place(&self) -> String {
        format!(
            "{} settings {}:{}",
            self.scope.name(),
            self.path.display(),
            self.line
        )
    }

    /// This registration does the job of `kind` (gk or its Python forerunner)
    /// under the event that job belongs to.
    pub fn does(&self, kind: HookKind) -> bool {
        self.event == kind.event()
            && matches!(self.owner, Owner::Gk(k) | Owner::Legacy(k) if k == kind)
    }
}

/// Every command handler of the files Claude Code uses (parsed, schema-clean),
/// identified by `identify` (`hookcmd::classify` + `hookcmd::normalize`).
pub fn collect(
    files: &[ScopeFile],
    identify: &dyn Fn(&str) -> (Owner, Option<Invocation>),
) -> Vec<Registration> {
    let mut out = Vec::new();
    for file in files.iter().filter(|f| f.effective()) {
        let super::scopes::Load::Parsed { entries, .. } = &file.load else {
            continue;
        };
        for e in entries {
            let Some(command) = &e.run_command() else {
                continue;
            };
            if e.hook_type.as_deref() != Some("command") {
                continue;
            }
            let (owner, invocation) = identify(command);
            // Install's rule: the Python scripts only count under their own event.
            let owner = crate::hookcmd::owner_under(owner, &e.event);
            out.push(Registration {
                scope: file.scope,
                path: file.path.clone(),
                line: e.line,
                event: e.event.clone(),
                command: command.clone(),
                exec: e.args.as_ref().map(|args| {
                    let mut argv = vec![e.command.clone().unwrap_or_default()];
                    argv.extend(args.iter().cloned());
                    argv
                }),
                shell: e.shell.clone(),
                timeout: e.timeout,
                owner,
                invocation,
            });
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchKey {
    DisableAllHooks,
    AllowManagedHooksOnly,
}

impl SwitchKey {
    pub fn key(self) -> &'static str {
        match self {
            SwitchKey::DisableAllHooks => "disableAllHooks",
            SwitchKey::AllowManagedHooksOnly => "allowManagedHooksOnly",
        }
    }
}

/// A boolean hook switch found at the top level of a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Switch {
    pub scope: Scope,
    pub path: PathBuf,
    pub line: Option<usize>,
    pub key: SwitchKey,
    pub value: bool,
}

/// The hook switches of the files Claude Code uses, in load order.
pub fn switches(files: &[ScopeFile]) -> Vec<Switch> {
    let mut out = Vec::new();
    for file in files.iter().filter(|f| f.effective()) {
        let Some(s) = file.settings() else { continue };
        for key in [SwitchKey::DisableAllHooks, SwitchKey::AllowManagedHooksOnly] {
            if let Some(value) = s.value.get(key.key()).and_then(|v| v.as_bool()) {
                let needle = format!("\"{}\"", key.key());
                let line = s
                    .text
                    .find(&needle)
                    .map(|off| settings::line_col(&s.text, off).0);
                out.push(Switch {
                    scope: file.scope,
                    path: file.path.clone(),
                    line,
                    key,
                    value,
                });
            }
        }
    }
    out
}

/// Which scopes' hooks run, and which switch turned them off.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Policy {
    /// User, project and local hooks are off because of this switch.
    pub nonmanaged_off: Option<Switch>,
    /// Managed hooks are off too (managed `disableAllHooks`).
    pub managed_off: Option<Switch>,
}

impl Policy {
    pub fn runs(&self, scope: Scope) -> bool {
        match scope {
            Scope::Managed => self.managed_off.is_none(),
            _ => self.nonmanaged_off.is_none(),
        }
    }
}

/// Settle the switches the way Claude Code merges settings: managed beats
/// local beats project beats user for `disableAllHooks` (the last managed
/// file read wins among managed ones); a managed `true` turns off every
/// hook, a non-managed one only the non-managed hooks. `allowManagedHooksOnly`
/// counts only in managed settings.
pub fn policy(switches: &[Switch]) -> Policy {
    let last = |scope: Scope, key: SwitchKey| {
        switches
            .iter()
            .rev()
            .find(|s| s.scope == scope && s.key == key)
    };
    let managed_disable = last(Scope::Managed, SwitchKey::DisableAllHooks);
    let nonmanaged_disable = [Scope::Local, Scope::Project, Scope::User]
        .into_iter()
        .find_map(|scope| last(scope, SwitchKey::DisableAllHooks));
    let only_managed = last(Scope::Managed, SwitchKey::AllowManagedHooksOnly).filter(|s| s.value);

    let mut policy = Policy::default();
    match managed_disable.or(nonmanaged_disable) {
        Some(s) if s.value && s.scope == Scope::Managed => {
            policy.managed_off = Some(s.clone());
            policy.nonmanaged_off = Some(s.clone());
        }
        Some(s) if s.value => policy.nonmanaged_off = Some(s.clone()),
        _ => {}
    }
    if policy.nonmanaged_off.is_none() {
        policy.nonmanaged_off = only_managed.cloned();
    }
    policy
}

fn place_of(path: &Path, line: Option<usize>) -> String {
    match line {
        Some(l) => format!("{}:{l}", path.display()),
        None => path.display().to_string(),
    }
}

/// `hooks-disabled` findings for a policy that switches gk off. A switch
/// that turns off only user, project and local hooks leaves gk running when
/// managed settings register both of its hooks (`regs`): no finding then.
pub fn check_policy(policy: &Policy, regs: &[Registration]) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(s) = &policy.managed_off {
        out.push(
            Finding::new(
                "hooks-disabled",
                Severity::Error,
                Group::Registrations,
                format!(
                    "disableAllHooks is true in managed settings {}: Claude Code runs no hooks at all",
                    place_of(&s.path, s.line)
                ),
            )
            .at(&s.path, s.line)
            .fix("managed policy: ask whoever manages this machine to remove disableAllHooks there (gk cannot change it)"),
        );
        return out;
    }
    let managed_does_both = HookKind::ALL
        .into_iter()
        .all(|k| regs.iter().any(|r| r.scope == Scope::Managed && r.does(k)));
    if managed_does_both {
        return out;
    }
    if let Some(s) = &policy.nonmanaged_off {
        let finding = match s.key {
            SwitchKey::DisableAllHooks => Finding::new(
                "hooks-disabled",
                Severity::Error,
                Group::Registrations,
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
                "hooks-disabled",
                Severity::Error,
                Group::Registrations,
                format!(
                    "allowManagedHooksOnly is true in managed settings {}: Claude Code runs only managed hooks, so gk's hooks in user, project or local settings never run",
                    place_of(&s.path, s.line)
                ),
            )
            .fix("managed policy: ask whoever manages this machine to register gk in managed settings or lift allowManagedHooksOnly (gk cannot change it)"),
        };
        out.push(finding.at(&s.path, s.line));
    }
    out
}

/// What `--fix` may do about gk's registrations. Managed settings are
/// policy gk never edits, so the hooks they already register decide it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistrationFix {
    /// No managed registration: one canonical entry per hook in user settings.
    UserEntry,
    /// Managed settings do both jobs (gk or the Python hooks): remove gk's
    /// and the Python hooks' entries from user, project and local settings.
    RemoveOutsideManaged { managed: PathBuf },
    /// Managed settings do one job only: writing user settings would
    /// register that hook a second time (install registers both), so a
    /// person decides.
    Manual { managed: PathBuf, kind: HookKind },
    /// Nothing identifiable does `kind`'s job, but `command` may (doctor
    /// cannot decide it): writing user settings would add `kind` beside it.
    Unsure { command: String, kind: HookKind },
    /// User settings cannot be edited (do not parse, break the schema where
    /// gk edits, cannot be read): `why`, from `fix::editable`.
    Blocked { why: String },
}

/// Decide [`RegistrationFix`] from every registration of the loaded files.
pub fn registration_fix(regs: &[Registration]) -> RegistrationFix {
    let managed = |kind: HookKind| {
        regs.iter()
            .find(|r| r.scope == Scope::Managed && r.does(kind))
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
    match (managed(HookKind::Prompt), managed(HookKind::Stop)) {
        (None, None) => unsure.unwrap_or(RegistrationFix::UserEntry),
        (Some(managed), Some(_)) => RegistrationFix::RemoveOutsideManaged { managed },
        (Some(managed), None) => RegistrationFix::Manual {
            managed,
            kind: HookKind::Prompt,
        },
        (None, Some(managed)) => RegistrationFix::Manual {
            managed,
            kind: HookKind::Stop,
        },
    }
}

impl RegistrationFix {
    /// Give a registration finding its fix. `user_fix`: what `--fix` does
    /// when nothing is managed; `by_hand`: what a person does otherwise;
    /// `in_managed`: the finding is about an entry of managed settings.
    pub fn fix(&self, f: Finding, user_fix: String, by_hand: &str, in_managed: bool) -> Finding {
        if in_managed {
            return f
                .fix(format!(
                    "managed policy: ask whoever manages this machine to {by_hand} (gk never edits managed settings)"
                ))
                .remedy(Remedy::Manual);
        }
        match self {
            RegistrationFix::UserEntry => f.fix(user_fix).remedy(Remedy::Registrations),
            RegistrationFix::RemoveOutsideManaged { managed } => f
                .fix(format!(
                    "{FIX_COMMAND} (removes gk's entries from user, project and local settings; managed settings {} register both hooks)",
                    managed.display()
                ))
                .remedy(Remedy::Registrations),
            RegistrationFix::Manual { managed, kind } => f
                .fix(format!(
                    "{by_hand}; managed settings {} register gk's {} hook but not the other, so gk doctor --fix leaves registrations alone (it would register the {} hook a second time)",
                    managed.display(),
                    kind.arg(),
                    kind.arg()
                ))
                .remedy(Remedy::Manual),
            RegistrationFix::Blocked { why } => f
                .fix(format!("{why}; then {user_fix}"))
                .remedy(Remedy::Manual),
            RegistrationFix::Unsure { command, kind } => f
                .fix(format!(
                    "{by_hand}; `{command}` may already run gk's {} hook, so gk doctor --fix leaves registrations alone (it would register that hook a second time)",
                    kind.arg()
                ))
                .remedy(Remedy::Manual),
        }
    }
}

/// Findings about gk's registrations: missing, firing twice, redundant,
/// legacy, misplaced, or undecidable. `regs` are all registrations of the
/// files Claude Code uses; `policy` says which of them run.
pub fn check_registrations(
    regs: &[Registration],
    policy: &Policy,
    user_settings: &Path,
) -> Vec<Finding> {
    check_registrations_with(regs, policy, user_settings, &registration_fix(regs))
}

/// [`check_registrations`] with what `--fix` can do decided by the caller.
pub fn check_registrations_with(
    regs: &[Registration],
    policy: &Policy,
    user_settings: &Path,
    how: &RegistrationFix,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let active: Vec<&Registration> = regs.iter().filter(|r| policy.runs(r.scope)).collect();

    for kind in HookKind::ALL {
        let doing: Vec<&Registration> = active.iter().copied().filter(|r| r.does(kind)).collect();
        let any_loaded = regs.iter().any(|r| r.does(kind));
        // A command doctor cannot decide may be this hook: then "missing"
        // would be a guess (and --fix would add a second copy). The
        // hook-unrecognised finding says so instead.
        let maybe = regs.iter().any(|r| maybe_gk(r, kind));
        if doing.is_empty() && !any_loaded && !maybe {
            let f = Finding::new(
                "hook-missing",
                Severity::Error,
                Group::Registrations,
                format!(
                    "gk's {} hook ({}) is not registered in any settings file Claude Code loads",
                    kind.arg(),
                    kind.event()
                ),
            );
            out.push(how.fix(
                f,
                format!("{FIX_COMMAND} (adds it to {})", user_settings.display()),
                &format!(
                    "register `gk hook {}` under {} by hand (in {}, or ask whoever manages this machine to add it to managed settings)",
                    kind.arg(),
                    kind.event(),
                    user_settings.display()
                ),
                false,
            ));
        }

        // Distinct command strings, in first-seen order, with every place.
        let mut by_string: BTreeMap<&str, Vec<&Registration>> = BTreeMap::new();
        let mut order: Vec<&str> = Vec::new();
        for r in &doing {
            let e = by_string.entry(r.command.as_str()).or_default();
            if e.is_empty() {
                order.push(r.command.as_str());
            }
            e.push(r);
        }
        if order.len() >= 2 {
            let first = by_string[order[0]][0];
            let mut f = Finding::new(
                "hook-fires-twice",
                Severity::Error,
                Group::Registrations,
                format!(
                    "gk's {} hook is registered under {} different commands; Claude Code runs each, so it fires {} times",
                    kind.arg(),
                    order.len(),
                    order.len()
                ),
            )
            .at(&first.path, Some(first.line));
            f = how.fix(
                f,
                format!(
                    "{FIX_COMMAND} (keeps one canonical entry in {})",
                    user_settings.display()
                ),
                "keep one of these entries and delete the others",
                doing.iter().all(|r| r.scope == Scope::Managed),
            );
            for s in &order {
                for r in &by_string[s] {
                    f = f.detail(format!("{}  `{}`", r.place(), r.command));
                }
            }
            out.push(f);
        }
        for s in &order {
            let places = &by_string[s];
            if places.len() >= 2 {
                let mut f = Finding::new(
                    "hook-redundant",
                    Severity::Warning,
                    Group::Registrations,
                    format!(
                        "`{}` is registered {} times for {}; Claude Code runs it once, the other entries are clutter",
                        s,
                        places.len(),
                        kind.event()
                    ),
                )
                .at(&places[0].path, Some(places[0].line));
                f = how.fix(
                    f,
                    format!(
                        "{FIX_COMMAND} (keeps one entry in {})",
                        user_settings.display()
                    ),
                    "keep one of these entries and delete the others",
                    places.iter().all(|r| r.scope == Scope::Managed),
                );
                for r in places {
                    f = f.detail(r.place());
                }
                out.push(f);
            }
        }
    }

    for r in regs {
        match r.owner {
            Owner::Legacy(kind) => out.push(how.fix(
                Finding::new(
                    "hook-legacy",
                    Severity::Warning,
                    Group::Registrations,
                    format!(
                        "the Python {} is still registered for {} in {}",
                        kind.legacy_script(),
                        r.event,
                        r.place()
                    ),
                )
                .at(&r.path, Some(r.line)),
                format!("{FIX_COMMAND} (replaces it with `gk hook {}`)", kind.arg()),
                &format!("replace it with `gk hook {}`", kind.arg()),
                r.scope == Scope::Managed,
            )),
            Owner::Gk(kind) if r.event != kind.event() => out.push(how.fix(
                Finding::new(
                    "hook-wrong-event",
                    Severity::Warning,
                    Group::Registrations,
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
                r.scope == Scope::Managed,
            )),
            Owner::Gk(kind) if r.scope == Scope::Project => out.push(how.fix(
                Finding::new(
                    "hook-redundant",
                    Severity::Warning,
                    Group::Registrations,
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
            )),
            Owner::Foreign if HookKind::ALL.iter().any(|k| maybe_gk(r, *k)) => {
                let why = if r.invocation.is_none() {
                    "pipes, `&&` or variables doctor cannot resolve"
                } else {
                    "it names gk or a gatekeeper script but is not a plain `gk hook prompt|stop` call"
                };
                let registered = HookKind::ALL
                    .iter()
                    .any(|k| k.event() == r.event && regs.iter().any(|o| o.does(*k)));
                let then = if registered {
                    "if it does, that hook fires twice"
                } else {
                    "if it does not, nothing registers gk's hook for this event"
                };
                out.push(
                    Finding::new(
                        "hook-unrecognised",
                        Severity::Warning,
                        Group::Registrations,
                        format!(
                            "cannot tell whether `{}` in {} runs a gk hook ({why}); {then}",
                            r.command,
                            r.place()
                        ),
                    )
                    .at(&r.path, Some(r.line))
                    .fix("if it runs gk, delete that entry by hand; gk doctor leaves commands it cannot identify alone"),
                );
            }
            _ => {}
        }
    }
    out
}

/// A command under `kind`'s event that doctor cannot identify but that
/// names gk or the Python hooks.
fn maybe_gk(r: &Registration, kind: HookKind) -> bool {
    r.owner == Owner::Foreign && r.event == kind.event() && mentions_gk(&r.command)
}

/// Does an undecidable command look like it could run gk or the Python hooks?
pub fn mentions_gk(command: &str) -> bool {
    thread_local! {
        static RE: Regex = Regex::new(r#"(?i)(^|[\s/\\'"`])gk(\.exe)?([\s'"`]|$)|gatekeeper|state_monitor"#).unwrap();
    }
    RE.with(|re| re.is_match(command))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(scope: Scope, event: &str, command: &str, owner: Owner) -> Registration {
        Registration {
            scope,
            path: PathBuf::from(format!("/{}/settings.json", scope.name())),
            line: 3,
            event: event.to_string(),
            command: command.to_string(),
            exec: None,
            shell: None,
            timeout: None,
            owner,
            invocation: Some(Invocation {
                program: "/h/.claude/hooks/gk".to_string(),
                args: vec![],
            }),
        }
    }

    fn codes(f: &[Finding]) -> Vec<&'static str> {
        f.iter().map(|f| f.code).collect()
    }

    const USER: &str = "/h/.claude/settings.json";

    fn healthy() -> Vec<Registration> {
        vec![
            reg(
                Scope::User,
                "UserPromptSubmit",
                "\"$HOME/.claude/hooks/gk\" hook prompt",
                Owner::Gk(HookKind::Prompt),
            ),
            reg(
                Scope::User,
                "Stop",
                "\"$HOME/.claude/hooks/gk\" hook stop",
                Owner::Gk(HookKind::Stop),
            ),
        ]
    }

    #[test]
    fn healthy_registrations_give_nothing() {
        let f = check_registrations(&healthy(), &Policy::default(), Path::new(USER));
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn nothing_registered_is_missing_twice() {
        let f = check_registrations(&[], &Policy::default(), Path::new(USER));
        assert_eq!(codes(&f), ["hook-missing", "hook-missing"]);
        assert!(f[0].message.contains("UserPromptSubmit"));
        assert!(f[1].message.contains("Stop"));
    }

    #[test]
    fn identical_string_across_scopes_is_redundant_not_twice() {
        let mut regs = healthy();
        regs.push(reg(
            Scope::Local,
            "UserPromptSubmit",
            "\"$HOME/.claude/hooks/gk\" hook prompt",
            Owner::Gk(HookKind::Prompt),
        ));
        let f = check_registrations(&regs, &Policy::default(), Path::new(USER));
        assert_eq!(codes(&f), ["hook-redundant"]);
        assert_eq!(f[0].details.len(), 2);
    }

    #[test]
    fn two_spellings_fire_twice_linux_macos_windows() {
        for (a, b) in [
            (
                "\"$HOME/.claude/hooks/gk\" hook prompt",
                "~/.claude/hooks/gk hook prompt",
            ),
            (
                "/Users/u/.claude/hooks/gk hook prompt",
                "$HOME/.claude/hooks/gk hook prompt",
            ),
            (
                r"C:\Users\u\.claude\hooks\gk.exe hook prompt",
                "/c/Users/u/.claude/hooks/gk hook prompt",
            ),
        ] {
            let mut regs = healthy();
            regs.push(reg(
                Scope::User,
                "UserPromptSubmit",
                a,
                Owner::Gk(HookKind::Prompt),
            ));
            regs[0].command = b.to_string();
            let f = check_registrations(&regs, &Policy::default(), Path::new(USER));
            assert_eq!(codes(&f), ["hook-fires-twice"], "{a} / {b}");
            assert!(f[0].message.contains("2 different commands"));
        }
    }

    #[test]
    fn python_gatekeeper_beside_gk_fires_twice_and_is_legacy() {
        let mut regs = healthy();
        regs.push(reg(
            Scope::User,
            "UserPromptSubmit",
            "/c/miniforge3/python /c/Users/u/.claude/hooks/gatekeeper.py",
            Owner::Legacy(HookKind::Prompt),
        ));
        let f = check_registrations(&regs, &Policy::default(), Path::new(USER));
        assert_eq!(codes(&f), ["hook-fires-twice", "hook-legacy"]);
    }

    #[test]
    fn python_only_is_legacy_not_missing() {
        let regs = vec![
            reg(
                Scope::User,
                "UserPromptSubmit",
                "python3 ~/.claude/hooks/gatekeeper.py",
                Owner::Legacy(HookKind::Prompt),
            ),
            reg(
                Scope::User,
                "Stop",
                "python3 ~/.claude/hooks/state_monitor.py",
                Owner::Legacy(HookKind::Stop),
            ),
        ];
        let f = check_registrations(&regs, &Policy::default(), Path::new(USER));
        assert_eq!(codes(&f), ["hook-legacy", "hook-legacy"]);
    }

    #[test]
    fn gk_in_shared_project_settings_is_redundant() {
        let mut regs = healthy();
        for r in &mut regs {
            r.scope = Scope::Project;
        }
        let f = check_registrations(&regs, &Policy::default(), Path::new(USER));
        assert_eq!(codes(&f), ["hook-redundant", "hook-redundant"]);
        assert!(f[0].message.contains("shared project settings"));
    }

    #[test]
    fn wrong_event_is_reported_and_does_not_count() {
        let mut regs = healthy();
        regs[1].event = "UserPromptSubmit".to_string();
        let f = check_registrations(&regs, &Policy::default(), Path::new(USER));
        assert_eq!(codes(&f), ["hook-missing", "hook-wrong-event"]);
    }

    #[test]
    fn undecidable_command_naming_gk_is_flagged_unsure() {
        let mut regs = healthy();
        let mut r = reg(
            Scope::User,
            "UserPromptSubmit",
            "cd /tmp && gk hook prompt | cat",
            Owner::Foreign,
        );
        r.invocation = None;
        regs.push(r);
        regs.push(reg(
            Scope::User,
            "Stop",
            "bash -c 'gk hook stop'",
            Owner::Foreign,
        ));
        regs.push(reg(
            Scope::User,
            "Stop",
            "/usr/bin/gk-notify done",
            Owner::Foreign,
        ));
        let mut other = reg(
            Scope::User,
            "UserPromptSubmit",
            "echo hi | tee /tmp/x",
            Owner::Foreign,
        );
        other.invocation = None;
        regs.push(other);
        let f = check_registrations(&regs, &Policy::default(), Path::new(USER));
        assert_eq!(codes(&f), ["hook-unrecognised", "hook-unrecognised"]);
        assert!(f[0].message.contains("cannot resolve"));
        assert!(f[1].message.contains("not a plain"));
    }

    fn switch(scope: Scope, key: SwitchKey, value: bool) -> Switch {
        Switch {
            scope,
            path: PathBuf::from(format!("/{}/settings.json", scope.name())),
            line: Some(2),
            key,
            value,
        }
    }

    #[test]
    fn disable_all_hooks_in_user_turns_off_nonmanaged_only() {
        let p = policy(&[switch(Scope::User, SwitchKey::DisableAllHooks, true)]);
        assert!(!p.runs(Scope::User) && !p.runs(Scope::Local));
        assert!(p.runs(Scope::Managed));
        let f = check_policy(&p, &[]);
        assert_eq!(codes(&f), ["hooks-disabled"]);
        assert!(f[0].message.contains("/user/settings.json:2"));
        // Registered but switched off: disabled, not missing.
        let r = check_registrations(&healthy(), &p, Path::new(USER));
        assert!(r.is_empty(), "{r:?}");
    }

    #[test]
    fn local_false_beats_user_true() {
        let p = policy(&[
            switch(Scope::User, SwitchKey::DisableAllHooks, true),
            switch(Scope::Local, SwitchKey::DisableAllHooks, false),
        ]);
        assert_eq!(p, Policy::default());
    }

    #[test]
    fn managed_disable_turns_off_everything() {
        let p = policy(&[switch(Scope::Managed, SwitchKey::DisableAllHooks, true)]);
        assert!(!p.runs(Scope::Managed) && !p.runs(Scope::User));
        assert!(check_policy(&p, &[])[0]
            .fix
            .as_deref()
            .unwrap()
            .contains("managed policy"));
    }

    #[test]
    fn allow_managed_hooks_only_counts_only_in_managed() {
        let p = policy(&[switch(Scope::User, SwitchKey::AllowManagedHooksOnly, true)]);
        assert_eq!(p, Policy::default());
        let p = policy(&[switch(
            Scope::Managed,
            SwitchKey::AllowManagedHooksOnly,
            true,
        )]);
        assert!(!p.runs(Scope::User) && p.runs(Scope::Managed));
        assert!(check_policy(&p, &[])[0]
            .message
            .contains("allowManagedHooksOnly"));
    }

    #[test]
    fn managed_registration_runs_under_allow_managed_only() {
        let p = policy(&[switch(
            Scope::Managed,
            SwitchKey::AllowManagedHooksOnly,
            true,
        )]);
        let mut regs = healthy();
        for r in &mut regs {
            r.scope = Scope::Managed;
        }
        assert!(check_registrations(&regs, &p, Path::new(USER)).is_empty());
    }

    #[test]
    fn what_fix_may_do_follows_managed_and_undecidable_registrations() {
        assert_eq!(registration_fix(&healthy()), RegistrationFix::UserEntry);
        let mut managed = healthy();
        for r in &mut managed {
            r.scope = Scope::Managed;
        }
        assert!(matches!(
            registration_fix(&managed),
            RegistrationFix::RemoveOutsideManaged { .. }
        ));
        let one = vec![managed[0].clone(), healthy()[1].clone()];
        assert!(matches!(
            registration_fix(&one),
            RegistrationFix::Manual {
                kind: HookKind::Prompt,
                ..
            }
        ));
        let mut wrapped = reg(
            Scope::User,
            "UserPromptSubmit",
            "gk hook prompt 2>/dev/null",
            Owner::Foreign,
        );
        wrapped.invocation = None;
        let unsure = vec![wrapped, healthy()[1].clone()];
        assert!(matches!(
            registration_fix(&unsure),
            RegistrationFix::Unsure {
                kind: HookKind::Prompt,
                ..
            }
        ));
        // Managed registrations: a fix there is the administrator's.
        let f = check_registrations(&managed[..1], &Policy::default(), Path::new(USER));
        assert_eq!(codes(&f), ["hook-missing"]);
        assert_eq!(f[0].remedy, Remedy::Manual);
    }

    #[test]
    fn gk_word_detection() {
        assert!(mentions_gk("cd x && gk hook prompt"));
        assert!(mentions_gk("foo | /opt/bin/gk.exe hook stop"));
        assert!(mentions_gk("$PY $D/gatekeeper.py"));
        assert!(!mentions_gk("echo gkx | grep hooks"));
    }

    /// The whole pipeline on real settings text and real command identity:
    /// parse → collect (hookcmd::classify/normalize) → findings.
    fn findings_for(ctx: &crate::hookcmd::CommandContext, files: &[(Scope, &str)]) -> Vec<Finding> {
        let loaded: Vec<ScopeFile> = files
            .iter()
            .map(|(scope, text)| ScopeFile {
                scope: *scope,
                path: PathBuf::from(format!("/{}.json", scope.name())),
                load: super::super::scopes::classify_text(Path::new("/x.json"), text),
            })
            .collect();
        let identify = |c: &str| {
            (
                crate::hookcmd::classify(c, ctx),
                crate::hookcmd::normalize(c, ctx),
            )
        };
        let regs = collect(&loaded, &identify);
        let policy = policy(&switches(&loaded));
        let mut out = check_policy(&policy, &regs);
        out.extend(check_registrations(&regs, &policy, Path::new(USER)));
        out
    }

    fn settings_with(event_commands: &[(&str, &str)]) -> String {
        let mut hooks = serde_json::Map::new();
        for (event, command) in event_commands {
            let groups = hooks
                .entry(event.to_string())
                .or_insert_with(|| serde_json::json!([]));
            groups.as_array_mut().unwrap().push(serde_json::json!({
                "hooks": [{"type": "command", "command": command}]
            }));
        }
        serde_json::json!({ "hooks": hooks }).to_string()
    }

    fn ctx(
        os: crate::platform::Os,
        home: &str,
        config: Option<&str>,
    ) -> crate::hookcmd::CommandContext {
        let claude_dir = match config {
            Some(c) => PathBuf::from(c),
            None if os.is_windows() => PathBuf::from(format!(r"{home}\.claude")),
            None => PathBuf::from(format!("{home}/.claude")),
        };
        crate::hookcmd::CommandContext {
            os,
            home: PathBuf::from(home),
            claude_dir,
            claude_config_dir: config.map(PathBuf::from),
        }
    }

    #[test]
    fn windows_spellings_of_one_hook_each_fire() {
        let c = ctx(crate::platform::Os::Windows, r"C:\Users\u", None);
        let user = settings_with(&[
            (
                "UserPromptSubmit",
                "\"$HOME/.claude/hooks/gk.exe\" hook prompt",
            ),
            (
                "UserPromptSubmit",
                r"C:\Users\u\.claude\hooks\gk.exe hook prompt",
            ),
            (
                "UserPromptSubmit",
                "/c/Users/u/.claude/hooks/gk hook prompt",
            ),
            ("Stop", r"%USERPROFILE%\.claude\hooks\gk.exe hook stop"),
        ]);
        let local = settings_with(&[
            (
                "UserPromptSubmit",
                "C:/USERS/U/.CLAUDE/HOOKS/GK.EXE hook prompt",
            ),
            ("Stop", r"%USERPROFILE%\.claude\hooks\gk.exe hook stop"),
        ]);
        let f = findings_for(&c, &[(Scope::User, &user), (Scope::Local, &local)]);
        assert_eq!(codes(&f), ["hook-fires-twice", "hook-redundant"], "{f:#?}");
        assert!(f[0].message.contains("4 different commands"));
    }

    #[test]
    fn macos_spellings_and_claude_config_dir() {
        let c = ctx(crate::platform::Os::MacOs, "/Users/u", Some("/Users/u/cfg"));
        let user = settings_with(&[
            (
                "UserPromptSubmit",
                "\"$CLAUDE_CONFIG_DIR/hooks/gk\" hook prompt",
            ),
            ("Stop", "/Users/u/cfg/hooks/gk hook stop"),
        ]);
        let project = settings_with(&[("Stop", "\"${HOME}/cfg/hooks/gk\" hook stop")]);
        let f = findings_for(&c, &[(Scope::User, &user), (Scope::Project, &project)]);
        assert_eq!(codes(&f), ["hook-fires-twice", "hook-redundant"], "{f:#?}");
        assert!(f[1].message.contains("shared project settings"));
    }

    #[test]
    fn linux_quotes_and_tilde_and_an_undecidable_command() {
        let c = ctx(crate::platform::Os::Linux, "/home/u", None);
        let user = settings_with(&[
            ("UserPromptSubmit", "'/home/u/.claude/hooks/gk' hook prompt"),
            ("UserPromptSubmit", "~/.claude/hooks/gk hook prompt"),
            ("Stop", "~/.claude/hooks/gk hook stop"),
            ("Stop", "cd ~ && gk hook stop"),
        ]);
        let f = findings_for(&c, &[(Scope::User, &user)]);
        assert_eq!(
            codes(&f),
            ["hook-fires-twice", "hook-unrecognised"],
            "{f:#?}"
        );
    }

    #[test]
    fn a_file_voided_by_a_matcher_array_contributes_nothing() {
        let c = ctx(crate::platform::Os::Linux, "/home/u", None);
        let user = settings_with(&[
            ("UserPromptSubmit", "~/.claude/hooks/gk hook prompt"),
            ("Stop", "~/.claude/hooks/gk hook stop"),
        ]);
        let local = r#"{"hooks": {"UserPromptSubmit": [{"matcher": [], "hooks": [{"type": "command", "command": "$HOME/.claude/hooks/gk hook prompt"}]}]}}"#;
        let f = findings_for(&c, &[(Scope::User, &user), (Scope::Local, local)]);
        assert!(f.is_empty(), "{f:#?}");
    }

    #[test]
    fn disable_all_hooks_read_from_settings_text() {
        let c = ctx(crate::platform::Os::Linux, "/home/u", None);
        let user = r#"{
  "disableAllHooks": true,
  "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/.claude/hooks/gk hook prompt"}]}]}
}"#;
        let f = findings_for(&c, &[(Scope::User, user)]);
        assert_eq!(codes(&f), ["hooks-disabled", "hook-missing"]);
        assert_eq!(f[0].line, Some(2));
    }
}
