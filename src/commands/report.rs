//! `gk report [--since 7d|2026-11-01] [--project PATH] [--json]`: counts,
//! from Claude Code's own transcripts (`<claude dir>/projects/<folder>/
//! <session>.jsonl` and their subagents' files), whether gk's advice is
//! followed, whether Claude keeps its task record, and whether a model
//! was switched mid-task. Read-only: every transcript is opened through
//! `bounded` (no link followed, a FIFO or device refused unread) and
//! streamed into `report::Tally`; nothing is written but the report on
//! stdout, no process is started, no socket opened.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::cli::ReportArgs;
use crate::console::{errln, Console};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::paths::ClaudePaths;
use crate::platform::Os;
use crate::report::{project_folder_name, render, Options, Tally};

/// At most this many files are named on stderr as refused; the rest are
/// counted in the footer.
const NAMED_REFUSALS: usize = 5;

/// `--since`: `<n>d`, `<n>h`, a date (`2026-11-01`, midnight UTC) or a
/// full RFC 3339 time, to milliseconds since the epoch; `now` in the same.
pub fn since_millis(text: &str, now: i64) -> Option<i64> {
    let t = text.trim();
    let span = |unit: i64| {
        t[..t.len() - 1]
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .and_then(|n| n.checked_mul(unit))
            .map(|ms| now.saturating_sub(ms))
    };
    if t.ends_with('d') {
        return span(86_400_000);
    }
    if t.ends_with('h') {
        return span(3_600_000);
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return d
            .and_hms_opt(0, 0, 0)
            .map(|dt| dt.and_utc().timestamp_millis());
    }
    crate::report::line::millis(t)
}

fn millis_of(t: SystemTime) -> i64 {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

pub fn run(a: &ReportArgs, env: &Env, c: &mut Console<'_>) -> Result<u8> {
    let paths = ClaudePaths::from_env(env).ok_or_else(|| {
        Error::new("could not find the home folder (set HOME or CLAUDE_CONFIG_DIR)")
    })?;
    let since = match &a.since {
        None => None,
        Some(s) => Some(
            since_millis(s, millis_of(SystemTime::now())).ok_or_else(|| {
                Error::new(format!(
                "--since {}: expected a number of days or hours (7d, 12h) or a date (2026-11-01)",
                crate::text::one_line(s, 80)
            ))
            })?,
        ),
    };
    let config = crate::hooks::config::load_for_hooks(&paths.config_file()).config;
    let os = Os::current();
    let state_dir = crate::paths::state_dir_for(os, crate::paths::home_dir(env).as_deref(), env)
        .map(|d| d.to_string_lossy().into_owned());
    let mut tally = Tally::new(
        config,
        Options {
            os,
            state_dir,
            since,
        },
    );
    let root = paths.dir().join("projects");
    let only = a.project.as_deref().map(|p| wanted_folder(p, env));
    let mut refusals: Vec<String> = Vec::new();
    for (folder, dir) in folders(&root, &mut tally, &mut refusals) {
        if only.as_ref().is_some_and(|o| *o != folder) {
            continue;
        }
        for file in transcripts(&dir, &mut tally, &mut refusals) {
            read_one(&mut tally, &folder, &file, since, &mut refusals);
        }
    }
    for line in refusals.iter().take(NAMED_REFUSALS) {
        errln!(c, "gk: report: {line}");
    }
    if refusals.len() > NAMED_REFUSALS {
        errln!(
            c,
            "gk: report: {} more files not read (counted in the footer)",
            refusals.len() - NAMED_REFUSALS
        );
    }
    let report = tally.finish();
    // As it was read, trimmed; the date parser also passes over spaces
    // inside a date, so the rest is shown on one line, controls replaced.
    let shown_since = a
        .since
        .as_deref()
        .map(|s| crate::text::one_line(s.trim(), 80));
    let shown_since = shown_since.as_deref();
    let text = if a.json {
        render::json(&report, shown_since)
    } else {
        render::text(&report, shown_since)
    };
    let stdout = &mut *c.out;
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| {
            if a.json {
                stdout.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::new(format!("could not write to stdout: {e}")))
        }
        _ => Ok(0),
    }
}

/// `--project`: a path (made absolute as the client would have it) or
/// the folder's name under `projects/` itself.
fn wanted_folder(p: &Path, env: &Env) -> String {
    let name = p.to_string_lossy();
    if name.starts_with('-') && !name.contains(['/', '\\']) {
        return name.into_owned();
    }
    let abs = env.absolute(p);
    let trimmed = abs.to_string_lossy();
    let trimmed = trimmed.trim_end_matches(['/', '\\']);
    project_folder_name(Path::new(if trimmed.is_empty() { "/" } else { trimmed }))
}

fn shown(p: &Path) -> String {
    crate::text::one_line_ends(&p.to_string_lossy(), 300).into_owned()
}

/// The project folders under `root`, sorted; links are refused.
fn folders(root: &Path, tally: &mut Tally, refusals: &mut Vec<String>) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_symlink() {
            tally.refused();
            refusals.push(format!("{}: a symbolic link, not followed", shown(&path)));
        } else if kind.is_dir() {
            out.push((entry.file_name().to_string_lossy().into_owned(), path));
        }
    }
    out.sort();
    out
}

/// A project's transcripts: `*.jsonl` in it, and in `<session>/subagents/`.
fn transcripts(dir: &Path, tally: &mut Tally, refusals: &mut Vec<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut look = |folder: &Path, depth: u8, out: &mut Vec<PathBuf>, next: &mut Vec<PathBuf>| {
        // `read_dir` follows a link: a linked `subagents` folder is refused
        // as a linked project folder is (most sessions have none).
        if depth > 0 {
            match std::fs::symlink_metadata(folder) {
                Ok(m) if m.file_type().is_symlink() => {
                    tally.refused();
                    refusals.push(format!("{}: a symbolic link, not followed", shown(folder)));
                    return;
                }
                Ok(m) if m.is_dir() => {}
                _ => return,
            }
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let jsonl = path.extension().is_some_and(|e| e == "jsonl");
            if kind.is_symlink() {
                if jsonl || depth == 0 {
                    tally.refused();
                    refusals.push(format!("{}: a symbolic link, not followed", shown(&path)));
                }
            } else if kind.is_dir() && depth == 0 {
                next.push(path.join("subagents"));
            } else if jsonl {
                out.push(path);
            }
        }
    };
    let mut subagents = Vec::new();
    look(dir, 0, &mut out, &mut subagents);
    subagents.sort();
    for sub in subagents {
        let mut none = Vec::new();
        look(&sub, 1, &mut out, &mut none);
    }
    out.sort();
    out
}

fn read_one(
    tally: &mut Tally,
    folder: &str,
    file: &Path,
    since: Option<i64>,
    refusals: &mut Vec<String>,
) {
    if let Some(s) = since {
        // A transcript is only ever appended to: one last changed before
        // `--since` holds nothing after it.
        let old = std::fs::symlink_metadata(file)
            .and_then(|m| m.modified())
            .is_ok_and(|t| millis_of(t) < s);
        if old {
            tally.skipped_by_date();
            return;
        }
    }
    let (handle, _meta) = match crate::bounded::open_no_link(file) {
        Ok(opened) => opened,
        Err(e) => {
            tally.refused();
            refusals.push(format!("{}: {}", shown(file), e.reason()));
            return;
        }
    };
    if let Err(why) = tally.read_file(folder, handle) {
        refusals.push(format!(
            "{}: {}",
            shown(file),
            crate::text::one_line(&why, 200)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_takes_a_path_or_the_folder_name() {
        let here = std::env::temp_dir();
        let env = Env::new(&here, here.join("gk"));
        let wanted_folder = |p: &Path| wanted_folder(p, &env);
        // The folder as the client names it: no trailing separator (the
        // temporary folder has one on Windows).
        let trimmed = here.to_string_lossy();
        let trimmed = Path::new(trimmed.trim_end_matches(['/', '\\']));
        assert_eq!(wanted_folder(Path::new(".")), project_folder_name(trimmed));
        #[cfg(unix)]
        assert_eq!(
            wanted_folder(Path::new("/home/u/work/app/")),
            "-home-u-work-app"
        );
        assert_eq!(wanted_folder(Path::new("-home-u-x")), "-home-u-x");
    }

    #[test]
    fn since_takes_days_hours_and_dates() {
        let now = 1_000 * 86_400_000;
        assert_eq!(since_millis("7d", now), Some(993 * 86_400_000));
        assert_eq!(since_millis("12h", now), Some(now - 12 * 3_600_000));
        assert_eq!(
            since_millis("2026-11-01", now),
            Some(
                chrono::DateTime::parse_from_rfc3339("2026-11-01T00:00:00Z")
                    .unwrap()
                    .timestamp_millis()
            )
        );
        for bad in ["", "d", "-3d", "7w", "2026-13-01", "yesterday"] {
            assert_eq!(since_millis(bad, now), None, "{bad}");
        }
    }
}
