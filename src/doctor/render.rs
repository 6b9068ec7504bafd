//! How findings are shown: a flutter/brew-style report (one line per check
//! group with ✓ / ! / ✗, each problem with its fix, a summary line) or the
//! stable `--json` document. Both pass through [`Redactor`] last, so no
//! secret from any settings file reaches the screen whatever a message says.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use super::finding::{exit_code, Finding, Group, Severity};
use crate::change::render::Style;

/// How a check group came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupStatus {
    Ok,
    Warning,
    Error,
    /// Not run, with the reason (`--no-smoke`, nothing registered).
    Skipped(String),
}

impl GroupStatus {
    pub fn name(&self) -> &'static str {
        match self {
            GroupStatus::Ok => "ok",
            GroupStatus::Warning => "warning",
            GroupStatus::Error => "error",
            GroupStatus::Skipped(_) => "skipped",
        }
    }
}

/// Everything one doctor run has to say.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// Verbose-only lines per group (what was read, what ran and how long).
    pub notes: Vec<(Group, String)>,
    /// Groups that did not run, with why.
    pub skipped: Vec<(Group, String)>,
}

impl Report {
    pub fn status(&self, group: Group) -> GroupStatus {
        if let Some((_, why)) = self.skipped.iter().find(|(g, _)| *g == group) {
            return GroupStatus::Skipped(why.clone());
        }
        match self
            .findings
            .iter()
            .filter(|f| f.group == group)
            .map(|f| f.severity)
            .max()
        {
            Some(Severity::Error) => GroupStatus::Error,
            Some(Severity::Warning) => GroupStatus::Warning,
            _ => GroupStatus::Ok,
        }
    }

    pub fn exit_code(&self) -> u8 {
        exit_code(&self.findings)
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    pub fn fixable(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity > Severity::Info && f.remedy.is_some())
            .count()
    }
}

/// Masks secret values (settings `env` values, values of keys named like
/// TOKEN/KEY/SECRET/PASSWORD) in anything about to be printed.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

/// The most characters of one message, detail or fix in the human report.
/// gk's own sentences are far shorter; what they quote (a command, a file
/// name, a parse error) is cut to keep one finding one readable line.
pub const MAX_LINE_CHARS: usize = 2_000;

/// Shorter values are not masked: they would blank out ordinary words and
/// numbers in messages ("true", "8080") and are not credentials.
const MIN_SECRET_LEN: usize = 6;

impl Redactor {
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let set: BTreeSet<String> = values
            .into_iter()
            .filter(|v| v.chars().count() >= MIN_SECRET_LEN)
            .collect();
        let mut secrets: Vec<String> = set.into_iter().collect();
        // Longest first, so a secret containing another is masked whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        // Each secret, then the same value as it appears inside JSON strings
        // and as a plan's diff shows it (text::escaped) when those differ
        // (escaped once here, not on every line redacted).
        let secrets = secrets
            .into_iter()
            .flat_map(|s| {
                let json = serde_json::to_string(&s).unwrap_or_default();
                let json = json.trim_matches('"').to_string();
                let shown = crate::text::escaped(&json).into_owned();
                let also = [json, shown]
                    .into_iter()
                    .filter(|v| *v != s)
                    .collect::<BTreeSet<_>>();
                std::iter::once(s).chain(also)
            })
            .collect();
        Redactor { secrets }
    }

    /// `text` as one line of a report: secrets masked first, then folded
    /// and bounded by [`crate::text::one_line`] (a finding may quote a
    /// project's settings, whose text must not drive the terminal or start
    /// a line of its own).
    pub fn line(&self, text: &str) -> String {
        crate::text::one_line(&self.redact(text), MAX_LINE_CHARS).into_owned()
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), "***");
            }
        }
        out
    }
}

/// Secret values of a settings document: every string under `env`, and the
/// string values of keys whose name looks like a credential.
pub fn secrets_in(value: &Value, out: &mut Vec<String>) {
    fn walk(v: &Value, secret: bool, out: &mut Vec<String>) {
        match v {
            Value::String(s) if secret => out.push(s.clone()),
            Value::Object(map) => {
                for (k, v) in map {
                    walk(v, secret || k == "env" || secret_key(k), out);
                }
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, secret, out)),
            _ => {}
        }
    }
    walk(value, false, out)
}

/// Same, for a file that is not strict JSON (comments, trailing commas):
/// read leniently just to learn what must never be shown.
pub fn secrets_in_lenient(text: &str, out: &mut Vec<String>) {
    use jsonc_parser::JsonValue;
    fn walk(v: &JsonValue, secret: bool, out: &mut Vec<String>) {
        match v {
            JsonValue::String(s) if secret => out.push(s.to_string()),
            JsonValue::Object(map) => {
                for (k, v) in map.clone().into_iter() {
                    walk(&v, secret || k == "env" || secret_key(&k), out);
                }
            }
            JsonValue::Array(items) => items.iter().for_each(|i| walk(i, secret, out)),
            _ => {}
        }
    }
    let text = text.trim_start_matches('\u{feff}');
    if let Ok(Some(v)) = jsonc_parser::parse_to_value(text, &Default::default()) {
        walk(&v, false, out);
    }
}

/// Install's rule for key names that hold credentials, so both commands
/// hide the same things.
pub fn secret_key(key: &str) -> bool {
    crate::change::render::is_secret_key(key)
}

fn mark(style: Style, status: &GroupStatus) -> String {
    match status {
        GroupStatus::Ok => style.paint("32", "[✓]"),
        GroupStatus::Warning => style.paint("33", "[!]"),
        GroupStatus::Error => style.paint("31", "[✗]"),
        GroupStatus::Skipped(_) => "[-]".to_string(),
    }
}

fn bullet(style: Style, severity: Severity) -> String {
    match severity {
        Severity::Error => style.paint("31", "✗"),
        Severity::Warning => style.paint("33", "!"),
        Severity::Info => "•".to_string(),
    }
}

/// The human report. Findings of every severity are shown (an info
/// finding, such as a hook switched off in gk.json, is nothing wrong but
/// worth knowing, and its group is marked `[•]` rather than `[✓]`); `-v`
/// adds the notes: what was read, what ran and how long it took.
/// Every text of a finding passes through [`Redactor::line`].
pub fn human(report: &Report, verbose: bool, style: Style, redactor: &Redactor) -> String {
    let mut out = String::new();
    for group in Group::ALL {
        let status = report.status(group);
        let mut title = group.title().to_string();
        if let GroupStatus::Skipped(why) = &status {
            let _ = write!(title, " (skipped: {})", redactor.line(why));
        }
        let noted = status == GroupStatus::Ok && report.findings.iter().any(|f| f.group == group);
        let shown = if noted {
            "[•]".to_string()
        } else {
            mark(style, &status)
        };
        let _ = writeln!(out, "{shown} {title}");
        for f in report.findings.iter().filter(|f| f.group == group) {
            let _ = writeln!(
                out,
                "    {} {} [{}]",
                bullet(style, f.severity),
                redactor.line(&f.message),
                f.code
            );
            for d in &f.details {
                let _ = writeln!(out, "        {}", redactor.line(d));
            }
            if let Some(fix) = &f.fix {
                let _ = writeln!(out, "      fix: {}", redactor.line(fix));
            }
        }
        if verbose {
            for (_, note) in report.notes.iter().filter(|(g, _)| *g == group) {
                let _ = writeln!(out, "    • {}", redactor.line(note));
            }
        }
    }
    out.push('\n');
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    let notes = report.count(Severity::Info);
    if errors + warnings == 0 && notes > 0 {
        let _ = writeln!(
            out,
            "{} No issues found ({}).",
            style.paint("32", "✓"),
            plural(notes, "note")
        );
    } else if errors + warnings == 0 {
        let _ = writeln!(out, "{} No issues found.", style.paint("32", "✓"));
    } else {
        let mut line = format!(
            "Doctor found {} and {}",
            plural(errors, "error"),
            plural(warnings, "warning")
        );
        let fixable = report.fixable();
        if fixable > 0 {
            let _ = write!(line, "; `gk doctor --fix` can fix {fixable} of them");
        }
        line.push('.');
        let mark = if errors > 0 {
            style.paint("31", "✗")
        } else {
            style.paint("33", "!")
        };
        let _ = writeln!(out, "{mark} {line}");
    }
    out
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The `--json` document (schema in docs/doctor.md).
pub fn json(report: &Report) -> Value {
    let findings: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let mut m = Map::new();
            m.insert("code".into(), json!(f.code.as_str()));
            m.insert("severity".into(), json!(f.severity.as_str()));
            m.insert("message".into(), json!(f.message));
            if let Some(p) = &f.path {
                m.insert("path".into(), json!(p.display().to_string()));
            }
            if let Some(l) = f.line {
                m.insert("line".into(), json!(l));
            }
            if let Some(c) = f.column {
                m.insert("column".into(), json!(c));
            }
            if let Some(fix) = &f.fix {
                m.insert("fix".into(), json!(fix));
            }
            if !f.details.is_empty() {
                m.insert("details".into(), json!(f.details));
            }
            m.insert("fixable".into(), json!(f.remedy.is_some()));
            Value::Object(m)
        })
        .collect();
    let checks: Vec<Value> = Group::ALL
        .iter()
        .map(|g| {
            let status = report.status(*g);
            let mut m = Map::new();
            m.insert("name".into(), json!(g.name()));
            m.insert("status".into(), json!(status.name()));
            if let GroupStatus::Skipped(why) = status {
                m.insert("reason".into(), json!(why));
            }
            Value::Object(m)
        })
        .collect();
    json!({
        "findings": findings,
        "summary": {
            "errors": report.count(Severity::Error),
            "warnings": report.count(Severity::Warning),
            "info": report.count(Severity::Info),
            "fixable": report.fixable(),
            "exit_code": report.exit_code(),
            "checks": checks,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::finding::Code;
    use crate::setup::parts::Part;

    fn report() -> Report {
        Report {
            findings: vec![
                Finding::new(Code::HookMissing, "gk's stop hook is missing".into())
                    .fix("gk doctor --fix")
                    .fixed_by(Part::Registrations),
                Finding::new(Code::StateStale, "stale".into()).at("/h/s.json", Some(2)),
                Finding::new(Code::HomeIsProject, "quiet".into()),
            ],
            notes: vec![(Group::Settings, "user settings read".into())],
            skipped: vec![(Group::Smoke, "--no-smoke".into())],
        }
    }

    #[test]
    fn human_shows_findings_and_ticks_and_notes_only_when_verbose() {
        let text = human(
            &report(),
            false,
            Style { color: false },
            &Redactor::default(),
        );
        assert!(text.contains("[•] Settings files\n    • quiet [home-is-project]\n"));
        assert!(text.contains("[✗] Hook registrations\n    ✗ gk's stop hook is missing [hook-missing]\n      fix: gk doctor --fix\n"));
        assert!(text.contains("[!] Task state"));
        assert!(text.contains("[-] Smoke test (skipped: --no-smoke)"));
        assert!(text.contains("[✓] CLAUDE.md section\n"));
        assert!(!text.contains("user settings read"));
        assert!(text
            .contains("Doctor found 1 error and 1 warning; `gk doctor --fix` can fix 1 of them."));
        assert!(!text.contains('\x1b'));
        let verbose = human(
            &report(),
            true,
            Style { color: false },
            &Redactor::default(),
        );
        assert!(verbose.contains("user settings read"));
        assert!(human(
            &report(),
            false,
            Style { color: true },
            &Redactor::default()
        )
        .contains("\x1b[31m"));
    }

    #[test]
    fn json_has_the_documented_shape() {
        let v = json(&report());
        let f = &v["findings"][1];
        assert_eq!(f["code"], "state-stale");
        assert_eq!(f["severity"], "warning");
        assert_eq!(f["path"], "/h/s.json");
        assert_eq!(f["line"], 2);
        assert!(v["findings"][0].get("path").is_none());
        assert_eq!(v["summary"]["errors"], 1);
        assert_eq!(v["summary"]["exit_code"], 2);
        assert_eq!(v["summary"]["checks"][3]["status"], "skipped");
    }

    #[test]
    fn redactor_masks_env_and_credential_values() {
        let v: Value = serde_json::from_str(
            r#"{"env":{"HTTPS_PROXY":"http://bob:hunter22@proxy:8080","DEBUG":"1"},"apiKeyHelper":"/bin/keyhelper-secret","x":{"myToken":"abcdef123"}}"#,
        )
        .unwrap();
        let mut s = Vec::new();
        secrets_in(&v, &mut s);
        let r = Redactor::new(s);
        let out = r.redact(
            "proxy http://bob:hunter22@proxy:8080 and abcdef123 and /bin/keyhelper-secret, DEBUG 1",
        );
        assert_eq!(out, "proxy *** and *** and ***, DEBUG 1");
    }

    #[test]
    fn redactor_masks_a_secret_as_a_diff_escapes_it() {
        let r = Redactor::new(["tok\u{2028}en-secret".to_string()]);
        let line = format!(
            "+  \"x\": \"{}\"",
            crate::text::escaped("tok\u{2028}en-secret")
        );
        assert_eq!(r.redact(&line), "+  \"x\": \"***\"");
        assert_eq!(r.line("a tok\u{2028}en-secret b"), "a *** b");
    }

    #[test]
    fn lenient_read_finds_secrets_in_broken_files() {
        let mut s = Vec::new();
        secrets_in_lenient(
            "{\n // note\n \"env\": {\"ANTHROPIC_API_KEY\": \"sk-ant-0123456\",},\n}",
            &mut s,
        );
        assert_eq!(s, ["sk-ant-0123456"]);
    }
}
