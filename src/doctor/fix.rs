//! `gk doctor --fix`: turn the fixable findings into ONE plan and hand it to
//! the install engine (plan → diff → confirm → atomic write, `--yes`,
//! `--dry-run`), then diagnose again and print the result. What cannot be
//! fixed (managed policy, a file that does not parse, `disableAllHooks`) is
//! explained with the file and what to change; doctor never edits those.

use std::path::PathBuf;

use super::claude_md::SectionSpec;
use super::finding::{Finding, Remedy, Severity};
use super::scopes::{Load, Scope, ScopeFile};
use super::{Diagnosis, Inputs};
use crate::cli::{ColorChoice, DoctorArgs};
use crate::error::{Error, Result};

/// How the CLAUDE.md block is recognised, and the block this gk writes.
pub fn section_spec(_inputs: &Inputs) -> SectionSpec {
    SectionSpec {
        begin: "<!-- gk:begin",
        end: "<!-- gk:end",
        legacy_heading: "## Task State Convention (Gatekeeper Hooks)",
        expected: None,
    }
}

/// What the plan must do, decided from the findings alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixNeeds {
    /// Rewrite gk's registrations in user settings (one canonical entry per
    /// hook; legacy and variant entries removed).
    pub user_registrations: bool,
    /// Files other than user settings whose gk/legacy entries must go.
    pub remove_from: Vec<PathBuf>,
    pub binary: bool,
    pub claude_md: bool,
    pub state_file: bool,
    /// Findings that need a person, each with why doctor leaves it alone.
    pub manual: Vec<String>,
}

impl FixNeeds {
    pub fn is_empty(&self) -> bool {
        !self.user_registrations
            && self.remove_from.is_empty()
            && !self.binary
            && !self.claude_md
            && !self.state_file
    }
}

/// Can the editor touch this file? Missing and empty files can be created;
/// a file that does not parse or breaks the schema is left to the user.
pub fn editable(file: &ScopeFile) -> std::result::Result<(), String> {
    match &file.load {
        Load::Absent | Load::Empty => Ok(()),
        Load::Parsed { issues, .. } => match issues.iter().find(|i| blocks_edit(i)) {
            None => Ok(()),
            Some(i) => Err(format!(
                "{} breaks the settings schema at line {} ({}: {}); correct it by hand first",
                file.path.display(),
                i.line,
                i.at,
                i.reason
            )),
        },
        Load::Unparseable(e) => Err(format!(
            "{} is not strict JSON (line {} column {}: {}); correct it by hand first, gk never rewrites a file it cannot parse",
            file.path.display(),
            e.line,
            e.column,
            e.reason
        )),
        Load::Unreadable(why) => Err(format!("{} cannot be read ({why})", file.path.display())),
        Load::SameAsUser => Ok(()),
    }
}

/// A schema issue in the parts gk edits (or one that voids the file).
fn blocks_edit(issue: &crate::settings::SchemaIssue) -> bool {
    issue.rejects_file
        || issue.at == "hooks"
        || ["hooks.UserPromptSubmit", "hooks.Stop"]
            .iter()
            .any(|e| issue.at == *e || issue.at.starts_with(&format!("{e}[")))
}

/// Pure: decide the plan's parts from the findings and the loaded files.
pub fn needs(
    findings: &[Finding],
    files: &[ScopeFile],
    registrations: &[super::Registration],
) -> FixNeeds {
    let mut n = FixNeeds::default();
    let user = files.iter().find(|f| f.scope == Scope::User);
    for f in findings.iter().filter(|f| f.severity > Severity::Info) {
        match f.remedy {
            Remedy::Manual => n.manual.push(match &f.fix {
                Some(fix) => format!("[{}] {} — {fix}", f.code, f.message),
                None => format!("[{}] {}", f.code, f.message),
            }),
            Remedy::Registrations => {
                n.user_registrations = true;
                n.binary = true;
            }
            Remedy::Binary => n.binary = true,
            Remedy::ClaudeMd => n.claude_md = true,
            Remedy::StateFile => n.state_file = true,
        }
    }
    if n.user_registrations {
        // gk's entries outside user settings (project, local) go; managed
        // ones cannot be touched.
        for r in registrations {
            let ours = !matches!(r.owner, crate::hookcmd::Owner::Foreign);
            if ours
                && matches!(r.scope, Scope::Project | Scope::Local)
                && !n.remove_from.contains(&r.path)
            {
                n.remove_from.push(r.path.clone());
            }
            if ours && r.scope == Scope::Managed {
                n.manual.push(format!(
                    "gk is registered in managed settings {}:{}; doctor cannot change managed policy — ask whoever manages this machine",
                    r.path.display(),
                    r.line
                ));
            }
        }
        if let Some(user) = user {
            if let Err(why) = editable(user) {
                n.manual
                    .push(format!("cannot edit hook registrations: {why}"));
                n.user_registrations = false;
                n.remove_from.clear();
            }
        }
    }
    n
}

pub fn run(
    inputs: &Inputs,
    diagnosis: &Diagnosis,
    args: &DoctorArgs,
    color: ColorChoice,
) -> Result<u8> {
    let _ = (color, args.yes, args.dry_run);
    let needs = needs(
        &diagnosis.report.findings,
        &diagnosis.files,
        &diagnosis.registrations,
    );
    println!();
    for m in &needs.manual {
        println!("{}", diagnosis.redactor.redact(&format!("cannot fix: {m}")));
    }
    if needs.is_empty() {
        println!("Nothing for --fix to do.");
        return Ok(diagnosis.report.exit_code());
    }
    let _ = inputs;
    Err(Error::new(
        "doctor --fix needs the install engine, which is not merged yet",
    ))
}
