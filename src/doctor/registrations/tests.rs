use super::*;
use crate::hookcmd::Owner;
use crate::registry::rules::mentions_gk;
use crate::registry::scopes::Scope;
use crate::registry::table::{policy, Policy, Switch};

fn check(regs: &[Registration], p: &Policy) -> Vec<Finding> {
    check_registrations(&Table::of_rows(regs.to_vec(), p.clone()), Path::new(USER))
}

use crate::registry::table::test_row as reg;

fn codes(f: &[Finding]) -> Vec<&'static str> {
    f.iter().map(|f| f.code.as_str()).collect()
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
fn one_string_in_managed_and_user_is_two_places_not_two_commands() {
    let mut regs = healthy();
    regs.push(reg(
        Scope::Managed,
        "UserPromptSubmit",
        "\"$HOME/.claude/hooks/gk\" hook prompt",
        Owner::Gk(HookKind::Prompt),
    ));
    let f = check(&regs, &Policy::default());
    assert_eq!(codes(&f), ["hook-fires-twice"]);
    assert!(
        f[0].message
            .contains("prompt hook is registered in 2 places under the same command; Claude Code runs each, so it fires 2 times"),
        "{}",
        f[0].message
    );
    assert!(!f[0].message.contains("different commands"));
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
    assert_eq!(
        registration_fix(&healthy(), &|_| true),
        RegistrationFix::UserEntry
    );
    let mut managed = healthy();
    for r in &mut managed {
        r.scope = Scope::Managed;
    }
    assert!(matches!(
        registration_fix(&managed, &|_| true),
        RegistrationFix::RemoveOutsideManaged { .. }
    ));
    let one = vec![managed[0].clone(), healthy()[1].clone()];
    assert!(matches!(
        registration_fix(&one, &|_| true),
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
        registration_fix(&unsure, &|_| true),
        RegistrationFix::Unsure {
            kind: HookKind::Prompt,
            ..
        }
    ));
    // Managed registrations: a fix there is the administrator's.
    let f = check(&managed[..1], &Policy::default());
    assert_eq!(codes(&f), ["hook-missing", "hook-missing"]);
    assert!(f.iter().all(|f| f.remedy.is_none()));
    // Managed settings doing the two v5 jobs but not the session check
    // (an older gk there): a person decides, --fix would register twice.
    assert!(matches!(
        registration_fix(&managed[..2], &|_| true),
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
