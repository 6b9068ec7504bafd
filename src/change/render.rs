//! How a plan is shown: a short action list, then a unified diff per text
//! file (`similar`), with secrets masked by position before the texts are
//! diffed — values inside `env` and of any key whose name contains TOKEN,
//! KEY, SECRET or PASSWORD never reach the screen, context lines included.
//! Binaries are described (size, fingerprint, version), not diffed. Text
//! the user's files hold is escaped and bounded on the way (see
//! [`crate::text`]).

use std::fmt::Write as _;
use std::path::Path;

use similar::{ChangeTag, DiffableStr};

use crate::change::plan::{fingerprint, ChangeKind, FileChange, Plan, ReplaceStrategy};

/// Terminal colours, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// Colours on stdout: `forced` when the user said (`--color
    /// always|never`), else when stdout is a terminal and `NO_COLOR` is
    /// unset or empty.
    pub fn for_stdout(forced: Option<bool>, env: &crate::env::Env) -> Style {
        let color = forced.unwrap_or_else(|| {
            env.var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && env.stdout_is_terminal()
        });
        Style { color }
    }

    /// `text` in the SGR colour `code` when colouring, else as it is.
    pub fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// The plan's action list: one line per folder and per file that
/// changes, the files already up to date, and whether backups are kept
/// (or the one line saying there is nothing to do). Shown at the top of
/// the plan, and again right before the question when the diffs are long.
pub fn summary(plan: &Plan, style: Style) -> String {
    let mut out = String::new();
    let pending = plan
        .changes
        .iter()
        .filter(|c| c.changes_something())
        .count();
    if plan.is_empty_of_changes() {
        let idle = plan
            .idle
            .as_deref()
            .unwrap_or("nothing to do, every file is up to date");
        let _ = writeln!(out, "{}: {idle}.", plan.title);
        return out;
    }
    let folders = match plan.folders.len() {
        0 => String::new(),
        1 => " and 1 folder".to_string(),
        n => format!(" and {n} folders"),
    };
    let _ = writeln!(
        out,
        "{} will change {} file{}{folders}:",
        plan.title,
        pending,
        if pending == 1 { "" } else { "s" }
    );
    for folder in &plan.folders {
        let (label, why) = match folder.mode {
            None => (
                style.paint("32", &format!("{:<9}", "create")),
                // Windows has no mode: the folder takes the rights of the
                // profile it is in, which only its user (and administrators) read.
                if cfg!(unix) {
                    "private to you: 0700".to_string()
                } else {
                    "private to you, as your profile is".to_string()
                },
            ),
            Some(m) => (
                style.paint("33", &format!("{:<9}", "private")),
                format!("mode {m:o} -> 700: others could read the task records"),
            ),
        };
        let _ = writeln!(
            out,
            "  {label} {}{}  ({why})",
            shown_path(&folder.path),
            std::path::MAIN_SEPARATOR
        );
    }
    for dir in &plan.empty_folders {
        let _ = writeln!(
            out,
            "  {} {}{}  (when nothing else is left in it)",
            style.paint("31", &format!("{:<9}", "remove")),
            shown_path(dir),
            std::path::MAIN_SEPARATOR
        );
    }
    for change in plan.changes.iter().filter(|c| c.changes_something()) {
        let kind = change.kind();
        let label = format!("{:<9}", kind.label());
        let label = match kind {
            ChangeKind::Create => style.paint("32", &label),
            ChangeKind::Remove => style.paint("31", &label),
            _ => style.paint("33", &label),
        };
        let _ = write!(out, "  {label} {}", shown_path(&change.path));
        if !change.reason.is_empty() {
            let _ = write!(out, "  ({})", crate::text::one_line(&change.reason, 1_000));
        }
        out.push('\n');
    }
    let same: Vec<&FileChange> = plan
        .changes
        .iter()
        .filter(|c| !c.changes_something() && c.old.is_some())
        .collect();
    if !same.is_empty() {
        out.push_str(&style.paint("2", "already up to date:"));
        out.push('\n');
        for change in same {
            let _ = writeln!(out, "  {}", shown_path(&change.path));
        }
    }
    if !plan.keep_backups {
        out.push_str("no backups are kept of these files\n");
    }
    out
}

/// The whole plan as it is shown to the user: the action list
/// ([`summary`]), then diffs.
pub fn render(plan: &Plan, style: Style) -> String {
    let mut out = summary(plan, style);
    if plan.is_empty_of_changes() {
        return out;
    }
    // A backup is removed, never shown: its name does not end in .json, so
    // its secrets would not be masked, and its text is no news.
    let shown =
        |c: &&FileChange| c.changes_something() && !crate::change::backup::is_backup(&c.path);
    let (mut diffs, mut not_shown) = (0usize, 0usize);
    for change in plan.changes.iter().filter(shown) {
        if diffs >= MAX_PLAN_DIFF_BYTES {
            not_shown += 1;
            continue;
        }
        out.push('\n');
        let text = if change.binary {
            describe_binary_change(change)
        } else {
            render_text_diff(change, style)
        };
        diffs += text.len();
        out.push_str(&text);
    }
    if not_shown > 0 {
        let _ = writeln!(
            out,
            "\n... the diffs of {not_shown} more file{} not shown (at most {} of diff per plan; every file is listed above)",
            if not_shown == 1 { "" } else { "s" },
            crate::bounded::size_text(MAX_PLAN_DIFF_BYTES as u64),
        );
    }
    out
}

/// Size, fingerprint and (when it can be found) version of each side.
fn describe_binary_change(change: &FileChange) -> String {
    let mut out = format!(
        "{} (program, not shown as a diff)\n",
        shown_path(&change.path)
    );
    if let Some(old) = &change.old {
        let _ = writeln!(out, "  now:   {}", describe_binary(old));
    }
    match &change.new {
        Some(new) => {
            let _ = writeln!(out, "  after: {}", describe_binary(new));
        }
        None => out.push_str("  after: removed\n"),
    }
    if change.strategy == ReplaceStrategy::MoveAsideFirst && change.old.is_some() {
        out.push_str("  the current copy is moved aside first (it may be running)\n");
    }
    if change.strategy == ReplaceStrategy::RemoveUnlessRunning {
        out.push_str("  a copy an earlier run moved aside; kept while it still runs\n");
    }
    out
}

pub fn describe_binary(bytes: &[u8]) -> String {
    let version = crate::version::embedded_version(bytes)
        .map(|v| format!("gk {v}"))
        .unwrap_or_else(|| "version unknown".to_string());
    format!(
        "{} bytes, fingerprint {:016x}, {version}",
        bytes.len(),
        fingerprint(bytes)
    )
}

/// Up to this many lines (both sides together) a diff is Myers' over the
/// whole file, as any diff tool shows it; its cost grows with the lines
/// times the lines changed, which stays small at this size.
const EXACT_LINES: usize = 8_000;

/// The line operations turning `old` into `new`. Files of ordinary size get
/// Myers' minimal diff. Myers on a large change is quadratic (removing
/// 10,000 entries, 90,000 lines, took minutes), so a large file is first
/// cut at the lines that occur exactly once in each text and keep their
/// order (patience anchors, a longest increasing run: every untouched entry
/// of another tool is such a line); between anchors, a gap of ordinary size
/// gets Myers and a larger one is shown as its lines going and the new
/// ones coming (after their common start and end). Always a true diff of
/// the two texts, the same for the same texts, and near linear in them.
fn line_ops(old: &[&str], new: &[&str]) -> Vec<similar::DiffOp> {
    use similar::{capture_diff, Algorithm, DiffOp};
    if old.len() + new.len() <= EXACT_LINES {
        return capture_diff(Algorithm::Myers, old, 0..old.len(), new, 0..new.len());
    }
    let mut ops = Vec::new();
    let gap = |o: std::ops::Range<usize>, n: std::ops::Range<usize>, ops: &mut Vec<DiffOp>| {
        if o.len() + n.len() <= EXACT_LINES {
            ops.extend(capture_diff(Algorithm::Myers, old, o, new, n));
            return;
        }
        let same_start = old[o.clone()]
            .iter()
            .zip(&new[n.clone()])
            .take_while(|(a, b)| a == b)
            .count();
        let (o, n) = (o.start + same_start..o.end, n.start + same_start..n.end);
        let same_end = old[o.clone()]
            .iter()
            .rev()
            .zip(new[n.clone()].iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        if same_start > 0 {
            ops.push(DiffOp::Equal {
                old_index: o.start - same_start,
                new_index: n.start - same_start,
                len: same_start,
            });
        }
        let (o_end, n_end) = (o.end - same_end, n.end - same_end);
        if o.start < o_end {
            ops.push(DiffOp::Delete {
                old_index: o.start,
                old_len: o_end - o.start,
                new_index: n.start,
            });
        }
        if n.start < n_end {
            ops.push(DiffOp::Insert {
                old_index: o_end,
                new_index: n.start,
                new_len: n_end - n.start,
            });
        }
        if same_end > 0 {
            ops.push(DiffOp::Equal {
                old_index: o_end,
                new_index: n_end,
                len: same_end,
            });
        }
    };
    let (mut o, mut n) = (0, 0);
    for (ao, an) in unique_anchors(old, new) {
        gap(o..ao, n..an, &mut ops);
        ops.push(DiffOp::Equal {
            old_index: ao,
            new_index: an,
            len: 1,
        });
        (o, n) = (ao + 1, an + 1);
    }
    gap(o..old.len(), n..new.len(), &mut ops);
    merge_equal_runs(ops)
}

/// Pairs `(old index, new index)` of lines that occur exactly once in each
/// text, the longest chain of them increasing on both sides.
fn unique_anchors(old: &[&str], new: &[&str]) -> Vec<(usize, usize)> {
    use std::collections::HashMap;
    // line → (times in old, index in old, times in new, index in new)
    let mut seen: HashMap<&str, (u32, usize, u32, usize)> = HashMap::new();
    for (i, l) in old.iter().enumerate() {
        let e = seen.entry(l).or_insert((0, i, 0, 0));
        e.0 += 1;
    }
    for (i, l) in new.iter().enumerate() {
        if let Some(e) = seen.get_mut(l) {
            e.2 += 1;
            e.3 = i;
        }
    }
    let mut pairs: Vec<(usize, usize)> = seen
        .into_values()
        .filter(|e| e.0 == 1 && e.2 == 1)
        .map(|e| (e.1, e.3))
        .collect();
    pairs.sort_unstable();
    // Longest increasing subsequence of the new indices (patience sorting).
    let mut tails: Vec<usize> = Vec::new(); // index into pairs of each pile's top
    let mut back: Vec<Option<usize>> = vec![None; pairs.len()];
    for (i, &(_, n)) in pairs.iter().enumerate() {
        let pile = tails.partition_point(|&t| pairs[t].1 < n);
        back[i] = pile.checked_sub(1).map(|p| tails[p]);
        if pile == tails.len() {
            tails.push(i);
        } else {
            tails[pile] = i;
        }
    }
    let mut chain = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(i) = at {
        chain.push(pairs[i]);
        at = back[i];
    }
    chain.reverse();
    chain
}

/// Adjacent equal runs joined into one, so hunks group as for one diff.
fn merge_equal_runs(ops: Vec<similar::DiffOp>) -> Vec<similar::DiffOp> {
    use similar::DiffOp;
    let mut out: Vec<DiffOp> = Vec::with_capacity(ops.len());
    for op in ops {
        if let (Some(DiffOp::Equal { len: prev, .. }), DiffOp::Equal { len, .. }) =
            (out.last_mut(), &op)
        {
            *prev += len;
            continue;
        }
        out.push(op);
    }
    out
}

/// The most bytes of one side of a text file that is diffed: as much as
/// gk reads of a settings file (`bounded::TEXT_LIMIT`), so a crowded
/// settings file still shows what changes. A larger side is described
/// (its size), not diffed. What is shown of a diff is bounded below;
/// the diffing itself holds a few copies of one file at a time.
pub const MAX_DIFF_INPUT_BYTES: usize = crate::bounded::TEXT_LIMIT as usize;
/// The most diff lines shown per file; the rest are counted.
pub const MAX_DIFF_LINES: usize = 1_000;
/// The most bytes of diff shown per file; the rest are counted.
pub const MAX_DIFF_BYTES: usize = 64 << 10;
/// The most characters of one diff line shown (after escaping).
pub const MAX_DIFF_LINE_CHARS: usize = 1_000;
/// The most bytes of diff shown for a whole plan; later files are only
/// listed (the action list above names every one).
pub const MAX_PLAN_DIFF_BYTES: usize = 1 << 20;

/// A path or a reason as shown in a plan: one line (a file name may hold a
/// newline or an escape).
pub(crate) fn shown_path(path: &Path) -> String {
    crate::text::one_line(&path.display().to_string(), 1_000).into_owned()
}

/// The diff of one text file, as `git diff` shows it: every line escaped
/// ([`crate::text::escaped`]: a control character or escape sequence in a
/// file is shown, never sent to the terminal), and bounded by the limits
/// above, with a line saying what was left out.
fn render_text_diff(change: &FileChange, style: Style) -> String {
    let shown = shown_path(&change.path);
    let (a, b) = match change.kind() {
        ChangeKind::Create => ("(new file)".to_string(), shown.clone()),
        ChangeKind::Remove => (shown.clone(), "(removed)".to_string()),
        _ => (shown.clone(), shown.clone()),
    };
    let mut out = String::new();
    out.push_str(&style.paint("1", &format!("--- {a}")));
    out.push('\n');
    out.push_str(&style.paint("1", &format!("+++ {b}")));
    out.push('\n');
    let size = |side: &Option<Vec<u8>>| side.as_ref().map_or(0, Vec::len);
    let (old_size, new_size) = (size(&change.old), size(&change.new));
    if old_size.max(new_size) > MAX_DIFF_INPUT_BYTES {
        let side = |n: usize, present: bool| {
            if present {
                crate::bounded::size_text(n as u64)
            } else {
                "none".to_string()
            }
        };
        let _ = writeln!(
            out,
            "(not shown: larger than {} -- {} now, {} after)",
            crate::bounded::size_text(MAX_DIFF_INPUT_BYTES as u64),
            side(old_size, change.old.is_some()),
            side(new_size, change.new.is_some()),
        );
        return out;
    }
    let old = masked_text(&change.path, change.old.as_deref());
    let new = masked_text(&change.path, change.new.as_deref());
    let old_lines = old.tokenize_lines();
    let new_lines = new.tokenize_lines();
    let ops = line_ops(&old_lines, &new_lines);
    let (mut lines, start) = (0usize, out.len());
    let mut left_out = 0usize;
    for hunk in similar::group_diff_ops(ops, 3) {
        if lines >= MAX_DIFF_LINES || out.len() - start >= MAX_DIFF_BYTES {
            left_out += hunk
                .iter()
                .map(|op| op.iter_changes(&old_lines, &new_lines).count())
                .sum::<usize>();
            continue;
        }
        let header = similar::udiff::UnifiedHunkHeader::new(&hunk);
        out.push_str(&style.paint("36", &header.to_string()));
        out.push('\n');
        for change in hunk
            .iter()
            .flat_map(|op| op.iter_changes(&old_lines, &new_lines))
        {
            if lines >= MAX_DIFF_LINES || out.len() - start >= MAX_DIFF_BYTES {
                left_out += 1;
                continue;
            }
            lines += 1;
            let value: &str = change.value();
            let line = value.trim_end_matches(['\n', '\r']);
            let (sign, code) = match change.tag() {
                ChangeTag::Delete => ("-", Some("31")),
                ChangeTag::Insert => ("+", Some("32")),
                ChangeTag::Equal => (" ", None),
            };
            let text = format!("{sign}{}", diff_line(line));
            match code {
                Some(code) => out.push_str(&style.paint(code, &text)),
                None => out.push_str(&text),
            }
            out.push('\n');
            if !value.ends_with(['\r', '\n']) {
                out.push_str("\\ no newline at end of file\n");
            }
        }
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "... {left_out} more diff line{} not shown (at most {MAX_DIFF_LINES} lines or {} per file)",
            if left_out == 1 { "" } else { "s" },
            crate::bounded::size_text(MAX_DIFF_BYTES as u64),
        );
    }
    out
}

/// One line of a diff as shown: escaped, and cut past
/// [`MAX_DIFF_LINE_CHARS`] with the number of characters left out.
fn diff_line(line: &str) -> String {
    let shown = crate::text::escaped(line);
    match shown.char_indices().nth(MAX_DIFF_LINE_CHARS) {
        None => shown.into_owned(),
        Some((at, _)) => {
            let rest = shown[at..].chars().count();
            format!("{}... ({rest} more characters)", &shown[..at])
        }
    }
}

/// The text to show for one side of a change: secrets masked when the file
/// is JSON, invalid UTF-8 replaced.
fn masked_text(path: &Path, bytes: Option<&[u8]>) -> String {
    let Some(bytes) = bytes else {
        return String::new();
    };
    let text = String::from_utf8_lossy(bytes);
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        mask_secrets(&text)
    } else {
        text.into_owned()
    }
}

/// The replacement shown for a secret value.
pub const MASK: &str = "\"********\"";

/// Does a key name mark its value as secret?
pub fn is_secret_key(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "TOKEN",
        "KEY",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
    ]
    .iter()
    .any(|w| upper.contains(w))
}

/// Secret values shorter than this are not hunted for elsewhere in a text:
/// they would blank out ordinary words and numbers ("true", "8080").
const MIN_QUOTED_SECRET_CHARS: usize = 6;

/// Replace every scalar value inside `env`, or under a key whose name looks
/// secret, with [`MASK`]. Works on positions found by a tolerant parse, so
/// everything else in the text stays as it was and two masked texts diff
/// line for line like the originals. A text that does not parse at all is
/// masked line by line with a cruder rule (any line naming a secret key or
/// inside an `env` block loses everything after its first colon).
pub fn mask_secrets(text: &str) -> String {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let parsed = jsonc_parser::parse_to_ast(
        body,
        &jsonc_parser::CollectOptions::default(),
        &jsonc_parser::ParseOptions::default(),
    );
    let value = match parsed {
        Ok(result) => result.value,
        Err(_) => return format!("{bom}{}", mask_lines(body)),
    };
    let mut ranges = Vec::new();
    if let Some(value) = &value {
        collect_secret_ranges(value, false, &mut ranges);
    }
    ranges.sort_by_key(|r: &(usize, usize)| r.0);
    // The same values quoted anywhere else in the file (another tool's hook
    // command carrying the proxy password, say) are hidden too: as written
    // in the file, i.e. with JSON escapes.
    let quoted: Vec<&str> = ranges
        .iter()
        .filter(|(start, end)| body[*start..*end].starts_with('"') && end - start >= 2)
        .map(|(start, end)| &body[start + 1..end - 1])
        .filter(|inner| inner.chars().count() >= MIN_QUOTED_SECRET_CHARS)
        .collect();
    // All of them sought in one pass (a file can hold thousands of `env`
    // values and thousands of strings: one search each would be quadratic).
    let as_written = searcher(&quoted);
    // A value spelt with other escapes there (`https:\/\/…` in `env`, the
    // plain URL in a command; a `\u0061` for an `a`) is not found as
    // written: a string whose decoded text holds a secret's decoded text,
    // and no spelling of it as written, is hidden whole.
    if let (Some(value), Some(written)) = (&value, &as_written) {
        let mut strings = Vec::new();
        collect_strings(value, &mut strings);
        let is_secret = |r: (usize, usize)| ranges.binary_search_by_key(&r.0, |s| s.0).is_ok();
        let decoded: Vec<&str> = strings
            .iter()
            .filter(|(r, text)| is_secret(*r) && text.chars().count() >= MIN_QUOTED_SECRET_CHARS)
            .map(|(_, text)| *text)
            .collect();
        if let Some(by_value) = searcher(&decoded) {
            let inside = |r: (usize, usize)| {
                let i = ranges.partition_point(|s| s.0 <= r.0);
                i > 0 && ranges[i - 1].1 >= r.1
            };
            let whole: Vec<(usize, usize)> = strings
                .iter()
                .filter(|(r, text)| {
                    !inside(*r) && by_value.is_match(*text) && !written.is_match(&body[r.0..r.1])
                })
                .map(|(r, _)| *r)
                .collect();
            if !whole.is_empty() {
                ranges.extend(whole);
                ranges.sort_by_key(|r| r.0);
            }
        }
    }
    let mut out = String::with_capacity(body.len());
    let mut at = 0;
    for (start, end) in ranges {
        if start < at {
            continue;
        }
        out.push_str(&body[at..start]);
        out.push_str(MASK);
        at = end;
    }
    out.push_str(&body[at..]);
    if let Some(written) = &as_written {
        let inner = &MASK[1..MASK.len() - 1];
        out = written.replace_all(&out, &vec![inner; quoted.len()]);
    }
    format!("{bom}{out}")
}

/// One search for all of `patterns` (the longest first where they
/// overlap), or `None` for none.
fn searcher(patterns: &[&str]) -> Option<aho_corasick::AhoCorasick> {
    if patterns.is_empty() {
        return None;
    }
    aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .build(patterns)
        .ok()
}

/// Every string value in `value` (not the keys): its range and its
/// decoded text.
fn collect_strings<'a>(
    value: &'a jsonc_parser::ast::Value<'a>,
    out: &mut Vec<((usize, usize), &'a str)>,
) {
    use jsonc_parser::ast::Value;
    match value {
        Value::Object(obj) => {
            for prop in &obj.properties {
                collect_strings(&prop.value, out);
            }
        }
        Value::Array(arr) => {
            for el in &arr.elements {
                collect_strings(el, out);
            }
        }
        Value::StringLit(s) => out.push(((s.range.start, s.range.end), s.value.as_ref())),
        _ => {}
    }
}

fn collect_secret_ranges(
    value: &jsonc_parser::ast::Value,
    secret: bool,
    out: &mut Vec<(usize, usize)>,
) {
    use jsonc_parser::ast::Value;
    match value {
        Value::Object(obj) => {
            for prop in &obj.properties {
                let name = prop.name.as_str();
                let inner = secret || name == "env" || is_secret_key(name);
                collect_secret_ranges(&prop.value, inner, out);
            }
        }
        Value::Array(arr) => {
            for el in &arr.elements {
                collect_secret_ranges(el, secret, out);
            }
        }
        Value::StringLit(s) if secret => out.push((s.range.start, s.range.end)),
        Value::NumberLit(n) if secret => out.push((n.range.start, n.range.end)),
        Value::BooleanLit(b) if secret => out.push((b.range.start, b.range.end)),
        _ => {}
    }
}

/// Fallback for text that does not parse: hide the value part of every line
/// that names a secret key or sits inside an `"env"` block.
fn mask_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut env_depth: Option<i32> = None;
    for line in text.split_inclusive('\n') {
        let (content, ending) = split_ending(line);
        let key = content
            .trim_start()
            .strip_prefix('"')
            .and_then(|r| r.split('"').next())
            .unwrap_or("");
        let inside_env = env_depth.is_some();
        let hide = inside_env || is_secret_key(key);
        if key == "env" && env_depth.is_none() {
            env_depth = Some(0);
        }
        if let Some(depth) = env_depth.as_mut() {
            *depth += content.matches('{').count() as i32;
            *depth -= content.matches('}').count() as i32;
            if *depth <= 0 && (inside_env || content.contains('}')) {
                env_depth = None;
            }
        }
        match content.find(':') {
            Some(colon) if hide => {
                out.push_str(&content[..=colon]);
                out.push(' ');
                out.push_str(MASK);
            }
            _ => out.push_str(content),
        }
        out.push_str(ending);
    }
    out
}

fn split_ending(line: &str) -> (&str, &str) {
    if let Some(c) = line.strip_suffix("\r\n") {
        (c, "\r\n")
    } else if let Some(c) = line.strip_suffix('\n') {
        (c, "\n")
    } else {
        (line, "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `new`, rebuilt from `old` and the ops (panics on an op that does
    /// not fit).
    fn apply(ops: &[similar::DiffOp], old: &[&str], new: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        let mut next_old = 0;
        for op in ops {
            assert_eq!(op.old_range().start, next_old, "{op:?}");
            next_old = op.old_range().end;
            for c in op.iter_changes(old, new) {
                if c.tag() != ChangeTag::Delete {
                    out.push(c.value().to_string());
                }
            }
        }
        assert_eq!(next_old, old.len());
        out
    }

    #[test]
    fn ordinary_files_get_the_usual_minimal_diff() {
        let old = "a\nb\nc\nd\n\ne\nf\n";
        let new = "a\nc\nd\nX\n\ne\nf";
        let (o, n) = (old.tokenize_lines(), new.tokenize_lines());
        let ours = line_ops(&o, &n);
        let theirs = similar::TextDiff::from_lines(old, new).ops().to_vec();
        assert_eq!(ours, theirs);
        assert_eq!(apply(&ours, &o, &n), n);
    }

    #[test]
    fn a_large_removal_keeps_other_entries_as_context_and_is_a_true_diff() {
        let entry = |cmd: &str| format!("    {{\n      \"command\": \"{cmd}\"\n    }},\n");
        let mut old = String::from("{\n");
        let mut new = String::from("{\n  \"added\": 1,\n");
        for i in 0..20_000 {
            let tool = entry(&format!("tool-{i}"));
            old.push_str(&tool);
            new.push_str(&tool);
            if i % 2 == 0 {
                old.push_str(&entry("gk hook prompt"));
            }
        }
        old.push_str("}\n");
        new.push_str("}\n");
        let (o, n) = (old.tokenize_lines(), new.tokenize_lines());
        let ops = line_ops(&o, &n);
        assert_eq!(apply(&ops, &o, &n), n);
        let deleted: Vec<&str> = ops
            .iter()
            .flat_map(|op| op.iter_changes(&o, &n))
            .filter(|c| c.tag() == ChangeTag::Delete)
            .map(|c| c.value())
            .collect();
        assert!(
            deleted.iter().all(|l| !l.contains("tool-")),
            "tool lines deleted"
        );
        assert_eq!(
            deleted.iter().filter(|l| l.contains("gk hook")).count(),
            10_000
        );
    }

    #[test]
    fn env_values_and_secret_keys_are_masked_keys_kept() {
        let text = "{\n  \"env\": {\n    \"HTTPS_PROXY\": \"http://u:pw@proxy:8080\",\n    \"N\": 3\n  },\n  \"apiKeyHelper\": \"/bin/key\",\n  \"model\": \"opus\"\n}\n";
        let masked = mask_secrets(text);
        assert!(!masked.contains("pw@proxy"));
        assert!(!masked.contains("/bin/key"));
        assert!(masked.contains("\"HTTPS_PROXY\": \"********\""));
        assert!(masked.contains("\"N\": \"********\""));
        assert!(masked.contains("\"model\": \"opus\""));
        assert_eq!(masked.lines().count(), text.lines().count());
    }

    #[test]
    fn nested_secret_objects_are_masked_and_bom_kept() {
        let text = "\u{feff}{\"login\":{\"password\":{\"x\":\"hunter2\"},\"user\":\"me\"}}";
        let masked = mask_secrets(text);
        assert!(masked.starts_with('\u{feff}'));
        assert!(!masked.contains("hunter2"));
        assert!(masked.contains("\"user\":\"me\""));
    }

    #[test]
    fn unparseable_text_is_masked_line_by_line() {
        let text = "{\n  // comment\n  \"env\": {\n    \"A\": \"s3cr3t\",\n  },\n  \"GITHUB_TOKEN\": \"abc\",\n  \"ok\": 1\n";
        let masked = mask_lines(text);
        assert!(!masked.contains("s3cr3t"));
        assert!(!masked.contains("abc"));
        assert!(masked.contains("\"ok\": 1"));
    }

    #[test]
    fn kinds_follow_old_and_new() {
        let mut c = FileChange::text("/x", None, Some("a".into()), "");
        assert_eq!(c.kind(), ChangeKind::Create);
        c.old = Some(b"a".to_vec());
        assert_eq!(c.kind(), ChangeKind::NothingToDo);
        c.new = None;
        assert_eq!(c.kind(), ChangeKind::Remove);
        c.new = Some(b"b".to_vec());
        assert_eq!(c.kind(), ChangeKind::Edit);
        c.binary = true;
        assert_eq!(c.kind(), ChangeKind::ReplaceBinary);
    }

    #[test]
    fn diff_of_masked_texts_shows_no_secret_in_context_lines() {
        let old = "{\n  \"env\": {\n    \"TOKEN\": \"abc123\"\n  }\n}\n".to_string();
        let new =
            "{\n  \"env\": {\n    \"TOKEN\": \"abc123\"\n  },\n  \"hooks\": {}\n}\n".to_string();
        let change = FileChange::text("/c/settings.json", Some(old), Some(new), "");
        let shown = render_text_diff(&change, Style { color: false });
        assert!(!shown.contains("abc123"), "{shown}");
        assert!(shown.contains("+  \"hooks\": {}"), "{shown}");
    }

    #[test]
    fn env_values_quoted_elsewhere_are_masked_there_too() {
        let text = "{\n  \"env\": {\"PROXY_PW\": \"hunter2-xyz\", \"DEBUG\": \"1\"},\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify --pw hunter2-xyz --debug 1\"}]}]}\n}\n";
        let masked = mask_secrets(text);
        assert!(!masked.contains("hunter2-xyz"), "{masked}");
        assert!(
            masked.contains("notify --pw ******** --debug 1"),
            "{masked}"
        );
        assert_eq!(masked.lines().count(), text.lines().count());
    }

    /// The same value spelt with other escapes in `env` and in a command
    /// (`\/` for `/`, `\u0061` for `a`, either way round) is not found as
    /// written; the command is hidden whole rather than shown.
    #[test]
    fn env_values_quoted_elsewhere_with_other_escapes_are_masked_there_too() {
        let text = r#"{
  "env": {"HOOK": "https:\/\/hooks.example.com\/T01\/xyzSECRET", "KEY": "sk-ant-\u0061bcdefgh"},
  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "curl -X POST https://hooks.example.com/T01/xyzSECRET"}]}],
    "PreToolUse": [{"hooks": [{"type": "command", "command": "tool --key sk-ant-abcdefgh"}]}],
    "PostToolUse": [{"hooks": [{"type": "command", "command": "other --key sk-ant-\u0061bcdefgh"}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "say https:\u002f\u002fhooks.example.com/T01/xyzSECRET"}]}]}
}
"#;
        let masked = mask_secrets(text);
        for shown in ["xyzSECRET", "abcdefgh", "\\u0061bcdefgh"] {
            assert!(!masked.contains(shown), "{shown}: {masked}");
        }
        // Spelt as in `env`: only the value is hidden, as before.
        assert!(masked.contains("other --key ********"), "{masked}");
        // Spelt otherwise: the whole command.
        assert!(masked.contains(r#""command": "********""#), "{masked}");
        assert_eq!(masked.lines().count(), text.lines().count());
    }
    #[test]
    fn credential_like_key_names_are_masked() {
        for key in ["dbPasswd", "AWS_CREDENTIALS", "proxyAuth"] {
            let masked = mask_secrets(&format!("{{\"{key}\": \"v-123456\"}}"));
            assert!(!masked.contains("v-123456"), "{key}: {masked}");
        }
    }
}
