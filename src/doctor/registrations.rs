//! gk's registrations as doctor reports them: the rules of
//! `crate::registry::rules` (one per finding code, over the normalised
//! registration table) rendered as findings, each with the fix `--fix` or a
//! person can make. What `--fix` may do is decided here too
//! ([`RegistrationFix`]): managed settings are policy gk never edits, and an
//! undecidable command that may be gk's makes adding an entry a guess.

use std::path::{Path, PathBuf};

use super::finding::{Finding, Group, Remedy, Severity, FIX_COMMAND};
use crate::hookcmd::HookKind;
use crate::registry::rules::{self, maybe_gk};
use crate::registry::scopes::Scope;
pub use crate::registry::{Registration, SwitchKey, Table};

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
            "hooks-disabled",
            Severity::Error,
            Group::Registrations,
            format!(
                "disableAllHooks is true in managed settings {}: Claude Code runs no hooks at all",
                place_of(&s.path, s.line)
            ),
        )
        .fix("managed policy: ask whoever manages this machine to remove disableAllHooks there (gk cannot change it)")
    } else {
        match s.key {
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
    let managed_kinds: Vec<(HookKind, PathBuf)> = HookKind::ALL
        .into_iter()
        .filter_map(|kind| managed(kind).map(|path| (kind, path)))
        .collect();
    match managed_kinds.first() {
        None => unsure.unwrap_or(RegistrationFix::UserEntry),
        Some((_, managed)) if managed_kinds.len() == HookKind::ALL.len() => {
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
                    "{FIX_COMMAND} (removes gk's entries from user, project and local settings; managed settings {} register all of gk's hooks)",
                    managed.display()
                ))
                .remedy(Remedy::Registrations),
            RegistrationFix::Manual { managed, kind } => f
                .fix(format!(
                    "{by_hand}; managed settings {} register gk's {} hook but not all of gk's hooks, so gk doctor --fix leaves registrations alone (it would register the {} hook a second time)",
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
/// legacy, misplaced, or undecidable, in that order per hook and then in
/// file order. `t` holds every registration of the files Claude Code uses.
#[cfg(test)]
pub fn check_registrations(t: &Table, user_settings: &Path) -> Vec<Finding> {
    check_registrations_with(t, user_settings, &registration_fix(&t.rows))
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
    for kind in HookKind::ALL {
        if missing.contains(&kind) {
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
    out.extend(per_row.into_iter().map(|(_, f)| f));
    out
}

fn hook_missing(kind: HookKind, user_settings: &Path, how: &RegistrationFix) -> Finding {
    // Without the session check the other two still work; only the warning
    // at a session's start is lost (an older install, say): a warning.
    let severity = match kind {
        HookKind::Session => Severity::Warning,
        _ => Severity::Error,
    };
    let f = Finding::new(
        "hook-missing",
        severity,
        Group::Registrations,
        format!(
            "gk's {} hook ({}) is not registered in any settings file Claude Code loads",
            kind.arg(),
            kind.event()
        ),
    );
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

fn fires_twice(t: &rules::FiresTwice<'_>, user_settings: &Path, how: &RegistrationFix) -> Finding {
    let n = t.spellings.len();
    let first = t.spellings[0].places[0];
    let mut f = Finding::new(
        "hook-fires-twice",
        Severity::Error,
        Group::Registrations,
        format!(
            "gk's {} hook is registered under {n} different commands; Claude Code runs each, so it fires {n} times",
            t.kind.arg(),
        ),
    )
    .at(&first.path, Some(first.line));
    let all_managed = t
        .spellings
        .iter()
        .flat_map(|s| &s.places)
        .all(|r| r.scope == Scope::Managed);
    f = how.fix(
        f,
        format!(
            "{FIX_COMMAND} (keeps one canonical entry in {})",
            user_settings.display()
        ),
        "keep one of these entries and delete the others",
        all_managed,
    );
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
        "hook-redundant",
        Severity::Warning,
        Group::Registrations,
        format!(
            "`{}` is registered {} times for {}; Claude Code runs it once, the other entries are clutter",
            r.spelling.command,
            places.len(),
            r.kind.event()
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
    for p in places {
        f = f.detail(p.place());
    }
    f
}

fn legacy(r: &Registration, kind: HookKind, how: &RegistrationFix) -> Finding {
    how.fix(
        Finding::new(
            "hook-legacy",
            Severity::Warning,
            Group::Registrations,
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
        r.scope == Scope::Managed,
    )
}

fn wrong_event(r: &Registration, kind: HookKind, how: &RegistrationFix) -> Finding {
    how.fix(
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
    )
}

fn in_project(
    r: &Registration,
    kind: HookKind,
    user_settings: &Path,
    how: &RegistrationFix,
) -> Finding {
    how.fix(
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
    .fix("if it runs gk, delete that entry by hand; gk doctor leaves commands it cannot identify alone")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hookcmd::Owner;
    use crate::registry::rules::mentions_gk;
    use crate::registry::{policy, Policy, Switch};

    fn check(regs: &[Registration], p: &Policy) -> Vec<Finding> {
        check_registrations(&Table::of_rows(regs.to_vec(), p.clone()), Path::new(USER))
    }

    use crate::registry::test_row as reg;

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
            reg(
                Scope::User,
                "SessionStart",
                "\"$HOME/.claude/hooks/gk\" hook session",
                Owner::Gk(HookKind::Session),
            ),
        ]
    }

    #[test]
    fn healthy_registrations_give_nothing() {
        let f = check(&healthy(), &Policy::default());
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn nothing_registered_is_missing_for_each_hook() {
        let f = check(&[], &Policy::default());
        assert_eq!(codes(&f), ["hook-missing", "hook-missing", "hook-missing"]);
        assert!(f[0].message.contains("UserPromptSubmit"));
        assert!(f[1].message.contains("Stop"));
        assert!(f[2].message.contains("session hook (SessionStart)"));
        // Without the session check the other hooks still work: a warning.
        assert_eq!(
            f.iter().map(|f| f.severity).collect::<Vec<_>>(),
            [Severity::Error, Severity::Error, Severity::Warning]
        );
    }

    #[test]
    fn the_session_hook_fires_twice_and_sits_under_the_wrong_event_like_the_others() {
        let mut regs = healthy();
        regs.push(reg(
            Scope::Local,
            "SessionStart",
            "~/.claude/hooks/gk hook session",
            Owner::Gk(HookKind::Session),
        ));
        regs.push(reg(
            Scope::User,
            "Stop",
            "\"$HOME/.claude/hooks/gk\" hook session",
            Owner::Gk(HookKind::Session),
        ));
        regs.push(reg(
            Scope::User,
            "SessionStart",
            "\"$HOME/.claude/hooks/gk\" hook session",
            Owner::Gk(HookKind::Session),
        ));
        let f = check(&regs, &Policy::default());
        assert_eq!(
            codes(&f),
            ["hook-fires-twice", "hook-redundant", "hook-wrong-event"]
        );
        assert!(f[0]
            .message
            .contains("session hook is registered under 2 different commands"));
        assert!(f[2].message.contains("belongs under SessionStart"));
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
        let f = check(&regs, &Policy::default());
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
            let f = check(&regs, &Policy::default());
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
        let f = check(&regs, &Policy::default());
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
        let f = check(&regs, &Policy::default());
        // The Python hooks had no session check: that one is missing.
        assert_eq!(codes(&f), ["hook-missing", "hook-legacy", "hook-legacy"]);
        assert!(f[0].message.contains("session hook"), "{}", f[0].message);
    }

    #[test]
    fn gk_in_shared_project_settings_is_redundant() {
        let mut regs = healthy();
        for r in &mut regs {
            r.scope = Scope::Project;
        }
        let f = check(&regs, &Policy::default());
        assert_eq!(
            codes(&f),
            ["hook-redundant", "hook-redundant", "hook-redundant"]
        );
        assert!(f[0].message.contains("shared project settings"));
    }

    #[test]
    fn wrong_event_is_reported_and_does_not_count() {
        let mut regs = healthy();
        regs[1].event = "UserPromptSubmit".to_string();
        let f = check(&regs, &Policy::default());
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
        let f = check(&regs, &Policy::default());
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
        let f = check_policy(&Table::of_rows(vec![], p.clone()));
        assert_eq!(codes(&f), ["hooks-disabled"]);
        assert!(f[0].message.contains("/user/settings.json:2"));
        // Registered but switched off: disabled, not missing.
        let r = check(&healthy(), &p);
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
        assert!(check_policy(&Table::of_rows(vec![], p.clone()))[0]
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
        assert!(check_policy(&Table::of_rows(vec![], p.clone()))[0]
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
        assert!(check(&regs, &p).is_empty());
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
        let f = check(&managed[..1], &Policy::default());
        assert_eq!(codes(&f), ["hook-missing", "hook-missing"]);
        assert!(f.iter().all(|f| f.remedy == Remedy::Manual));
        // Managed settings doing the two v5 jobs but not the session check
        // (an older gk there): a person decides, --fix would register twice.
        assert!(matches!(
            registration_fix(&managed[..2]),
            RegistrationFix::Manual {
                kind: HookKind::Prompt,
                ..
            }
        ));
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
        let loaded = crate::registry::scopes::test_files(files);
        let identify = |c: &str| {
            (
                crate::hookcmd::classify(c, ctx),
                crate::hookcmd::normalize(c, ctx),
            )
        };
        let t = Table::with(&loaded, &identify);
        let mut out = check_policy(&t);
        out.extend(check_registrations(&t, Path::new(USER)));
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
            (
                "SessionStart",
                r"%USERPROFILE%\.claude\hooks\gk.exe hook session",
            ),
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
            ("SessionStart", "/Users/u/cfg/hooks/gk hook session"),
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
            ("SessionStart", "~/.claude/hooks/gk hook session"),
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
            ("SessionStart", "~/.claude/hooks/gk hook session"),
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
        assert_eq!(
            codes(&f),
            ["hooks-disabled", "hook-missing", "hook-missing"]
        );
        assert_eq!(f[0].line, Some(2));
    }
}
