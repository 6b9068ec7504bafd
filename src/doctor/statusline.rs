//! `statusline-disabled`: gk's status line switched off by managed policy.
//! `statusline-broken`: gk's own status line in user settings, spelled for
//! a shell Claude Code will not run it in. A status line has no exec form;
//! on Windows the client runs it through Git Bash when it finds one and
//! through PowerShell otherwise (measured, docs/maintainers/claude-code-facts.md),
//! so a status line written for the other shell (Git for Windows installed
//! or removed since, or written by a gk that spelled it for neither) shows
//! nothing. `--fix` respells it as install would; a status line that is not
//! gk's is never looked at.

use super::finding::{Code, Finding, FIX_COMMAND};
use super::Inputs;
use crate::edit::settings_keys::is_gk_statusline;
use crate::registry::scopes::ScopeFile;
use crate::registry::table::{SwitchKey, Table};
use crate::setup::parts::Part;

/// The user settings and their status line's command, when it is gk's.
fn gk_statusline<'f>(files: &'f [ScopeFile], inputs: &Inputs) -> Option<(&'f ScopeFile, &'f str)> {
    let user = files.iter().find(|f| f.scope.is_user() && f.effective())?;
    let command = user
        .settings()?
        .value
        .get("statusLine")?
        .get("command")?
        .as_str()?;
    is_gk_statusline(command, &inputs.machine.ctx).then_some((user, command))
}

/// `statusline-disabled`: gk's status line in user settings where a
/// managed `allowManagedHooksOnly` is set, under which the client shows no
/// custom status line (measured on 2.1.332). Policy: only its
/// administrator can change it, and a managed drop-in cannot carry a
/// status line for each user.
pub fn check_policy(files: &[ScopeFile], table: &Table, inputs: &Inputs) -> Option<Finding> {
    let s = table
        .policy
        .nonmanaged_off
        .as_ref()
        .filter(|s| s.scope.is_policy() && s.key == SwitchKey::AllowManagedHooksOnly)?;
    let (user, command) = gk_statusline(files, inputs)?;
    let place = match s.line {
        Some(line) => format!("{}:{line}", s.path.display()),
        None => s.path.display().to_string(),
    };
    Some(
        Finding::new(
            Code::StatuslineDisabled,
            format!(
                "allowManagedHooksOnly is true in managed settings {place}: Claude Code shows no custom status line, so gk's in {} (`{command}`) never shows",
                user.label()
            ),
        )
        .at(&s.path, s.line)
        .fix("managed policy: ask whoever manages this machine to lift allowManagedHooksOnly (gk cannot change it)"),
    )
}

/// The finding for the user settings' status line, if it is gk's and
/// cannot run in the shell the client will use.
pub fn check(files: &[ScopeFile], inputs: &Inputs) -> Option<Finding> {
    let (user, command) = gk_statusline(files, inputs)?;
    let os = inputs.machine.ctx.os;
    let why = crate::setup::statusline_breaks(os, command, inputs.machine.git_bash.as_deref())?;
    let shell = match inputs.machine.git_bash.as_deref() {
        Some(bash) => format!("Git Bash ({})", bash.display()),
        None => "PowerShell (no Git Bash found)".to_string(),
    };
    let wanted = crate::setup::statusline_for(
        &inputs.machine.ctx,
        crate::setup::shell_form(crate::cli::ShellChoice::Auto, os),
        inputs.machine.git_bash.as_deref(),
        inputs.machine.bash_home.as_deref(),
        &inputs.machine.paths.binary(os),
    );
    let finding = Finding::new(
        Code::StatuslineBroken,
        format!(
            "the status line in {} runs `{command}`, but Claude Code runs a status line through {shell} here, and {why}: it shows nothing",
            user.label()
        ),
    )
    .at(&user.path, None);
    Some(match (wanted, super::fix::editable(user)) {
        (Ok(line), Ok(())) => finding
            .fix(format!("{FIX_COMMAND} (writes `{line}`)"))
            .fixed_by(Part::StatusLine),
        (Ok(line), Err(why)) => finding.fix(format!("{why}; then set its command to `{line}`")),
        (Err(e), _) => finding.fix(e.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::finding::Severity;
    use crate::hookcmd::CommandContext;
    use crate::paths::ClaudePaths;
    use crate::platform::Os;
    use crate::registry::scopes::test_files;
    use crate::registry::scopes::Scope;
    use std::path::PathBuf;

    fn inputs(os: Os, git_bash: Option<&str>) -> Inputs {
        let home = if os.is_windows() {
            r"C:\Users\Ann"
        } else {
            "/home/ann"
        };
        let ctx = CommandContext::with_home(os, home);
        let paths = ClaudePaths::at(ctx.claude_dir.clone());
        let machine = crate::machine::Machine {
            managed: PathBuf::from("/none.json"),
            git_bash: git_bash.map(PathBuf::from),
            plugins_dir: PathBuf::from(home).join(".claude/plugins"),
            ..crate::machine::Machine::of(ctx, paths)
        };
        Inputs {
            machine,
            project_dir: PathBuf::from(home),
            env: crate::env::Env::new("/", "/gk"),
            smoke: false,
            now: std::time::SystemTime::now(),
        }
    }

    fn finding_for(os: Os, git_bash: Option<&str>, command: &str) -> Option<Finding> {
        let text = serde_json::json!({"statusLine": {"type": "command", "command": command}});
        let files = test_files(&[(Scope::User, &text.to_string())]);
        check(&files, &inputs(os, git_bash))
    }

    const PS: &str = r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" statusline"#;
    const BASH: &str = r#""$HOME/.claude/hooks/gk.exe" statusline"#;
    const RAW: &str = r"C:\Users\Ann\.claude\hooks\gk.exe statusline";
    const GIT: Option<&str> = Some(r"C:\Program Files\Git\bin\bash.exe");

    #[test]
    fn a_status_line_for_the_other_shell_is_named_with_the_fix() {
        // PowerShell form, Git Bash found since.
        let f = finding_for(Os::Windows, GIT, PS).unwrap();
        assert_eq!(
            (f.code, f.severity, f.remedy),
            (
                Code::StatuslineBroken,
                Severity::Warning,
                Some(Part::StatusLine)
            )
        );
        assert!(
            f.message
                .contains("through Git Bash (C:\\Program Files\\Git\\bin\\bash.exe)"),
            "{}",
            f.message
        );
        assert!(
            f.message.contains("`&` is a syntax error in bash"),
            "{}",
            f.message
        );
        assert_eq!(
            f.fix.as_deref(),
            Some(format!("gk doctor --fix (writes `{BASH}`)").as_str())
        );
        // The raw path an earlier gk's exec-form install wrote, under Git Bash.
        let f = finding_for(Os::Windows, GIT, RAW).unwrap();
        assert!(f.message.contains("backslash"), "{}", f.message);
        // The bash form with no Git Bash: PowerShell prints the string.
        let f = finding_for(Os::Windows, None, BASH).unwrap();
        assert!(
            f.message.contains("PowerShell (no Git Bash found)"),
            "{}",
            f.message
        );
        assert_eq!(
            f.fix.as_deref(),
            Some(format!("gk doctor --fix (writes `{PS}`)").as_str())
        );
    }

    #[test]
    fn a_status_line_that_runs_is_left_alone_and_so_is_anothers() {
        assert!(finding_for(Os::Windows, GIT, BASH).is_none());
        assert!(finding_for(Os::Windows, None, PS).is_none());
        // The raw path runs in PowerShell (gk's words are what matters).
        assert!(finding_for(Os::Windows, None, RAW).is_none());
        // Not gk's: never looked at, whatever the shell.
        assert!(finding_for(Os::Windows, GIT, r#"& "C:\tools\line.exe""#).is_none());
        // Off Windows a status line always runs in sh.
        assert!(finding_for(Os::Linux, None, r#""$HOME/.claude/hooks/gk" statusline"#).is_none());
        assert!(finding_for(Os::Linux, None, r"& /home/ann/.claude/hooks/gk statusline").is_none());
    }
}
