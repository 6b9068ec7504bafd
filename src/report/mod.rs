//! `gk report`'s counting: Claude Code's transcripts in, counts out. Pure
//! over bytes: the command (`commands::report`) finds and opens the files
//! and hands each one here as a reader; nothing here opens, writes or
//! starts anything.
//!
//! - [`lines`]: physical lines, streamed, bounded;
//! - [`line`]: one line to its facts (byte prefilter, lenient decode);
//! - [`models`]: whether an answer's model is the one advised;
//! - this file: the tally across files (dedupe by `uuid`, per session
//!   order, per project sums); [`render`]: the table and the JSON.
//!
//! Memory: one file's events (a few dozen bytes per counted line, none
//! for the lines the prefilter drops; names cut to
//! [`line::MAX_NAME_BYTES`], a write's path not kept, at most
//! [`MAX_FACTS`] of them), the 8-byte hashes of the counted lines' `uuid`s
//! (a fork copies its parent's lines with the same `uuid`: each is
//! counted once), a few flags per session. Never the bytes read.

pub mod line;
pub mod lines;
pub mod models;
pub mod render;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::hooks::config::Config;
use crate::platform::Os;
use line::{Fact, Outcome};

/// The longest line read (a Write of a large file can be long; a line
/// past this is counted as unreadable, never held).
pub const MAX_LINE: usize = 16 << 20;
/// The most read of one transcript (heavy users report single files of
/// 0.5 to 0.7 GB).
pub const MAX_FILE: u64 = 8 << 30;
/// The most facts counted of one transcript (a heavy session's file holds
/// tens of thousands). With names cut to [`line::MAX_NAME_BYTES`], this
/// bounds what one file can hold in memory, whatever it holds.
pub const MAX_FACTS: usize = 1 << 20;
/// A Stop hook run slower than this is counted as slow (gk's own work is
/// about a millisecond; the client's start of a process is most of a run).
pub const SLOW_STOP_MS: u64 = 1000;
/// The client versions the shapes read here were measured on.
pub const TESTED_VERSIONS: [&str; 1] = ["2.1.332"];
/// At most this many model names and client versions are kept; the rest
/// are summed under `(other)`.
const MAX_NAMES: usize = 64;
/// A model name or version shown, at most this long.
const NAME_CHARS: usize = 80;

/// The counts of one project, or of all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub sessions: u64,
    pub prompts: u64,
    pub advised: u64,
    pub followed: u64,
    pub not_followed: u64,
    /// Advice after which no answer came (an interrupted turn).
    pub advised_unanswered: u64,
    pub model_switches: u64,
    pub switches_while_dirty: u64,
    pub effort_commands: u64,
    pub sessions_with_record: u64,
    pub sessions_edited_without_record: u64,
    pub record_writes: u64,
    pub record_writes_failed: u64,
    pub stop_runs: u64,
    pub stop_errors: u64,
    pub stop_slow: u64,
    pub answers: u64,
    pub answers_by_model: BTreeMap<String, u64>,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.sessions += o.sessions;
        self.prompts += o.prompts;
        self.advised += o.advised;
        self.followed += o.followed;
        self.not_followed += o.not_followed;
        self.advised_unanswered += o.advised_unanswered;
        self.model_switches += o.model_switches;
        self.switches_while_dirty += o.switches_while_dirty;
        self.effort_commands += o.effort_commands;
        self.sessions_with_record += o.sessions_with_record;
        self.sessions_edited_without_record += o.sessions_edited_without_record;
        self.record_writes += o.record_writes;
        self.record_writes_failed += o.record_writes_failed;
        self.stop_runs += o.stop_runs;
        self.stop_errors += o.stop_errors;
        self.stop_slow += o.stop_slow;
        self.answers += o.answers;
        for (m, n) in &o.answers_by_model {
            bump(&mut self.answers_by_model, m, *n);
        }
    }
}

fn bump(map: &mut BTreeMap<String, u64>, name: &str, n: u64) {
    let shown = crate::text::one_line(name, NAME_CHARS);
    if map.len() >= MAX_NAMES && !map.contains_key(shown.as_ref()) {
        *map.entry("(other)".into()).or_default() += n;
    } else {
        *map.entry(shown.into_owned()).or_default() += n;
    }
}

/// One project's row: its folder under `<claude dir>/projects/`.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectCounts {
    pub folder: String,
    #[serde(flatten)]
    pub counts: Counts,
}

/// Advice not followed, by what was advised and what answered.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Mismatch {
    pub advised: String,
    pub answered: String,
    pub times: u64,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub totals: Counts,
    pub projects: Vec<ProjectCounts>,
    /// The most frequent advice not followed, most first (at most 5).
    pub not_followed_by_model: Vec<Mismatch>,
    pub footer: Footer,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Footer {
    pub client_versions: Vec<String>,
    /// Versions outside [`TESTED_VERSIONS`]: counts from them may be off.
    pub untested_versions: Vec<String>,
    pub tested_versions: Vec<String>,
    pub files_read: u64,
    pub files_skipped_by_date: u64,
    pub files_refused: u64,
    pub bytes_read: u64,
    pub lines_read: u64,
    pub lines_unreadable: u64,
    pub lines_too_long: u64,
    /// The earliest line's time (UTC, ISO 8601); older transcripts may
    /// have been deleted by the client (`cleanupPeriodDays`).
    pub oldest: Option<String>,
}

/// Where the report looks for task records.
#[derive(Debug, Clone)]
pub struct Options {
    pub os: Os,
    /// gk's state folder, where the per-session records live.
    pub state_dir: Option<String>,
    /// Lines older than this (milliseconds since the epoch) are not counted.
    pub since: Option<i64>,
}

/// What a write's target is to gk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Record,
    Pointer,
    Other,
}

/// A record file (`<state folder>/<session>.json`, or the v5 shared
/// `task_state.json` anywhere), the folder's pointer, or anything else.
fn target_of(os: Os, state_dir: Option<&str>, path: &str) -> Target {
    let (folder, name) = match path.rfind(|c| c == '/' || (os.is_windows() && c == '\\')) {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    };
    if name == crate::paths::STATE_FILE_NAME {
        return Target::Record;
    }
    let in_state = state_dir.is_some_and(|dir| {
        let key = |p: &str| crate::paths::folder_key(os, p);
        key(dir).is_some() && key(dir) == key(folder)
    });
    if !in_state {
        Target::Other
    } else if crate::paths::is_folder_pointer_name(name) {
        Target::Pointer
    } else if crate::paths::is_record_file_name(name) {
        Target::Record
    } else {
        Target::Other
    }
}

fn hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

#[derive(Debug, Default)]
struct SessionFlags {
    project: usize,
    record: bool,
    edited: bool,
}

/// One counted line's part, within a file.
struct Event {
    session: u64,
    time: i64,
    seq: u32,
    new: bool,
    copied: bool,
    sidechain: bool,
    /// A write's target (its path is not kept).
    target: Target,
    fact: Fact,
}

/// The running tally over every file read.
pub struct Tally {
    config: Config,
    options: Options,
    seen: HashSet<u64>,
    folders: Vec<String>,
    by_folder: HashMap<String, usize>,
    counts: Vec<Counts>,
    sessions: HashMap<u64, SessionFlags>,
    mismatches: HashMap<(String, String), u64>,
    versions: BTreeSet<String>,
    footer: Footer,
    oldest: Option<i64>,
    /// The line reader's buffer, kept from one file to the next.
    scratch: Vec<u8>,
}

impl Tally {
    pub fn new(config: Config, options: Options) -> Tally {
        Tally {
            config,
            options,
            seen: HashSet::new(),
            folders: Vec::new(),
            by_folder: HashMap::new(),
            counts: Vec::new(),
            sessions: HashMap::new(),
            mismatches: HashMap::new(),
            versions: BTreeSet::new(),
            footer: Footer::default(),
            oldest: None,
            scratch: Vec::new(),
        }
    }

    fn project(&mut self, folder: &str) -> usize {
        if let Some(i) = self.by_folder.get(folder) {
            return *i;
        }
        let i = self.folders.len();
        self.folders.push(folder.to_string());
        self.by_folder.insert(folder.to_string(), i);
        self.counts.push(Counts::default());
        i
    }

    /// A file left out because it is older than `--since`.
    pub fn skipped_by_date(&mut self) {
        self.footer.files_skipped_by_date += 1;
    }

    /// A file not read (a link, a FIFO, unreadable).
    pub fn refused(&mut self) {
        self.footer.files_refused += 1;
    }

    /// Count one transcript of the project `folder`. A read error or the
    /// file bound ends the file; what was read is counted.
    pub fn read_file(&mut self, folder: &str, input: impl Read) -> Result<(), String> {
        let project = self.project(folder);
        let mut events: Vec<Event> = Vec::new();
        let mut seq = 0u32;
        let mut unreadable = 0u64;
        let mut too_long = 0u64;
        let mut lines_read = 0u64;
        let since = self.options.since;
        let os = self.options.os;
        let state_dir = self.options.state_dir.clone();
        let mut facts_over = false;
        let mut scratch = std::mem::take(&mut self.scratch);
        let read = lines::for_each_line(input, MAX_LINE, MAX_FILE, &mut scratch, |l| {
            lines_read += 1;
            let text = match l {
                lines::Line::Text(t) => t,
                lines::Line::TooLong(_) => {
                    too_long += 1;
                    return;
                }
            };
            let parsed = match line::read(text) {
                Outcome::Skipped => return,
                Outcome::Unreadable => {
                    unreadable += 1;
                    return;
                }
                Outcome::Parsed(p) => p,
            };
            if let (Some(t), Some(s)) = (parsed.time, since) {
                if t < s {
                    return;
                }
            }
            if let Some(t) = parsed.time {
                self.oldest = Some(self.oldest.map_or(t, |o| o.min(t)));
            }
            if let Some(v) = &parsed.version {
                if self.versions.len() < MAX_NAMES {
                    self.versions
                        .insert(crate::text::one_line(v, NAME_CHARS).into_owned());
                }
            }
            if parsed.facts.is_empty() {
                return;
            }
            let Some(session) = parsed.session.as_deref().map(hash) else {
                unreadable += 1;
                return;
            };
            // Past the cap a line is not counted, so it is not marked as
            // seen either: a fork's copy of it in another file still counts.
            if events.len() >= MAX_FACTS {
                facts_over = true;
                return;
            }
            let new = match &parsed.uuid {
                Some(u) => self.seen.insert(hash(u)),
                None => true,
            };
            for mut fact in parsed.facts {
                if events.len() >= MAX_FACTS {
                    facts_over = true;
                    break;
                }
                // A write's target is all that is kept of its path.
                let target = match &mut fact {
                    Fact::Write { path, .. } => {
                        let t = target_of(os, state_dir.as_deref(), path);
                        *path = String::new();
                        t
                    }
                    _ => Target::Other,
                };
                seq = seq.saturating_add(1);
                events.push(Event {
                    target,
                    session,
                    time: parsed.time.unwrap_or(i64::MIN),
                    seq,
                    new,
                    copied: parsed.copied,
                    sidechain: parsed.sidechain,
                    fact,
                });
            }
        });
        self.scratch = scratch;
        self.footer.files_read += 1;
        self.footer.lines_read += lines_read;
        self.footer.lines_unreadable += unreadable;
        self.footer.lines_too_long += too_long;
        let outcome = match read {
            Ok(n) if facts_over => {
                self.footer.bytes_read += n;
                Err(format!(
                    "more than {MAX_FACTS} facts to count: the rest were not counted"
                ))
            }
            Ok(n) => {
                self.footer.bytes_read += n;
                Ok(())
            }
            Err(lines::Stop::FileBound) => {
                self.footer.bytes_read += MAX_FILE;
                Err(format!(
                    "longer than {}: the rest was not read",
                    crate::bounded::size_text(MAX_FILE)
                ))
            }
            Err(lines::Stop::Io(e)) => Err(e.to_string()),
        };
        self.count_file(project, events);
        outcome
    }

    fn count_file(&mut self, project: usize, mut events: Vec<Event>) {
        // Lines are not in time order: each session's events in time
        // order, ties (and lines with no time) in file order.
        events.sort_by_key(|e| (e.session, e.time, e.seq));
        let mut record_ids: HashSet<String> = HashSet::new();
        let mut errors: HashSet<String> = HashSet::new();
        // (session, tool id, target, in_progress) of a session's own writes.
        let mut own_writes: Vec<(u64, String, Target, bool)> = Vec::new();
        let mut c = std::mem::take(&mut self.counts[project]);
        let mut i = 0;
        while i < events.len() {
            let session = events[i].session;
            self.sessions.entry(session).or_insert(SessionFlags {
                project,
                ..SessionFlags::default()
            });
            let mut pending: Option<(String, bool)> = None;
            let mut dirty = false;
            while i < events.len() && events[i].session == session {
                let e = &mut events[i];
                i += 1;
                match std::mem::replace(&mut e.fact, Fact::Prompt) {
                    Fact::Prompt => c.prompts += u64::from(e.new),
                    Fact::Advice(arg) => {
                        if let Some((_, true)) = pending.take() {
                            c.advised_unanswered += 1;
                        }
                        c.advised += u64::from(e.new);
                        pending = Some((arg, e.new));
                    }
                    Fact::Answer(model) => {
                        if e.new {
                            c.answers += 1;
                            bump(&mut c.answers_by_model, &model, 1);
                        }
                        if e.sidechain {
                            continue;
                        }
                        if let Some((arg, true)) = pending.take() {
                            if models::follows(&arg, &model, &self.config) {
                                c.followed += 1;
                            } else {
                                c.not_followed += 1;
                                if self.mismatches.len() < 4096 {
                                    *self.mismatches.entry((arg, model)).or_default() += 1;
                                }
                            }
                        }
                    }
                    Fact::ModelCommand => {
                        if e.new {
                            c.model_switches += 1;
                            c.switches_while_dirty += u64::from(dirty);
                        }
                    }
                    Fact::EffortCommand => c.effort_commands += u64::from(e.new),
                    Fact::StopState { dirty: d } => dirty = d,
                    Fact::StopRun { error, millis } => {
                        if e.new {
                            c.stop_runs += 1;
                            c.stop_errors += u64::from(error);
                            c.stop_slow += u64::from(millis > SLOW_STOP_MS);
                        }
                    }
                    Fact::Write {
                        id, in_progress, ..
                    } => {
                        let target = e.target;
                        if target == Target::Record && e.new {
                            c.record_writes += 1;
                            record_ids.insert(id.clone());
                        }
                        if !e.copied {
                            own_writes.push((session, id, target, in_progress));
                        }
                    }
                    Fact::ToolError(id) => {
                        errors.insert(id);
                    }
                }
            }
            if let Some((_, true)) = pending {
                c.advised_unanswered += 1;
            }
        }
        c.record_writes_failed += record_ids.intersection(&errors).count() as u64;
        self.counts[project] = c;
        for (session, id, target, in_progress) in own_writes {
            if errors.contains(&id) {
                continue;
            }
            let flags = self.sessions.entry(session).or_default();
            match target {
                Target::Record if in_progress => flags.record = true,
                Target::Other => flags.edited = true,
                _ => {}
            }
        }
    }

    /// The report: per project (most sessions first), totals, footer.
    pub fn finish(mut self) -> Report {
        for flags in self.sessions.values() {
            let c = &mut self.counts[flags.project];
            c.sessions += 1;
            c.sessions_with_record += u64::from(flags.record);
            c.sessions_edited_without_record += u64::from(flags.edited && !flags.record);
        }
        let mut totals = Counts::default();
        let mut projects: Vec<ProjectCounts> = self
            .folders
            .into_iter()
            .zip(self.counts)
            .filter(|(_, c)| *c != Counts::default())
            .map(|(folder, counts)| {
                totals.add(&counts);
                ProjectCounts {
                    folder: crate::text::one_line(&folder, 200).into_owned(),
                    counts,
                }
            })
            .collect();
        projects.sort_by(|a, b| {
            (b.counts.sessions, b.counts.prompts)
                .cmp(&(a.counts.sessions, a.counts.prompts))
                .then_with(|| a.folder.cmp(&b.folder))
        });
        let mut not_followed: Vec<Mismatch> = self
            .mismatches
            .into_iter()
            .map(|((advised, answered), times)| Mismatch {
                advised: crate::text::one_line(&advised, NAME_CHARS).into_owned(),
                answered: crate::text::one_line(&answered, NAME_CHARS).into_owned(),
                times,
            })
            .collect();
        not_followed.sort_by(|a, b| {
            b.times
                .cmp(&a.times)
                .then_with(|| (&a.advised, &a.answered).cmp(&(&b.advised, &b.answered)))
        });
        not_followed.truncate(5);
        let mut footer = self.footer;
        footer.tested_versions = TESTED_VERSIONS.iter().map(|v| v.to_string()).collect();
        footer.untested_versions = self
            .versions
            .iter()
            .filter(|v| !TESTED_VERSIONS.contains(&v.as_str()))
            .cloned()
            .collect();
        footer.client_versions = self.versions.into_iter().collect();
        footer.oldest = self.oldest.and_then(|ms| {
            chrono::DateTime::from_timestamp_millis(ms)
                .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        });
        Report {
            totals,
            projects,
            not_followed_by_model: not_followed,
            footer,
        }
    }
}

/// The folder under `<claude dir>/projects/` the client keeps a working
/// folder's transcripts in: every character that is not an ASCII letter
/// or digit becomes `-` (`/home/u/p` is `-home-u-p`).
pub fn project_folder_name(path: &Path) -> String {
    path.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_told_by_folder_and_name() {
        let os = Os::Linux;
        let dir = Some("/h/.local/state/gk");
        assert_eq!(
            target_of(os, dir, "/h/.local/state/gk/0b1c-2.json"),
            Target::Record
        );
        assert_eq!(
            target_of(
                os,
                dir,
                "/h/.local/state/gk/folder.0123456789abcdef0123456789abcdef.json"
            ),
            Target::Pointer
        );
        assert_eq!(
            target_of(os, dir, "/h/.claude/hooks/task_state.json"),
            Target::Record
        );
        assert_eq!(target_of(os, dir, "/p/0b1c-2.json"), Target::Other);
        assert_eq!(
            target_of(os, dir, "/h/.local/state/gk/x/a.json"),
            Target::Other
        );
        assert_eq!(
            target_of(
                Os::Windows,
                Some("C:\\Users\\u\\.local\\state\\gk"),
                "c:/users/u/.local/state/gk/ab.json"
            ),
            Target::Record
        );
    }

    fn tally() -> Tally {
        Tally::new(
            Config::default(),
            Options {
                os: Os::Linux,
                state_dir: Some("/s".into()),
                since: None,
            },
        )
    }

    fn line(kind: &str, uuid: &str, time: &str, rest: &str) -> String {
        format!(
            r#"{{"type":"{kind}","uuid":"{uuid}","sessionId":"s1","timestamp":"2026-12-01T10:00:{time}Z","version":"2.1.332",{rest}}}"#
        )
    }

    fn advice(uuid: &str, time: &str, model: &str) -> String {
        line(
            "attachment",
            uuid,
            time,
            &format!(
                r#""attachment":{{"type":"hook_system_message","hookEvent":"UserPromptSubmit","content":"GATEKEEPER\n Model : /model {model} (x; keyword 'y')"}}"#
            ),
        )
    }

    fn answer(uuid: &str, time: &str, model: &str, extra: &str) -> String {
        line(
            "assistant",
            uuid,
            time,
            &format!(
                r#"{extra}"message":{{"model":"{model}","content":[{{"type":"text","text":"x"}}]}}"#
            ),
        )
    }

    /// Lines out of time order are counted in time order; a subagent's
    /// answer is counted as an answer but does not settle the advice.
    #[test]
    fn advice_is_settled_by_the_next_answer_in_time_not_in_file_order() {
        let mut t = tally();
        let text = [
            answer("u3", "03", "claude-opus-5-5", ""),
            answer("u2", "02", "claude-haiku-4-5", r#""isSidechain":true,"#),
            advice("u1", "01", "claude-opus-5-5"),
        ]
        .join("\n");
        t.read_file("-p", text.as_bytes()).unwrap();
        let r = t.finish();
        assert_eq!(
            (r.totals.advised, r.totals.followed, r.totals.not_followed),
            (1, 1, 0)
        );
        assert_eq!(r.totals.answers, 2);
    }

    /// What a transcript holds does not grow the tally past its bounds: a
    /// 1 MiB model name or `/model` argument is kept cut to
    /// `MAX_NAME_BYTES`, and a file's facts past `MAX_FACTS` are not
    /// counted, and the file is named for it.
    #[test]
    fn long_names_are_cut_and_a_files_facts_are_bounded() {
        let mut t = tally();
        let huge = "é".repeat(1 << 19);
        let other = "ü".repeat(1 << 19);
        let text = [advice("u1", "01", &huge), answer("u2", "02", &other, "")].join("\n");
        t.read_file("-p", text.as_bytes()).unwrap();
        assert_eq!(t.mismatches.len(), 1);
        for (advised, answered) in t.mismatches.keys() {
            assert!(advised.len() <= line::MAX_NAME_BYTES && advised.starts_with('é'));
            assert!(answered.len() <= line::MAX_NAME_BYTES && answered.starts_with('ü'));
        }

        // Failed tool results are the cheapest facts: 200,000 to a line,
        // six lines.
        let block = r#"{"type":"tool_result","tool_use_id":"t","is_error":true},"#;
        let mut one = String::from(
            r#"{"type":"user","sessionId":"s1","timestamp":"2026-12-01T10:00:00Z","message":{"content":["#,
        );
        one.push_str(&block.repeat(200_000));
        one.push_str(r#"{"type":"text","text":"x"}]}}"#);
        one.push('\n');
        let mut t = tally();
        let input = (0..6).fold(Box::new(std::io::empty()) as Box<dyn Read>, |r, _| {
            Box::new(r.chain(one.as_bytes()))
        });
        let err = t.read_file("-p", input).unwrap_err();
        assert_eq!(
            err,
            format!("more than {MAX_FACTS} facts to count: the rest were not counted")
        );
    }

    /// A record write whose result is an error is counted as failed, and
    /// the session is not one that kept its record; a copy (a fork's) of
    /// a line already counted counts for nothing.
    #[test]
    fn failed_record_writes_and_copied_lines() {
        let mut t = tally();
        let write = line(
            "assistant",
            "w1",
            "01",
            r#""message":{"model":"m","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/s/s1.json","content":"{\"status\":\"in_progress\"}"}}]}"#,
        );
        let failed = line(
            "user",
            "r1",
            "02",
            r#""message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"denied"}]}"#,
        );
        let text = format!("{write}\n{failed}\n{write}\n");
        t.read_file("-p", text.as_bytes()).unwrap();
        t.read_file("-p", text.as_bytes()).unwrap();
        let r = t.finish();
        assert_eq!(r.totals.record_writes, 1);
        assert_eq!(r.totals.record_writes_failed, 1);
        assert_eq!(r.totals.sessions_with_record, 0);
        assert_eq!(r.totals.answers, 1);
    }

    /// The same advice unfollowed three times for the same model earns a
    /// suggestion naming both, and nothing else of the lines.
    #[test]
    fn a_repeated_mismatch_earns_a_suggestion() {
        let mut t = tally();
        let mut lines = Vec::new();
        for i in 0..3 {
            lines.push(advice(&format!("a{i}"), &format!("{:02}", 2 * i), "opus"));
            lines.push(answer(
                &format!("b{i}"),
                &format!("{:02}", 2 * i + 1),
                "claude-sonnet-5",
                "",
            ));
        }
        t.read_file("-p", lines.join("\n").as_bytes()).unwrap();
        let r = t.finish();
        assert_eq!(r.totals.not_followed, 3);
        let text = render::text(&r, None);
        assert!(
            text.contains("Suggestion: 3 prompts advised `/model opus` were answered by claude-sonnet-5: if that model serves, make it the rule's model (`gk rules` prints the rules to edit in gk.json)."),
            "{text}"
        );
    }

    #[test]
    fn a_project_folder_is_named_as_the_client_names_it() {
        assert_eq!(
            project_folder_name(Path::new("/tmp/gk-report.x/home/work_1")),
            "-tmp-gk-report-x-home-work-1"
        );
    }
}
