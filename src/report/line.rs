//! One transcript line to the facts the report counts. A byte prefilter
//! comes first: a line that holds none of the few markers the counted
//! kinds carry is never parsed, and the bulk kinds (`prompt_snapshot`,
//! `api-request-*`, which repeat the system prompt and whole messages)
//! are dropped by their opening bytes. What is parsed is decoded
//! leniently: only the fields read here, every one optional, anything
//! else ignored. No text of a prompt, a tool's input or a file leaves this
//! module: only kinds, ids, model names and yes/no answers about them.

use std::sync::OnceLock;

use memchr::memmem::Finder;
use serde::de::{self, IgnoredAny};
use serde::Deserialize;

/// What one line says, for the counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// A prompt the user typed (or sent with `-p`).
    Prompt,
    /// gk's prompt hook advised a model: the `/model` argument it showed.
    Advice(String),
    /// An answer, from this model (the client's own `<synthetic>` lines
    /// are not answers and give no fact).
    Answer(String),
    /// An accepted `/model` command.
    ModelCommand,
    /// An accepted `/effort` command.
    EffortCommand,
    /// gk's Stop line: whether it said a task is in progress.
    StopState { dirty: bool },
    /// A run of gk's Stop hook, as the client summed it up.
    StopRun { error: bool, millis: u64 },
    /// A file-writing tool call (`Write`, `Edit`, `MultiEdit`,
    /// `NotebookEdit`): its id, its target, and whether what it writes
    /// says `in_progress`.
    Write {
        id: String,
        path: String,
        in_progress: bool,
    },
    /// A tool's result that the client marked as an error (a failure or a
    /// denial): the call's id.
    ToolError(String),
}

/// A line's facts and where they belong.
#[derive(Debug, Default)]
pub struct Parsed {
    pub uuid: Option<String>,
    pub session: Option<String>,
    /// Milliseconds since the epoch.
    pub time: Option<i64>,
    pub version: Option<String>,
    /// A subagent's line.
    pub sidechain: bool,
    /// A copy another session's line (a fork copies its parent's lines;
    /// the client marks the copied answers with the parent's id).
    pub copied: bool,
    pub facts: Vec<Fact>,
}

/// What became of a line.
#[derive(Debug)]
pub enum Outcome {
    /// Not a kind the report counts (most lines): never parsed.
    Skipped,
    /// Parsed; may still hold no fact.
    Parsed(Parsed),
    /// Held a marker but is not JSON of the expected shape.
    Unreadable,
}

/// Markers: a line that holds none of them gives no fact.
const MARKERS: [&[u8]; 6] = [
    b"\"promptSource\"",
    b"\"type\":\"assistant\"",
    b"\"hook_system_message\"",
    b"\"stop_hook_summary\"",
    b"<command-name>/",
    b"\"is_error\":true",
];

/// Opening bytes of the bulk kinds, which repeat other lines' text.
const BULK_OPENINGS: [&[u8]; 1] = [b"{\"type\":\"api-request"];
/// Found in a line's first bytes: an attachment of bulk.
const BULK_NEAR_START: &[u8] = b"\"type\":\"prompt_snapshot\"";
const NEAR_START: usize = 256;

struct Finders {
    markers: Vec<Finder<'static>>,
    bulk: Finder<'static>,
}

fn finders() -> &'static Finders {
    static F: OnceLock<Finders> = OnceLock::new();
    F.get_or_init(|| Finders {
        markers: MARKERS.iter().map(|m| Finder::new(*m)).collect(),
        bulk: Finder::new(BULK_NEAR_START),
    })
}

/// Whether a line is worth parsing (the prefilter alone).
pub fn wanted(line: &[u8]) -> bool {
    if BULK_OPENINGS.iter().any(|o| line.starts_with(o)) {
        return false;
    }
    let f = finders();
    if f.bulk.find(&line[..line.len().min(NEAR_START)]).is_some() {
        return false;
    }
    f.markers.iter().any(|m| m.find(line).is_some())
}

/// The facts of one line.
pub fn read(line: &[u8]) -> Outcome {
    if !wanted(line) {
        return Outcome::Skipped;
    }
    let raw: Raw = match serde_json::from_slice(line) {
        Ok(r) => r,
        Err(_) => return Outcome::Unreadable,
    };
    Outcome::Parsed(facts_of(raw))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Raw {
    #[serde(rename = "type")]
    kind: Option<String>,
    subtype: Option<String>,
    uuid: Option<String>,
    #[serde(rename = "sessionId")]
    session: Option<String>,
    timestamp: Option<String>,
    version: Option<String>,
    #[serde(rename = "promptSource")]
    prompt_source: Option<String>,
    #[serde(rename = "isMeta")]
    meta: Option<bool>,
    #[serde(rename = "isSidechain")]
    sidechain: Option<bool>,
    #[serde(rename = "requestSessionId")]
    request_session: Option<String>,
    message: Option<Message>,
    attachment: Option<Attachment>,
    #[serde(rename = "hookInfos")]
    hook_infos: Option<Vec<HookInfo>>,
    #[serde(rename = "hookErrors")]
    hook_errors: Option<Vec<IgnoredAny>>,
    /// Which of `hookInfos` failed, by index (2.1.332 writes it beside
    /// `hookErrors`).
    #[serde(rename = "failedHookErrorIndexes")]
    failed_indexes: Option<Vec<u64>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message {
    model: Option<String>,
    content: Option<Content>,
}

/// `content`: a string (a prompt, a command) or a list of blocks. Of a
/// string only what the report asks is kept (whether it is a command, and
/// the command's name); a prompt's text is dropped here.
enum Content {
    Text(TextKind),
    Blocks(Vec<Block>),
}

enum TextKind {
    Command(&'static str),
    Other,
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a list of blocks")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Content, E> {
                let kind = if s.starts_with("<command-name>/model</command-name>") {
                    TextKind::Command("model")
                } else if s.starts_with("<command-name>/effort</command-name>") {
                    TextKind::Command("effort")
                } else {
                    TextKind::Other
                };
                Ok(Content::Text(kind))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Block>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Block {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    name: Option<String>,
    input: Option<ToolInput>,
    tool_use_id: Option<String>,
    is_error: Option<bool>,
}

/// Of a tool's input only the target and whether the written text says
/// `in_progress` are kept.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolInput {
    file_path: Option<String>,
    notebook_path: Option<String>,
    #[serde(deserialize_with = "says_in_progress")]
    content: bool,
    #[serde(deserialize_with = "says_in_progress")]
    new_string: bool,
}

fn says_in_progress<'de, D: de::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    struct V;
    impl<'de> de::Visitor<'de> for V {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any value")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<bool, E> {
            Ok(memchr::memmem::find(s.as_bytes(), b"in_progress").is_some())
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(false)
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(false)
        }
    }
    d.deserialize_any(V)
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Attachment {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(rename = "hookEvent")]
    hook_event: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    content: Option<String>,
}

/// A string, or nothing for any other value (`hook_additional_context`
/// carries a list).
fn lenient_string<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum S {
        Text(String),
        Other(IgnoredAny),
    }
    Ok(match S::deserialize(d)? {
        S::Text(s) => Some(s),
        S::Other(_) => None,
    })
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct HookInfo {
    command: Option<String>,
    #[serde(rename = "durationMs")]
    duration_ms: Option<f64>,
}

/// gk's Stop hook, in any of its registered spellings.
fn is_gk_stop(command: &str) -> bool {
    command.contains("hook stop") || command.contains("\"hook\",\"stop\"")
}

/// The most of a name a fact keeps (a model, an advised `/model`
/// argument, a tool call's id): real ones are a few dozen bytes. A longer
/// one is cut at a character boundary, so that what a transcript holds
/// cannot make the tally hold more than its bound.
pub const MAX_NAME_BYTES: usize = 128;

fn kept(mut s: String) -> String {
    if s.len() > MAX_NAME_BYTES {
        let mut end = MAX_NAME_BYTES;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.shrink_to_fit();
    }
    s
}

/// The `/model` argument an advice shows: `GATEKEEPER\n Model : /model
/// <argument> (…`. None when the message holds no model line.
pub fn advised_model(message: &str) -> Option<&str> {
    if !message.starts_with("GATEKEEPER") {
        return None;
    }
    let at = message.find("\n Model : /model ")? + "\n Model : /model ".len();
    let rest = &message[at..];
    let end = rest
        .find(" (")
        .or_else(|| rest.find('\n'))
        .unwrap_or(rest.len());
    let arg = rest[..end].trim();
    (!arg.is_empty()).then_some(arg)
}

/// Milliseconds since the epoch of an ISO time as the client writes it.
pub fn millis(iso: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(iso)
        .ok()
        .map(|t| t.timestamp_millis())
}

fn facts_of(raw: Raw) -> Parsed {
    let mut out = Parsed {
        time: raw.timestamp.as_deref().and_then(millis),
        sidechain: raw.sidechain == Some(true),
        copied: matches!((&raw.request_session, &raw.session), (Some(r), Some(s)) if r != s),
        ..Parsed::default()
    };
    let facts = &mut out.facts;
    match raw.kind.as_deref() {
        Some("user") => {
            let meta = raw.meta == Some(true);
            match raw.message.and_then(|m| m.content) {
                Some(Content::Text(TextKind::Command(name))) if !meta => facts.push(match name {
                    "model" => Fact::ModelCommand,
                    _ => Fact::EffortCommand,
                }),
                Some(Content::Text(TextKind::Other))
                    if !meta
                        && !out.sidechain
                        && matches!(raw.prompt_source.as_deref(), Some("typed" | "sdk")) =>
                {
                    facts.push(Fact::Prompt)
                }
                Some(Content::Blocks(blocks)) => {
                    for b in blocks {
                        if b.kind.as_deref() == Some("tool_result") && b.is_error == Some(true) {
                            if let Some(id) = b.tool_use_id {
                                facts.push(Fact::ToolError(kept(id)));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Some("assistant") => {
            let message = raw.message.unwrap_or_default();
            if let Some(model) = message
                .model
                .filter(|m| m != "<synthetic>" && !m.is_empty())
            {
                facts.push(Fact::Answer(kept(model)));
            }
            if let Some(Content::Blocks(blocks)) = message.content {
                for b in blocks {
                    let writes = matches!(
                        b.name.as_deref(),
                        Some("Write" | "Edit" | "MultiEdit" | "NotebookEdit")
                    );
                    if b.kind.as_deref() != Some("tool_use") || !writes {
                        continue;
                    }
                    let input = b.input.unwrap_or_default();
                    let Some(path) = input.file_path.or(input.notebook_path) else {
                        continue;
                    };
                    facts.push(Fact::Write {
                        id: kept(b.id.unwrap_or_default()),
                        path,
                        in_progress: input.content || input.new_string,
                    });
                }
            }
        }
        Some("attachment") => {
            let a = raw.attachment.unwrap_or_default();
            if a.kind.as_deref() == Some("hook_system_message") {
                let text = a.content.unwrap_or_default();
                match a.hook_event.as_deref() {
                    Some("UserPromptSubmit") => {
                        if let Some(arg) = advised_model(&text) {
                            facts.push(Fact::Advice(kept(arg.to_string())));
                        }
                    }
                    Some("Stop") if text.starts_with("STATE [") => facts.push(Fact::StopState {
                        dirty: text.starts_with("STATE [DIRTY]"),
                    }),
                    _ => {}
                }
            }
        }
        Some("system") if raw.subtype.as_deref() == Some("stop_hook_summary") => {
            let any_error = raw.hook_errors.is_some_and(|e| !e.is_empty());
            for (i, info) in raw.hook_infos.unwrap_or_default().into_iter().enumerate() {
                if info.command.as_deref().is_some_and(is_gk_stop) {
                    // Which hook failed, when the client says; else any
                    // error of the summary is counted against gk's.
                    let error = match &raw.failed_indexes {
                        Some(failed) => failed.contains(&(i as u64)),
                        None => any_error,
                    };
                    facts.push(Fact::StopRun {
                        error,
                        millis: info.duration_ms.unwrap_or(0.0).max(0.0) as u64,
                    });
                }
            }
        }
        _ => {}
    }
    out.uuid = raw.uuid;
    out.session = raw.session;
    out.version = raw.version;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(line: &str) -> Vec<Fact> {
        match read(line.as_bytes()) {
            Outcome::Parsed(p) => p.facts,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_advice_argument_is_the_model_line_up_to_the_reason() {
        assert_eq!(
            advised_model(
                "GATEKEEPER\n Model : /model claude-opus-5-5 (Opus 5.5; keyword 'x')\n Use for: y"
            ),
            Some("claude-opus-5-5")
        );
        assert_eq!(
            advised_model("GATEKEEPER\n Model : /model Sonnet 5 (trigger: 'default')"),
            Some("Sonnet 5")
        );
        assert_eq!(
            advised_model("GATEKEEPER\n ! [DIRTY] task in progress"),
            None
        );
        assert_eq!(advised_model("STATE [CLEAN]"), None);
    }

    #[test]
    fn bulk_lines_are_dropped_unparsed_whatever_they_hold() {
        // Both hold markers and are not JSON: a parse would count them unreadable.
        let shape = "{\"type\":\"api-request-shape\",\"x\":\"\\\"type\\\":\\\"assistant\\\" {";
        let snapshot = "{\"parentUuid\":null,\"isSidechain\":false,\"attachment\":{\"type\":\"prompt_snapshot\",\"s\":\"<command-name>/model {";
        assert!(matches!(read(shape.as_bytes()), Outcome::Skipped));
        assert!(matches!(read(snapshot.as_bytes()), Outcome::Skipped));
        assert!(matches!(
            read(b"{\"type\":\"assistant\" not json"),
            Outcome::Unreadable
        ));
        assert!(matches!(read(b"{\"type\":\"mode\"}"), Outcome::Skipped));
    }

    #[test]
    fn a_synthetic_answer_is_no_answer_and_a_fork_copy_is_marked() {
        let p = match read(br#"{"type":"assistant","sessionId":"b","requestSessionId":"a","message":{"model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}"#) {
            Outcome::Parsed(p) => p,
            other => panic!("{other:?}"),
        };
        assert!(p.facts.is_empty() && p.copied);
    }

    #[test]
    fn writes_keep_only_target_and_whether_they_say_in_progress() {
        let f = facts(
            r#"{"type":"assistant","message":{"model":"m","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/s/a.json","content":"{\"status\": \"in_progress\", \"task\": \"secret\"}"}},{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/p/x.rs","old_string":"a","new_string":"b"}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"ls"}}]}}"#,
        );
        assert_eq!(
            f,
            [
                Fact::Answer("m".into()),
                Fact::Write {
                    id: "t1".into(),
                    path: "/s/a.json".into(),
                    in_progress: true
                },
                Fact::Write {
                    id: "t2".into(),
                    path: "/p/x.rs".into(),
                    in_progress: false
                },
            ]
        );
    }

    #[test]
    fn a_failed_stop_run_is_the_one_the_client_names() {
        let summary = |failed: &str| {
            facts(&format!(
                r#"{{"type":"system","subtype":"stop_hook_summary","hookInfos":[{{"command":"other.sh","durationMs":5}},{{"command":"\"$HOME/.claude/hooks/gk\" hook stop","durationMs":1209}}],"hookErrors":["Failed"]{failed}}}"#
            ))
        };
        let run = |error| Fact::StopRun {
            error,
            millis: 1209,
        };
        assert_eq!(summary(r#","failedHookErrorIndexes":[0]"#), [run(false)]);
        assert_eq!(summary(r#","failedHookErrorIndexes":[1]"#), [run(true)]);
        assert_eq!(summary(""), [run(true)]);
    }

    #[test]
    fn unknown_fields_and_odd_values_are_ignored() {
        assert_eq!(
            facts(
                r#"{"type":"user","promptSource":"typed","extra":[1,{"a":null}],"message":{"content":"hi"}}"#
            ),
            [Fact::Prompt]
        );
        assert_eq!(
            facts(
                r#"{"type":"user","isMeta":true,"promptSource":"typed","message":{"content":"hi"}}"#
            ),
            []
        );
        assert_eq!(
            facts(
                r#"{"type":"user","message":{"content":"<command-name>/effort</command-name> <command-args>high</command-args>"}}"#
            ),
            [Fact::EffortCommand]
        );
    }
}
