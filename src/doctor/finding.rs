//! What doctor reports: findings with stable codes, the check group each
//! belongs to, and the exit code they add up to. Codes and the JSON shape
//! are a public interface (docs/doctor.md); renaming one breaks scripts.

use std::path::PathBuf;

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// The check groups of the human report, in the order they are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    Settings,
    Registrations,
    Binaries,
    Smoke,
    State,
    ClaudeMd,
    Config,
}

impl Group {
    pub const ALL: [Group; 7] = [
        Group::Settings,
        Group::Registrations,
        Group::Binaries,
        Group::Smoke,
        Group::State,
        Group::ClaudeMd,
        Group::Config,
    ];

    /// Stable name used in `--json` (`summary.checks[].name`).
    pub fn name(self) -> &'static str {
        match self {
            Group::Settings => "settings",
            Group::Registrations => "registrations",
            Group::Binaries => "binaries",
            Group::Smoke => "smoke",
            Group::State => "state",
            Group::ClaudeMd => "claude-md",
            Group::Config => "config",
        }
    }

    /// Title of the group's line in the human report.
    pub fn title(self) -> &'static str {
        match self {
            Group::Settings => "Settings files",
            Group::Registrations => "Hook registrations",
            Group::Binaries => "Hook programs",
            Group::Smoke => "Smoke test",
            Group::State => "Task state",
            Group::ClaudeMd => "CLAUDE.md section",
            Group::Config => "gk config",
        }
    }
}

/// What `--fix` can do about a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remedy {
    /// Nothing automatic; `Finding::fix` says what the user should do.
    Manual,
    /// Rewrite gk's registrations: remove every gk/legacy entry that is not
    /// the one canonical user-scope entry per hook, add what is missing.
    Registrations,
    /// Put the running gk in place of the registered binary.
    Binary,
    /// Insert or replace the Task State Convention block in CLAUDE.md.
    ClaudeMd,
    /// Create the clean task_state.json (only when it does not exist).
    StateFile,
    /// Add the permission rules for the task records to user settings.
    PermissionRules,
    /// Respell gk's status line in user settings for the shell that runs it.
    StatusLine,
}

/// One thing doctor found. `message` names the file (and line where it helps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    pub group: Group,
    pub message: String,
    pub path: Option<PathBuf>,
    pub line: Option<usize>,
    /// The column within `line`, where the message gives one (a parse error).
    pub column: Option<usize>,
    /// What the user should do (a command, or what `--fix` will do).
    pub fix: Option<String>,
    /// Extra lines shown under the message (e.g. every spelling of a hook).
    pub details: Vec<String>,
    pub remedy: Remedy,
}

impl Finding {
    pub fn new(code: &'static str, severity: Severity, group: Group, message: String) -> Self {
        Finding {
            code,
            severity,
            group,
            message,
            path: None,
            line: None,
            column: None,
            fix: None,
            details: Vec::new(),
            remedy: Remedy::Manual,
        }
    }

    pub fn at(mut self, path: impl Into<PathBuf>, line: Option<usize>) -> Self {
        self.path = Some(path.into());
        self.line = line;
        self
    }

    /// The column of the place [`Finding::at`] names (1-based, as shown).
    pub fn column(mut self, column: usize) -> Self {
        self.column = Some(column);
        self
    }

    pub fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    pub fn remedy(mut self, remedy: Remedy) -> Self {
        self.remedy = remedy;
        self
    }

    pub fn detail(mut self, line: impl Into<String>) -> Self {
        self.details.push(line.into());
        self
    }
}

/// Exit status of a doctor run: 0 nothing worse than info, 1 worst is a
/// warning, 2 any error.
pub fn exit_code(findings: &[Finding]) -> u8 {
    match findings.iter().map(|f| f.severity).max() {
        Some(Severity::Error) => 2,
        Some(Severity::Warning) => 1,
        _ => 0,
    }
}

/// The fix text shared by every finding `--fix` handles.
pub const FIX_COMMAND: &str = "gk doctor --fix";

#[cfg(test)]
mod tests {
    use super::*;

    fn f(sev: Severity) -> Finding {
        Finding::new("x", sev, Group::Settings, String::new())
    }

    #[test]
    fn exit_code_follows_the_worst_severity() {
        assert_eq!(exit_code(&[]), 0);
        assert_eq!(exit_code(&[f(Severity::Info)]), 0);
        assert_eq!(exit_code(&[f(Severity::Info), f(Severity::Warning)]), 1);
        assert_eq!(exit_code(&[f(Severity::Error), f(Severity::Warning)]), 2);
    }
}
