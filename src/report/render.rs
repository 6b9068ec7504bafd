//! The report as a person reads it (a short table, one line of meaning,
//! a suggestion where the evidence is strong, a footer) and as JSON. Only
//! counts, model names, client versions and project folder names are
//! shown, each through the sanitiser; never a prompt, a tool's input or a
//! file's content (the counting never keeps them).

use std::fmt::Write as _;

use super::{Counts, Report, SLOW_STOP_MS};
use crate::text::one_line_ends;

/// The widest project folder shown in the table.
const FOLDER_CHARS: usize = 36;
/// Advice not followed this many times the same way earns a suggestion.
const SUGGEST_AT: u64 = 3;

const COLUMNS: [&str; 10] = [
    "sessions",
    "prompts",
    "advised",
    "followed",
    "not",
    "/model",
    "mid-task",
    "record",
    "no-record",
    "failed",
];

fn row(c: &Counts) -> [u64; 10] {
    [
        c.sessions,
        c.prompts,
        c.advised,
        c.followed,
        c.not_followed,
        c.model_switches,
        c.switches_while_dirty,
        c.sessions_with_record,
        c.sessions_edited_without_record,
        c.record_writes_failed,
    ]
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The counts per project (and their total), one row each, or the line
/// that says there is nothing to count.
fn projects_table(out: &mut String, report: &Report) {
    let t = &report.totals;
    if report.projects.is_empty() {
        out.push_str("No transcript lines to count.\n");
    } else {
        out.push('\n');
        let width = report
            .projects
            .iter()
            .map(|p| one_line_ends(&p.folder, FOLDER_CHARS).chars().count())
            .max()
            .unwrap_or(0)
            .max("project".len());
        let _ = write!(out, "{:<width$}", "project");
        for c in COLUMNS {
            let _ = write!(out, " {c:>w$}", w = c.len().max(4));
        }
        out.push('\n');
        let mut line = |name: &str, c: &Counts| {
            let _ = write!(out, "{name:<width$}");
            for (col, n) in COLUMNS.iter().zip(row(c)) {
                let _ = write!(out, " {n:>w$}", w = col.len().max(4));
            }
            out.push('\n');
        };
        for p in &report.projects {
            line(&one_line_ends(&p.folder, FOLDER_CHARS), &p.counts);
        }
        if report.projects.len() > 1 {
            line("total", t);
        }
        out.push('\n');
    }
}

/// The text report. `since`: the `--since` date as given, if any.
pub fn text(report: &Report, since: Option<&str>) -> String {
    let t = &report.totals;
    let mut out = String::new();
    let window = match since {
        Some(s) => format!("since {s}"),
        None => "all transcripts the client keeps".to_string(),
    };
    let _ = writeln!(
        out,
        "gk report: {} in {} ({window})",
        plural(t.sessions, "session", "sessions"),
        plural(report.projects.len() as u64, "project", "projects"),
    );
    projects_table(&mut out, report);
    let _ = writeln!(
        out,
        "Advice followed {} of {} times; {} mid-task.",
        t.followed,
        t.followed + t.not_followed,
        plural(t.switches_while_dirty, "model switch", "model switches"),
    );
    let _ = writeln!(
        out,
        "Records: {} of {} kept a task record; {} edited files without one; {} failed or denied.",
        t.sessions_with_record,
        plural(t.sessions, "session", "sessions"),
        t.sessions_edited_without_record,
        plural(t.record_writes_failed, "record write", "record writes"),
    );
    if !t.answers_by_model.is_empty() {
        let mut models: Vec<(&String, &u64)> = t.answers_by_model.iter().collect();
        models.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let list: Vec<String> = models.iter().map(|(m, n)| format!("{m} {n}")).collect();
        let _ = writeln!(out, "Answers by model: {}.", list.join(", "));
    }
    let _ = writeln!(
        out,
        "Commands: {} /model, {} /effort. Stop hook: {}, {} with errors, {} slower than {} ms.",
        t.model_switches,
        t.effort_commands,
        plural(t.stop_runs, "run", "runs"),
        t.stop_errors,
        t.stop_slow,
        SLOW_STOP_MS,
    );
    if let Some(m) = report
        .not_followed_by_model
        .first()
        .filter(|m| m.times >= SUGGEST_AT)
    {
        let _ = writeln!(
            out,
            "Suggestion: {} advised `/model {}` were answered by {}: if that model serves, \
             make it the rule's model (`gk rules` prints the rules to edit in gk.json).",
            plural(m.times, "prompt", "prompts"),
            m.advised,
            m.answered,
        );
    }
    let f = &report.footer;
    let versions = if f.client_versions.is_empty() {
        "none seen".to_string()
    } else {
        f.client_versions.join(", ")
    };
    let oldest = f
        .oldest
        .as_deref()
        .map(|o| o.get(..10).unwrap_or(o).to_string())
        .unwrap_or_else(|| "none".into());
    let _ = writeln!(
        out,
        "\nClient versions: {versions}. Files read: {} ({} skipped by date, {} refused). \
         Lines skipped as unreadable: {}. Oldest line: {oldest} (the client deletes older \
         transcripts after cleanupPeriodDays, 30 by default).",
        f.files_read,
        f.files_skipped_by_date,
        f.files_refused,
        f.lines_unreadable + f.lines_too_long,
    );
    if !f.untested_versions.is_empty() {
        let _ = writeln!(
            out,
            "! Transcripts from client {} were counted; the report was measured on {}: the \
             format is not a public API, counts from other versions may be off.",
            f.untested_versions.join(", "),
            f.tested_versions.join(", "),
        );
    }
    out
}

/// The report as JSON (pretty, sanitised), with `since` as given.
pub fn json(report: &Report, since: Option<&str>) -> String {
    let mut value = serde_json::to_value(report).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert(
            "since".into(),
            since.map_or(serde_json::Value::Null, |s| s.into()),
        );
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    crate::text::json_escaped(&text).into_owned()
}
