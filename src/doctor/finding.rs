//! What doctor reports: findings with stable codes, the check group each
//! belongs to, and the exit code they add up to. Codes and the JSON shape
//! are a public interface (docs/doctor.md); renaming one breaks scripts.

use std::path::PathBuf;

use crate::setup::parts::Part;

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

/// Declares [`Code`] from one table: a row per code, in the order of
/// docs/doctor.md's table of codes.
macro_rules! codes {
    ($($variant:ident = $name:literal, $severity:ident, $group:ident, $remedy:expr;)*) => {
        /// Every finding code doctor reports. Its name ([`Code::as_str`]) is
        /// the public, stable spelling (`--json`, the report, docs/doctor.md);
        /// the rest is what every finding with that code shares.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $($variant,)*
        }

        impl Code {
            /// Every code, in the order of docs/doctor.md's table.
            #[cfg(test)]
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as users, scripts and docs/doctor.md spell it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// The severity a finding with this code has unless its call
            /// site says otherwise ([`Finding::severity`]): the first one the
            /// docs' table names.
            pub fn severity(self) -> Severity {
                match self {
                    $(Code::$variant => Severity::$severity,)*
                }
            }

            /// The check group the finding is shown under.
            pub fn group(self) -> Group {
                match self {
                    $(Code::$variant => Group::$group,)*
                }
            }

            /// The part `--fix` usually puts right for a finding with this
            /// code (`None`: `--fix` never handles it). A call site may pick
            /// another part (a missing gk program whose entry is also
            /// rewritten is fixed with the registrations), or none.
            pub fn remedy(self) -> Option<Part> {
                match self {
                    $(Code::$variant => $remedy,)*
                }
            }
        }
    };
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

codes! {
    SettingsUnparseable = "settings-unparseable", Error, Settings, None;
    SettingsBom = "settings-bom", Warning, Settings, None;
    SettingsSchema = "settings-schema", Error, Settings, None;
    SettingsPartDropped = "settings-part-dropped", Warning, Settings, None;
    BackupBesideFile = "backup-beside-file", Warning, Settings, None;
    HomeIsProject = "home-is-project", Info, Settings, None;
    ManagedHidden = "managed-hidden", Warning, Settings, None;
    SettingsSameFile = "settings-same-file", Info, Settings, None;
    HookMissing = "hook-missing", Error, Registrations, Some(Part::Registrations);
    SwitchEventUnknown = "switch-event-unknown", Warning, Registrations, None;
    HookFiresTwice = "hook-fires-twice", Error, Registrations, Some(Part::Registrations);
    HookRedundant = "hook-redundant", Warning, Registrations, Some(Part::Registrations);
    HookLegacy = "hook-legacy", Warning, Registrations, Some(Part::Registrations);
    HookWrongEvent = "hook-wrong-event", Warning, Registrations, Some(Part::Registrations);
    HookUnrecognised = "hook-unrecognised", Warning, Registrations, None;
    HookBinaryMissing = "hook-binary-missing", Error, Binaries, Some(Part::Program);
    HookProgramNotFound = "hook-program-not-found", Warning, Binaries, None;
    HookBinaryOutdated = "hook-binary-outdated", Warning, Binaries, Some(Part::Program);
    HookInPluginAndSettings = "hook-in-plugin-and-settings", Error, Registrations, Some(Part::Registrations);
    HookInTwoPlugins = "hook-in-two-plugins", Error, Registrations, None;
    PluginMissing = "plugin-missing", Warning, Registrations, None;
    PluginNotInstalled = "plugin-not-installed", Info, Registrations, None;
    PluginHooksUnparseable = "plugin-hooks-unparseable", Error, Registrations, None;
    SourceUnread = "source-unread", Warning, Registrations, None;
    HooksDisabled = "hooks-disabled", Error, Registrations, None;
    StatuslineDisabled = "statusline-disabled", Warning, State, None;
    HookSmokeFailed = "hook-smoke-failed", Error, Smoke, None;
    HookSlow = "hook-slow", Warning, Smoke, None;
    StateUnreadable = "state-unreadable", Warning, State, Some(Part::StateFile);
    StateBadStatus = "state-bad-status", Warning, State, None;
    StateStale = "state-stale", Warning, State, None;
    ClaudeMdUnreadable = "claude-md-unreadable", Warning, ClaudeMd, None;
    StatePermissionMissing = "state-permission-missing", Warning, State, Some(Part::PermissionRules);
    StatuslineBroken = "statusline-broken", Warning, State, Some(Part::StatusLine);
    StateFolderUnwritable = "state-folder-unwritable", Error, State, None;
    StateFolderReadable = "state-folder-readable", Warning, State, None;
    ClaudeMdSectionMissing = "claude-md-section-missing", Warning, ClaudeMd, Some(Part::ClaudeMd);
    ClaudeMdSectionDuplicated = "claude-md-section-duplicated", Warning, ClaudeMd, Some(Part::ClaudeMd);
    ClaudeMdSectionOutdated = "claude-md-section-outdated", Warning, ClaudeMd, Some(Part::ClaudeMd);
    ConfigInvalid = "config-invalid", Error, Config, None;
    AdviceCommandUnresolved = "advice-command-unresolved", Warning, Config, None;
    AdviceAliasRemapped = "advice-alias-remapped", Warning, Config, None;
    HookSwitchedOff = "hook-switched-off", Info, Config, None;
}

/// One thing doctor found. `message` names the file (and line where it helps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub code: Code,
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
    /// What `--fix` puts right (`None`: it leaves this to the user).
    pub remedy: Option<Part>,
}

impl Finding {
    /// A finding with `code`'s severity and group.
    pub fn new(code: Code, message: String) -> Self {
        Finding {
            code,
            severity: code.severity(),
            group: code.group(),
            message,
            path: None,
            line: None,
            column: None,
            fix: None,
            details: Vec::new(),
            remedy: None,
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

    /// Another severity than the code's usual one (a missing session
    /// hook is a warning, a missing prompt hook an error).
    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// `--fix` puts `part` right here. A code the docs say `--fix` never
    /// handles gets no part.
    pub fn fixed_by(mut self, part: Part) -> Self {
        debug_assert!(
            self.code.remedy().is_some(),
            "docs/doctor.md says --fix never handles {}",
            self.code.as_str()
        );
        self.remedy = Some(part);
        self
    }

    /// `--fix` leaves this case to the user (the fix says what to do).
    pub fn by_hand(mut self) -> Self {
        self.remedy = None;
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
        Finding::new(Code::SettingsBom, String::new()).severity(sev)
    }

    /// The rows of docs/doctor.md's table of codes: code, severity, `--fix`.
    fn documented_codes() -> Vec<(String, String, String)> {
        let doc = include_str!("../../docs/doctor.md");
        let table = doc
            .split("\n## Codes\n")
            .nth(1)
            .and_then(|rest| rest.split("\n## ").next())
            .expect("docs/doctor.md has a section `## Codes`");
        table
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .map(|row| {
                let cells: Vec<&str> = row.split(" | ").collect();
                let code = cells[0].trim_end_matches('`').to_string();
                let fix = cells.last().unwrap().trim_end_matches(" |").to_string();
                (code, cells[1].to_string(), fix)
            })
            .collect()
    }

    #[test]
    fn every_code_has_its_row_in_the_docs_and_every_row_a_code() {
        let documented = documented_codes();
        let names: Vec<&str> = documented.iter().map(|(c, _, _)| c.as_str()).collect();
        let codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(codes, names, "docs/doctor.md's table of codes and `Code`");
    }

    #[test]
    fn each_code_has_the_severity_and_fix_its_row_gives() {
        for ((_, severity, fix), code) in documented_codes().iter().zip(Code::ALL) {
            assert!(
                severity.starts_with(code.severity().as_str()),
                "{code}: the docs say `{severity}`, the code {:?}",
                code.severity()
            );
            // `hook-smoke-failed` is fixed "via the binary": by the fix of
            // `hook-binary-outdated`, not one of its own.
            let never = fix == "no" || fix.starts_with("no —") || fix.starts_with("via ");
            let by_fix = !never;
            assert_eq!(
                by_fix,
                code.remedy().is_some(),
                "{code}: the docs' --fix column says `{fix}`, the code {:?}",
                code.remedy()
            );
        }
    }

    #[test]
    fn exit_code_follows_the_worst_severity() {
        assert_eq!(exit_code(&[]), 0);
        assert_eq!(exit_code(&[f(Severity::Info)]), 0);
        assert_eq!(exit_code(&[f(Severity::Info), f(Severity::Warning)]), 1);
        assert_eq!(exit_code(&[f(Severity::Error), f(Severity::Warning)]), 2);
    }
}
