//! What gk wants on a machine, in one description that every channel and
//! command reads: its hooks (and how their commands are spelt there), the
//! permission rules for the task records, the status line, the Task State
//! Convention in CLAUDE.md and the marker of what install filled in. The
//! plans of install, uninstall and purge ([`plans`]) and `gk doctor --fix`
//! are built from it; none of them keeps a second copy.
//!
//! Nothing here writes: a plan goes through [`crate::change::apply`].

pub mod binary;
pub mod managed;
pub mod parts;
pub mod planner;
pub mod plans;
pub mod plugin;
pub mod record;

use std::path::Path;

use crate::cli::ShellChoice;
use crate::edit::settings_edit::{self, EmptyContainer, WantedHooks};
use crate::edit::settings_keys::{self, StatusLine};
use crate::error::{Error, Result};
use crate::hookcmd::{canonical, CommandContext, HookKind, ShellForm};
use crate::machine::Machine;
use crate::platform::Os;

/// The clean task state install creates when there is none (seed A.3).
pub const CLEAN_STATE: &str = "{\n  \"status\": \"clean\",\n  \"task\": \"\",\n  \"detail\": \"\",\n  \"project\": \"\",\n  \"cwd\": \"\",\n  \"updated\": \"2026-01-01T00:00:00\"\n}\n";

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Which command form to register: asked for, or decided from the platform.
/// On Windows the exec form (no shell), whether Git Bash is there or not: no
/// shell to start on every prompt (a Git Bash or PowerShell start costs far
/// more than gk itself), no quoting of the path, and the client runs exactly
/// what the smoke test runs. Elsewhere the bash form.
pub fn shell_form(choice: ShellChoice, os: Os) -> ShellForm {
    match choice {
        ShellChoice::Bash => ShellForm::Bash,
        ShellChoice::Powershell => ShellForm::PowerShell,
        ShellChoice::Exec => ShellForm::Exec,
        ShellChoice::Auto if os.is_windows() => ShellForm::Exec,
        ShellChoice::Auto => ShellForm::Bash,
    }
}

/// The canonical command for each hook, spelled for `shell` on this machine
/// (`bash_home`: see [`spelling_context`]).
pub fn wanted_hooks(
    ctx: &CommandContext,
    shell: ShellForm,
    bash_home: Option<&Path>,
    client: Option<crate::hookcmd::ClientVersion>,
) -> WantedHooks {
    let spelled = spelling_context(ctx, shell, bash_home);
    WantedHooks::for_client(client, |kind| canonical(kind, &spelled, shell))
}

/// [`wanted_hooks`], read back before anything is written: each command,
/// split and expanded as the shell will (`hookcmd::normalize`), must start
/// `binary` — the file install puts in place — with `hook <kind>`. A
/// `<claude dir>` that no command string can name (not valid Unicode) or a
/// spelling that would start another file is an error, so the plan stops
/// with nothing written instead of registering a command that fails.
pub fn verified_wanted_hooks(
    ctx: &CommandContext,
    shell: ShellForm,
    bash_home: Option<&Path>,
    binary: &Path,
    client: Option<crate::hookcmd::ClientVersion>,
) -> Result<WantedHooks> {
    let Some(bin) = binary.to_str() else {
        return Err(Error::refused(format!(
            "{} is not valid Unicode, so no settings.json command can name it (set CLAUDE_CONFIG_DIR to a folder whose name is)",
            binary.display()
        )));
    };
    let wanted = wanted_hooks(ctx, shell, bash_home, client);
    let spelled = spelling_context(ctx, shell, bash_home);
    let program = crate::hookcmd::normalize_path(bin, ctx.os);
    for (kind, command) in wanted.iter() {
        let command = command.run_command();
        let runs = crate::hookcmd::normalize(&command, &spelled);
        let ok = runs
            .as_ref()
            .is_some_and(|inv| inv.program == program && inv.args == ["hook", kind.arg()]);
        if !ok {
            return Err(Error::refused(format!(
                "the command gk would register, `{command}`, does not start {}",
                binary.display()
            )));
        }
    }
    Ok(wanted)
}

/// The context to spell a command with. Git Bash takes `$HOME` from the
/// `HOME` variable when one is set, while Claude Code finds `<claude dir>`
/// under the Windows profile folder; on machines where the two differ (a
/// `HOME` on a network drive, say) a `$HOME/...` command would point at a
/// binary that is not there, so the home is taken as the shell's and the
/// command falls back to the absolute `C:/...` form.
pub fn spelling_context(
    ctx: &CommandContext,
    shell: ShellForm,
    bash_home: Option<&Path>,
) -> CommandContext {
    let same = |h: &Path| {
        crate::hookcmd::normalize_path(&h.to_string_lossy(), ctx.os)
            == crate::hookcmd::normalize_path(&ctx.home.to_string_lossy(), ctx.os)
    };
    match bash_home {
        Some(h) if ctx.os.is_windows() && shell == ShellForm::Bash && !same(h) => CommandContext {
            home: h.to_path_buf(),
            ..ctx.clone()
        },
        _ => ctx.clone(),
    }
}

/// What install adds to settings.json besides the hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extras {
    /// The `permissions.allow` rules for the state folder
    /// ([`crate::paths::state_rules`]); `None`: none added (`--no-permissions`,
    /// or a folder no rule can name).
    pub rules: Option<[String; 2]>,
    /// Register `gk statusline` as the status line where none is set.
    pub statusline: bool,
    /// The client's version, as `claude --version` gave it at install
    /// time: it decides the hooks only some versions know
    /// ([`HookKind::known_to`]). `None`: no client found (or not asked).
    pub client: Option<crate::hookcmd::ClientVersion>,
}

impl Extras {
    /// The rules for this machine's state folder, and what to say when
    /// there is none that can be written.
    pub fn for_machine(m: &Machine, permissions: bool, statusline: bool) -> (Extras, Vec<String>) {
        let mut notes = Vec::new();
        let rules = if permissions {
            let dir = m.state_dir.clone();
            let rules = parts::Site::of(m).rules();
            if rules.is_none() {
                notes.push(format!(
                    "note: no permission rule can name the state folder {} (it holds a character rules treat specially); Claude Code will ask before each task record write",
                    dir.map(|d| d.display().to_string()).unwrap_or_else(|| "(none found)".into())
                ));
            }
            rules
        } else {
            None
        };
        (
            Extras {
                rules,
                statusline,
                client: None,
            },
            notes,
        )
    }
}

/// The status line command: the prompt hook's program, run as `gk statusline`.
pub fn statusline_command(wanted: &WantedHooks) -> String {
    // Every channel wants the prompt hook ([`HookKind::ALWAYS`]).
    let prompt = wanted
        .get(HookKind::Prompt)
        .map_or("gk hook prompt", |c| c.command.as_str());
    match prompt.strip_suffix(" hook prompt") {
        Some(program) => format!("{program} statusline"),
        None => format!("{prompt} statusline"),
    }
}

/// The shell a status line runs in on Windows. The client has no exec form
/// for `statusLine` (its `args` are ignored, measured) and runs the command
/// through Git Bash when it finds one, else PowerShell (its 2.1.332 code:
/// `bash.exe -c "<command as written>"`, measured with a stand-in bash). So
/// a Windows install in the exec form gets the status line in the form of
/// the shell the client will use, found as the client finds Git Bash
/// ([`crate::platform::find_git_bash`]); the bash and PowerShell forms stay
/// as they were chosen.
pub fn statusline_shell(shell: ShellForm, git_bash: Option<&Path>) -> ShellForm {
    match (shell, git_bash) {
        (ShellForm::Exec, Some(_)) => ShellForm::Bash,
        (ShellForm::Exec, None) => ShellForm::PowerShell,
        (other, _) => other,
    }
}

/// The status line command install writes for hooks registered in `shell`
/// (read back like the hooks' commands before anything is written).
pub fn statusline_for(
    ctx: &CommandContext,
    shell: ShellForm,
    git_bash: Option<&Path>,
    bash_home: Option<&Path>,
    binary: &Path,
) -> Result<String> {
    let line_shell = statusline_shell(shell, git_bash);
    Ok(statusline_command(&verified_wanted_hooks(
        ctx, line_shell, bash_home, binary, None,
    )?))
}

/// Why gk's status line `command` cannot run in `shell` on Windows, where
/// the client runs it through Git Bash when it finds one and PowerShell
/// otherwise; `None` when it can (or off Windows, where it is always sh).
pub fn statusline_breaks(os: Os, command: &str, git_bash: Option<&Path>) -> Option<&'static str> {
    if !os.is_windows() {
        return None;
    }
    let c = command.trim_start();
    if git_bash.is_some() {
        if c.starts_with('&') {
            Some("PowerShell's call operator `&` is a syntax error in bash")
        } else if c.contains('\\') {
            Some("bash reads each backslash as an escape and drops it")
        } else {
            None
        }
    } else if c.starts_with(['"', '\'', '$']) {
        Some("PowerShell reads a line that starts with a quoted path or a variable as a value and runs nothing")
    } else {
        None
    }
}

/// Build install's plan: the binary, task_state.json, CLAUDE.md,
/// settings.json (hooks, and the permission rules for the task records);
/// and notes on anything that will keep the hooks from running even so.
/// What gk puts into one user settings.json, each part optional: its hooks,
/// the permission rules for the task records, its status line.
#[derive(Debug, Clone, Copy, Default)]
pub struct SettingsWanted<'a> {
    pub hooks: Option<&'a WantedHooks>,
    pub rules: Option<&'a [String]>,
    pub statusline: Option<&'a str>,
}

/// Which steps of [`put_in_settings`] changed the text (what a
/// plan says it does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Done {
    /// gk's hooks taken out (registered elsewhere): set by the caller.
    pub taken_out: bool,
    pub hooks: bool,
    pub rules: bool,
    pub statusline: bool,
}

/// [`SettingsWanted`] put into `text` (the file's text after any earlier
/// step; `on_disk` is the file as it is, for the places refusals name).
/// The one chain install and `gk doctor --fix` both run: hooks, then rules,
/// then status line. Returns the new text, the containers that were empty
/// and now hold gk's entries (for the install record), whether the
/// status line is gk's now (`None` when none was asked for), and which
/// steps changed the text.
pub fn put_in_settings(
    path: &Path,
    on_disk: Option<&str>,
    mut text: String,
    want: &SettingsWanted,
    ctx: &CommandContext,
) -> Result<(String, Vec<EmptyContainer>, Option<StatusLine>, Done)> {
    let mut filled = Vec::new();
    let mut done = Done::default();
    if let Some(wanted) = want.hooks {
        let (added, noted) = on_disk_places(on_disk, &text, |t| {
            settings_edit::add_hooks_noting(path, t, wanted, ctx)
        })?;
        done.hooks = added != text;
        text = added;
        filled = noted;
    }
    if let Some(rules) = want.rules {
        let (added, noted) = on_disk_places(on_disk, &text, |t| {
            settings_keys::add_rules_noting(path, t, rules)
        })?;
        done.rules = added != text;
        text = added;
        filled.extend(noted);
    }
    let mut line = None;
    if let Some(command) = want.statusline {
        let result = on_disk_places(on_disk, &text, |t| {
            settings_keys::add_statusline(path, t, command, ctx)
        })?;
        if let StatusLine::Registered(t) = &result {
            done.statusline = *t != text;
            text = t.clone();
        }
        line = Some(result);
    }
    Ok((text, filled, line, done))
}

/// One step of a chain of edits of one settings file, run on the text the
/// steps before it made. Its refusal names a place in that text, which is
/// not the file on disk (gk's own insertion comes before it): so a refusal
/// is asked of the file as it is on disk too, and that answer, with its
/// places, is the one reported. A step that refuses only gk's own text is
/// gk's fault, reported as it came.
pub(crate) fn on_disk_places<T>(
    on_disk: Option<&str>,
    current: &str,
    step: impl Fn(&str) -> Result<T>,
) -> Result<T> {
    match step(current) {
        Ok(v) => Ok(v),
        Err(e) => match on_disk.filter(|t| !t.trim().is_empty()).map(&step) {
            Some(Err(original)) => Err(original),
            _ => Err(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::plans::{plan_install, plan_install_with, plan_uninstall};
    use super::*;
    use crate::change::plan;
    use crate::edit::settings_keys;
    use crate::paths::ClaudePaths;
    use std::path::PathBuf;

    #[test]
    fn shell_form_is_exec_on_windows_bash_elsewhere_unless_asked() {
        assert_eq!(shell_form(ShellChoice::Auto, Os::Linux), ShellForm::Bash);
        assert_eq!(shell_form(ShellChoice::Auto, Os::MacOs), ShellForm::Bash);
        assert_eq!(shell_form(ShellChoice::Auto, Os::Windows), ShellForm::Exec);
        assert_eq!(
            shell_form(ShellChoice::Powershell, Os::Windows),
            ShellForm::PowerShell
        );
        assert_eq!(shell_form(ShellChoice::Bash, Os::Windows), ShellForm::Bash);
        assert_eq!(shell_form(ShellChoice::Exec, Os::Linux), ShellForm::Exec);
    }

    fn windows_machine(dir: &Path, git_bash: Option<PathBuf>) -> Machine {
        let paths = ClaudePaths::at(dir.join(".claude"));
        Machine {
            ctx: CommandContext {
                os: Os::Windows,
                home: dir.to_path_buf(),
                claude_dir: paths.dir().to_path_buf(),
                claude_config_dir: None,
            },
            paths,
            git_bash,
            bash_home: None,
            path_var: None,
            managed: PathBuf::from(r"C:\Program Files\ClaudeCode\managed-settings.json"),
            registry_policy: Default::default(),
            managed_program: PathBuf::from(r"C:\Program Files\gk\gk.exe"),
            state_dir: Some(dir.join(".local/state/gk")),
            current_dir: None,
            plugins_dir: dir.join(".claude/plugins"),
        }
    }

    #[test]
    fn git_bash_home_elsewhere_gets_the_absolute_form() {
        let ctx = CommandContext {
            os: Os::Windows,
            home: PathBuf::from(r"C:\Users\Ann"),
            claude_dir: PathBuf::from(r"C:\Users\Ann\.claude"),
            claude_config_dir: None,
        };
        let prompt = |shell, bash_home: Option<&str>| {
            wanted_hooks(&ctx, shell, bash_home.map(Path::new), None)
                .get(HookKind::Prompt)
                .unwrap()
                .command
                .clone()
        };
        // HOME on a network drive: $HOME in Git Bash is not the profile folder.
        assert_eq!(
            prompt(ShellForm::Bash, Some(r"H:\")),
            r#""C:/Users/Ann/.claude/hooks/gk.exe" hook prompt"#
        );
        // HOME set to the profile folder, in either spelling: $HOME is fine.
        for same in [r"C:\Users\Ann", "/c/Users/Ann", "C:/users/ann/"] {
            assert_eq!(
                prompt(ShellForm::Bash, Some(same)),
                r#""$HOME/.claude/hooks/gk.exe" hook prompt"#,
                "{same}"
            );
        }
        assert_eq!(
            prompt(ShellForm::Bash, None),
            r#""$HOME/.claude/hooks/gk.exe" hook prompt"#
        );
        // PowerShell spells the path from $env:USERPROFILE, whatever HOME says.
        assert_eq!(
            prompt(ShellForm::PowerShell, Some(r"H:\")),
            r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" hook prompt"#
        );
        // The absolute form is still recognised as gk's by every command.
        let abs = prompt(ShellForm::Bash, Some(r"H:\"));
        assert_eq!(
            crate::hookcmd::classify(&abs, &ctx),
            crate::hookcmd::Owner::Gk(HookKind::Prompt)
        );
    }

    #[test]
    fn a_windows_status_line_is_spelled_for_the_shell_the_client_will_use() {
        let dir = tempfile::tempdir().unwrap();
        let extras = Extras {
            rules: None,
            statusline: true,
            client: None,
        };
        let line_of = |m: &Machine| {
            let (plan, notes) =
                plan_install_with(m, ShellForm::Exec, b"new build", &extras).unwrap();
            let change = plan
                .changes
                .iter()
                .find(|c| c.path == m.paths.settings())
                .unwrap();
            let text = String::from_utf8(change.new.clone().unwrap()).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            (
                v["statusLine"]["command"].as_str().unwrap().to_string(),
                text,
                notes,
            )
        };
        let ps = r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" statusline"#;
        let bash = r#""$HOME/.claude/hooks/gk.exe" statusline"#;
        let none = windows_machine(dir.path(), None);
        let (line, text, notes) = line_of(&none);
        assert_eq!(line, ps);
        assert!(
            notes.iter().any(|n| n.contains("spelled for PowerShell")),
            "{notes:?}"
        );
        // The hooks stay in the exec form: only the status line needs a shell.
        assert!(text.contains("\"args\": [\n"), "{text}");
        let found = windows_machine(dir.path(), Some(PathBuf::from(r"C:\Git\bin\bash.exe")));
        let (line, _, notes) = line_of(&found);
        assert_eq!(line, bash);
        assert!(
            notes
                .iter()
                .any(|n| n.contains(r"Git Bash (C:\Git\bin\bash.exe)")),
            "{notes:?}"
        );

        // Git for Windows installed later: installing again respells gk's
        // own status line and leaves every other byte as it was.
        std::fs::create_dir_all(none.paths.dir()).unwrap();
        let before = format!(
            "{{\n  \"statusLine\": {{\"type\": \"command\", \"command\": {}, \"padding\": 1}},\n  \"env\": {{\"K\": \"v\"}}\n}}\n",
            serde_json::to_string(ps).unwrap()
        );
        std::fs::write(none.paths.settings(), &before).unwrap();
        let (line, text, _) = line_of(&found);
        assert_eq!(line, bash);
        let respelled = before.replace(
            &serde_json::to_string(ps).unwrap(),
            &serde_json::to_string(bash).unwrap(),
        );
        // The hooks go in front; what was there follows, respelled only.
        assert!(text.ends_with(&respelled["{\n".len()..]), "{text}");
        // A status line that is not gk's is never touched.
        let other =
            "{\"statusLine\": {\"type\": \"command\", \"command\": \"C:\\\\tools\\\\line.exe\"}}\n";
        std::fs::write(none.paths.settings(), other).unwrap();
        let (line, _, notes) = line_of(&found);
        assert_eq!(line, r"C:\tools\line.exe");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("already sets a statusLine")),
            "{notes:?}"
        );
        // And nothing is said of a spelling gk did not write.
        assert!(
            !notes.iter().any(|n| n.contains("spelled for")),
            "{notes:?}"
        );
        // Both forms are gk's, so uninstall takes either out.
        for line in [ps, bash] {
            assert!(settings_keys::is_gk_statusline(line, &none.ctx), "{line}");
        }
        // Linux and macOS: the hooks' own form, no note.
        assert_eq!(statusline_shell(ShellForm::Bash, None), ShellForm::Bash);
        assert_eq!(
            statusline_shell(ShellForm::PowerShell, Some(Path::new("x"))),
            ShellForm::PowerShell
        );
    }

    /// The new text of the settings.json `plan` writes.
    fn settings_in(plan: &plan::Plan) -> String {
        let change = plan
            .changes
            .iter()
            .find(|c| c.path.ends_with("settings.json"));
        String::from_utf8(change.unwrap().new.clone().unwrap()).unwrap()
    }

    #[test]
    fn windows_plans_use_gk_exe_move_the_old_copy_aside_and_need_no_shell() {
        let dir = tempfile::tempdir().unwrap();
        // With or without Git Bash: the exec form, the absolute gk.exe path.
        for git_bash in [None, Some(PathBuf::from(r"C:\Git\bin\bash.exe"))] {
            let m = windows_machine(dir.path(), git_bash);
            let shell = shell_form(ShellChoice::Auto, m.os());
            let (plan, _) = plan_install(&m, shell, b"new build").unwrap();
            let bin = &plan.changes[0];
            assert!(bin.path.ends_with("hooks/gk.exe"));
            assert_eq!(bin.strategy, plan::ReplaceStrategy::MoveAsideFirst);
            let settings = settings_in(&plan);
            let exe = m.paths.dir().to_string_lossy().replace('/', "\\") + "\\hooks\\gk.exe";
            let exe_json = serde_json::to_string(&exe).unwrap();
            assert!(
                settings.contains(&format!("\"command\": {exe_json},")),
                "{settings}"
            );
            assert!(settings.contains("\"args\": [\n"), "{settings}");
            let v: serde_json::Value = serde_json::from_str(&settings).unwrap();
            let handler = &v["hooks"]["UserPromptSubmit"][0]["hooks"][0];
            assert_eq!(handler["args"], serde_json::json!(["hook", "prompt"]));
            assert_eq!(handler.get("shell"), None);
            let handler = &v["hooks"]["Stop"][0]["hooks"][0];
            assert_eq!(handler["args"], serde_json::json!(["hook", "stop"]));
        }
        // The other forms stay available.
        let m = windows_machine(dir.path(), None);
        let (plan, _) = plan_install(&m, ShellForm::PowerShell, b"new build").unwrap();
        let settings = settings_in(&plan);
        assert!(settings.contains("\"shell\": \"powershell\""), "{settings}");
        assert!(
            settings
                .contains("& \\\"$env:USERPROFILE\\\\.claude\\\\hooks\\\\gk.exe\\\" hook prompt"),
            "{settings}"
        );
        let (plan, _) = plan_install(&m, ShellForm::Bash, b"new build").unwrap();
        let settings = settings_in(&plan);
        assert!(
            settings.contains("\"\\\"$HOME/.claude/hooks/gk.exe\\\" hook stop\""),
            "{settings}"
        );
        assert!(!settings.contains("powershell"));
    }

    #[test]
    fn windows_uninstall_moves_a_gk_build_aside_and_leaves_anything_else() {
        let dir = tempfile::tempdir().unwrap();
        let m = windows_machine(dir.path(), None);
        std::fs::create_dir_all(m.paths.hooks_dir()).unwrap();
        std::fs::write(m.paths.binary(m.os()), b"not gk").unwrap();
        let (plan, notes) = plan_uninstall(&m, false).unwrap();
        assert!(plan.changes.iter().all(|c| !c.binary));
        assert!(notes[0].contains("does not look like a gk build"));
        let own = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        std::fs::write(m.paths.binary(m.os()), own).unwrap();
        let (plan, _) = plan_uninstall(&m, false).unwrap();
        let bin = plan.changes.iter().find(|c| c.binary).unwrap();
        assert_eq!(bin.new, None);
        assert_eq!(bin.strategy, plan::ReplaceStrategy::MoveAsideFirst);
    }

    #[test]
    fn the_status_line_runs_the_hooks_program() {
        let dir = tempfile::tempdir().unwrap();
        let m = windows_machine(dir.path(), None);
        let ps = wanted_hooks(&m.ctx, ShellForm::PowerShell, None, None);
        assert_eq!(
            statusline_command(&ps),
            r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" statusline"#
        );
        let bash = wanted_hooks(&m.ctx, ShellForm::Bash, None, None);
        assert_eq!(
            statusline_command(&bash),
            r#""$HOME/.claude/hooks/gk.exe" statusline"#
        );
    }

    #[test]
    fn clean_state_is_the_seed_clean_form() {
        let v: serde_json::Value = serde_json::from_str(CLEAN_STATE).unwrap();
        assert_eq!(v["status"], "clean");
        for k in ["task", "detail", "project", "cwd"] {
            assert_eq!(v[k], "");
        }
        assert_eq!(v["updated"], "2026-01-01T00:00:00");
    }
}
